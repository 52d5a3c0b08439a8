"""A tensor list (a Python list that a tensor loop appended to) or a TensorArray as a condition means
``len(xs) > 0``, as for a Python list: ``if xs:`` is staged as an If, ``while xs:`` as a While."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


def branch_on_list(n):
    xs = []
    for i in range(n):
        xs.append(i * 10)
    if xs:
        result = xs[-1] + 1
    else:
        result = -1
    return result


def conditions_on_list(n):
    xs = []
    for i in range(n):
        xs.append(i + 1)
    empty = not xs
    picked = 7 if xs else 8
    both = xs and n > 1
    either = xs or n > 5
    return empty, picked, both, either


def drain(n):
    xs = []
    for i in range(n):
        xs.append(i + 1)
    total = 0
    while xs:
        last = xs.pop()  # a pop inside a larger expression is not converted (converters/lists.py)
        total += last
    return total


def drain_until_big(n):
    xs = []
    for i in range(n):
        xs.append(i + 1)
    total = 0
    while xs:
        last = xs.pop()
        if last < 3:
            break
        total += last
    return total


def op_types(function, spec):
    graph = ag.function(function).get_concrete_function(spec).graph
    return [op.type for op in graph.operations]


@pytest.mark.parametrize("n", [0, 3])
def test_if_on_a_tensor_list_is_len_greater_than_zero(n):
    got = ag.function(branch_on_list)(rt.constant(n))
    assert int(got) == branch_on_list(n) == (-1 if n == 0 else 21)
    assert "If" in op_types(branch_on_list, rt.TensorSpec([], rt.int32))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_not_if_exp_and_or_on_a_tensor_list(n):
    got = ag.function(conditions_on_list)(rt.constant(n))
    expected = conditions_on_list(n)
    assert [bool(np.asarray(got[0])), int(got[1])] == [expected[0], expected[1]]
    # A Python list as left operand of and/or gives the list; a staged one gives the truth value.
    assert bool(np.asarray(got[2])) == bool(expected[2])
    assert bool(np.asarray(got[3])) == bool(expected[3])


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_on_a_tensor_list_pops_until_empty(n):
    assert int(ag.function(drain)(rt.constant(n))) == drain(n) == n * (n + 1) // 2
    assert op_types(drain, rt.TensorSpec([], rt.int32)).count("While") == 2


@pytest.mark.parametrize("n", [0, 2, 5])
def test_while_on_a_tensor_list_with_a_break(n):
    assert int(ag.function(drain_until_big)(rt.constant(n))) == drain_until_big(n) == max(0, sum(range(3, n + 1)))


def test_if_on_a_tensor_array_is_its_size_greater_than_zero():
    def written(n):
        ta = rt.TensorArray(rt.int32, size=n)
        return 1 if ta else 0

    assert [int(ag.function(written)(rt.constant(n))) for n in (0, 2)] == [0, 1]


@pytest.mark.parametrize("xs", [[], [5], [1, 2, 3]])
def test_python_lists_keep_python_truthiness(xs):
    def on_python_list(values):
        flags = (not values, 'yes' if values else 'no', values and 'right', values or 'other')
        if values:
            flags += ('if',)
        count = 0
        while values:
            values = values[1:]
            count += 1
        return flags, count

    converted = ag.to_graph(on_python_list)
    assert converted(list(xs)) == on_python_list(list(xs))


def test_a_python_while_whose_list_becomes_a_tensor_list_names_it():
    def grows(n):
        xs = [1]
        while xs:
            for i in range(n):
                xs.append(i)
        return 0

    message = "but 'xs' became a tensor list .*Make xs a tensor list before the loop"
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=message):
        ag.function(grows)(rt.constant(2))


ENABLED = rt.Variable(False, name="enabled")


def gated(x):
    if ENABLED:
        x = x * 2.0
    return x + 1.0 if ENABLED and x > 0 else x - 1.0


@pytest.mark.parametrize("jit_compile", [None, True])
def test_a_bool_variable_as_a_condition_is_staged_and_read_on_every_call(jit_compile):
    # `if flag:` on a bool Variable was an OperatorNotAllowedInGraphError (its read is a symbolic tensor, tested as a
    # Python bool); TensorFlow stages it as a cond, as any tensor condition
    if jit_compile:
        pytest.importorskip("jax")
    traced = ag.function(gated, jit_compile=jit_compile)
    for enabled, expected in ((False, 2.0), (True, 7.0), (False, 2.0)):
        ENABLED.assign(enabled)
        assert traced(rt.constant(3.0)).numpy() == expected == gated(rt.constant(3.0)).numpy()
    assert len(traced.concrete_functions) == 1   # one graph reads the Variable on each call
