"""A list or dict that a tensor-dependent loop (or an if whose branches leave different lengths) would replace
by a new object, while code outside the function may hold the old one (role ``borrowed``,
converters/containers/origins.py): the caller's list, an attribute's, a global's, one from another container,
one handed to other code before the loop. Python changes the one object, so that holder sees the change; a
staged loop cannot (its values exist only in the graph). Was silent (the holder kept the old list); now a
StateError naming the variable, at the user's lines, saying why and how to fix. Lists the function made
itself are not affected, and the fix (`acc = list(acc)`, then return it) gives Python's values.

Python values: both forms of the converted function give Python's result (Python loops, nothing staged)."""
import inspect

import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from test_user_programs import plain, run_three_ways
from user_errors import full_message, line_of

GLOBAL_LIST = []


class Holder:
    def __init__(self):
        self.items = []


# --- where the list comes from ---------------------------------------------------------------------------
def appends_to_parameter(x, acc, n):
    for i in range(n):
        acc.append(x)
    return len(acc) + n * 0


def caller_reads_its_own_list(x, n):
    acc = []
    appends_to_parameter(x, acc, n)
    return len(acc) + n * 0      # Python: n


def appends_to_attribute_list(x, holder, n):
    items = holder.items
    for i in range(n):
        items.append(x)
    return len(holder.items) + n * 0


def appends_to_global_list(x, n):
    xs = GLOBAL_LIST
    for i in range(n):
        xs.append(x)
    return len(GLOBAL_LIST) + n * 0


def appends_to_list_from_container(x, n):
    lists = [[], []]
    xs = lists[0]
    for i in range(n):
        xs.append(x)
    return len(lists[0]) + n * 0


def appends_after_storing_in_attribute(x, holder, n):
    xs = []
    holder.items = xs
    for i in range(n):
        xs.append(x)
    return len(holder.items) + n * 0


def appends_after_putting_in_a_list(x, n):
    xs = []
    outer = [xs]
    for i in range(n):
        xs.append(x)
    return len(outer[0]) + n * 0


def changes_dict_parameter(x, d, n):
    for i in range(n):
        d['total'] = d['total'] + x
    return d['total']


def appends_in_one_branch_to_parameter(x, acc):
    if x > 0:
        acc.append(x)
    return len(acc) + x * 0


def _message(name, kind='list', construct='loop', becomes='makes it a tensor list, a new object'):
    return (f"the {kind} '{name}' is changed in a tensor-dependent {construct} that {becomes}, but code outside "
            f"this function may hold the {kind}: it is a parameter (the caller's {kind}), or comes from an "
            f"attribute, a global, a call or another container, or was stored or passed elsewhere before the "
            f"{construct} ended. That holder would keep the old {kind} without the {construct}'s changes (their "
            f"values exist only in the graph, so they cannot be written back into it). Work on a copy, "
            f"`{name} = {kind}({name})` before the {construct}, and return it; or create the {kind} in this function")


def _raises_at(function, args, message, *lines):
    """``function(*args)`` (an ag.function) raises exactly StateError with ``message``, listing each of ``lines``
    ((user function, text of its line)) as a frame of user code."""
    with pytest.raises(rt.errors.StateError) as info:
        function(*args)
    assert type(info.value) is rt.errors.StateError
    assert str(info.value) == message
    text = full_message(info.value)
    for user_function, at in lines:
        assert f'File "{inspect.getsourcefile(user_function)}", line {line_of(user_function, at)}' in text, text
    assert 'autograph_lite/' not in text and 'runtime/' not in text, text


def test_the_callers_list_is_an_error_at_the_loop_and_the_call():
    _raises_at(ag.function(caller_reads_its_own_list), (rt.constant(1.0), rt.constant(3)), _message('acc'),
               (caller_reads_its_own_list, 'appends_to_parameter(x, acc, n)'), (appends_to_parameter, 'for i in'))
    # the same function called by the user with a list of theirs
    _raises_at(ag.function(appends_to_parameter), (rt.constant(1.0), [], rt.constant(3)), _message('acc'),
               (appends_to_parameter, 'for i in'))


@pytest.mark.parametrize('function, args, name', [
    (appends_to_attribute_list, (rt.constant(1.0), Holder(), rt.constant(3)), 'items'),
    (appends_to_global_list, (rt.constant(1.0), rt.constant(3)), 'xs'),
    (appends_to_list_from_container, (rt.constant(1.0), rt.constant(3)), 'xs'),
    (appends_after_storing_in_attribute, (rt.constant(1.0), Holder(), rt.constant(3)), 'xs'),
    (appends_after_putting_in_a_list, (rt.constant(1.0), rt.constant(3)), 'xs'),
])
def test_a_list_held_elsewhere_is_an_error_naming_it(function, args, name):
    _raises_at(ag.function(function), args, _message(name), (function, 'for i in'))
    assert GLOBAL_LIST == []    # nothing was left in the global


