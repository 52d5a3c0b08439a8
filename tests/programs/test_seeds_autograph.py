"""Every code snippet of the seed tutorials, with ``ag`` for tf.function / tf.autograph and ``rt`` for tf.

Each runs through the real converter (``ag.function`` with autograph on). Where the seeds print
something deterministic, the exact text is asserted; random inputs are checked by comparing graph,
eager and ``run_functions_eagerly`` results of the same function.
"""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


def _op_types(concrete):
    return [op.type for op in concrete.unoptimized_graph.operations]


# --- seed 000: eager execution ------------------------------------------------------------------------
def test_seed_000_eager_matmul_prints_its_value(capsys):
    x = [[2.]]
    m = rt.matmul(x, x)
    print(m)
    assert capsys.readouterr().out == "Tensor([[4.]], shape=(1, 1), dtype=float32)\n"


def test_seed_000_a_regular_function_and_its_graph(capsys):
    def a_regular_function(x, y):
        x = rt.matmul(x, y)
        return x

    a_function_that_uses_a_graph = ag.function(a_regular_function)
    x = rt.constant([[1.0, 2.0]])
    y = rt.constant([[2.0], [3.0]])
    print(a_regular_function(x, y).numpy())
    print(a_function_that_uses_a_graph(x, y).numpy())
    assert capsys.readouterr().out == "[[8.]]\n[[8.]]\n"

    code = ag.to_code(a_regular_function)
    assert code == ("def a_regular_function(x, y):\n"
                    "    x = ag__.converted_call(rt.matmul, (x, y), None)\n"
                    "    return x\n")
    compile(code, "<to_code>", "exec")
    graph_def = str(a_function_that_uses_a_graph.get_concrete_function(x, y).graph.as_graph_def())
    assert 'name: "x"\n  op: "Placeholder"' in graph_def
    assert 'name: "y"\n  op: "Placeholder"' in graph_def
    assert 'name: "MatMul"\n  op: "MatMul"\n  input: "x"\n  input: "y"' in graph_def


SEED_000_SIGNATURES = """my_relu(x)
  Args:
    x: float32 Tensor, shape=()
  Returns:
    float32 Tensor, shape=()

my_relu(x=[1, -1])
  Returns:
    float32 Tensor, shape=(2,)"""

SEED_001_SIGNATURES = SEED_000_SIGNATURES + """

my_relu(x)
  Args:
    x: float32 Tensor, shape=(2,)
  Returns:
    float32 Tensor, shape=(2,)"""


def test_seed_000_my_relu_two_graphs_and_run_functions_eagerly(capsys):
    @ag.function
    def my_relu(x):
        return rt.maximum(0., x)

    print(my_relu(rt.constant(5.5)))
    print(my_relu([1, -1]))
    assert capsys.readouterr().out == ("Tensor(5.5, shape=(), dtype=float32)\n"
                                       "Tensor([1. 0.], shape=(2,), dtype=float32)\n")
    print(my_relu.pretty_printed_concrete_signatures())
    assert capsys.readouterr().out == SEED_000_SIGNATURES + "\n"
    assert my_relu.experimental_get_tracing_count() == 2

    ag.run_functions_eagerly(True)
    print(my_relu([1, -1]))
    ag.run_functions_eagerly(False)
    assert capsys.readouterr().out == "Tensor([1. 0.], shape=(2,), dtype=float32)\n"
    assert my_relu.experimental_get_tracing_count() == 2  # running eagerly traces nothing


def test_seed_000_print_runs_only_while_tracing(capsys):
    @ag.function
    def my_relu(x):
        print("Applying relu!")
        return rt.maximum(0., x)

    activation = my_relu([1, -1])
    activation = my_relu([1, -1])
    assert capsys.readouterr().out == "Applying relu!\n"
    assert activation.numpy().tolist() == [1.0, 0.0]

    ag.run_functions_eagerly(True)
    activation = my_relu([1, -1])
    activation = my_relu([1, -1])
    ag.run_functions_eagerly(False)
    assert capsys.readouterr().out == "Applying relu!\nApplying relu!\n"
    assert activation.numpy().tolist() == [1.0, 0.0]
    assert my_relu.experimental_get_tracing_count() == 1


# --- seeds 001 / 002 / 003 / 004: tf.function -------------------------------------------------------
def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


def test_seed_001_function_value_equals_python_value():
    a_function_that_uses_a_graph = ag.function(a_regular_function)
    x1 = rt.constant([[1.0, 2.0]])
    y1 = rt.constant([[2.0], [3.0]])
    b1 = rt.constant(4.0)
    orig_value = a_regular_function(x1, y1, b1).numpy()
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    assert orig_value == tf_function_value
    assert tf_function_value.tolist() == [[12.0]] and tf_function_value.dtype == np.float32


