"""Programs of the kinds JAX's and TensorFlow's documentation teach, written here for autograph_lite, run on the numpy
executor and compiled by XLA (jit_compile=True), and checked against the same computation written with JAX (or
plain Python): a training loop, an RNN over a while loop writing a TensorArray, a greedy decode that breaks, a
cumulative product by a loop, softmax cross-entropy with integer labels, gathers and scatters, masking with
``where`` (and its gradient), a dynamic-programming table, an escape-time loop and a sieve.

Integer results are exact on both executors; float ones within docs/XLA.md's tolerances. The three programs whose
compiles take longest run in CI's slow step.
"""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.core import nest

jax = pytest.importorskip("jax")
jnp = jax.numpy
TOLERANCE = dict(rtol=1e-5, atol=1e-6)   # float32: sums in another order (docs/XLA.md)


def on_both_executors(function, *args):
    """``function``'s results on the numpy executor, after checking XLA's equal them (ints exactly)."""
    expected = ag.function(function)(*args)
    got = ag.function(function, jit_compile=True)(*args)
    for e, g in zip(nest.flatten(expected), nest.flatten(got)):
        e, g = np.asarray(e), np.asarray(g)
        assert (e.dtype, e.shape) == (g.dtype, g.shape)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, **TOLERANCE)
        else:
            np.testing.assert_array_equal(g, e)
    return expected


RNG = np.random.default_rng(7)
FEATURES = RNG.standard_normal((64, 3)).astype(np.float32)
TARGETS = (FEATURES @ np.array([1.5, -2.0, 0.5], np.float32) + 0.3 > 0).astype(np.float32)


# --- a training loop: logistic regression by gradient descent, the loop inside the function --------------------
@pytest.mark.slow   # (~3 s of XLA compiles)
def test_logistic_regression_trained_in_a_loop_matches_jax():
    def fit(x, y):
        w, b = rt.zeros([3]), rt.constant(0.0)
        for _ in rt.range(25):
            with rt.GradientTape() as tape:
                tape.watch([w, b])
                logits = rt.reduce_sum(x * w, 1) + b
                loss = rt.reduce_mean(rt.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
            dw, db = tape.gradient(loss, [w, b])
            w, b = w - 0.5 * dw, b - 0.5 * db
        return w, b, loss

    def jax_loss(params, x, y):
        w, b = params
        logits = x @ w + b   # (a smooth form: max(x, 0) and |x| have kinks at the start, w = 0, b = 0)
        return -jnp.mean(y * jax.nn.log_sigmoid(logits) + (1 - y) * jax.nn.log_sigmoid(-logits))

    def jax_fit(x, y):
        def step(_, params):
            grads = jax.grad(jax_loss)(params, x, y)
            return tuple(p - 0.5 * g for p, g in zip(params, grads))
        w, b = jax.lax.fori_loop(0, 24, step, (jnp.zeros(3), jnp.float32(0.0)))
        loss = jax_loss((w, b), x, y)   # our loop's last loss is computed before its 25th update
        w, b = step(24, (w, b))
        return w, b, loss

    w, b, loss = on_both_executors(fit, rt.constant(FEATURES), rt.constant(TARGETS))
    for ours, theirs in zip((w, b, loss), jax.jit(jax_fit)(FEATURES, TARGETS)):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-4, atol=1e-5)