def test_a_dict_parameter_a_loop_carries_and_a_list_an_if_makes_a_tensor_list():
    _raises_at(ag.function(changes_dict_parameter), (rt.constant(1.0), {'total': rt.constant(0.0)}, rt.constant(3)),
               _message('d', 'dict', becomes='makes it a new dict'), (changes_dict_parameter, 'for i in'))
    _raises_at(ag.function(appends_in_one_branch_to_parameter), (rt.constant(1.0), []),
               _message('acc', construct='if'), (appends_in_one_branch_to_parameter, 'if x > 0'))


@pytest.mark.parametrize('function, make_args, python', [
    (caller_reads_its_own_list, lambda: (1.0, 3), 3),
    (appends_to_attribute_list, lambda: (1.0, Holder(), 3), 3),
    (appends_to_list_from_container, lambda: (1.0, 3), 3),
    (appends_after_storing_in_attribute, lambda: (1.0, Holder(), 3), 3),
    (appends_after_putting_in_a_list, lambda: (1.0, 3), 3),
    (changes_dict_parameter, lambda: (1.0, {'total': 0.0}, 3), 3.0),
    (appends_in_one_branch_to_parameter, lambda: (1.0, []), 1),
])
def test_on_python_values_both_forms_give_pythons_result(function, make_args, python):
    assert function(*make_args()) == python
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), *make_args()) == python, form


def test_the_generated_code_gives_the_role():
    code = ag.to_code(appends_to_parameter)
    assert ("ag__.for_stmt(ag__.converted_call(range, (n,), None), None, loop_body, get_state,\n"
            "                  set_state, ('acc',), roles={'acc': 'borrowed'})") in code


# --- what stays as it was ---------------------------------------------------------------------------------
def copies_the_parameter(x, acc, n):
    acc = list(acc)
    for i in range(n):
        acc.append(x)
    return rt.stack(acc)


def copies_the_parameter_by_slicing(x, acc, n):
    xs = acc[:]
    for i in range(n):
        xs.append(x)
    return rt.stack(xs), len(acc)


def own_list_read_before_and_passed_after(x, n):
    xs = [x]
    first = len(xs)
    for i in range(n):
        xs.append(x * 2.0)
    stacked = rt.stack(xs)
    return stacked, first + n * 0


def own_list_handed_out_after_the_loop(x, n):
    xs = []
    for i in range(n):
        xs.append(x)
    holder = Holder()
    holder.items = xs        # after the loop: the tensor list itself
    return rt.stack(holder.items)


def parameter_list_changed_in_both_branches(x, acc):
    if x > 0:
        acc[0] = x
    else:
        acc[0] = -x
    return acc[0]


def caller_reads_list_changed_by_if(x):
    acc = [rt.constant(0.0)]
    parameter_list_changed_in_both_branches(x, acc)
    return acc[0]


def test_own_lists_and_copies_work_as_before():
    for n in (3, 0):
        assert run_three_ways(copies_the_parameter, rt.constant(1.5), [rt.constant(0.5)], rt.constant(n)) == \
            [0.5] + [1.5] * n
        assert run_three_ways(own_list_read_before_and_passed_after, rt.constant(1.0), rt.constant(n)) == \
            ([1.0] + [2.0] * n, 1)
    assert run_three_ways(own_list_handed_out_after_the_loop, rt.constant(2.0), rt.constant(2)) == [2.0, 2.0]
    assert run_three_ways(copies_the_parameter_by_slicing, rt.constant(1.5), [rt.constant(0.5)], rt.constant(2)) == \
        ([0.5, 1.5, 1.5], 1)
    for form in FORMS:
        assert plain(in_form(form, ag.to_graph(copies_the_parameter), 1.5, [0.5], 2)) == [0.5, 1.5, 1.5]
    code = ''.join(ag.to_code(f) for f in (own_list_read_before_and_passed_after, copies_the_parameter,
                                           copies_the_parameter_by_slicing))
    assert 'borrowed' not in code


def split_by_parity(xs):
    evens, odds = [], []          # two new lists, bound by one unpacking assignment
    for x in xs:
        if x % 2 == 0:
            evens.append(x)
        else:
            odds.append(x)
    return rt.stack(evens), rt.stack(odds)


def unpacks_the_parameter_and_a_new_list(x, acc, n):
    held, fresh = acc, []         # `held` is the caller's list; `fresh` is new
    for i in range(n):
        fresh.append(x)
    return rt.stack(fresh), len(held)


