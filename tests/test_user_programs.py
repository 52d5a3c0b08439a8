"""Realistic user programs with tensor-dependent control flow, end to end through ``ag.function``.

Each program runs three ways on the same tensors - as a graph, under ``run_functions_eagerly(True)``
and converted-but-eager (``ag.to_graph``) - and all three must agree with the expected value; where the
program also makes sense on Python values, the converted function must agree with the original.
"""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


@pytest.fixture(autouse=True)
def graph_mode():
    ag.run_functions_eagerly(False)
    yield
    ag.run_functions_eagerly(False)


def plain(value):
    """Tensors -> nested Python lists/numbers, keeping tuples/lists/dicts, so results compare with ==."""
    if isinstance(value, (tuple, list)):
        return type(value)(plain(item) for item in value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, rt.Tensor):
        return value.numpy().tolist()
    return value


def run_three_ways(function, *args, **kwargs):
    """Graph, forced-eager and converted results of ``function(*args)``; asserts they agree, returns one."""
    graph_function = ag.function(function)
    graph = plain(graph_function(*args, **kwargs))
    ag.run_functions_eagerly(True)
    try:
        forced_eager = plain(graph_function(*args, **kwargs))
    finally:
        ag.run_functions_eagerly(False)
    converted = plain(ag.to_graph(function)(*args, **kwargs))
    assert graph == forced_eager == converted, (graph, forced_eager, converted)
    return graph


def same_on_python_values(function, *args):
    expected = function(*args)
    assert ag.to_graph(function)(*args) == expected
    return expected


# --- structured loop and branch state ------------------------------------------------------------------
def count_up_in_a_dict(x):
    d = {'a': x, 'b': x * 2}
    while d['a'] < 10:
        d = {'a': d['a'] + 1, 'b': d['b'] + 2}
    return d


def test_dict_as_while_loop_state():
    assert run_three_ways(count_up_in_a_dict, rt.constant(3)) == {'a': 10, 'b': 20}
    assert same_on_python_values(count_up_in_a_dict, 3) == {'a': 10, 'b': 20}


def pick_a_dict(x):
    d = {'value': x, 'flag': 0}
    if x > 0:
        d = {'value': x + 1, 'flag': 1}
    return d


@pytest.mark.parametrize("x, expected", [(3, {'value': 4, 'flag': 1}), (-3, {'value': -3, 'flag': 0})])
def test_dict_as_if_state(x, expected):
    assert run_three_ways(pick_a_dict, rt.constant(x)) == expected
    assert same_on_python_values(pick_a_dict, x) == expected


# --- chained comparisons ------------------------------------------------------------------------------
def in_open_interval(x, high):
    if 0 < x < high:
        return 1
    return 0


@pytest.mark.parametrize("x, expected", [(5, 1), (0, 0), (10, 0), (-3, 0)])
def test_chained_comparison_on_a_tensor(x, expected):
    assert run_three_ways(in_open_interval, rt.constant(x), 10) == expected
    assert same_on_python_values(in_open_interval, x, 10) == expected


def test_chained_comparison_to_code_and_python_semantics():
    assert "ag__.and_(lambda: 0 < x, lambda: x < high)" in ag.to_code(in_open_interval)

    def chain(a, b, c):
        return a < b <= c != a

    for args in [(1, 2, 3), (3, 2, 1), (1, 2, 2), (2, 3, 2), (1, 1, 1)]:
        assert same_on_python_values(chain, *args) is chain(*args)

    calls = []

    def middle():
        calls.append(1)
        return 5

    def with_call(x):
        return 0 < middle() < x   # the middle operand runs once, as in Python

    assert ag.to_graph(with_call)(10) is True and calls == [1]
