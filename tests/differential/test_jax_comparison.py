"""The same programs differentiated by JAX and by us give the same numbers (optional: skipped without jax).

Install with ``pip install -e '.[jax]'``. Each program is written once against a small namespace
(``RT`` for runtime ops, ``jax.numpy`` for JAX), in float64; our gradients come from the eager tape, an
``ag.function`` with a tape inside, and ``rt.function_gradient`` of a saved graph; JAX's from
``jax.grad``/``jax.vjp``/``jax.hessian``.
"""
import types

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)  # compare in float64, as our finite-difference checks do

F64 = rt.float64
RT = types.SimpleNamespace(
    tanh=rt.tanh, exp=rt.exp, log=rt.log, sin=rt.sin, sqrt=rt.sqrt, matmul=rt.matmul, maximum=rt.maximum,
    where=rt.where, sum=rt.reduce_sum, mean=rt.reduce_mean, max=rt.reduce_max, abs=rt.abs,
    sigmoid=rt.math.sigmoid, softmax=lambda x: rt.nn.softmax(x, -1))
JNP = types.SimpleNamespace(
    tanh=jnp.tanh, exp=jnp.exp, log=jnp.log, sin=jnp.sin, sqrt=jnp.sqrt, matmul=jnp.matmul, maximum=jnp.maximum,
    where=jnp.where, sum=jnp.sum, mean=jnp.mean, max=jnp.max, abs=jnp.abs,
    sigmoid=jax.nn.sigmoid, softmax=lambda x: jax.nn.softmax(x, -1))


def mlp(m, x, w1, w2, labels):
    hidden = m.maximum(m.matmul(x, w1), 0.0) + m.tanh(m.matmul(x, w1)) * 0.1
    logits = m.matmul(hidden, w2)
    shifted = logits - m.max(logits, 1, keepdims=True)
    log_probs = shifted - m.log(m.sum(m.exp(shifted), 1, keepdims=True))
    return -m.mean(m.sum(log_probs * labels, 1))


def smooth_ops(m, x, y):
    return m.sum(m.sigmoid(x) * m.sqrt(m.abs(y) + 1.0) + m.softmax(x * y) / (1.0 + y * y) + m.sin(x) ** 3)


def unrolled_recurrence(m, x, w):
    state = x
    for _ in range(4):  # a Python loop: unrolled the same way in both
        state = m.tanh(m.matmul(state, w) + x)
    return m.sum(state * state)


PROGRAMS = {  # name: (program, argument shapes)
    "mlp": (mlp, [(6, 4), (4, 5), (5, 3), (6, 3)]),
    "smooth_ops": (smooth_ops, [(3, 4), (3, 4)]),
    "unrolled_recurrence": (unrolled_recurrence, [(2, 3), (3, 3)]),
}


def arguments(name, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in PROGRAMS[name][1]]
    if name == "mlp":
        arrays[-1] = np.eye(3)[rng.integers(0, 3, 6)]  # one-hot labels
    return arrays


def ours_eager(program, arrays):
    xs = [rt.constant(a, F64) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = program(RT, *xs)
    return float(y), [np.asarray(g) for g in tape.gradient(y, xs)]


def theirs(program, arrays):
    value, grads = jax.value_and_grad(lambda *xs: program(JNP, *xs), argnums=tuple(range(len(arrays))))(*arrays)
    return float(value), [np.asarray(g) for g in grads]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_first_derivatives_match_jax(name):
    program, _ = PROGRAMS[name]
    for seed in range(3):
        arrays = arguments(name, seed)
        value, grads = ours_eager(program, arrays)
        jax_value, jax_grads = theirs(program, arrays)
        assert value == pytest.approx(jax_value, rel=1e-12)
        for ours, expected in zip(grads, jax_grads):
            np.testing.assert_allclose(ours, expected, rtol=1e-10, atol=1e-12)

        @ag.function
        def traced(*xs):
            with rt.GradientTape() as tape:
                tape.watch(list(xs))
                y = program(RT, *xs)
            return tape.gradient(y, list(xs))
        for ours, expected in zip(traced(*[rt.constant(a, F64) for a in arrays]), jax_grads):
            np.testing.assert_allclose(np.asarray(ours), expected, rtol=1e-10, atol=1e-12)


def test_a_tensor_if_matches_lax_cond():
    def ours(x, w):
        if rt.reduce_sum(x) > 0.0:
            y = rt.exp(x) * w
        else:
            y = rt.square(x) - w
        return rt.reduce_sum(y * y)

    def jax_version(x, w):
        y = jax.lax.cond(jnp.sum(x) > 0.0, lambda: jnp.exp(x) * w, lambda: jnp.square(x) - w)
        return jnp.sum(y * y)

    staged = ag.function(ours)
    for sign in (1.0, -1.0):
        x, w = sign * np.array([0.5, 1.0, 0.25]), np.array([1.5, -0.5, 2.0])
        grad = rt.function_gradient(staged.get_concrete_function(rt.constant(x), rt.constant(w)))
        expected = jax.grad(jax_version, argnums=(0, 1))(x, w)
        for a, b in zip(grad(rt.constant(x), rt.constant(w)), expected):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)


