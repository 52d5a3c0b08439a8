"""rt.function_gradient: the gradient of a traced or loaded ConcreteFunction, as one new graph.

Checked against central finite differences and against GradientTape on the original Python function;
saved functions are differentiated in a fresh process without the user's module; errors name the
problem.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from gradient_checks import assert_close, numeric_gradients
from runtime.core.registry import OpDef

F64 = rt.float64


def f64(value):
    return rt.constant(value, F64)


def mlp_loss(x, w1, w2):
    hidden = rt.tanh(rt.matmul(x, w1))
    probabilities = rt.nn.softmax(rt.matmul(hidden, w2))
    return -rt.reduce_mean(rt.log(probabilities[:, 0]))


def piecewise(x, w):
    if rt.reduce_sum(x) > 0.0:
        y = rt.exp(x) * w
    else:
        y = rt.square(x) - w
    return rt.reduce_sum(y * y)


def tape_of(fn, arrays, output_gradients=None):
    xs = [f64(a) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    return [np.asarray(g) for g in tape.gradient(y, xs, output_gradients=output_gradients)]


def numbers(tensors):
    return [np.asarray(t) for t in tensors]


MLP_SHAPES = [(5, 3), (3, 4), (4, 2)]


def mlp_arrays(seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in MLP_SHAPES]


# --- values ----------------------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_mlp_gradient_matches_finite_differences_and_the_tape(seed):
    arrays = mlp_arrays(seed)
    forward = rt.function(mlp_loss, input_signature=[rt.TensorSpec(s, F64) for s in MLP_SHAPES])
    grad = rt.function_gradient(forward, wrt=["x", "w1", "w2"])
    ours = numbers(grad(*[f64(a) for a in arrays]))
    assert_close(ours, numeric_gradients(mlp_loss, arrays, np.array(1.0)))
    assert_close(ours, tape_of(mlp_loss, arrays), rtol=1e-12, atol=1e-14)


def test_unknown_dims_and_a_vjp_with_output_gradients():
    forward = rt.function(lambda x, w: rt.tanh(rt.matmul(x, w)),
                          input_signature=[rt.TensorSpec([None, 3], F64), rt.TensorSpec([3, None], F64)])
    vjp = rt.function_gradient(forward, wrt=("x", "w"), output_gradients=True)
    rng = np.random.default_rng(3)
    for rows, columns in [(2, 4), (5, 1)]:
        x, w, cotangent = (rng.standard_normal(s) for s in [(rows, 3), (3, columns), (rows, columns)])
        ours = vjp(f64(x), f64(w), f64(cotangent))
        assert isinstance(ours, tuple) and len(ours) == 2
        fn = lambda a, b: rt.tanh(rt.matmul(a, b))  # noqa: E731
        assert_close(numbers(ours), numeric_gradients(fn, [x, w], cotangent))
        assert_close(numbers(ours), tape_of(fn, [x, w], f64(cotangent)), rtol=1e-12, atol=1e-14)
    assert "output_gradients: float64 Tensor, shape=(None, None)" in vjp.pretty_printed_signature()


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_tensor_if_in_the_function(sign):
    traced = ag.function(piecewise)
    rng = np.random.default_rng(4)
    x, w = sign * np.abs(rng.standard_normal(4)) + 0.1 * sign, rng.standard_normal(4)
    grad = rt.function_gradient(traced.get_concrete_function(f64(x), f64(w)))
    assert_close(numbers(grad(f64(x), f64(w))), numeric_gradients(ag.to_graph(piecewise), [x, w], np.array(1.0)))
    assert_close(numbers(grad(f64(x), f64(w))), tape_of(ag.to_graph(piecewise), [x, w]), rtol=1e-12)


def test_default_wrt_is_every_float_argument_and_python_arguments_stay_fixed():
    @rt.function
    def scaled(x, count, power, scale):
        return rt.reduce_sum(rt.pow(x, power) * scale) * rt.cast(count, F64)

    concrete = scaled.get_concrete_function(f64([1.0, 2.0]), rt.constant(3), 2.0, f64(0.5))
    grad = rt.function_gradient(concrete)  # x and scale; count is int32, power a Python float
    dx, dscale = grad(f64([1.0, 2.0]), rt.constant(3), f64(0.5))
    np.testing.assert_allclose(np.asarray(dx), [3.0, 6.0])  # 3 * 0.5 * 2x
    np.testing.assert_allclose(np.asarray(dscale), 15.0)  # 3 * (1 + 4)
    assert grad.pretty_printed_signature().splitlines()[0] == "scaled_gradient(x, count, power=2.0, scale)"


def test_structured_arguments_outputs_and_choosing_one_output():
    @rt.function
    def stats(pair, x):
        a, b = pair
        return {"loss": rt.reduce_sum(a * b * x), "scaled": x * 3.0, "count": rt.size(x)}

    args = ([f64([1.0, 2.0]), f64([3.0, 4.0])], f64([5.0, 6.0]))
    concrete = stats.get_concrete_function(*args)
    da_db = rt.function_gradient(concrete, wrt="pair", output="loss")(*args)
    assert isinstance(da_db, list) and len(da_db) == 2
    np.testing.assert_allclose(np.asarray(da_db[0]), [15.0, 24.0])  # b * x
    np.testing.assert_allclose(np.asarray(da_db[1]), [5.0, 12.0])  # a * x
    everything = rt.function_gradient(concrete, wrt="x")(*args)  # loss + scaled (the int output has none)
    np.testing.assert_allclose(np.asarray(everything), [3.0 + 3.0, 8.0 + 3.0])
    second = rt.function_gradient(concrete, wrt=["x"], output=1)(*args)  # flat order: count, loss, scaled
    np.testing.assert_allclose(np.asarray(second[0]), [3.0, 8.0])


def test_gradients_with_respect_to_variables_of_a_loaded_function(tmp_path):
    weights = rt.Variable(np.array([[0.5, -1.0], [2.0, 0.25]]), name="weights")

    @ag.function
    def loss(x):
        return rt.reduce_sum(rt.square(rt.matmul(x, weights) + rt.matmul(x, weights)))

    x = np.array([[1.0, 2.0], [-1.0, 0.5]])
    loss(f64(x))
    rt.save(loss, tmp_path)
    loaded = rt.load(tmp_path)
    (variable,) = loaded.variables
    grad = rt.function_gradient(loaded, wrt=[variable, "x"])
    dw, dx = grad(f64(x))
    with rt.GradientTape() as tape:
        value = loss.python_function(f64(x))  # eagerly, the Python source: the tape watches `weights`
    expected_dw = tape.gradient(value, weights)
    np.testing.assert_allclose(np.asarray(dw), np.asarray(expected_dw), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(dx), 8.0 * (x @ weights.numpy()) @ weights.numpy().T, rtol=1e-12)
    variable.assign(np.zeros((2, 2)))  # the gradient function reads the loaded variable when it runs
    np.testing.assert_array_equal(np.asarray(grad(f64(x))[0]), np.zeros((2, 2)))


def test_unconnected_arguments_none_or_zero():
    forward = rt.function(lambda x, y: x * 2.0, input_signature=[rt.TensorSpec([None], F64)] * 2)
    assert rt.function_gradient(forward, wrt=["x", "y"])(f64([1.0]), f64([2.0]))[1] is None
    zeros = rt.function_gradient(forward, wrt=["x", "y"], unconnected_gradients="zero")(f64([1.0]), f64([2.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(zeros[1]), [0.0, 0.0])
    nothing = rt.function_gradient(forward, wrt="y")  # no output depends on y: a function returning None
    assert nothing(f64([1.0]), f64([2.0])) is None and nothing.graph.outputs == []
    with pytest.raises(ValueError, match="unconnected_gradients must be 'none' or 'zero', got 'zeros'"):
        rt.function_gradient(forward, unconnected_gradients="zeros")


# --- saved graphs ----------------------------------------------------------------------------------
def test_the_gradient_function_saves_loads_and_differentiates_again(tmp_path):
    forward = rt.function(lambda x: rt.reduce_sum(rt.sin(x) * x), input_signature=[rt.TensorSpec([3], F64)])
    grad = rt.function_gradient(forward, wrt="x")
    rt.save(grad, tmp_path / "grad")
    loaded = rt.load(tmp_path / "grad")
    x = f64([0.1, 1.0, -2.0])
    np.testing.assert_array_equal(np.asarray(loaded(x)), np.asarray(grad(x)))
    np.testing.assert_allclose(np.asarray(loaded(x)), np.sin(x.numpy()) + x.numpy() * np.cos(x.numpy()))
    # d/dx of the sum of the first derivative: the diagonal of the Hessian, 2 cos x - x sin x
    second = rt.function_gradient(loaded, wrt="x")
    np.testing.assert_allclose(np.asarray(second(x)), 2 * np.cos(x.numpy()) - x.numpy() * np.sin(x.numpy()),
                               rtol=1e-12)


def test_a_saved_function_is_differentiated_in_a_process_without_its_source(tmp_path):
    module = tmp_path / "user_model_fgrad.py"
    module.write_text(textwrap.dedent("""
        import autograph_lite as ag
        import runtime as rt

        @ag.function
        def loss(x, w):
            y = rt.matmul(x, w)
            if rt.reduce_sum(y) > 0.0:
                y = rt.tanh(y)
            return rt.reduce_mean(y * y)
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        import user_model_fgrad
        x, w = np.array([[1.0, 2.0]]), np.array([[0.5], [0.25]])
        user_model_fgrad.loss(f64(x), f64(w))
        rt.save(user_model_fgrad.loss, tmp_path / "saved")
        expected = tape_of(ag.to_graph(user_model_fgrad.loss.python_function), [x, w])
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_model_fgrad", None)
    module.unlink()
    script = textwrap.dedent(f"""
        import json, sys, runtime as rt
        grad = rt.function_gradient(rt.load({str(tmp_path / 'saved')!r}), wrt=["x", "w"])
        dx, dw = grad(rt.constant([[1.0, 2.0]], rt.float64), rt.constant([[0.5], [0.25]], rt.float64))
        print(json.dumps([dx.numpy().tolist(), dw.numpy().tolist()]))
        print('autograph_lite imported:', 'autograph_lite' in sys.modules)
    """)
    repository = str(Path(rt.__file__).resolve().parent.parent)  # this checkout's runtime, not an installed one
    env = {**os.environ, "PYTHONPATH": repository + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            cwd=str(tmp_path), env=env)
    assert result.returncode == 0, result.stderr
    values, converter = result.stdout.splitlines()
    dx, dw = json.loads(values)
    np.testing.assert_allclose(dx, expected[0], rtol=1e-12)
    np.testing.assert_allclose(dw, expected[1], rtol=1e-12)
    assert converter == "autograph_lite imported: False"


