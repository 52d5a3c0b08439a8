"""rt.custom_gradient, TensorFlow's decorator: eager tapes, traced functions (in tensor ifs and loops too),
Variables, gradients of gradients, save/load, and the errors TensorFlow gives for a malformed gradient function.
The expected values are what TensorFlow's decorator gives for the same programs."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

F64 = rt.float64


@rt.custom_gradient
def clip_gradient(x):
    def grad(dy):
        return rt.clip_by_value(dy, -1.0, 1.0)
    return rt.identity(x), grad


@rt.custom_gradient
def straight_through_round(x):
    return rt.round(x), lambda dy: dy


@rt.custom_gradient
def log1pexp(x):
    e = rt.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return rt.log(1 + e), grad


def eager_gradient(fn, value):
    x = rt.constant(value, F64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return np.asarray(tape.gradient(y, x))


def traced_gradient(fn, value):
    @ag.function
    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)
    return np.asarray(gradient(rt.constant(value, F64)))


@pytest.mark.parametrize("differentiate", [eager_gradient, traced_gradient])
@pytest.mark.parametrize("fn, value, expected", [
    (lambda x: clip_gradient(x * 5.0), 3.0, 5.0),  # the 5 reaching x * 5 is clipped to 1, times 5
    (lambda x: rt.reduce_sum(straight_through_round(x) * 2.0), [0.3, 1.7], [2.0, 2.0]),  # round's would be 0
    (lambda x: log1pexp(x), 1000.0, 1.0),  # exp(1000) / (1 + exp(1000)) by the book is inf / inf = nan
    (lambda x: clip_gradient(x) * clip_gradient(x), 3.0, 2.0),  # each use clipped: 1 + 1
])
def test_the_gradient_is_the_functions_not_its_ops(differentiate, fn, value, expected):
    np.testing.assert_allclose(differentiate(fn, value), expected, rtol=1e-15)


def test_the_gradient_of_log1pexp_by_its_ops_is_nan_which_is_why():
    with np.errstate(all="ignore"):
        assert np.isnan(eager_gradient(lambda x: rt.log(1 + rt.exp(x)), 1000.0))


def test_several_arguments_and_outputs():
    @rt.custom_gradient
    def pair(a, b):
        def grad(da, db):
            return da + db, None  # no gradient for b
        return (a * b, a + b), grad

    @ag.function
    def traced(a, b):
        with rt.GradientTape() as tape:
            tape.watch([a, b])
            p, s = pair(a, b)
            y = 3.0 * p + 5.0 * s
        return tape.gradient(y, [a, b])
    a, b = rt.constant(2.0, F64), rt.constant(4.0, F64)
    with rt.GradientTape() as tape:
        tape.watch([a, b])
        p, s = pair(a, b)
        y = 3.0 * p + 5.0 * s
    eager = tape.gradient(y, [a, b])
    for grads in (eager, traced(a, b)):
        assert float(grads[0]) == 8.0 and grads[1] is None


def test_inside_a_tensor_loop_and_a_tensor_if():
    def program(x):
        y = x
        for _ in rt.range(3):
            y = straight_through_round(y * 1.5)
        if rt.reduce_sum(y) > 0:
            y = clip_gradient(y) * 4.0
        return rt.reduce_sum(y)
    x = [0.3, 1.7]
    expected = [1.5 ** 3] * 2  # the rounds pass 1.5 three times; the clip caps the 4 reaching it at 1
    np.testing.assert_allclose(traced_gradient(program, x), expected)
    np.testing.assert_allclose(eager_gradient(ag.to_graph(program), x), expected)


def test_variables_need_the_variables_keyword_and_get_their_gradients():
    w = rt.Variable(np.float64(2.0), name="w")

    @rt.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert [v.name for v in variables] == ["w"]
            return dy * w * 10.0, [dy * x * 100.0]
        return x * w, grad

    x = rt.constant(3.0, F64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    eager = [float(g) for g in tape.gradient(y, [x, w])]

    @ag.function
    def traced(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        return tape.gradient(y, [x, w])
    assert eager == [float(g) for g in traced(x)] == [20.0, 300.0]


def test_a_function_reading_variables_without_the_keyword_is_tensorflows_error():
    w = rt.Variable(2.0, name="w")

    @rt.custom_gradient
    def scaled(x):
        return x * w, lambda dy: dy
    with pytest.raises(TypeError, match="reads the Variable.*w.*must take a keyword argument 'variables'"):
        scaled(rt.constant(1.0))
    with pytest.raises(TypeError, match="must take a keyword argument 'variables'"):
        rt.function(scaled)(rt.constant(1.0))


def test_a_variable_passed_as_the_argument_is_an_input_not_a_read_variable():
    """TensorFlow converts a Variable argument to a tensor input: ``grad_fn`` returns its gradient as an input
    gradient and needs no ``variables`` keyword. Only Variables read without being passed are ``variables``."""
    v = rt.Variable(np.array([0.3, -0.6, 0.9]), name="v")
    w = rt.Variable(np.array([1.0, 2.0, 3.0]), name="w")

    @rt.custom_gradient
    def smooth_step(u):
        value = rt.tanh(u)
        return value, lambda dy: dy * (1.0 - value * value)

    @rt.custom_gradient
    def scaled_by_w(u):
        def grad(dy, variables):
            assert [x.name for x in variables] == ["w"]  # v came as the argument: an input
            return dy * 10.0, [dy * 100.0]
        return u * w, grad

    def loss():
        return rt.reduce_sum(smooth_step(v)) + rt.reduce_sum(scaled_by_w(v))

    with rt.GradientTape() as tape:
        y = loss()
    eager = [np.asarray(g) for g in tape.gradient(y, [v, w])]

    @ag.function
    def traced():
        with rt.GradientTape() as tape:
            y = loss()
        return tape.gradient(y, [v, w])
    expected_v = 1.0 - np.tanh([0.3, -0.6, 0.9]) ** 2 + 10.0
    for gradients in (eager, [np.asarray(g) for g in traced()]):
        np.testing.assert_allclose(gradients[0], expected_v, rtol=1e-15)
        np.testing.assert_array_equal(gradients[1], [100.0, 100.0, 100.0])


def test_wrong_gradient_count_and_wrong_return_are_clear_errors():
    @rt.custom_gradient
    def two_gradients(x):
        return x * 2.0, lambda dy: (dy, dy)

    @rt.custom_gradient
    def no_pair(x):
        return x * 2.0
    with pytest.raises(ValueError, match="returned 2 gradient.*for 1 tensor argument"):
        eager_gradient(two_gradients, 1.0)
    with pytest.raises(ValueError, match="returned 2 gradient.*for 1 tensor argument"):
        traced_gradient(two_gradients, 1.0)
    with pytest.raises(TypeError, match="must return a pair \\(value, grad_fn\\)"):
        no_pair(rt.constant(1.0))


def test_gradients_of_gradients_run_through_the_gradient_function():
    @rt.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad

    def second_derivative(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = cube(x)
            slope = inner.gradient(y, x)
        return outer.gradient(slope, x)
    assert float(second_derivative(rt.constant(2.0, F64))) == 12.0
    assert float(ag.function(second_derivative)(rt.constant(2.0, F64))) == 12.0


def test_saved_and_loaded_the_function_keeps_its_custom_gradient(tmp_path):
    function = rt.function(lambda x: clip_gradient(x * 5.0) + straight_through_round(x))
    function(rt.constant(2.0, F64))
    rt.save(function, tmp_path)
    loaded = rt.load(tmp_path)
    x = rt.constant(2.0, F64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = loaded(x)
    assert float(y) == 12.0 and float(tape.gradient(y, x)) == 5.0 + 1.0


def test_the_forward_compiles_and_exports_as_the_values(tmp_path):
    compiled = rt.function(lambda x: straight_through_round(x) * 2.0, jit_compile=True)
    np.testing.assert_array_equal(np.asarray(compiled(rt.constant([0.3, 1.7]))), [0.0, 4.0])
    onnxruntime = pytest.importorskip("onnxruntime")
    concrete = rt.function(lambda x: straight_through_round(x) * 2.0).get_concrete_function(
        rt.TensorSpec([2], rt.float32))
    model = rt.export.to_onnx(concrete, str(tmp_path / "model.onnx"))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (result,) = session.run(None, {session.get_inputs()[0].name: np.array([0.3, 1.7], np.float32)})
    np.testing.assert_array_equal(result, [0.0, 4.0])


def test_a_gradient_function_built_from_intermediates_has_the_same_second_derivative_eager_and_traced():
    @rt.custom_gradient
    def smooth_step(u):
        value = rt.tanh(u)
        return value, lambda dy: dy * (1.0 - value * value)

    def second_derivative(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = smooth_step(x)
            slope = inner.gradient(y, x)
        return outer.gradient(slope, x)
    x = 0.7
    exact = -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)  # d/dx (1 - tanh(x)^2)
    np.testing.assert_allclose(float(second_derivative(rt.constant(x, F64))), exact, rtol=1e-14)
    np.testing.assert_allclose(float(ag.function(second_derivative)(rt.constant(x, F64))), exact, rtol=1e-14)


def test_a_custom_gradient_reading_a_variable_inside_a_tensor_loop():
    w = rt.Variable(np.float64(2.0), name="w")

    @rt.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * w, [dy * x]
        return x * w, grad

    def program(x):
        y = x
        for _ in rt.range(2):
            y = scaled(y)
        return rt.reduce_sum(y)

    @ag.function
    def traced(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            s = program(x)
        return tape.gradient(s, [x, w])
    x = rt.constant(3.0, F64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        s = ag.to_graph(program)(x)
    eager = tape.gradient(s, [x, w])
    for grads in (traced(x), eager):
        assert [float(g) for g in grads] == [4.0, 12.0]  # y = x w^2
