"""A ``while`` whose test starts as a Python value and becomes a symbolic tensor in the body cannot be
a Python loop nor a graph loop: a clear error names the variable, the loop's line and the fix
(bug class 12: it ended quietly)."""
import pytest

import autograph_lite as ag
import runtime as rt
from tests.support.both_modes import graph_equals_python
from tests.support.user_errors import raises


def becomes_tensor(x):
    c = True
    while c:
        c = rt.constant(True)
    return x


def do_while_on_a_tensor_condition(x):
    done = False
    while not done:
        x = x * 2
        done = x > 100
    return x


def counter_against_a_tensor_bound(x, n):
    i = 0
    limit = 3
    while i < limit:
        i += 1
        limit = n
    return i


def made_a_tensor_first(x):
    done = rt.constant(False)
    while not done:
        x = x * 2
        done = x > 100
    return x


def python_condition_with_tensor_state(x):
    i = 0
    while i < 3:        # stays a Python loop: unrolled into the graph
        x = x + i
        i += 1
    return x


ERROR = rt.errors.OperatorNotAllowedInGraphError


def test_the_issue_repro_names_the_variable_the_line_and_the_fix():
    raises(ERROR, ag.function(becomes_tensor), (rt.constant(1),),
           "'c' became a symbolic tensor in the loop body", "Make c a tensor before the loop", at='while c:')


def test_do_while_pattern():
    raises(ERROR, ag.function(do_while_on_a_tensor_condition), (rt.constant(3),),
           "'done' became a symbolic tensor", "Make done a tensor before the loop", at='while not done:')


def test_a_python_counter_compared_with_a_bound_that_becomes_a_tensor():
    raises(ERROR, ag.function(counter_against_a_tensor_bound), (rt.constant(1), rt.constant(5)),
           "'limit' became a symbolic tensor", at='while i < limit:')


@pytest.mark.parametrize('x', [3, 200])
def test_the_fix_works(x):
    graph_equals_python(made_a_tensor_first, x)


@pytest.mark.parametrize('x', [0, 5])
def test_a_python_test_over_tensor_state_stays_a_python_loop(x):
    graph_equals_python(python_condition_with_tensor_state, x)


def test_on_python_values_nothing_changes():
    assert ag.to_graph(do_while_on_a_tensor_condition)(3) == do_while_on_a_tensor_condition(3) == 192
    assert ag.to_graph(counter_against_a_tensor_bound)(1, 5) == 5