def test_the_forward_ops_the_gradient_does_not_need_are_pruned():
    forward = rt.function(lambda x: (rt.reduce_sum(x * 3.0), rt.exp(x)), input_signature=[rt.TensorSpec([2], F64)])
    grad = rt.function_gradient(forward, wrt="x", output=0)
    assert "Exp" not in [op.type for op in grad.graph.operations]
    np.testing.assert_array_equal(np.asarray(grad(f64([1.0, 2.0]))), [3.0, 3.0])


# --- errors ----------------------------------------------------------------------------------------
def int_and_float(n, x):
    return rt.cast(n, F64) * x, n * 2


INT_AND_FLOAT = rt.function(int_and_float, input_signature=[rt.TensorSpec([], rt.int32), rt.TensorSpec([], F64)])


def test_an_integer_argument_is_refused():
    with pytest.raises(TypeError, match="argument 'n' of int_and_float is int32; only floating-point arguments "
                                        "have gradients"):
        rt.function_gradient(INT_AND_FLOAT, wrt="n")


def test_an_integer_output_is_refused():
    with pytest.raises(TypeError, match="the chosen output of int_and_float has no floating-point tensor \\(int32\\)"):
        rt.function_gradient(INT_AND_FLOAT, wrt="x", output=1)
    with pytest.raises(TypeError, match="with output_gradients=True every chosen output must be a floating-point "
                                        "tensor; int_and_float returns \\(float64 Tensor, shape=\\(\\), int32 Tensor, "
                                        "shape=\\(\\)\\): choose one with output="):
        rt.function_gradient(INT_AND_FLOAT, wrt="x", output_gradients=True)