# --- an RNN: tf.while_loop over time steps, the states written to a TensorArray -------------------------------
def test_an_rnn_over_a_while_loop_writing_a_tensor_array_matches_lax_scan():
    xs = RNG.standard_normal((9, 2, 4)).astype(np.float32)
    w_in = (RNG.standard_normal((4, 5)) * 0.5).astype(np.float32)
    w_rec = (RNG.standard_normal((5, 5)) * 0.5).astype(np.float32)

    def rnn(xs, w_in, w_rec):
        steps = rt.shape(xs)[0]
        states = rt.TensorArray(rt.float32, size=xs.shape[0])

        def body(t, h, states):
            h = rt.tanh(rt.matmul(xs[t], w_in) + rt.matmul(h, w_rec))
            return t + 1, h, states.write(t, h)

        _, h, states = rt.while_loop(lambda t, h, states: t < steps, body, [0, rt.zeros([2, 5]), states])
        return h, states.stack()

    def jax_rnn(xs, w_in, w_rec):
        def cell(h, x):
            h = jnp.tanh(x @ w_in + h @ w_rec)
            return h, h
        return jax.lax.scan(cell, jnp.zeros((2, 5), jnp.float32), xs)

    h, states = on_both_executors(rnn, rt.constant(xs), rt.constant(w_in), rt.constant(w_rec))
    jax_h, jax_states = jax.jit(jax_rnn)(xs, w_in, w_rec)
    np.testing.assert_allclose(h.numpy(), jax_h, **TOLERANCE)
    np.testing.assert_allclose(states.numpy(), jax_states, **TOLERANCE)


# --- a greedy decode: the next token is the argmax of a projection of the last one's embedding, until EOS ---------
# A toy model whose argmax follows 0 -> 3 -> 1 -> 5 (EOS) and 2 <-> 4 (never ends: the length bound stops it)
EMBEDDINGS = (np.eye(6) + RNG.uniform(0.0, 0.1, (6, 6))).astype(np.float32)
PROJECTION = (np.eye(6)[[3, 5, 4, 1, 2, 0]] + RNG.uniform(0.0, 0.1, (6, 6))).astype(np.float32)
EOS, MAX_LENGTH = 5, 8


def python_greedy_decode(start):
    tokens = []
    token = start
    for _ in range(MAX_LENGTH):
        token = int(np.argmax(EMBEDDINGS[token] @ PROJECTION))
        tokens.append(token)
        if token == EOS:
            break
    return tokens


def greedy_decode(start, embeddings, projection):
    tokens = rt.fill([MAX_LENGTH], -1)
    token, length = start, 0
    for i in rt.range(MAX_LENGTH):
        logits = rt.matmul(rt.expand_dims(rt.gather(embeddings, token), 0), projection)[0]
        token = rt.cast(rt.argmax(logits), rt.int32)
        tokens[i] = token
        length += 1
        if token == EOS:
            break
    return tokens, length


@pytest.mark.parametrize("start, length", [(0, 3), (1, 1), (2, 8), (5, 4)])
def test_a_greedy_decode_that_breaks_at_eos_matches_python(start, length):
    tokens, decoded = on_both_executors(greedy_decode, rt.constant(start), rt.constant(EMBEDDINGS),
                                       rt.constant(PROJECTION))
    expected = python_greedy_decode(start)
    assert int(decoded) == len(expected) == length
    assert tokens.numpy().tolist() == expected + [-1] * (MAX_LENGTH - len(expected))


# --- a scan: the cumulative product written as a loop, and the op -----------------------------------------------
@pytest.mark.slow   # (~3 s of XLA compiles)
def test_a_cumulative_product_by_a_loop_matches_jax_cumprod_and_associative_scan():
    values = RNG.uniform(0.5, 1.5, 11).astype(np.float32)

    def products(x):
        running = rt.constant(1.0)
        out = rt.zeros_like(x)
        for i in rt.range(x.shape[0]):
            running = running * x[i]
            out[i] = running
        return out, rt.math.cumprod(x), rt.math.cumprod(x, exclusive=True, reverse=True)

    by_loop, by_op, exclusive_reversed = on_both_executors(products, rt.constant(values))
    np.testing.assert_allclose(by_loop.numpy(), jnp.cumprod(values), **TOLERANCE)
    np.testing.assert_allclose(by_op.numpy(), jax.lax.associative_scan(jnp.multiply, values), **TOLERANCE)
    expected = np.concatenate([np.cumprod(values[::-1])[::-1][1:], [1.0]])
    np.testing.assert_allclose(exclusive_reversed.numpy(), expected, **TOLERANCE)


