"""The first call of a concrete function without loops runs in the reference interpreter on the traced
graph; the optimized graph is compiled at the second call (runtime/tracing/concrete_function.py). Both
give the same results bit for bit, the same errors and the same side effects (and tests/conftest.py
compares both on every interpreted first call of the suite)."""
import tracemalloc

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends import interpreter
from runtime.core.context import graph_scope
from runtime.tracing import concrete_function


def relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def test_the_first_call_is_interpreted_and_the_second_compiles_the_optimized_graph(numpy_executors):
    concrete = ag.function(relu).get_concrete_function(rt.constant(3))
    results = [int(concrete(rt.constant(v)).numpy()) for v in (3, -2, 5, -1)]
    assert results == [3, 0, 5, 0]
    assert numpy_executors == [concrete.graph]   # one compilation, at the second call, of the optimized graph
    assert concrete.graph is not concrete.unoptimized_graph


def test_a_function_called_through_the_fast_path_also_compiles_at_its_second_call(numpy_executors):
    f = ag.function(relu)
    assert int(f(rt.constant(-4)).numpy()) == 0 and numpy_executors == []
    assert int(f(rt.constant(4)).numpy()) == 4 and len(numpy_executors) == 1
    assert int(f(rt.constant(6)).numpy()) == 6 and len(numpy_executors) == 1


def count_up(n):
    i = rt.zeros_like(n)
    while i < n:
        i += 1
    return i


def test_a_graph_with_a_loop_compiles_when_traced(numpy_executors):
    f = ag.function(count_up)
    f.get_concrete_function(rt.constant(3))
    assert len(numpy_executors) == 1
    assert int(f(rt.constant(3)).numpy()) == 3 and len(numpy_executors) == 1


def test_big_inputs_compile_at_the_first_call(numpy_executors):
    f = rt.Function(lambda x: x * 2.0 + 1.0)
    big = np.ones(concrete_function.INTERPRET_FIRST_CALL_UP_TO + 1, np.float32)
    np.testing.assert_array_equal(f(rt.constant(big)).numpy(), big * 2.0 + 1.0)
    assert len(numpy_executors) == 1


def test_a_big_result_of_small_inputs_compiles_at_the_first_call(numpy_executors):
    f = rt.Function(lambda x: rt.reshape(rt.tile(x, [1024]), [-1, 512]) * 2.0)
    x = np.arange(512, dtype=np.float32)  # a result of 512 x 512: the executor's row blocks pay at once
    np.testing.assert_array_equal(f(rt.constant(x)).numpy(), np.tile(x, 1024).reshape(-1, 512) * 2.0)
    assert len(numpy_executors) == 1


def test_many_small_ops_on_a_big_input_are_interpreted_at_the_first_call(numpy_executors):
    def steps(xs):
        h = rt.zeros((32, 16))
        for t in range(20):  # an unrolled recurrence: compiling costs more than interpreting it once
            h = rt.tanh(xs[t] + h)
        return h
    f = rt.Function(steps)
    xs = np.random.default_rng(0).standard_normal((20, 32, 16)).astype(np.float32) * 0.1
    first = f(rt.constant(xs)).numpy()
    assert len(numpy_executors) == 0
    np.testing.assert_array_equal(f(rt.constant(xs)).numpy(), first)
    assert len(numpy_executors) == 1


def constants_out(x):
    table = rt.constant([1.0, 2.0, 3.0, 4.0])
    return table, rt.reshape(table, [2, 2]), x + 1.0


def test_an_output_holding_a_graph_constant_is_a_copy_on_the_first_call_too():
    f = ag.function(constants_out)
    table, square, _ = f(rt.constant(1.0))
    table.numpy()[0] = 99.0      # writing into what a call returned must not change the graph
    square.numpy()[0, 1] = 99.0
    table, square, y = f(rt.constant(1.0))
    np.testing.assert_array_equal(table.numpy(), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(square.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert float(y.numpy()) == 2.0


def pick(values, i):
    if i > 0:
        return rt.gather(values, i)
    return values[0]


def test_a_kernel_error_reads_the_same_at_the_first_and_the_second_call():
    f = ag.function(pick)
    messages = []
    for _ in range(2):
        with pytest.raises(rt.errors.InvalidArgumentError) as caught:
            f(rt.constant([1.0, 2.0]), rt.constant(7))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert 'GatherV2' in messages[0] and 'in user code:' in messages[0]
    assert 'return rt.gather(values, i)' in messages[0]


def printing(x):
    rt.print('first', x)
    y = x * 2
    if y > 4:
        rt.print('big', y)
    rt.print('last')
    return y


def test_side_effects_run_once_in_program_order_at_every_call(capsys):
    f = ag.function(printing)
    for value in (3, 1, 3):
        f(rt.constant(value))
    assert capsys.readouterr().out == ('first 3\nbig 6\nlast\n' 'first 1\nlast\n' 'first 3\nbig 6\nlast\n')


def signed(x):
    y = x * 0.0          # -0.0 for a negative x: not simplified away
    if x > 0:
        y = y + rt.sqrt(x - 10.0)    # nan
    return y, x / 0.0


def test_nans_signed_zeros_and_infinities_agree_bit_for_bit():
    for value in (-3.0, 4.0):
        f = ag.function(signed)
        first, second = ([np.asarray(t.numpy()) for t in f(rt.constant(value, rt.float32))] for _ in range(2))
        assert np.isnan(first[0]) if value > 0 else (first[0] == 0 and np.signbit(first[0]))
        for a, b in zip(first, second):   # interpreted, then compiled
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_the_interpreter_drops_each_value_after_its_last_use():
    graph = rt.FuncGraph('chain')
    with graph_scope(graph):
        x = graph.add_placeholder(rt.float32, (1_000_000,))
        y = x
        for _ in range(20):
            y = rt.exp(rt.negative(y))
        graph.outputs = [y]
    run = interpreter.make_callable(graph)
    x_value = np.zeros(1_000_000, np.float32)
    tracemalloc.start()
    result = run(x_value)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * x_value.nbytes   # 40 intermediates of 4 MB each if all were kept
    expected = x_value
    for _ in range(20):
        expected = np.exp(-expected)
    np.testing.assert_array_equal(result[0], expected)
