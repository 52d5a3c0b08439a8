"""Property tests: staged loops give the graph the same results as eager execution of the same function
and as the plain Python computation, on random small inputs (each function traces once)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from test_staged_control_flow import (collatz_steps, count_matches, factorial, fibonacci, index_of_first_above,
                                      sum_below, sum_of_odds_below, sum_until_negative)

small_ints = st.integers(min_value=-3, max_value=12)
int_lists = st.lists(st.integers(min_value=-6, max_value=6), min_size=1, max_size=6)


def graph_and_eager(function, *args):
    graph = function(*args)
    ag.run_functions_eagerly(True)
    try:
        eager = function(*args)
    finally:
        ag.run_functions_eagerly(False)
    return np.asarray(graph), np.asarray(eager)


@settings(max_examples=40, deadline=None)
@given(small_ints)
def test_while_loops_match_eager_and_python(n):
    python_sum = sum(range(max(n, 0)))
    python_factorial = int(np.prod(np.arange(1, max(n, 1) + 1)))
    python_odds = sum(i for i in range(1, max(n, 0) + 1) if i % 2)
    a, b = 0, 1
    for _ in range(max(n, 0)):
        a, b = b, a + b
    for function, expected in [(sum_below, python_sum), (factorial, python_factorial),
                               (sum_of_odds_below, python_odds)]:
        graph, eager = graph_and_eager(function, rt.constant(n))
        assert graph == eager == expected
    graph_pair = fibonacci(rt.constant(n))
    assert (int(graph_pair[0].numpy()), int(graph_pair[1].numpy())) == (a, b)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=60))
def test_collatz_matches_eager(n):
    graph, eager = graph_and_eager(collatz_steps, rt.constant(n))
    steps, m = 0, n
    while m != 1:
        m = m // 2 if m % 2 == 0 else 3 * m + 1
        steps += 1
    assert graph == eager == steps


@settings(max_examples=40, deadline=None)
@given(int_lists, small_ints)
def test_for_loops_with_break_and_return_match_eager(values, limit):
    expected_index = next((i for i, v in enumerate(values) if v > limit), -1)
    graph, eager = graph_and_eager(index_of_first_above, rt.constant(values, rt.int32), rt.constant(limit))
    assert graph == eager == expected_index

    total = 0
    for v in values:
        if v < 0:
            break
        total += v
    graph, eager = graph_and_eager(sum_until_negative, rt.constant(values))
    assert graph == eager == total

    found, expected_matches = 0, None
    for v in values:
        if v > 0:
            if v == limit:
                expected_matches = found + 100
                break
            found += 1
    graph, eager = graph_and_eager(count_matches, rt.constant(values), rt.constant(limit))
    assert graph == eager == (found if expected_matches is None else expected_matches)


def test_property_functions_traced_once_per_signature():
    index_of_first_above(rt.constant([1, 2, 3]), rt.constant(0))
    index_of_first_above(rt.constant([4]), rt.constant(9))
    collatz_steps(rt.constant(9))
    assert index_of_first_above.experimental_get_tracing_count() == 1  # input_signature with [None]
    assert collatz_steps.experimental_get_tracing_count() == 1