# --- softmax cross-entropy with integer labels, and its gradient ------------------------------------------------
@pytest.mark.slow   # (~3 s of XLA compiles)
def test_softmax_cross_entropy_with_integer_labels_and_its_gradient_match_jax():
    logits = (RNG.standard_normal((5, 4)) * 3).astype(np.float32)
    labels = np.array([0, 3, 1, 1, 2], np.int32)

    def loss_and_gradient(logits, labels):
        with rt.GradientTape() as tape:
            tape.watch(logits)
            log_probs = rt.nn.log_softmax(logits)
            picked = rt.gather_nd(log_probs, rt.stack([rt.range(labels.shape[0]), labels], axis=1))
            loss = -rt.reduce_mean(picked)
        dense = rt.nn.softmax_cross_entropy_with_logits(labels=rt.one_hot(labels, 4), logits=logits)
        return loss, tape.gradient(loss, logits), dense, rt.argmax(logits, 1)

    def jax_loss(logits, labels):
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))

    loss, gradient, dense, predicted = on_both_executors(loss_and_gradient, rt.constant(logits), rt.constant(labels))
    np.testing.assert_allclose(float(loss), jax_loss(logits, labels), **TOLERANCE)
    np.testing.assert_allclose(gradient.numpy(), jax.grad(jax_loss)(logits, labels), **TOLERANCE)
    np.testing.assert_allclose(dense.numpy(), -np.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1)[:, 0],
                               **TOLERANCE)
    assert predicted.numpy().tolist() == np.argmax(logits, 1).tolist()


# --- gathers and scatters: a histogram, per-bucket sums, an embedding lookup -----------------------------------
def test_histograms_and_segment_sums_by_scatter_match_jax():
    ids = RNG.integers(0, 5, 30).astype(np.int32)
    weights = RNG.standard_normal(30).astype(np.float32)

    def buckets(ids, weights):
        counts = rt.tensor_scatter_nd_add(rt.zeros([5], rt.int32), rt.expand_dims(ids, 1), rt.ones_like(ids))
        sums = rt.unsorted_segment_sum(weights, ids, 5)
        table = rt.reshape(rt.range(15, dtype=rt.float32), [5, 3])
        return counts, sums, rt.gather(table, ids), rt.gather(counts, ids)

    counts, sums, looked_up, own_counts = on_both_executors(buckets, rt.constant(ids), rt.constant(weights))
    assert counts.numpy().tolist() == np.bincount(ids, minlength=5).tolist()
    np.testing.assert_allclose(sums.numpy(), jax.ops.segment_sum(weights, ids, 5), **TOLERANCE)
    assert looked_up.numpy().tolist() == np.arange(15, dtype=np.float32).reshape(5, 3)[ids].tolist()
    assert own_counts.numpy().tolist() == np.bincount(ids, minlength=5)[ids].tolist()