def test_seed_002_decorated_regular_function():
    regular_function = ag.function(a_regular_function)
    assert isinstance(regular_function, rt.Function)
    x1, y1, b1 = rt.constant([[1.0, 2.0]]), rt.constant([[2.0], [3.0]]), rt.constant(4.0)
    assert regular_function(x1, y1, b1).numpy().tolist() == [[12.0]]


def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


@ag.function
def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


def test_seed_001_function_applies_to_the_functions_it_calls():
    result = outer_function(rt.constant([[1.0, 2.0]])).numpy()
    assert repr(result) == "array([[12.]], dtype=float32)"
    concrete = outer_function.get_concrete_function(rt.constant([[1.0, 2.0]]))
    assert _op_types(concrete).count("MatMul") == 1


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


SIMPLE_RELU_CODE = """def simple_relu(x):
    do_return = False
    retval_ = ag__.UndefinedReturnValue()

    def get_state():
        return (do_return, retval_)

    def set_state(vars_):
        nonlocal do_return, retval_
        (do_return, retval_) = vars_

    def if_body():
        nonlocal do_return, retval_
        do_return = True
        retval_ = x

    def else_body():
        nonlocal do_return, retval_
        do_return = True
        retval_ = 0

    ag__.if_stmt(ag__.converted_call(rt.greater, (x, 0), None), if_body, else_body,
                 get_state, set_state, ('do_return', 'retval_'), 2,
                 roles={'do_return': 'return_flag', 'retval_': 'return_value'})
    return retval_
"""


def test_seed_001_simple_relu_both_branches_with_graph(capsys):
    tf_simple_relu = ag.function(simple_relu)
    print("First branch, with graph:", tf_simple_relu(rt.constant(1)).numpy())
    print("Second branch, with graph:", tf_simple_relu(rt.constant(-1)).numpy())
    assert capsys.readouterr().out == "First branch, with graph: 1\nSecond branch, with graph: 0\n"
    assert tf_simple_relu.experimental_get_tracing_count() == 1  # one graph, the If picks the branch


def test_seed_001_simple_relu_to_code_is_the_documented_shape():
    code = ag.to_code(simple_relu)
    assert code == SIMPLE_RELU_CODE
    namespace = {}
    exec(compile(code, "<to_code>", "exec"), namespace)  # valid Python
    assert "simple_relu" in namespace


def test_seed_001_simple_relu_graph_def():
    tf_simple_relu = ag.function(simple_relu)
    graph_def = tf_simple_relu.get_concrete_function(rt.constant(1)).graph.as_graph_def()
    text = str(graph_def)
    assert 'name: "x"\n  op: "Placeholder"' in text
    assert "type: DT_INT32" in text
    assert 'name: "Greater/y"\n  op: "Const"' in text
    assert "int_val: 0" in text
    assert 'name: "Greater"\n  op: "Greater"\n  input: "x"\n  input: "Greater/y"' in text
    assert 'name: "cond"\n  op: "If"\n  input: "Greater"\n  input: "x"' in text
    assert 'key: "then_branch"' in text and 'key: "else_branch"' in text
    nodes = {node["name"]: node["op"] for node in graph_def.to_dict()["node"]}
    assert nodes["x"] == "Placeholder" and nodes["Greater/y"] == "Const"
    assert nodes["Greater"] == "Greater" and nodes["cond"] == "If"


def test_seed_001_my_relu_polymorphism(capsys):
    @ag.function
    def my_relu(x):
        return rt.maximum(0., x)

    print(my_relu(rt.constant(5.5)))
    print(my_relu([1, -1]))
    print(my_relu(rt.constant([3., -3.])))
    assert capsys.readouterr().out == ("Tensor(5.5, shape=(), dtype=float32)\n"
                                       "Tensor([1. 0.], shape=(2,), dtype=float32)\n"
                                       "Tensor([3. 0.], shape=(2,), dtype=float32)\n")
    assert my_relu.experimental_get_tracing_count() == 3
    # These two calls do *not* create new graphs.
    print(my_relu(rt.constant(-2.5)))
    print(my_relu(rt.constant([-1., 1.])))
    assert capsys.readouterr().out == ("Tensor(0.0, shape=(), dtype=float32)\n"
                                       "Tensor([0. 1.], shape=(2,), dtype=float32)\n")
    assert my_relu.experimental_get_tracing_count() == 3
    print(my_relu.pretty_printed_concrete_signatures())
    assert capsys.readouterr().out == SEED_001_SIGNATURES + "\n"


