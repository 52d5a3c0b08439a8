"""The compiled executor: same results, side effects and errors as the reference interpreter."""
import functools

import numpy as np
import pytest

import runtime as rt
from runtime.backends import interpreter
from runtime.core.errors import InvalidArgumentError
from runtime.backends.executor import generated_source, make_callable
from runtime.passes import optimize_graph

from op_tracing import trace_graph


trace = functools.partial(trace_graph, placeholder_prefix="x")  # the tests name the inputs x0, x1, ...


def same_as_interpreter(graph, *arrays):
    expected = interpreter.run_graph(graph, arrays)
    got = make_callable(graph)(*arrays)
    for e, g in zip(expected, got):
        assert type(g) is np.ndarray and g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    assert len(expected) == len(got)
    return got


def test_straight_line_code_uses_python_operators_for_numpy_ufuncs():
    graph = trace(lambda x, y: rt.less(rt.add(rt.multiply(x, y), 1), rt.negative(y)),
                  (rt.int32, ()), (rt.int32, ()))
    compiled = make_callable(graph)
    source = generated_source(compiled)
    assert " * " in source and " + " in source and " < " in source and "-in1" in source
    result = same_as_interpreter(graph, np.array(2, np.int32), np.array(-9, np.int32))
    assert result[0].ndim == 0 and bool(result[0]) is True  # 0-d results are arrays, not numpy scalars


def test_kernels_with_attrs_and_multiple_outputs():
    graph = trace(lambda x: (rt.reduce_sum(x, axis=1), rt.transpose(x), rt.cast(x, rt.int32)), (rt.float32, (2, 3)))
    same_as_interpreter(graph, np.arange(6, dtype=np.float32).reshape(2, 3))


def test_only_needed_ops_run_but_every_stateful_op_runs_in_order(capsys):
    v = rt.Variable(1)

    def f(x):
        rt.print("first", x)
        rt.gather(x, 10)  # out of range, unused: never runs
        v.assign(rt.multiply(v.read_value(), 10))
        rt.print("second", v.read_value())
        return rt.add(x, 1)
    graph = trace(f, (rt.int32, (2,)))
    out = make_callable(graph)(np.array([1, 2], np.int32))
    assert out[0].tolist() == [2, 3]
    assert capsys.readouterr().out == "first [1 2]\nsecond 10\n"
    assert "GatherV2" not in generated_source(make_callable(graph))


def test_constant_outputs_are_copies():
    graph = trace(lambda x: (rt.constant([1, 2]), x), (rt.int32, ()))
    compiled = make_callable(graph)
    first = compiled(np.array(0, np.int32))[0]
    first[0] = 99
    assert compiled(np.array(0, np.int32))[0].tolist() == [1, 2]


def test_if_compiles_to_an_inline_if():
    def f(x):
        return rt.cond(rt.greater(rt.reduce_sum(x), 0), lambda: (rt.multiply(x, 2), 1), lambda: (x, 2))
    graph = trace(f, (rt.float32, (3,)))
    source = generated_source(make_callable(graph))
    assert "if " in source and "else:" in source
    for array in ([1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]):
        same_as_interpreter(graph, np.array(array, np.float32))


def test_nested_ifs_and_branches_without_outputs(capsys):
    def f(x):
        def outer_then():
            rt.cond(rt.less(x, 10), lambda: rt.print("small"), lambda: rt.print("big"))
            return rt.add(x, 1)
        return rt.cond(rt.greater(x, 0), outer_then, lambda: rt.subtract(x, 1))
    graph = trace(f, (rt.int32, ()))
    for value, printed in [(5, "small\n"), (50, "big\n"), (-5, "")]:
        same_as_interpreter(graph, np.array(value, np.int32))
        assert capsys.readouterr().out == printed * 2  # once by the interpreter, once compiled


