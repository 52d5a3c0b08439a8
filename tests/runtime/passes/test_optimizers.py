"""rt.optimizers.SGD and Adam: the same numbers as the textbook updates in numpy, eagerly and traced."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


def numpy_adam(w, grads, lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    m = v = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
    return w


def numpy_sgd(w, grads, lr=0.1, momentum=0.9):
    velocity = np.zeros_like(w)
    for g in grads:
        velocity = momentum * velocity - lr * g
        w = w + velocity
    return w


GRADS = [np.array([0.5, -1.0]), np.array([0.25, 2.0]), np.array([-1.0, 0.1])]


@pytest.mark.parametrize("traced", [False, True])
def test_adam_matches_numpy(traced):
    w = rt.Variable(np.array([1.0, 2.0]))
    adam = rt.optimizers.Adam(learning_rate=0.01)

    def step(g):
        adam.apply_gradients([(g, w)])
        return w.read_value()
    step = ag.function(step) if traced else step
    for g in GRADS:
        step(rt.constant(g))
    np.testing.assert_allclose(w.numpy(), numpy_adam(np.array([1.0, 2.0]), GRADS), rtol=1e-12)
    assert int(adam.iterations.numpy()) == 3
    if traced:
        assert step.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_matches_numpy(traced, momentum):
    w = rt.Variable(np.array([1.0, 2.0]))
    sgd = rt.optimizers.SGD(learning_rate=0.1, momentum=momentum)

    def step(g):
        sgd.apply_gradients(zip([g], [w]))
        return w.read_value()
    step = ag.function(step) if traced else step
    for g in GRADS:
        step(rt.constant(g))
    np.testing.assert_allclose(w.numpy(), numpy_sgd(np.array([1.0, 2.0]), GRADS, momentum=momentum), rtol=1e-12)


def test_a_traced_train_step_minimizes_a_quadratic():
    w = rt.Variable([3.0, -2.0])
    adam = rt.optimizers.Adam(learning_rate=0.1)

    @ag.function
    def train_step():
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.square(w - rt.constant([1.0, 1.0])))
        adam.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    losses = [float(train_step()) for _ in range(200)]
    assert losses[-1] < 1e-3 < losses[0]
    np.testing.assert_allclose(w.numpy(), [1.0, 1.0], atol=0.05)
    assert train_step.experimental_get_tracing_count() == 1


def test_no_gradient_at_all_and_bad_arguments_are_clear_errors():
    w = rt.Variable(1.0)
    with pytest.raises(ValueError, match=r"no gradient for any variable \(Variable\); check that the loss"):
        rt.optimizers.SGD(0.1).apply_gradients([(None, w)])
    with pytest.raises(TypeError, match=r"expected \(gradient, rt.Variable\) pairs"):
        rt.optimizers.Adam().apply_gradients([(rt.constant(1.0), rt.constant(1.0))])
    with pytest.raises(ValueError, match="momentum must be in"):
        rt.optimizers.SGD(0.1, momentum=2.0)