def test_seed_002_my_relu_three_shapes(capsys):
    @ag.function
    def my_relu(x):
        return rt.maximum(0., x)

    print(my_relu(rt.constant(5.0)))
    print(my_relu(rt.constant([1.0, -1.0, 3.0])))
    print(my_relu(rt.constant([1.0, -1.0])))
    assert capsys.readouterr().out == ("Tensor(5.0, shape=(), dtype=float32)\n"
                                       "Tensor([1. 0. 3.], shape=(3,), dtype=float32)\n"
                                       "Tensor([1. 0.], shape=(2,), dtype=float32)\n")
    blocks = my_relu.pretty_printed_concrete_signatures().split("\n\n")
    block = ("my_relu(x)\n  Args:\n    x: float32 Tensor, shape={0}\n"
             "  Returns:\n    float32 Tensor, shape={0}")
    # The seed's notebook lists the same three blocks; ours are in trace order.
    assert blocks == [block.format(shape) for shape in ("()", "(3,)", "(2,)")]


def get_MSE(y_true, y_pred):
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


@pytest.mark.parametrize("y_true, y_pred, expected", [
    ([7, 2, 7, 5, 2], [9, 9, 0, 8, 8], 29),   # seed 001's random draw
    ([6, 6, 3, 1, 9], [4, 0, 3, 8, 7], 18),   # seed 002's random draw
])
def test_seed_get_mse_graph_eager_and_run_functions_eagerly(y_true, y_pred, expected):
    y_true, y_pred = rt.constant(y_true), rt.constant(y_pred)
    graph_mse = ag.function(get_MSE)
    graph = graph_mse(y_true, y_pred)
    ag.run_functions_eagerly(True)
    forced_eager = graph_mse(y_true, y_pred)
    ag.run_functions_eagerly(False)
    eager = get_MSE(y_true, y_pred)
    for result in (graph, forced_eager, eager):
        assert repr(result) == f"Tensor({expected}, shape=(), dtype=int32)"
    assert graph_mse.experimental_get_tracing_count() == 1


def test_seed_get_mse_on_random_uniform_draws():
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    for draw in (y_true, y_pred):
        assert draw.dtype == rt.int32 and draw.shape == (5,)
        assert ((draw.numpy() >= 0) & (draw.numpy() < 10)).all()
    graph_mse = ag.function(get_MSE)
    graph = graph_mse(y_true, y_pred)
    ag.run_functions_eagerly(True)
    forced_eager = graph_mse(y_true, y_pred)
    ag.run_functions_eagerly(False)
    expected = int(np.sum((y_true.numpy() - y_pred.numpy()) ** 2) // 5)
    assert int(graph.numpy()) == int(forced_eager.numpy()) == int(get_MSE(y_true, y_pred).numpy()) == expected


@pytest.mark.parametrize("message, print_first", [("Calculating MSE!", True),       # seeds 001, 003
                                                   ("get_MSE is called !", False)])  # seed 002
def test_seed_get_mse_python_print_once_in_graph_every_call_eagerly(capsys, message, print_first):
    if print_first:
        def printing_mse(y_true, y_pred):
            print(message)
            sq_diff = rt.pow(y_true - y_pred, 2)
            return rt.reduce_mean(sq_diff)
    else:
        def printing_mse(y_true, y_pred):
            sq_diff = rt.pow(y_true - y_pred, 2)
            print(message)
            return rt.reduce_mean(sq_diff)
    get_mse = ag.function(printing_mse)
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    error = get_mse(y_true, y_pred)
    error = get_mse(y_true, y_pred)
    error = get_mse(y_true, y_pred)
    assert capsys.readouterr().out == message + "\n"
    ag.run_functions_eagerly(True)
    eager_error = get_mse(y_true, y_pred)
    eager_error = get_mse(y_true, y_pred)
    eager_error = get_mse(y_true, y_pred)
    ag.run_functions_eagerly(False)
    assert capsys.readouterr().out == (message + "\n") * 3
    assert int(error.numpy()) == int(eager_error.numpy())


def test_seed_rt_print_runs_on_every_graph_call(capsys):
    @ag.function
    def get_mse(y_true, y_pred):
        rt.print("Calculating MSE!")
        return rt.reduce_mean(rt.pow(y_true - y_pred, 2))

    for _ in range(3):
        get_mse(rt.constant([1, 2]), rt.constant([1, 4]))
    assert capsys.readouterr().out == "Calculating MSE!\n" * 3


def unused_return_eager(x):
    # Get index 1 will fail when `len(x) == 1`
    rt.gather(x, [1])  # unused
    return x


def test_seed_non_strict_execution(capsys):
    try:
        print(unused_return_eager(rt.constant([0.0])))
    except rt.errors.InvalidArgumentError as e:
        print(f'{type(e).__name__}: {e}')
    assert capsys.readouterr().out.startswith(
        "InvalidArgumentError: GatherV2: indices[0] = 1 is not in [0, 1)")

    @ag.function
    def unused_return_graph(x):
        rt.gather(x, [1])  # unused
        return x

    print(unused_return_graph(rt.constant([0.0])))
    assert capsys.readouterr().out == "Tensor([0.], shape=(1,), dtype=float32)\n"
    assert "GatherV2" in _op_types(unused_return_graph.get_concrete_function(rt.constant([0.0])))


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def test_seed_power_python_range_unrolls_and_matches_eager():
    x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32)
    assert set(np.unique(x.numpy())) <= {-1, 0, 1}
    power_as_graph = ag.function(power)
    eager = power(x, 100).numpy()
    graph = power_as_graph(x, 100).numpy()
    expected = np.eye(10, dtype=np.int32)
    for _ in range(100):
        expected = x.numpy() @ expected
    np.testing.assert_array_equal(eager, expected)
    np.testing.assert_array_equal(graph, expected)
    for _ in range(3):
        np.testing.assert_array_equal(power_as_graph(x, 100).numpy(), expected)
    assert power_as_graph.experimental_get_tracing_count() == 1
    concrete = power_as_graph.get_concrete_function(x, 100)
    assert _op_types(concrete).count("MatMul") == 100
    assert "While" not in _op_types(concrete)


