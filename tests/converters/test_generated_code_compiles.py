"""Generated code is always valid Python (bug class 2): a name assigned in a branch that returns and
again later must still have a binding for the body functions' ``nonlocal`` declarations."""
import pytest

import autograph_lite as ag
from autograph_lite import conversion
from tests.support.both_modes import converted_equals_original, graph_equals_python


def g(c, data):
    if c is not None:
        t, ssd = data
        return ssd
    if not data:
        ssd = 0
    else:
        ssd = 1
    return ssd


def in_a_loop(xs):
    for x in xs:
        if x < 0:
            y = -x
            return y
        if x > 10:
            y = 10
        else:
            y = x
        xs = xs[1:]
    return len(xs)


def while_then_if(n):
    while n > 3:
        k = n
        n -= 1
        if k == 5:
            return k
    if n % 2:
        k = 1
    else:
        k = 2
    return k + n


def nested_user_function(flag):
    def inner(v):
        if v:
            w = 1
            return w
        if v is None:
            w = 2
        else:
            w = 3
        return w
    return inner(flag)


@pytest.mark.parametrize('args', [(None, [1, 2]), (1, [1, 2]), (None, []), (None, [0])])
def test_early_return_then_reassigned_in_both_branches(args):
    converted_equals_original(g, *args)


@pytest.mark.parametrize('xs', [[1, 2], [-3, 1], [11, 5, 12], []])
def test_early_return_in_a_loop_then_reassigned(xs):
    converted_equals_original(in_a_loop, xs)


@pytest.mark.parametrize('n', [0, 4, 5, 9])
def test_early_return_in_a_while_then_reassigned_on_python_values_and_tensors(n):
    converted_equals_original(while_then_if, n)
    graph_equals_python(while_then_if, n)


@pytest.mark.parametrize('flag', [True, None, False])
def test_in_a_nested_user_function(flag):
    converted_equals_original(nested_user_function, flag)


def test_every_conversion_of_the_suite_goes_through_the_compile_check():
    assert [observer.__name__ for observer in conversion.conversion_observers] == ['compile_to_code_output']
    for function in (g, in_a_loop, while_then_if, nested_user_function):
        compile(ag.to_code(function), function.__name__, 'exec')
