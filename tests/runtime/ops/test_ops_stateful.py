"""Stateful ops: rt.print (PrintV2), rt.debugging asserts (Assert), rt.random.uniform (RandomUniform).
They run eagerly at once and, in a graph, on every run, in program order, even when nothing uses them."""
import sys

import numpy as np
import pytest

import runtime as rt
from op_tracing import trace
from runtime.backends import executor, interpreter


def run_twice(graph, *arrays):
    """Run a traced graph with both executors (the reference interpreter, then the compiled one)."""
    return [interpreter.run_graph(graph, list(arrays)), executor.make_callable(graph)(*arrays)]


# --- print ---------------------------------------------------------------------------------------
def test_print_eager_formats_like_tf_print(capsys):
    assert rt.print("values:", rt.constant([1, 2, 3]), rt.constant(2.5), 7, True) is None
    rt.print(rt.constant([[1, 2], [3, 4]]))
    rt.print("a", "b", sep=",", end="!\n")
    assert capsys.readouterr().out == "values: [1 2 3] 2.5 7 True\n[[1 2]\n [3 4]]\na,b!\n"


def test_print_to_stderr(capsys):
    rt.print("oops", rt.constant(1), output_stream=sys.stderr)
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "oops 1\n")
    with pytest.raises(ValueError, match="print: output_stream must be sys.stdout or sys.stderr"):
        rt.print("x", output_stream=42)


def test_print_in_a_graph_prints_on_every_run_not_while_tracing(capsys):
    graph, _ = trace(lambda x: rt.print("x =", x * 2), (rt.int32, (None,)))
    assert capsys.readouterr().out == ""
    printing = [op for op in graph.operations if op.type == "PrintV2"]
    assert len(printing) == 1 and printing[0].op_def.stateful and not printing[0].outputs
    run_twice(graph, np.array([1, 2], np.int32))
    assert capsys.readouterr().out == "x = [2 4]\nx = [2 4]\n"


def test_prints_run_in_program_order(capsys):
    def f(x):
        rt.print("first", x)
        rt.print("second")
        return x + 1
    graph, _ = trace(f, (rt.float32, ()))
    second = [op for op in graph.operations if op.type == "PrintV2"][1]
    assert [c.type for c in second.control_inputs] == ["PrintV2"]
    assert interpreter.run_graph(graph, [np.float32(1.5)])[0] == np.float32(2.5)
    assert capsys.readouterr().out == "first 1.5\nsecond\n"


# --- asserts --------------------------------------------------------------------------------------
ASSERTS = [  # (check, passing x, y, failing x, y, symbol)
    (rt.debugging.assert_equal, [1, 2], [1, 2], [1, 2], [1, 3], "=="),
    (rt.debugging.assert_none_equal, [1, 2], [3, 4], [1, 2], [1, 4], "!="),
    (rt.debugging.assert_less, [1, 2], 3, [1, 3], 3, "<"),
    (rt.debugging.assert_less_equal, [1, 3], 3, [1, 4], 3, "<="),
    (rt.debugging.assert_greater, [4, 5], 3, [4, 3], 3, ">"),
    (rt.debugging.assert_greater_equal, [3, 5], 3, [2, 5], 3, ">="),
]


@pytest.mark.parametrize("check, ok_x, ok_y, bad_x, bad_y, symbol", ASSERTS)
def test_asserts_eager(check, ok_x, ok_y, bad_x, bad_y, symbol):
    assert check(rt.constant(ok_x), ok_y) is None
    with pytest.raises(rt.errors.InvalidArgumentError) as error:
        check(rt.constant(bad_x), bad_y, message="values are off")
    bad_y_text = str(np.asarray(bad_y, np.int32))
    assert str(error.value) == (f"Assert: assertion failed: values are off Condition x {symbol} y did not hold "
                                f"element-wise: x = {np.asarray(bad_x, np.int32)} y = {bad_y_text}")


