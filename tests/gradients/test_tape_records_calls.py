"""An eager GradientTape records calls of ConcreteFunctions (a loaded function has no Python code to run op
by op): the gradient runs the function's VJP, built from the same graph. Before, such a call was invisible
to the tape and its gradient a silent None.
"""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

F64 = rt.float64


def f64(value):
    return rt.constant(value, F64)


def model_loss(x, y, w, b):
    return rt.reduce_mean(rt.square(rt.tanh(rt.matmul(x, w) + b) - y))


X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.25]])
Y = np.array([[0.5], [-0.25], [0.75]])


def saved_model(tmp_path):
    w = rt.Variable(np.array([[0.3], [-0.2]]), name="w")
    b = rt.Variable(np.array([0.1]), name="b")

    @ag.function
    def loss(x, y):
        return model_loss(x, y, w, b)

    loss(f64(X), f64(Y))
    rt.save(loss, tmp_path)
    return rt.load(tmp_path), (w, b)


def test_gradients_through_a_loaded_function_equal_the_tape_on_the_python_code(tmp_path):
    loaded, (w, b) = saved_model(tmp_path)
    x = f64(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        value = loaded(x, f64(Y)) * 2.0
    dx, dw, db = tape.gradient(value, [x, *loaded.variables])
    with rt.GradientTape() as tape:
        tape.watch(x)
        expected_value = model_loss(x, f64(Y), w, b) * 2.0
    expected = tape.gradient(expected_value, [x, w, b])
    assert float(value) == pytest.approx(float(expected_value), rel=1e-14)
    for ours, theirs in zip([dx, dw, db], expected):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_training_a_loaded_model_eagerly_matches_training_the_original(tmp_path):
    loaded, (w, b) = saved_model(tmp_path)
    ours, theirs = rt.optimizers.SGD(0.5), rt.optimizers.SGD(0.5)
    for _ in range(5):
        with rt.GradientTape() as tape:
            loss = loaded(f64(X), f64(Y))
        ours.apply_gradients(zip(tape.gradient(loss, loaded.variables), loaded.variables))
        with rt.GradientTape() as tape:
            expected = model_loss(f64(X), f64(Y), w, b)
        theirs.apply_gradients(zip(tape.gradient(expected, [w, b]), [w, b]))
        assert float(loss) == pytest.approx(float(expected), rel=1e-12)
    for a, b_ in zip(loaded.variables, [w, b]):
        np.testing.assert_allclose(a.numpy(), b_.numpy(), rtol=1e-12)
    assert float(loaded(f64(X), f64(Y))) < float(model_loss(f64(X), f64(Y), rt.Variable(np.array([[0.3], [-0.2]])),
                                                            rt.Variable(np.array([0.1]))))


def test_second_derivatives_through_a_recorded_call():
    concrete = rt.function(lambda x: rt.sin(x) * x, input_signature=[rt.TensorSpec([3], F64)]).get_concrete_function()
    x = f64([0.1, 1.0, -2.0])
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = concrete(x)
        first = inner.gradient(y, x)  # the VJP call is recorded by the outer tape in turn
    second = outer.gradient(first, x)
    v = x.numpy()
    np.testing.assert_allclose(first.numpy(), np.sin(v) + v * np.cos(v), rtol=1e-14)
    np.testing.assert_allclose(second.numpy(), 2 * np.cos(v) - v * np.sin(v), rtol=1e-12)


def test_structured_calls_python_values_and_integer_outputs():
    @rt.function
    def stats(pair, scale, count):
        a, b = pair
        return {"total": rt.reduce_sum(a * b) * scale, "count": count * 2, "b": b}

    a, b = f64([1.0, 2.0]), f64([3.0, 4.0])
    concrete = stats.get_concrete_function([a, b], 1.5, rt.constant(2))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        result = concrete([a, b], rt.constant(2))
    np.testing.assert_allclose(tape.gradient(result["total"], a).numpy(), [4.5, 6.0])
    np.testing.assert_allclose(tape.gradient([result["total"], result["b"]], b).numpy(), [2.5, 4.0])
    assert tape.gradient(result["count"], a) is None


def test_unwatched_calls_are_not_recorded_and_side_effects_are_refused_when_differentiated():
    counter = rt.Variable(0.0, name="counter")

    @ag.function
    def bump(x):
        counter.assign_add(1.0)
        return x * 3.0

    concrete = bump.get_concrete_function(f64(1.0))
    x = f64(2.0)
    with rt.GradientTape() as tape:
        y = concrete(x)  # x is not watched and counter is assigned, not read: nothing to record
    assert tape.gradient(y, x) is None
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = concrete(x)
    with pytest.raises(rt.errors.GradientError, match="bump has a side effect \\(AssignAddVariableOp"):
        tape.gradient(y, x)
    assert counter.numpy() == 2.0  # the two calls ran once each; the refused gradient ran nothing