def power_2x2(x, y):
    result = rt.eye(2, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def test_seed_power_with_a_tensor_exponent_is_one_while_loop():
    x = rt.constant([[1, 1], [0, 1]])
    power_as_graph = ag.function(power_2x2)
    assert power_as_graph(x, rt.constant(5)).numpy().tolist() == [[1, 5], [0, 1]]
    assert power_as_graph(x, rt.constant(7)).numpy().tolist() == [[1, 7], [0, 1]]
    assert power_as_graph(x, rt.constant(0)).numpy().tolist() == [[1, 0], [0, 1]]
    assert power_as_graph.experimental_get_tracing_count() == 1
    ops = _op_types(power_as_graph.get_concrete_function(x, rt.constant(5)))
    assert ops.count("While") == 1 and "MatMul" not in ops  # the MatMul is in the loop body
    assert power_2x2(x, rt.constant(5)).numpy().tolist() == [[1, 5], [0, 1]]


def test_seed_tracing_with_python_side_effect(capsys):
    @ag.function
    def a_function_with_python_side_effect(x):
        print("Tracing!")  # An eager-only side effect.
        return x * x + rt.constant(2)

    print(a_function_with_python_side_effect(rt.constant(2)))
    print()
    print(a_function_with_python_side_effect(rt.constant(3)))
    assert capsys.readouterr().out == ("Tracing!\nTensor(6, shape=(), dtype=int32)\n\n"
                                       "Tensor(11, shape=(), dtype=int32)\n")
    assert a_function_with_python_side_effect.experimental_get_tracing_count() == 1

    print(a_function_with_python_side_effect(2))
    print()
    print(a_function_with_python_side_effect(3))
    assert capsys.readouterr().out == ("Tracing!\nTensor(6, shape=(), dtype=int32)\n\n"
                                       "Tracing!\nTensor(11, shape=(), dtype=int32)\n")
    assert a_function_with_python_side_effect.experimental_get_tracing_count() == 3


def test_seed_002_tracing_function(capsys):
    @ag.function
    def tracing_function(x):
        print("Tracing")
        return x*x + rt.constant(2)

    print("#1: ", tracing_function(rt.constant(5)))  # tracing
    print("#2: ", tracing_function(rt.constant(6)))  # no tracing
    assert capsys.readouterr().out == ("Tracing\n#1:  Tensor(27, shape=(), dtype=int32)\n"
                                       "#2:  Tensor(38, shape=(), dtype=int32)\n")
    print("#1: ", tracing_function(5))  # tracing
    print("#2: ", tracing_function(6))  # tracing
    assert capsys.readouterr().out == ("Tracing\n#1:  Tensor(27, shape=(), dtype=int32)\n"
                                       "Tracing\n#2:  Tensor(38, shape=(), dtype=int32)\n")
    assert tracing_function.experimental_get_tracing_count() == 3


def test_seed_003_get_mse_without_parameters_is_a_clear_type_error():
    # Seed 003 defines ``get_MSE()`` with no parameters and then calls it with two: Python's own error.
    @ag.function
    def get_MSE():
        print("Calculating MSE!")

    with pytest.raises(TypeError, match="get_MSE"):
        get_MSE(rt.constant([1]), rt.constant([2]))