@pytest.mark.parametrize("check, ok_x, ok_y, bad_x, bad_y, symbol", ASSERTS)
def test_asserts_in_a_graph_run_even_if_unused(check, ok_x, ok_y, bad_x, bad_y, symbol):
    def f(x, y):
        check(x, y)
        return x + 0

    graph, _ = trace(f, (rt.int32, (None,)), (rt.int32, (None,)))
    asserting = [op for op in graph.operations if op.type == "Assert"]
    assert [op.name for op in asserting] == [f"{check.__name__}/Assert"]
    ok = np.asarray(ok_x, np.int32), np.broadcast_to(np.asarray(ok_y, np.int32), (2,)).copy()
    bad = np.asarray(bad_x, np.int32), np.broadcast_to(np.asarray(bad_y, np.int32), (2,)).copy()
    for results in run_twice(graph, *ok):
        assert results[0].tolist() == list(ok[0])
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=rf"{check.__name__}/Assert: assertion failed: Condition x {symbol} y did not hold"):
        interpreter.run_graph(graph, list(bad))
    with pytest.raises(rt.errors.InvalidArgumentError, match=rf"{check.__name__}/Assert: assertion failed"):
        executor.make_callable(graph)(*bad)


def test_assert_op_directly():
    rt.debugging.Assert(rt.constant(True), ["never shown"])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^Assert: assertion failed: x must be positive: \[-1  2\]$"):
        x = rt.constant([-1, 2])
        rt.debugging.Assert(rt.reduce_all(x > 0), ["x must be positive:", x])
    with pytest.raises(TypeError, match="Assert: condition must be a bool tensor, got int32"):
        rt.debugging.Assert(1, ["x"])
    with pytest.raises(TypeError, match="Assert: data must be a list of strings and tensors, got 'oops'"):
        rt.debugging.Assert(True, "oops")


def test_assert_dtype_mismatch_names_both_dtypes():
    with pytest.raises(TypeError, match="assert_equal: x and y must have the same dtype, got int32 and float32"):
        rt.debugging.assert_equal(rt.constant([1]), rt.constant([1.0]))


# --- random ---------------------------------------------------------------------------------------
def test_uniform_float_defaults_and_range():
    values = rt.random.uniform([1000])
    assert (values.dtype, values.shape) == (rt.float32, (1000,))
    v = values.numpy()
    assert v.min() >= 0.0 and v.max() < 1.0 and len(np.unique(v)) > 900
    scaled = rt.random.uniform([2, 500], minval=-2.0, maxval=3.0, dtype=rt.float64).numpy()
    assert scaled.dtype == np.float64 and scaled.min() >= -2.0 and scaled.max() < 3.0


def test_uniform_int_like_the_seed_tutorials():
    x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32)
    assert (x.dtype, x.shape) == (rt.int32, (10, 10))
    assert set(np.unique(x.numpy())) <= {-1, 0, 1}
    y = rt.random.uniform([5], maxval=10, dtype=rt.int32).numpy()
    assert y.min() >= 0 and y.max() < 10


def test_uniform_seeded_is_reproducible():
    rt.random.set_seed(11)
    a = rt.random.uniform([4], seed=42).numpy()
    b = rt.random.uniform([4], seed=42).numpy()
    c = rt.random.uniform([4], seed=43).numpy()
    assert a.tolist() != b.tolist() and a.tolist() != c.tolist()
    rt.random.set_seed(11)
    assert rt.random.uniform([4], seed=42).numpy().tolist() == a.tolist()
    assert_equal = np.testing.assert_array_equal
    assert_equal(rt.random.uniform([3], maxval=100, dtype=rt.int64, seed=1).numpy(),  # the stream of (11, 1)
                 np.random.default_rng([11, 1]).integers(0, 100, size=(3,), dtype=np.int64))


def test_uniform_argument_errors():
    with pytest.raises(ValueError, match=r"RandomUniform: maxval must be given for the integer dtype int32"):
        rt.random.uniform([2], dtype=rt.int32)
    with pytest.raises(TypeError, match="RandomUniform: dtype must be a float or int type, got bool"):
        rt.random.uniform([2], dtype=rt.bool)
    with pytest.raises(rt.errors.InvalidArgumentError, match="RandomUniform: Need minval < maxval: 3 >= 3"):
        rt.random.uniform([2], minval=3, maxval=3, dtype=rt.int32)
    with pytest.raises(TypeError, match="RandomUniform: seed must be a non-negative Python int"):
        rt.random.uniform([2], seed=1.5)


