"""Issue 23: a list a tensor loop only item-assigns (never grows or shrinks), a tuple it rebuilds and a dict whose
keys it keeps are structures of loop variables, as in TensorFlow: one loop variable per element, returned as a
Python list/tuple/dict of tensors. (A list the loop grows or shrinks is a tensor list: test_staged_lists.py.)
Graph == eager (the original function) with exact values; exact trace counts; aliases refused by name."""
import numpy as np

import autograph_lite as ag
import runtime as rt
from user_errors import raises
from both_modes import eager


def values(result):
    """A structure of tensors as plain Python numbers (the same structure)."""
    if isinstance(result, dict):
        return {key: values(item) for key, item in result.items()}
    if isinstance(result, (list, tuple)):
        return type(result)(values(item) for item in result)
    return np.asarray(result).tolist()


def same_in_graph_and_eagerly(function, args, expected, traces=1):
    staged = ag.function(function)
    graph_result = staged(*args)
    assert values(graph_result) == expected
    assert values(eager(staged, *args)) == expected
    assert staged.experimental_get_tracing_count() == traces
    return graph_result


def countdown_bumping_first(x):
    a, b = rt.constant(1), rt.constant(2)
    y = [a, b]
    while x > 0:
        x -= 1
        y[0] += 1
    return y


def test_a_list_only_item_assigned_is_a_structure_of_loop_variables_and_can_be_returned():
    result = same_in_graph_and_eagerly(countdown_bumping_first, (rt.constant(3),), [4, 2])
    assert type(result) is list and all(isinstance(item, rt.Tensor) for item in result)
    assert values(ag.function(countdown_bumping_first)(rt.constant(0))) == [1, 2]
    # its elements keep their static shapes (a tensor list would have lost them)
    assert [item.shape for item in result] == [(), ()]


def swap_and_scale(n):
    pair = [rt.constant([1.0, 2.0]), rt.constant([3.0, 4.0])]
    for i in rt.range(n):
        pair[0], pair[1] = pair[1] * 2.0, pair[0]
    return pair


def test_item_assignment_by_unpacking_in_a_for_loop():
    same_in_graph_and_eagerly(swap_and_scale, (rt.constant(3),), [[12.0, 16.0], [2.0, 4.0]])


def python_numbers_become_loop_variables(n):
    counts = [0, 0, 0]
    for i in rt.range(n):
        counts[2] += i
        counts[0] = counts[0] + 1
    return counts


def tensor_index(n):
    counts = [0, 0, 0]
    for i in rt.range(n):
        counts[i % 3] = i
    return rt.stack(counts)


def test_python_numbers_become_loop_variables_and_a_tensor_index_makes_a_tensor_list():
    same_in_graph_and_eagerly(python_numbers_become_loop_variables, (rt.constant(4),), [4, 0, 6])
    # a Python list cannot be indexed by a tensor: the loop carries it as a tensor list (test_staged_lists.py)
    same_in_graph_and_eagerly(tensor_index, (rt.constant(7),), [6, 4, 5])


def nested_loops_item_assign(n):
    acc = [rt.constant(0), rt.constant(0)]
    for i in rt.range(n):
        for j in rt.range(i):
            acc[1] += j
        acc[0] += i
    return acc


def test_item_assignment_in_nested_tensor_loops():
    same_in_graph_and_eagerly(nested_loops_item_assign, (rt.constant(4),), [6, 4])


def item_assigned_then_grown(n):
    xs = [rt.constant(0)]
    for i in rt.range(n):
        xs[0] += i
        xs.append(i)
    return rt.stack(xs)


def test_a_list_item_assigned_and_grown_is_still_a_tensor_list():
    same_in_graph_and_eagerly(item_assigned_then_grown, (rt.constant(3),), [3, 0, 1, 2])


def tuple_rebuilt(x):
    y = (rt.constant(1), rt.constant(2.5))
    while x > 0:
        x -= 1
        y = (y[0] + 1, y[1] * 2.0)
    return y


def dict_with_fixed_keys(x):
    d = {'count': rt.constant(1), 'scale': rt.constant(2.0)}
    while x > 0:
        x -= 1
        d['count'] += 1
        d['scale'] = d['scale'] * 2.0
    return d


def test_a_rebuilt_tuple_and_a_dict_with_fixed_keys_are_structures_of_loop_variables():
    assert type(same_in_graph_and_eagerly(tuple_rebuilt, (rt.constant(3),), (4, 20.0))) is tuple
    assert type(same_in_graph_and_eagerly(dict_with_fixed_keys, (rt.constant(3),),
                                          {'count': 4, 'scale': 16.0})) is dict


def aliased_list(x):
    y = [rt.constant(1), rt.constant(2)]
    alias = y
    while x > 0:
        x -= 1
        y[0] += 1
    return alias


def borrowed_list(x, y):
    while x > 0:
        x -= 1
        y[0] += 1
    return y


def test_an_item_assigned_list_another_holder_may_see_is_refused_at_the_users_line():
    raises(rt.errors.StateError, ag.function(aliased_list), (rt.constant(2),),
           "the list 'y' is changed in a tensor-dependent loop that makes it a new list, but another name of this "
           "function may refer to the same list", "`alias = list(y)`", at="y[0] += 1")
    raises(rt.errors.StateError, ag.function(borrowed_list), (rt.constant(2), [rt.constant(1)]),
           "the list 'y' is changed in a tensor-dependent loop that makes it a new list, but code outside this "
           "function may hold the list", "`y = list(y)` before the loop", at="y[0] += 1")


def element_changes_dtype(x):
    y = [rt.constant(1), rt.constant(2)]
    while x > 0:
        x -= 1
        y[0] = rt.cast(y[0], rt.float32)
    return y


def element_becomes_a_string(x):
    y = [rt.constant(1), rt.constant(2)]
    while x > 0:
        x -= 1
        y[1] = 'two'
    return y


def test_an_element_the_loop_gives_another_dtype_or_a_python_object_is_refused_naming_it():
    raises(rt.errors.StateError, ag.function(element_changes_dtype), (rt.constant(2),),
           "'y' (element [0]) starts as int32 but the body makes it float32")
    raises(rt.errors.StateError, ag.function(element_becomes_a_string), (rt.constant(2),),
           "'y' is a list of (a tensor of dtype int32 and shape (), a tensor of dtype int32 and shape ()) before a "
           "tensor-dependent loop but a list of (a tensor of dtype int32 and shape (), a Python str) after an "
           "iteration")


def item_assigned_then_aliased_in_a_branch(n):
    xs = [1, 2, 3]
    for i in range(n):
        xs[0] = 5
    if n > 1:
        ys = xs
        ys[2] = 9
    return xs[2]


def test_an_alias_made_after_the_loop_sees_a_tensor_ifs_change():
    # The loop leaves a Python list (it was a tensor list, and the alias a StateError): the if writes its
    # merged values back into the same list, so both names see them, as in Python.
    same_in_graph_and_eagerly(item_assigned_then_aliased_in_a_branch, (rt.constant(2),), 9)
    same_in_graph_and_eagerly(item_assigned_then_aliased_in_a_branch, (rt.constant(1),), 3)
