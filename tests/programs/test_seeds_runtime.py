"""The seed tutorials' scenarios that need no Python-control-flow conversion, with ``rt`` for ``tf``."""
import numpy as np
import pytest

import runtime as rt

SEED_001_SIGNATURES = """my_relu(x)
  Args:
    x: float32 Tensor, shape=()
  Returns:
    float32 Tensor, shape=()

my_relu(x=[1, -1])
  Returns:
    float32 Tensor, shape=(2,)

my_relu(x)
  Args:
    x: float32 Tensor, shape=(2,)
  Returns:
    float32 Tensor, shape=(2,)"""


def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


def test_a_regular_function_graph_equals_eager():
    a_function_that_uses_a_graph = rt.function(a_regular_function)
    x1 = rt.constant([[1.0, 2.0]])
    y1 = rt.constant([[2.0], [3.0]])
    b1 = rt.constant(4.0)
    orig_value = a_regular_function(x1, y1, b1).numpy()
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    np.testing.assert_array_equal(orig_value, np.array([[12.0]], dtype=np.float32))
    np.testing.assert_array_equal(tf_function_value, orig_value)
    assert tf_function_value.dtype == np.float32


def test_matmul_without_bias_seed_000():
    x = rt.constant([[1.0, 2.0]])
    y = rt.constant([[2.0], [3.0]])
    f = rt.function(lambda x, y: rt.matmul(x, y))
    assert f(x, y).numpy().tolist() == [[8.0]]
    assert rt.matmul([[2.0]], [[2.0]]).numpy().tolist() == [[4.0]]


def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


@rt.function
def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


def test_outer_function_calls_undecorated_inner_function():
    result = outer_function(rt.constant([[1.0, 2.0]]))
    np.testing.assert_array_equal(result.numpy(), np.array([[12.0]], dtype=np.float32))
    graph = outer_function.get_concrete_function(rt.constant([[1.0, 2.0]])).graph
    assert [op.type for op in graph.operations].count("MatMul") == 1  # inner_function is in the same graph


def test_my_relu_polymorphism_trace_counts_and_signatures():
    @rt.function
    def my_relu(x):
        return rt.maximum(0., x)

    assert repr(my_relu(rt.constant(5.5))) == "Tensor(5.5, shape=(), dtype=float32)"
    assert repr(my_relu([1, -1])) == "Tensor([1. 0.], shape=(2,), dtype=float32)"
    assert repr(my_relu(rt.constant([3., -3.]))) == "Tensor([3. 0.], shape=(2,), dtype=float32)"
    assert my_relu.experimental_get_tracing_count() == 3
    # These two calls do not create new graphs.
    assert repr(my_relu(rt.constant(-2.5))) == "Tensor(0.0, shape=(), dtype=float32)"
    assert repr(my_relu(rt.constant([-1., 1.]))) == "Tensor([0. 1.], shape=(2,), dtype=float32)"
    assert my_relu.experimental_get_tracing_count() == 3
    assert my_relu.pretty_printed_concrete_signatures() == SEED_001_SIGNATURES


def test_my_relu_seed_000_two_signatures():
    @rt.function
    def my_relu(x):
        return rt.maximum(0., x)

    my_relu(rt.constant(5.5))
    my_relu([1, -1])
    assert my_relu.pretty_printed_concrete_signatures() == "\n\n".join(SEED_001_SIGNATURES.split("\n\n")[:2])


def test_my_relu_seed_002_three_shapes():
    @rt.function
    def my_relu(x):
        return rt.maximum(0., x)

    assert my_relu(rt.constant(5.0)).numpy() == 5.0
    assert my_relu(rt.constant([1.0, -1.0, 3.0])).numpy().tolist() == [1.0, 0.0, 3.0]
    assert my_relu(rt.constant([1.0, -1.0])).numpy().tolist() == [1.0, 0.0]
    blocks = my_relu.pretty_printed_concrete_signatures().split("\n\n")
    expected = ["my_relu(x)\n  Args:\n    x: float32 Tensor, shape={0}\n  Returns:\n    float32 Tensor, shape={0}"
                .format(shape) for shape in ("()", "(3,)", "(2,)")]
    # In trace order (the seed's notebook lists the same three blocks with (2,) before (3,)).
    assert blocks == expected


def get_MSE(y_true, y_pred):
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


def test_get_mse_graph_eager_and_run_functions_eagerly_agree():
    y_true = rt.constant([7, 2, 7, 5, 2])
    y_pred = rt.constant([9, 9, 0, 8, 8])
    graph_mse = rt.function(get_MSE)
    eager = get_MSE(y_true, y_pred)
    graph = graph_mse(y_true, y_pred)
    rt.run_functions_eagerly(True)
    assert rt.functions_run_eagerly() is True
    forced_eager = graph_mse(y_true, y_pred)
    rt.run_functions_eagerly(False)
    assert rt.functions_run_eagerly() is False
    for result in (eager, graph, forced_eager):
        assert result.dtype == rt.int32 and result.shape == ()
        assert int(result.numpy()) == 29  # the seed's value: (4 + 49 + 49 + 9 + 36) // 5
    assert graph_mse.experimental_get_tracing_count() == 1