def test_uniform_in_a_graph_is_stateful_and_draws_on_every_run():
    graph, out = trace(lambda n: rt.random.uniform([n, 3], maxval=1000, dtype=rt.int64), (rt.int32, ()))
    assert (out.op.type, out.op.op_def.stateful, out.dtype, out.shape) == ("RandomUniform", True, rt.int64, (None, 3))
    first = interpreter.run_graph(graph, [np.int32(4)])[0]
    second = interpreter.run_graph(graph, [np.int32(4)])[0]
    assert first.shape == (4, 3) and first.tolist() != second.tolist()
    rt.random.set_seed(3)
    seeded, _ = trace(lambda: rt.random.uniform([3], seed=5))
    runs = run_twice(seeded)
    assert runs[0][0].tolist() != runs[1][0].tolist()  # the op's sequence goes on, as in TensorFlow
    assert runs[0][0].tolist() == rt.random.uniform([3], seed=5).numpy().tolist()


def test_print_of_python_structures_holding_tensors(capsys):
    rt.print("got", [rt.constant(1), "a", 2.5], {"k": (rt.constant([1, 2]),)})
    graph, _ = trace(lambda x: rt.print("pair", (x, x + 1)), (rt.int32, ()))
    interpreter.run_graph(graph, [np.int32(4)])
    assert capsys.readouterr().out == "got [1, 'a', 2.5] {'k': ([1 2],)}\npair (4, 5)\n"


STATEFUL_AND_STATELESS_DRAWS = [
    ("RandomUniform", lambda **kw: rt.random.uniform([2], **kw), lambda **kw: rt.random.normal([2], **kw)),
    ("StatelessRandomUniform", lambda **kw: rt.random.stateless_uniform([2], seed=[1, 2], **kw),
     lambda **kw: rt.random.stateless_normal([2], seed=[1, 2], **kw)),
]


@pytest.mark.parametrize("op_name, uniform, normal", STATEFUL_AND_STATELESS_DRAWS, ids=["stateful", "stateless"])
def test_stateful_and_stateless_draws_refuse_the_same_arguments_in_the_same_words(op_name, uniform, normal):
    normal_name = op_name.replace("Uniform", "Normal")
    with pytest.raises(ValueError, match=rf"^{op_name}: maxval must be given for the integer dtype int64, "
                                         r"e.g. maxval=10$"):
        uniform(dtype=rt.int64)
    with pytest.raises(TypeError, match=rf"^{op_name}: dtype must be a float or int type, got bool$"):
        uniform(dtype=rt.bool)
    with pytest.raises(TypeError, match=rf"^{op_name}: maxval has dtype float32 but dtype is int32$"):
        uniform(maxval=rt.constant(1.0), dtype=rt.int32)
    with pytest.raises(TypeError, match=rf"^{normal_name}: dtype must be a floating-point type, got int32$"):
        normal(dtype=rt.int32)
    with pytest.raises(TypeError, match=rf"^{normal_name}: stddev has dtype float64 but dtype is float32$"):
        normal(stddev=rt.constant(1.0, rt.float64))
    assert uniform(dtype=rt.float16).dtype == rt.float16  # a float draw defaults to [0, 1)
    assert 0 <= uniform(dtype=rt.float16).numpy().min() and uniform(dtype=rt.float16).numpy().max() < 1


@pytest.mark.parametrize("op_name, uniform, normal", STATEFUL_AND_STATELESS_DRAWS, ids=["stateful", "stateless"])
def test_draws_check_their_shape_and_parameters_alike_eagerly_and_traced(op_name, uniform, normal):
    normal_name = op_name.replace("Uniform", "Normal")
    with pytest.raises(ValueError, match=rf"^{op_name}: minval must be a scalar, got shape \(2,\)$"):
        uniform(minval=rt.constant([0.0, 1.0]))  # eagerly: the stateful op crashed in its kernel here
    with pytest.raises(ValueError, match=rf"{normal_name}.*stddev must be a scalar, got shape \(1, 1\)"):
        rt.function(lambda s: normal(stddev=s)).get_concrete_function(rt.TensorSpec([1, 1]))
    draw = {"RandomUniform": rt.random.uniform,
            "StatelessRandomUniform": lambda shape: rt.random.stateless_uniform(shape, seed=[1, 2])}[op_name]
    with pytest.raises(rt.errors.InvalidArgumentError, match=rf"^{op_name}: shape must be non-negative, got \[2, -1\]"):
        draw(rt.constant([2, -1]))
    traced = rt.function(lambda shape: draw(shape))
    with pytest.raises(rt.errors.InvalidArgumentError, match=rf"{op_name}: shape must be non-negative, got \[-3\]"):
        traced(rt.constant([-3]))
    assert traced(rt.constant([2, 3])).shape == (2, 3)