def test_lists_made_by_an_unpacking_assignment_are_own():
    # `evens, odds = [], []` was borrowed: the unpacking converter's ag__.unpack((...)) hid the new lists
    assert run_three_ways(split_by_parity, rt.constant([1, 2, 3, 4, 5])) == ([2, 4], [1, 3, 5])
    assert run_three_ways(unpacks_the_parameter_and_a_new_list, rt.constant(1.5), [rt.constant(0.5)],
                          rt.constant(2)) == ([1.5, 1.5], 1)
    code = ag.to_code(split_by_parity) + ag.to_code(unpacks_the_parameter_and_a_new_list)
    assert 'borrowed' not in code


def test_an_if_that_keeps_the_length_writes_into_the_callers_list():
    # same length on both paths: the merged values go back into the same object, which the caller reads
    for x, expected in ((2.0, 2.0), (-3.0, 3.0)):
        assert run_three_ways(caller_reads_list_changed_by_if, rt.constant(x)) == expected


def returns_early_then_appends(x, n, early):
    xs = [x]
    if early:              # a Python bool: the function ends here with xs as it is
        return xs, 0
    for i in range(n):
        xs.append(x)
    return rt.stack(xs), 1


def test_a_list_returned_before_the_loop_is_not_handed_out():
    code = ag.to_code(returns_early_then_appends)
    assert 'borrowed' not in code and 'retval_ = (xs, 0)' in code
    stacked, tag = ag.function(returns_early_then_appends)(rt.constant(2.0), rt.constant(3), False)
    assert plain(stacked) == [2.0] * 4 and int(tag) == 1
    assert plain(ag.function(returns_early_then_appends)(rt.constant(2.0), rt.constant(3), True)) == ([2.0], 0)


# --- appending to a list that is not a local variable ----------------------------------------------------
def appends_to_attribute_in_loop(x, holder, n):
    for i in range(n):
        holder.items.append(x)
    return len(holder.items) + n * 0      # Python: n; was 1 (the trace's append), silently


def appends_to_global_in_branch(x):
    if x > 0:
        GLOBAL_LIST.append(x * 2)
    return x


def appends_to_local_copy_then_stores(x, holder, n):
    items = list(holder.items)
    for i in range(n):
        items.append(x)
    holder.items = items
    return rt.stack(holder.items)


def appends_python_values_to_attribute(x, holder, n):
    for i in range(n):
        holder.items.append('step')      # no tensor: Python's append (once while tracing, like print)
    return x + rt.cast(n, rt.float32) * 0.0


def _append_message(text):
    return (f"'{text}.append(...)' in a tensor-dependent loop or if appends a tensor to a list that is not a local "
            f"variable of this function (an attribute's, a global's or another container's list), which the loop "
            f"or if cannot carry: the append would run once, while tracing, and leave a tensor of the loop body or "
            f"branch in the list. Append to a local list and store it afterwards (`items = list({text})` before the "
            f"loop or if, `items.append(...)` in it, `{text} = items` after it)")


def test_appending_a_tensor_to_a_list_that_is_not_local_in_a_staged_construct_is_an_error():
    holder = Holder()
    _raises_at(ag.function(appends_to_attribute_in_loop), (rt.constant(1.0), holder, rt.constant(3)),
               _append_message('holder.items'), (appends_to_attribute_in_loop, 'holder.items.append(x)'))
    assert holder.items == []
    _raises_at(ag.function(appends_to_global_in_branch), (rt.constant(1.0),), _append_message('GLOBAL_LIST'),
               (appends_to_global_in_branch, 'GLOBAL_LIST.append(x * 2)'))
    assert GLOBAL_LIST == []
    assert "ag__.append_outside(holder.items, 'holder.items', x)" in ag.to_code(appends_to_attribute_in_loop)


def test_appending_to_a_list_that_is_not_local_where_nothing_is_staged_is_pythons_append():
    for form in FORMS:
        holder = Holder()
        assert in_form(form, ag.to_graph(appends_to_attribute_in_loop), 1.0, holder, 3) == 3, form
        assert holder.items == [1.0] * 3
    holder = Holder()
    assert plain(ag.function(appends_python_values_to_attribute)(rt.constant(1.0), holder, rt.constant(2))) == 1.0
    assert holder.items == ['step']      # traced once
    holder = Holder()
    assert plain(ag.function(appends_to_local_copy_then_stores)(rt.constant(1.5), holder, rt.constant(2))) == [1.5,
                                                                                                            1.5]
    assert isinstance(holder.items, rt.TensorList)   # the function's own result, a value of its graph