def test_get_mse_random_inputs_graph_equals_eager():
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    expected = int(np.sum((y_true.numpy() - y_pred.numpy()) ** 2) // 5)  # integer mean, like TF's int32
    assert int(rt.function(get_MSE)(y_true, y_pred).numpy()) == expected
    assert int(get_MSE(y_true, y_pred).numpy()) == expected


def test_python_print_runs_only_while_tracing_rt_print_every_call(capsys):
    @rt.function
    def get_MSE_printing(y_true, y_pred):
        print("Calculating MSE!")
        rt.print("rt.print sees", y_true)
        sq_diff = rt.pow(y_true - y_pred, 2)
        return rt.reduce_mean(sq_diff)

    y_true, y_pred = rt.constant([1, 2]), rt.constant([3, 2])
    for _ in range(3):
        error = get_MSE_printing(y_true, y_pred)
    assert int(error.numpy()) == 2
    assert capsys.readouterr().out == "Calculating MSE!\n" + "rt.print sees [1 2]\n" * 3

    rt.run_functions_eagerly(True)
    for _ in range(3):
        get_MSE_printing(y_true, y_pred)
    rt.run_functions_eagerly(False)
    assert capsys.readouterr().out == "Calculating MSE!\nrt.print sees [1 2]\n" * 3


def test_my_relu_print_under_run_functions_eagerly(capsys):
    @rt.function
    def my_relu(x):
        print("Applying relu!")
        return rt.maximum(0., x)

    my_relu([1, -1])
    my_relu([1, -1])
    assert capsys.readouterr().out == "Applying relu!\n"
    rt.run_functions_eagerly(True)
    assert my_relu([1, -1]).numpy().tolist() == [1.0, 0.0]
    my_relu([1, -1])
    rt.run_functions_eagerly(False)
    assert capsys.readouterr().out == "Applying relu!\n" * 2


def unused_return_eager(x):
    rt.gather(x, [1])  # unused; index 1 is out of range when len(x) == 1
    return x


def test_non_strict_gather_eager_raises_graph_does_not():
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices\[0\] = 1 is not in \[0, 1\)"):
        unused_return_eager(rt.constant([0.0]))
    unused_return_graph = rt.function(unused_return_eager)
    result = unused_return_graph(rt.constant([0.0]))
    assert repr(result) == "Tensor([0.], shape=(1,), dtype=float32)"
    # The gather is in the traced graph; it just never runs.
    traced = unused_return_graph.get_concrete_function(rt.constant([0.0])).unoptimized_graph
    assert "GatherV2" in [op.type for op in traced.operations]


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def test_power_python_range_is_unrolled_and_graph_equals_eager():
    x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32)
    power_as_graph = rt.function(power)
    eager = power(x, 100)
    graph = power_as_graph(x, 100)
    np.testing.assert_array_equal(graph.numpy(), eager.numpy())
    expected = np.eye(10, dtype=np.int32)
    for _ in range(100):
        expected = x.numpy() @ expected
    np.testing.assert_array_equal(graph.numpy(), expected)
    concrete = power_as_graph.get_concrete_function(x, 100)
    assert [op.type for op in concrete.unoptimized_graph.operations].count("MatMul") == 100
    assert [op.type for op in concrete.graph.operations].count("MatMul") == 100
    power_as_graph(x, 100)
    assert power_as_graph.experimental_get_tracing_count() == 1


def test_python_arguments_retrace_tensors_do_not(capsys):
    @rt.function
    def a_function_with_python_side_effect(x):
        print("Tracing!")
        return x * x + rt.constant(2)

    assert repr(a_function_with_python_side_effect(rt.constant(2))) == "Tensor(6, shape=(), dtype=int32)"
    assert repr(a_function_with_python_side_effect(rt.constant(3))) == "Tensor(11, shape=(), dtype=int32)"
    assert capsys.readouterr().out == "Tracing!\n"
    assert a_function_with_python_side_effect.experimental_get_tracing_count() == 1
    assert repr(a_function_with_python_side_effect(2)) == "Tensor(6, shape=(), dtype=int32)"
    assert repr(a_function_with_python_side_effect(3)) == "Tensor(11, shape=(), dtype=int32)"
    assert capsys.readouterr().out == "Tracing!\nTracing!\n"
    assert a_function_with_python_side_effect.experimental_get_tracing_count() == 3


def test_tracing_function_seed_002(capsys):
    @rt.function
    def tracing_function(x):
        print("Tracing")
        return x * x + rt.constant(2)

    assert tracing_function(rt.constant(5)).numpy() == 27
    assert tracing_function(rt.constant(6)).numpy() == 38
    assert tracing_function(5).numpy() == 27
    assert tracing_function(6).numpy() == 38
    assert capsys.readouterr().out == "Tracing\n" * 3


def test_simple_relu_with_explicit_cond_graph_def_names():
    def simple_relu(x):
        return rt.cond(rt.greater(x, 0), lambda: x, lambda: 0)

    tf_simple_relu = rt.function(simple_relu)
    assert tf_simple_relu(rt.constant(1)).numpy() == 1
    assert tf_simple_relu(rt.constant(-1)).numpy() == 0
    text = str(tf_simple_relu.get_concrete_function(rt.constant(1)).graph.as_graph_def())
    assert 'name: "x"\n  op: "Placeholder"' in text
    assert 'name: "Greater/y"\n  op: "Const"' in text
    assert 'name: "Greater"\n  op: "Greater"\n  input: "x"\n  input: "Greater/y"' in text
    assert 'name: "cond"\n  op: "If"\n  input: "Greater"\n  input: "x"' in text
    assert "library {" in text