def test_unknown_names_and_outputs():
    with pytest.raises(ValueError, match="int_and_float has no tensor argument 'y' \\(its tensor arguments: n, x\\)"):
        rt.function_gradient(INT_AND_FLOAT, wrt="y")
    with pytest.raises(ValueError, match="output=2 is out of range; int_and_float has 2 output tensor"):
        rt.function_gradient(INT_AND_FLOAT, wrt="x", output=2)
    with pytest.raises(ValueError, match="has no output 'loss' \\(its keys: none: it does not return a dict\\)"):
        rt.function_gradient(INT_AND_FLOAT, wrt="x", output="loss")
    with pytest.raises(TypeError, match="wrt entries must be argument names or Variables, got int 0"):
        rt.function_gradient(INT_AND_FLOAT, wrt=[0])
    stranger = rt.Variable(1.0, name="stranger")
    with pytest.raises(ValueError, match="Variable 'stranger' is not read by int_and_float"):
        rt.function_gradient(INT_AND_FLOAT, wrt=stranger)


def test_a_function_with_several_or_no_traces_asks_for_one():
    f = rt.function(lambda x: x * 2.0)
    with pytest.raises(TypeError, match="has not been traced yet; pass one ConcreteFunction"):
        rt.function_gradient(f)
    f(f64(1.0))
    f(f64([1.0, 2.0]))
    with pytest.raises(TypeError, match="has 2 traced signatures; pass one ConcreteFunction, e.g. "
                                        "rt.function_gradient\\(<lambda>.get_concrete_function"):
        rt.function_gradient(f)
    with pytest.raises(TypeError, match="expects a ConcreteFunction, a Function or a loaded function, got function"):
        rt.function_gradient(lambda x: x)