def test_while_loop_compiles_to_an_inline_loop():
    def f(n):
        return rt.while_loop(lambda i, s: rt.less(i, n), lambda i, s: (rt.add(i, 1), rt.add(s, i)), [0, 0])
    graph = trace(f, (rt.int32, ()))
    source = generated_source(make_callable(graph))
    assert "while True:" in source and "if not " in source
    for n in (0, 1, 7, 100):
        i, s = same_as_interpreter(graph, np.array(n, np.int32))
        assert (int(i), int(s)) == (n, n * (n - 1) // 2)


def test_while_with_maximum_iterations_and_stateful_cond(capsys):
    def f(n):
        def cond(i):
            rt.print("test", i)
            return rt.less(i, n)
        return rt.while_loop(cond, lambda i: rt.add(i, 1), [0], maximum_iterations=3)
    graph = trace(f, (rt.int32, ()))
    assert int(same_as_interpreter(graph, np.array(10, np.int32))[0]) == 3
    assert int(same_as_interpreter(graph, np.array(2, np.int32))[0]) == 2
    assert capsys.readouterr().out == ("test 0\ntest 1\ntest 2\n" * 2) + ("test 0\ntest 1\ntest 2\n" * 2)


def test_while_with_if_inside_collatz():
    def collatz(n):
        def body(n, steps):
            n = rt.cond(rt.equal(rt.mod(n, 2), 0), lambda: rt.floordiv(n, 2), lambda: rt.add(rt.multiply(n, 3), 1))
            return n, rt.add(steps, 1)
        return rt.while_loop(lambda n, steps: rt.greater(n, 1), body, [n, 0])[1]
    graph = trace(collatz, (rt.int32, ()))
    optimized = make_callable(optimize_graph(graph))
    for n, steps in [(1, 0), (6, 8), (27, 111)]:
        assert int(same_as_interpreter(graph, np.array(n, np.int32))[0]) == steps
        assert int(optimized(np.array(n, np.int32))[0]) == steps


# --- errors ---------------------------------------------------------------------------------------------

def _messages(graph, *arrays):
    messages = []
    for run in (lambda: interpreter.run_graph(graph, arrays), lambda: make_callable(graph)(*arrays)):
        with pytest.raises(InvalidArgumentError) as info:
            run()
        messages.append(str(info.value))
    return messages


def test_kernel_error_names_the_node_like_the_interpreter():
    graph = trace(lambda x, i: rt.add(rt.gather(x, i), 1), (rt.int32, (3,)), (rt.int32, ()))
    interpreted, compiled = _messages(graph, np.arange(3, dtype=np.int32), np.array(5, np.int32))
    assert compiled == interpreted
    assert compiled.startswith("GatherV2: ")


def test_kernel_error_inside_if_and_while_is_prefixed_by_the_enclosing_ops():
    def f(x, i):
        def body(k):
            picked = rt.cond(rt.greater(k, 0), lambda: rt.gather(x, i), lambda: rt.gather(x, 0))
            return (rt.add(k, rt.add(rt.multiply(picked, 0), 1)),)
        return rt.while_loop(lambda k: rt.less(k, 2), body, [0], maximum_iterations=5)
    graph = trace(f, (rt.int32, (3,)), (rt.int32, ()))
    interpreted, compiled = _messages(graph, np.arange(3, dtype=np.int32), np.array(9, np.int32))
    assert compiled == interpreted
    assert compiled.startswith("while: cond: GatherV2: ")


def test_integer_division_by_zero_is_an_invalid_argument_error():
    graph = trace(lambda x, y: rt.floordiv(x, y), (rt.int32, ()), (rt.int32, ()))
    interpreted, compiled = _messages(graph, np.array(1, np.int32), np.array(0, np.int32))
    assert compiled == interpreted and compiled.startswith("FloorDiv: ")


def test_scalar_loop_bodies_are_plain_python_on_numpy_scalars():
    def f(n):
        def body(i, total):
            even = rt.equal(rt.mod(i, 2), 0)
            return i + 1, total + rt.where(even, i // 2, -i)
        return rt.while_loop(lambda i, total: i < n, body, [0, 0])[1]
    graph = trace(f, (rt.int32, ()))
    source = generated_source(make_callable(graph))
    assert " % const_" in source and " // const_" in source and " if " in source and "k_" not in source
    expected = sum(i // 2 if i % 2 == 0 else -i for i in range(11))
    assert same_as_interpreter(graph, np.array(11, np.int32))[0] == expected
