"""The walrus ``(n := expr)`` on tensors: in an ``if`` test, a statement or a loop body it works traced as
in Python; where the converter must leave the expression as Python (a walrus inside ``and``/``or``, a
branch of ``a if c else b`` or a comprehension) a symbolic tensor there is an error naming the variable,
the user's line and the fix; a walrus in a tensor ``while`` test that changes a loop variable is a
StateError naming it."""
import pytest

import autograph_lite as ag
import runtime as rt
from tests.converted_forms import FORMS, in_form
from tests.user_errors import raises


def in_if_test(x):
    if (y := x * 2) > 3:
        r = y + 1
    else:
        r = y - 1
    return r, y


def in_a_statement(x):
    z = (w := x + 1) * w
    return z


def in_loop_body(n):
    total = 0
    for v in range(n):
        if (s := v * 2) > 2:
            total += s
    return total


def in_and(x):
    if x > 0 and (y := x * 3) > 5:
        return y
    return x


def in_if_else(x):
    return (y := x + 1) if x > 0 else -x


def in_comprehension(xs):
    return [y for v in xs if (y := v * 2) > 2]


def in_while_test(n):
    i = 0
    total = 0
    while (i := i + 1) < n:
        total += i
    return total


def _values(result):
    return [int(v) for v in result] if isinstance(result, (tuple, list)) else int(result)


@pytest.mark.parametrize('function, value', [(in_if_test, 2), (in_if_test, 1), (in_a_statement, 2),
                                             (in_loop_body, 4), (in_loop_body, 0)])
def test_works_traced_as_in_python(function, value):
    expected = _values(function(value))
    for form in FORMS:
        assert _values(in_form(form, ag.to_graph(function), value)) == expected   # Python values
    assert _values(ag.to_graph(function)(rt.constant(value))) == expected    # eager tensor
    assert _values(ag.function(function)(rt.constant(value))) == expected    # graph


@pytest.mark.parametrize('function, value', [(in_and, 2), (in_and, 1), (in_and, -1), (in_if_else, 2), (in_if_else, -2),
                                             (in_comprehension, [1, 2, 3]), (in_while_test, 4)])
def test_python_values_and_eager_tensors_keep_python_semantics(function, value):
    expected = _values(function(value))
    for form in FORMS:
        assert _values(in_form(form, ag.to_graph(function), value)) == expected
    assert _values(ag.to_graph(function)(rt.constant(value))) == expected


@pytest.mark.parametrize('function, construct, fix, line', [
    (in_and, '`and`', 'Assign y in a statement before it (`y = ...`)', 'if x > 0 and'),
    (in_if_else, '`a if c else b`', 'Assign y in a statement before it', 'return (y := x + 1)'),
    (in_comprehension, 'comprehension', 'Write it without :=', 'return [y for v'),
])
def test_left_as_python_a_symbolic_tensor_is_a_clear_error(function, construct, fix, line):
    value = rt.constant([1, 2, 3]) if function is in_comprehension else rt.constant(2)
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(function), (value,),
           f"this {construct} assigns 'y' with :=, so it stays Python's own {construct}", fix, at=line)


def test_the_guard_in_generated_code():
    assert "ag__.walrus_guard(x > 0, 'and', ('y',)) and (y := (x * 3)) > 5" in ag.to_code(in_and)


def test_walrus_in_a_tensor_while_test_names_the_variable():
    raises(rt.errors.StateError, ag.function(in_while_test), (rt.constant(4),),
           "the condition of a tensor-dependent while loop changes 'i'", '`while True:`',
           at='while (i := i + 1) < n')
