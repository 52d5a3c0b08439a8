"""A tensor-dependent choice between two existing lists (``buf = evens if c else odds``, or ``buf = evens`` /
``buf = odds`` in the branches of an if) that the function then changes in place (``buf.append(v)``): staged,
the choice merges both lists into a new one, which the change would reach instead of either, so it is a
StateError naming the variable and the user's line. Reading the picked list stays allowed, and the same
functions on Python values run as Python."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from test_user_programs import plain, run_three_ways
from user_errors import raises


def split_by_conditional_expression(values):
    evens, odds = [], []
    for v in values:
        buf = evens if v % 2 == 0 else odds
        buf.append(v)
    return len(evens), len(odds)


def split_by_if_statement(values):
    evens, odds = [], []
    for v in values:
        if v % 2 == 0:
            buf = evens
        else:
            buf = odds
        buf.append(v)
    return len(evens), len(odds)


def pick_by_conditional_expression(x):
    a, b = [1], [2]
    buf = a if x > 0 else b
    buf.append(3)
    return len(a), len(b)


def pick_by_if_statement(x):
    a, b = [1], [2]
    if x > 0:
        buf = a
    else:
        buf = b
    buf.append(3)
    return len(a), len(b)


def pick_a_dict(x):
    a, b = {'k': 1}, {'k': 2}
    if x > 0:
        d = a
    else:
        d = b
    d['k'] = 5
    return a['k'], b['k']


def pick_with_a_count_by_conditional_expression(x):
    a, b = [1], [2]
    buf, n = (a, 1) if x > 0 else (b, 2)
    buf.append(3)
    return len(a) * 10 + len(b) + n


def pick_with_a_count_by_if_statement(x):
    a, b = [1], [2]
    if x > 0:
        buf, n = a, 1
    else:
        buf, n = b, 2
    buf.append(3)
    return len(a) * 10 + len(b) + n


def read_with_a_count(x):
    a, b = [1], [5]
    buf, n = (a, 1) if x > 0 else (b, 2)
    return buf[0] * 10 + n


def _message(kind, construct):
    return (f"'{{name}}' is one of two different {kind}s picked by a tensor-dependent {construct}, and this function "
            f"then changes '{{name}}' in place (e.g. `{{name}}.append(...)`). A tensor-dependent choice cannot pick one "
            f"of two {kind}s: the graph builds a new {kind} from both, so the change would reach neither of them. "
            f"Change each {kind} under its own condition instead (`if c: a.append(v)` / `else: b.append(v)`), or "
            f"keep one list of (key, value) pairs, or choose the values with rt.where")


VALUES = rt.constant(np.array([1, 2, 3, 4, 5], dtype=np.int32))


@pytest.mark.parametrize('function, args, name, kind, construct, at', [
    (split_by_conditional_expression, (VALUES,), 'buf', 'list',
     'conditional expression (`evens if v % 2 == 0 else odds`)', 'buf = evens if'),
    (split_by_if_statement, (VALUES,), 'buf', 'list', 'if', 'if v % 2 == 0'),
    (pick_by_conditional_expression, (rt.constant(1),), 'buf', 'list', 'conditional expression (`a if x > 0 else b`)',
     'buf = a if'),
    (pick_by_if_statement, (rt.constant(1),), 'buf', 'list', 'if', 'if x > 0'),
    (pick_a_dict, (rt.constant(1),), 'd', 'dict', 'if', 'if x > 0'),
    # The list picked inside a tuple that is unpacked (was silently 12 where Python gives 22).
    (pick_with_a_count_by_conditional_expression, (rt.constant(1),), 'buf', 'list',
     'conditional expression (`(a, 1) if x > 0 else (b, 2)`)', 'buf, n = (a, 1) if'),
    (pick_with_a_count_by_if_statement, (rt.constant(1),), 'buf', 'list', 'if', 'if x > 0'),
])
def test_a_tensor_choice_of_a_container_changed_in_place_is_a_state_error(function, args, name, kind, construct, at):
    raises(rt.errors.StateError, ag.function(function), args, _message(kind, construct).format(name=name), at=at)


@pytest.mark.parametrize('function, args, expected', [
    (split_by_conditional_expression, ([1, 2, 3, 4, 5],), (2, 3)),
    (split_by_if_statement, ([1, 2, 3, 4, 5],), (2, 3)),
    (pick_by_conditional_expression, (1,), (2, 1)),
    (pick_by_conditional_expression, (-1,), (1, 2)),
    (pick_by_if_statement, (-1,), (1, 2)),
    (pick_a_dict, (1,), (5, 2)),
    (pick_with_a_count_by_conditional_expression, (1,), 22),
    (pick_with_a_count_by_if_statement, (-1,), 14),
])
def test_on_python_values_the_choice_runs_as_python(function, args, expected):
    assert function(*args) == expected
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), *args) == expected, form
    assert plain(ag.function(function)(*args)) == expected


def read_by_conditional_expression(x):
    a, b = [1, 2], [3, 4]
    w = a if x > 0 else b
    return w[0] + w[1]


def read_by_if_statement(x):
    a, b = [1, 2], [3, 4]
    if x > 0:
        w = a
    else:
        w = b
    return w[0] + w[1]


def read_in_a_loop(values):
    evens, odds = [10], [20]
    total = 0
    for v in values:
        buf = evens if v % 2 == 0 else odds
        total += buf[0]
    return total


@pytest.mark.parametrize('function', [read_by_conditional_expression, read_by_if_statement])
def test_reading_the_picked_list_gives_pythons_values(function):
    for x in (5, -5):
        assert run_three_ways(function, rt.constant(x)) == function(x) == (3 if x > 0 else 7)


def test_reading_the_picked_list_in_a_tensor_loop_gives_pythons_values():
    assert run_three_ways(read_in_a_loop, VALUES) == read_in_a_loop([1, 2, 3, 4, 5]) == 80


def test_a_temporary_assigned_in_both_branches_then_rebound_in_a_tensor_loop():
    # Each iteration calls the loop body anew: `y` has no value there before the if (it was a NameError).
    def shifted(values):
        s = 0
        for v in values:
            if v > 0:
                y = v
            else:
                y = -v
            y = y + 1
            s += y
        return s

    assert run_three_ways(shifted, rt.constant(np.array([1, -2, 3], dtype=np.int32))) == shifted([1, -2, 3]) == 9


def test_reading_a_list_picked_inside_a_tuple_gives_pythons_values():
    for x in (1, -1):
        assert run_three_ways(read_with_a_count, rt.constant(x)) == read_with_a_count(x) == (11 if x > 0 else 52)