def test_function_gradient_of_a_saved_graph_and_a_vjp_match_jax(tmp_path):
    program, shapes = PROGRAMS["unrolled_recurrence"]
    forward = rt.function(lambda x, w: rt.tanh(rt.matmul(x, w)) * x,
                          input_signature=[rt.TensorSpec(s, F64) for s in shapes])
    forward.get_concrete_function()
    rt.save(forward, tmp_path)
    vjp = rt.function_gradient(rt.load(tmp_path), wrt=["x", "w"], output_gradients=True)
    x, w = arguments("unrolled_recurrence")
    cotangent = np.random.default_rng(9).standard_normal((2, 3))
    _, jax_vjp = jax.vjp(lambda a, b: jnp.tanh(a @ b) * a, x, w)
    for ours, expected in zip(vjp(rt.constant(x), rt.constant(w), rt.constant(cotangent)), jax_vjp(cotangent)):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(expected), rtol=1e-12)


@pytest.mark.parametrize("name", ["smooth_ops", "unrolled_recurrence"])
def test_hessians_match_jax(name):
    program, _ = PROGRAMS[name]
    x, y = arguments(name, 4)
    expected = np.asarray(jax.hessian(lambda a: program(JNP, a, y))(x)).reshape(x.size, x.size)

    @ag.function
    def hessian(x, y):
        flat = rt.reshape(x, [-1])
        with rt.GradientTape(persistent=True) as outer:
            outer.watch(flat)
            with rt.GradientTape() as inner:
                inner.watch(flat)
                value = program(RT, rt.reshape(flat, x.shape), y)
            gradient = inner.gradient(value, flat)
            entries = [gradient[i] for i in range(x.shape[0] * x.shape[1])]
        return rt.stack([outer.gradient(entry, flat) for entry in entries])

    np.testing.assert_allclose(hessian(rt.constant(x), rt.constant(y)).numpy(), expected, rtol=1e-9, atol=1e-12)


def test_a_tensor_while_matches_fori_loop():
    def loop_loss(x, w, n):
        state = x
        i = rt.constant(0)
        while i < n:  # a tensor while: the trip count is data
            state = rt.tanh(rt.matmul(state, w)) + x * 0.5
            i += 1
        return rt.reduce_sum(state * state)

    @ag.function
    def traced_gradients(x, w, n):  # the gradient of the While op, in the same graph
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            value = loop_loss(x, w, n)
        return tape.gradient(value, [x, w], unconnected_gradients="zero")

    def jax_version(x, w, n):
        state = jax.lax.fori_loop(0, n, lambda i, s: jnp.tanh(s @ w) + x * 0.5, x)
        return jnp.sum(state * state)

    x, w = arguments("unrolled_recurrence", 5)
    for n in (0, 1, 3, 6):
        expected = jax.grad(jax_version, argnums=(0, 1))(x, w, n)
        for a, b in zip(traced_gradients(rt.constant(x), rt.constant(w), rt.constant(n)), expected):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-14)
    assert traced_gradients.experimental_get_tracing_count() == 1
