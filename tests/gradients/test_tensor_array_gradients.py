"""Gradients through rt.TensorArray (TensorFlow's rule: an array's gradient is an array of its elements'
gradients; list_gradients.py): write/read/stack/gather/scatter/unstack/concat/split, each checked in float64
against central finite differences, the eager tape and rt.gradients while tracing; repeated gather indices
add up, a scatter row overwritten by a later one gets zeros, an array that grew is read at two sizes. Then a
training step: a converted function whose tensor loop reads inputs from one array and writes states into
another, stacks them, and trains like the eager tape on the same Python function."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from gradient_checks import assert_close, converted_tape_gradients, graph_gradients, numeric_gradients, tape_gradients

F64 = rt.float64


def write_then_stack(a, b):
    return rt.TensorArray(F64, size=3).write(0, a).write(2, b * a).write(1, rt.sin(b)).stack()


def read_back(a, b):
    array = rt.TensorArray(F64, size=2).write(0, a).write(1, b * b)
    return array.read(1) * array.read(0) + array.read(1)


def scatter_then_gather_repeated(a, b):
    array = rt.TensorArray(F64, size=4).scatter([3, 0], rt.stack([a, b * b])).write(1, a * b).write(2, b)
    return array.gather([3, 3, 1, 0]) * [[1.0], [2.0], [3.0], [4.0]]   # element 3 twice


def unstack_then_read(m, b):
    array = rt.TensorArray(F64, size=3).unstack(m * b)
    return array.read(2) * array.read(0) + array.stack()[1]


def scatter_overwrites_a_row(m, b):
    array = rt.TensorArray(F64, size=2).scatter([0, 0, 1], m * b)   # row 0 is overwritten by row 1
    return array.stack()


def grown_array_read_at_two_sizes(a, b):
    first = rt.TensorArray(F64, size=0, dynamic_size=True).write(0, a)
    second = first.write(1, b * a).write(3, b)   # grows to 4; element 2 is never written
    return first.read(0) * second.read(3) + second.gather([1, 0])[0]


def concat_of_different_lengths(a, b):
    array = rt.TensorArray(F64, size=3, infer_shape=False).write(0, a).write(1, b[:1] * a[1]).write(2, a * b)
    return array.concat() * [1.0, 2.0, 3.0, 4.0, 5.0]


def partly_written_gather(a, b):
    return rt.TensorArray(F64, size=4).write(1, a).write(3, b * a).gather([3, 1])


def split_into_pieces(m, b):
    array = rt.TensorArray(F64, size=3, infer_shape=False).split(m * b, [1, 0, 2])
    return array.concat() * 2.0 + array.read(2)[1] * array.read(0)[0]


def split_into_no_pieces(a, b):
    return rt.TensorArray(F64, size=1).split(a[:0] * b[:0], []).write(0, a * b).stack()


PROGRAMS = {  # name: (fn, input shapes)
    "write+stack": (write_then_stack, [(2,), (2,)]),
    "read": (read_back, [(2,), (2,)]),
    "scatter+gather(repeated index)": (scatter_then_gather_repeated, [(2,), (2,)]),
    "unstack+read": (unstack_then_read, [(3, 2), (2,)]),
    "scatter(overwritten row)": (scatter_overwrites_a_row, [(3, 2), (2,)]),
    "dynamic size, two versions": (grown_array_read_at_two_sizes, [(2,), (2,)]),
    "concat(infer_shape=False)": (concat_of_different_lengths, [(2,), (2,)]),
    "gather of a partly written array": (partly_written_gather, [(2,), (2,)]),
    "split": (split_into_pieces, [(3, 2), (2,)]),
    "split into no pieces": (split_into_no_pieces, [(2,), (2,)]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_tensor_array_rule_matches_finite_differences_traced_and_eager(name):
    fn, input_shapes = PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.uniform(-1.5, 1.5, s) for s in input_shapes]
    cotangent = rng.normal(size=np.shape(fn(*[rt.constant(a) for a in arrays])))
    expected = numeric_gradients(fn, arrays, cotangent)
    assert_close(tape_gradients(fn, arrays, cotangent), expected, rtol=1e-7, atol=1e-8)
    assert_close(graph_gradients(fn, arrays, cotangent), expected, rtol=1e-7, atol=1e-8)
    assert_close(graph_gradients(fn, arrays, cotangent), tape_gradients(fn, arrays, cotangent), rtol=1e-12, atol=0)


def test_the_overwritten_scatter_row_gets_zeros():
    m = rt.constant(np.arange(6.0).reshape(3, 2))
    with rt.GradientTape() as tape:
        tape.watch(m)
        stacked = rt.TensorArray(F64, size=2).scatter([0, 0, 1], m).stack()
    np.testing.assert_array_equal(stacked.numpy(), [[2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_array_equal(tape.gradient(stacked, m).numpy(), [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]])


def test_an_unwritten_element_that_is_read_is_still_an_error_not_a_zero_gradient():
    a = rt.constant([1.0, 2.0], F64)
    with rt.GradientTape() as tape:
        tape.watch(a)
        array = rt.TensorArray(F64, size=3, name="partial").write(0, a)
        with pytest.raises(rt.errors.InvalidArgumentError, match="TensorArray 'partial': cannot read element 2: it "
                                                                 "was never written"):
            array.read(2)
        total = rt.reduce_sum(array.read(0))
    np.testing.assert_array_equal(tape.gradient(total, a).numpy(), [1.0, 1.0])


# --- a training step: arrays in a tensor loop --------------------------------------------------------------
T = 6


def rnn_loss(xs, W, U, h):
    inputs = rt.TensorArray(F64, size=T).unstack(xs)       # read one row per step
    states = rt.TensorArray(F64, size=T)                   # written one row per step
    for t in rt.range(T):
        h = rt.tanh(rt.matmul(rt.expand_dims(inputs.read(t), 0), W) + rt.matmul(h, U))
        states = states.write(t, h[0])
    return rt.reduce_mean((states.stack() - 0.25) ** 2)


def rnn_arrays(seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(T, 3)), rng.normal(size=(3, 2)) * 0.6, rng.normal(size=(2, 2)) * 0.5, \
        rng.normal(size=(1, 2))


@pytest.mark.parametrize("seed", [0, 1])
def test_the_array_rnn_gradient_equals_the_eager_tape_and_finite_differences(seed):
    arrays = rnn_arrays(seed)
    converted, grads = converted_tape_gradients(rnn_loss, arrays)
    eager = tape_gradients(rnn_loss, arrays, np.array(1.0))   # unconverted: a Python loop over rt.range
    expected = numeric_gradients(rnn_loss, arrays, np.array(1.0))
    assert_close(converted, eager, rtol=1e-12, atol=1e-15)
    assert_close(converted, expected, rtol=1e-6, atol=1e-9)
    loop_ops = [op.type for op in grads.get_concrete_function(*[rt.constant(a) for a in arrays]).graph.operations]
    assert "While" in loop_ops   # the loop is a graph loop, not unrolled


def test_the_array_rnn_trains_like_the_eager_one():
    xs, W, U, h0 = rnn_arrays(3)

    @ag.function
    def step(xs, W, U, h0):
        with rt.GradientTape() as tape:
            tape.watch([W, U])
            loss = rnn_loss(xs, W, U, h0)
        return loss, tape.gradient(loss, [W, U])

    graph, eager, losses = [W.copy(), U.copy()], [W.copy(), U.copy()], []
    for _ in range(5):
        loss, grads = step(rt.constant(xs), rt.constant(graph[0]), rt.constant(graph[1]), rt.constant(h0))
        eager_grads = tape_gradients(lambda W, U: rnn_loss(rt.constant(xs), W, U, rt.constant(h0)), eager,
                                     np.array(1.0))
        losses.append(float(loss.numpy()))
        graph = [p - 0.2 * g.numpy() for p, g in zip(graph, grads)]
        eager = [p - 0.2 * g for p, g in zip(eager, eager_grads)]
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0]
    for ours, theirs in zip(graph, eager):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert step.experimental_get_tracing_count() == 1


def test_second_derivatives_through_gather_and_scatter():
    """The gather's gradient (TensorListScatterAdd) has its own rule: a gather of the gradient array."""
    def quartic(x):
        array = rt.TensorArray(F64, size=2).scatter([1, 0], rt.stack([x * x, x]))
        rows = array.gather([0, 1, 1])     # x, x**2, x**2
        return rt.reduce_sum(rows[0] * rows[1] * rows[2])   # sum of x**5

    @ag.function
    def second(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = quartic(x)
            first = inner.gradient(y, x)
        return first, outer.gradient(first, x)

    x = np.array([0.5, -1.25, 2.0])
    first, second_derivative = second(rt.constant(x))
    np.testing.assert_allclose(first.numpy(), 5 * x ** 4, rtol=1e-14)
    np.testing.assert_allclose(second_derivative.numpy(), 20 * x ** 3, rtol=1e-14)


@pytest.mark.parametrize("seed", range(5))
def test_scatter_gradients_keep_only_the_last_write_of_each_index(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 12))
    indices = rng.integers(0, 4, size=count)   # repeats are likely
    rows = rt.constant(rng.standard_normal((count, 2)))
    with rt.GradientTape() as tape:
        tape.watch(rows)
        stacked = rt.TensorArray(F64, size=4).write(0, [0.0, 0.0]).write(1, [0.0, 0.0]).write(
            2, [0.0, 0.0]).write(3, [0.0, 0.0]).scatter(indices.astype(np.int32), rows).stack()
    weights = rng.standard_normal((4, 2))
    grad = tape.gradient(stacked, rows, output_gradients=rt.constant(weights)).numpy()
    expected = np.zeros((count, 2))
    for j, index in enumerate(indices):
        if index not in indices[j + 1:]:   # the last write of this index wins
            expected[j] = weights[index]
    np.testing.assert_array_equal(grad, expected)


def test_an_unstack_of_many_rows_differentiates_without_a_quadratic_mask():
    values = rt.constant(np.arange(20000.0).reshape(10000, 2))
    with rt.GradientTape() as tape:
        tape.watch(values)
        array = rt.TensorArray(F64, size=10000).unstack(values)
        loss = rt.reduce_sum(array.stack() * 2.0)
    np.testing.assert_array_equal(tape.gradient(loss, values).numpy(), np.full((10000, 2), 2.0))