def test_an_op_without_a_gradient_rule_is_named():
    # An op declared without any gradient (not registered, so the registry's completeness test is unaffected).
    opaque = OpDef("OpaqueSquare", ("x",), lambda specs, attrs: [specs[0]], lambda x: x * x)
    graph = rt.FuncGraph("opaque")
    from runtime.core import context
    with context.graph_scope(graph):
        x = graph.add_placeholder(F64, (), name="x")
        (y,) = graph.create_op(opaque, [x], {}).outputs
    graph.outputs, graph.structured_outputs = [y], y
    concrete = rt.ConcreteFunction(graph, "opaque", ["x"], (rt.TensorSpec([], F64),), ((_tensor_marker(), F64, ()),))
    assert concrete(f64(3.0)).numpy() == 9.0
    with pytest.raises(rt.errors.GradientError, match="no gradient is registered for op type 'OpaqueSquare' "
                                                      "\\(node OpaqueSquare\\)"):
        rt.function_gradient(concrete)


def _tensor_marker():
    from runtime.tracing.signature import TENSOR
    return TENSOR


def test_side_effects_are_refused_and_variables_read_in_an_if_too():
    counter = rt.Variable(0.0, name="counter")

    @ag.function
    def step(x):
        counter.assign_add(1.0)
        return x * 2.0

    step(f64(1.0))
    with pytest.raises(rt.errors.GradientError, match="step has a side effect \\(AssignAddVariableOp, node "
                                                      "AssignAddVariableOp\\) that computing its gradient would "
                                                      "run again"):
        rt.function_gradient(step)

    @ag.function
    def noisy(x):
        return x * rt.random.normal([])

    noisy(rt.constant(1.0))
    with pytest.raises(rt.errors.GradientError, match="noisy has a side effect \\(RandomNormal"):
        rt.function_gradient(noisy)

    scale = rt.Variable(2.0, name="scale")

    @ag.function
    def branchy(x):
        if x > 0.0:
            x = x * scale
        return x



def test_printing_and_asserting_functions_are_differentiated():
    @ag.function
    def checked(x):
        rt.debugging.assert_equal(rt.reduce_all(x > 0.0), True)
        return rt.reduce_sum(rt.log(x))

    checked(f64([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(rt.function_gradient(checked)(f64([1.0, 4.0]))[0]), [1.0, 0.25])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.function_gradient(checked)(f64([1.0, -4.0]))  # the assertion runs in the gradient function too


def test_a_saved_function_with_a_tensor_while_is_differentiated(tmp_path):
    @ag.function
    def power_loop(x, n):
        y = x
        i = rt.constant(1)
        while i < n:
            y = y * x
            i += 1
        return y

    power_loop(f64([1.3, -0.5]), rt.constant(4))
    rt.save(power_loop, tmp_path)
    grad = rt.function_gradient(rt.load(tmp_path), wrt="x")
    for n in (1, 4, 7):  # the trip count is data: one gradient function for all of them
        np.testing.assert_allclose(np.asarray(grad(f64([1.3, -0.5]), rt.constant(n))),
                                   n * np.array([1.3, -0.5]) ** (n - 1), rtol=1e-12)
    with pytest.raises(TypeError, match="argument 'n' of power_loop is int32"):
        rt.function_gradient(rt.load(tmp_path), wrt="n")


def test_a_variable_read_inside_a_tensor_if_or_loop_gets_its_gradient(tmp_path):
    scale = rt.Variable(2.0, name="scale", dtype=rt.float64)

    @ag.function(input_signature=[rt.TensorSpec([], rt.float64), rt.TensorSpec([], rt.int32)])
    def branchy_power(x, n):
        if x > 0.0:
            x = x * scale
        for _ in range(n):
            x = x * scale
        return x

    branchy_power.get_concrete_function()
    grad = rt.function_gradient(branchy_power, wrt=["x", scale])
    # x > 0: x * scale**(n + 1); else x * scale**n
    assert [float(g) for g in grad(f64(1.5), rt.constant(2))] == [8.0, 3 * 1.5 * 4.0]
    assert [float(g) for g in grad(f64(-1.5), rt.constant(2))] == [4.0, 2 * -1.5 * 2.0]
    rt.save(branchy_power, str(tmp_path / "f"))
    loaded = rt.load(str(tmp_path / "f"))
    loaded_grad = rt.function_gradient(loaded, wrt=["x", loaded.variables[0]])
    assert [float(g) for g in loaded_grad(f64(1.5), rt.constant(2))] == [8.0, 18.0]