# --- masking with where: a masked mean and the "double where" that keeps a sqrt's gradient finite ----------------
def test_masking_with_where_and_its_gradient_match_jax():
    values = np.array([4.0, -2.0, 0.0, 9.0, np.nan, 0.25], np.float32)

    def masked(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            keep = rt.logical_and(rt.math.is_finite(x), x > 0)
            safe = rt.where(keep, x, rt.ones_like(x))    # the inner where: no sqrt of a negative or nan
            roots = rt.where(keep, rt.sqrt(safe), rt.zeros_like(x))
            total = rt.reduce_sum(roots)
        count = rt.reduce_sum(rt.cast(keep, rt.int32))
        return roots, count, total / rt.cast(count, rt.float32), tape.gradient(total, x)

    def jax_total(x):
        keep = jnp.isfinite(x) & (x > 0)
        return jnp.sum(jnp.where(keep, jnp.sqrt(jnp.where(keep, x, 1.0)), 0.0))

    roots, count, mean, gradient = on_both_executors(masked, rt.constant(values))
    assert int(count) == 3
    np.testing.assert_allclose(roots.numpy(), [2.0, 0.0, 0.0, 3.0, 0.0, 0.5], **TOLERANCE)
    np.testing.assert_allclose(float(mean), 5.5 / 3, **TOLERANCE)
    np.testing.assert_allclose(gradient.numpy(), jax.grad(jax_total)(values), **TOLERANCE)
    assert np.all(np.isfinite(gradient.numpy()))


# --- dynamic programming: edit distance over a table filled by nested tensor loops ------------------------------
def python_edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def edit_distance(a, b):
    n, m = rt.shape(a)[0], rt.shape(b)[0]
    row = rt.range(b.shape[0] + 1)
    for i in rt.range(1, n + 1):
        previous = row[0]
        row[0] = i
        for j in rt.range(1, m + 1):
            substitution = previous + rt.cast(a[i - 1] != b[j - 1], rt.int32)
            previous = row[j]
            row[j] = rt.minimum(rt.minimum(row[j] + 1, row[j - 1] + 1), substitution)
    return row[-1]


@pytest.mark.parametrize("a, b", [("kitten", "sitting"), ("", "abc"), ("abc", "")])
def test_an_edit_distance_table_filled_by_nested_tensor_loops_matches_python(a, b):
    codes = lambda s: rt.constant(np.array([ord(c) for c in s], np.int32))   # noqa: E731
    assert int(on_both_executors(edit_distance, codes(a), codes(b))) == python_edit_distance(a, b)


# --- an escape-time loop (Mandelbrot) and a sieve: masked updates in tensor whiles -------------------------------
def test_an_escape_time_loop_matches_jax_counts():
    re, im = np.meshgrid(np.linspace(-2.0, 0.5, 24), np.linspace(-1.2, 1.2, 16))
    c_re, c_im = re.astype(np.float32), im.astype(np.float32)

    def escape_counts(c_re, c_im):
        z_re, z_im = rt.zeros_like(c_re), rt.zeros_like(c_im)
        counts = rt.zeros(c_re.shape, rt.int32)
        for _ in rt.range(30):
            inside = z_re * z_re + z_im * z_im <= 4.0
            z_re, z_im = (rt.where(inside, z_re * z_re - z_im * z_im + c_re, z_re),
                          rt.where(inside, 2.0 * z_re * z_im + c_im, z_im))
            counts += rt.cast(inside, rt.int32)
        return counts

    def jax_counts(c_re, c_im):
        def step(_, state):
            z_re, z_im, counts = state
            inside = z_re * z_re + z_im * z_im <= 4.0
            return (jnp.where(inside, z_re * z_re - z_im * z_im + c_re, z_re),
                    jnp.where(inside, 2.0 * z_re * z_im + c_im, z_im), counts + inside.astype(jnp.int32))
        zeros = jnp.zeros_like(c_re)
        return jax.lax.fori_loop(0, 30, step, (zeros, zeros, jnp.zeros(c_re.shape, jnp.int32)))[2]

    counts = on_both_executors(escape_counts, rt.constant(c_re), rt.constant(c_im)).numpy()
    theirs = np.asarray(jax.jit(jax_counts)(c_re, c_im))
    # a point on the set's boundary may escape one iteration apart (one ulp: docs/XLA.md); none does on this grid
    assert np.array_equal(counts, theirs), np.argwhere(counts != theirs)


def test_a_sieve_of_eratosthenes_by_item_assignment_in_nested_whiles_matches_python():
    def primes_below(n):
        prime = rt.ones([50], rt.int32)
        prime[0], prime[1] = 0, 0
        p = 2
        while p * p < n:
            if prime[p] == 1:
                multiple = p * p
                while multiple < n:
                    prime[multiple] = 0
                    multiple += p
            p += 1
        return prime, rt.reduce_sum(prime[:20])

    prime, below_20 = on_both_executors(primes_below, rt.constant(50))
    expected = [k for k in range(50) if k > 1 and all(k % d for d in range(2, k))]
    assert np.flatnonzero(prime.numpy()).tolist() == expected
    assert int(below_20) == 8
