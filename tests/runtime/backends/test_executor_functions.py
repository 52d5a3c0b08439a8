"""Optimizer + compiled executor behind ag.function / rt.Function: same results as eager, seeds' examples."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from runtime.backends.executor import generated_source


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def test_power_graph_is_one_constant_and_matmuls_and_matches_numpy():
    x = np.random.default_rng(0).integers(-1, 2, (10, 10)).astype(np.int32)
    power_as_graph = ag.function(power)
    concrete = power_as_graph.get_concrete_function(rt.constant(x), 100)
    assert [op.type for op in concrete.graph.operations] == ["Placeholder", "Const"] + ["MatMul"] * 100
    assert concrete.unoptimized_graph is not concrete.graph  # the traced graph is kept for debugging
    expected = np.eye(10, dtype=np.int32)
    for _ in range(100):
        expected = x @ expected
    np.testing.assert_array_equal(power_as_graph(rt.constant(x), 100).numpy(), expected)
    np.testing.assert_array_equal(power(rt.constant(x), 100).numpy(), expected)


def test_non_strict_execution_like_the_seeds():
    @ag.function
    def unused_return_graph(x):
        rt.gather(x, [1])  # would fail for a 1-element x, but nothing needs it
        return x

    assert unused_return_graph(rt.constant([0.0])).numpy().tolist() == [0.0]


def test_rt_print_runs_every_call_in_program_order(capsys):
    @ag.function
    def count_down(n):
        while n > 0:
            rt.print("n =", n)
            n -= 1
        rt.print("done")
        return n

    assert int(count_down(rt.constant(2))) == 0
    assert int(count_down(rt.constant(1))) == 0
    assert capsys.readouterr().out == "n = 2\nn = 1\ndone\nn = 1\ndone\n"
    assert count_down.experimental_get_tracing_count() == 1


def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_collatz_graph_matches_python():
    staged = ag.function(collatz)
    for n in range(1, 40):
        assert int(staged(rt.constant(n))) == collatz(n)
    assert staged.experimental_get_tracing_count() == 1
    source = generated_source(staged.get_concrete_function(rt.constant(1)).compiled())
    assert "while True:" in source and "if " in source


def branchy(x, k):
    total = rt.zeros_like(x)
    i = 0
    while i < k:
        if rt.reduce_sum(x) > 0:
            total = total + x * 2.0 - 1.0
        else:
            total = total - rt.abs(x)
        x = -x * 1.0 + 0.5
        i += 1
    return total, x


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-100, 100, width=32), min_size=3, max_size=3), st.integers(0, 6))
def test_graph_equals_eager_on_random_inputs(values, k):
    x = rt.constant(np.array(values, np.float32))
    staged = ag.function(branchy)
    graph_total, graph_x = staged(x, rt.constant(k))
    ag.run_functions_eagerly(True)
    try:
        eager_total, eager_x = staged(x, rt.constant(k))
    finally:
        ag.run_functions_eagerly(False)
    np.testing.assert_array_equal(graph_total.numpy(), eager_total.numpy())
    np.testing.assert_array_equal(graph_x.numpy(), eager_x.numpy())


def test_runtime_error_in_a_needed_op_names_the_node():
    @ag.function
    def pick(x, i):
        return rt.gather(x, i)

    with pytest.raises(rt.errors.InvalidArgumentError, match="GatherV2"):
        pick(rt.constant([1, 2, 3]), rt.constant(5))
