"""Gradients through tensor lists (issue 14 x issue 11): each list op's rule against central finite
differences in float64, traced (rt.gradients) and eager (GradientTape); the RNN pattern of issue 11
(`outs.append(h)` in a tensor loop, then rt.stack) in a converted function equals the eager tape on the
same Python function; second derivatives through a tensor while's accumulators."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from gradient_checks import assert_close, graph_gradients, numeric_gradients, tape_gradients
from runtime.core.registry import GradientNotImplemented, NotDifferentiable, get_op

TensorList = rt.TensorList


def stack_of_from_tensors(a, b):
    return TensorList.from_tensors([a, b * b, a * b]).stack()


def get_items_of_from_tensor(a, b):
    items = TensorList.from_tensor(a)  # rows of a
    return items[0] * items[1] + items[-1] * b  # two reads of one list: its gradients are summed


def push_back_then_pop(a, b):
    items = TensorList.from_tensors([a]).append(b * a)
    rest, last = items.pop()
    return rest.append(rt.sin(last) * b).append(last).stack()


def set_item_replaces_an_element(a, b):
    items = TensorList.from_tensor(a).set_item(1, b * 3.0)
    return items.stack() * items[0]


def an_unused_popped_element(a, b):
    rest, _ = TensorList.from_tensors([a, b]).append(a * b).pop()
    return rest.stack() * 2.0


def pop_of_a_middle_element(a, b):
    rest, element = TensorList.from_tensors([a, b * 2.0, a * b]).pop(1)
    other_rest, first = rest.pop(-2)   # a negative index that is not the last
    return rest.stack() * element + other_rest.stack() * first * 3.0


def concat_of_elements_of_different_lengths(a, b):
    items = TensorList.from_tensors([a, b * b]).append(a[:1] * b[1])
    return items.concat() * rt.concat([a, b, a[:1]], 0)


def concat_along_a_later_axis(a, b):
    rows = TensorList.from_tensors([rt.reshape(a, [2, 1]), rt.reshape(b * a, [2, 1]), rt.stack([b, b], 1)])
    return rows.concat(axis=1)


def length_scales_nothing(a, b):
    items = TensorList.from_tensors([a * b])
    return items.stack() * rt.cast(items.length(), rt.float64)


PROGRAMS = {  # name: (fn, input shapes, output shape)
    "FromTensors+Stack": (stack_of_from_tensors, [(2,), (2,)], (3, 2)),
    "FromTensor+GetItem": (get_items_of_from_tensor, [(3, 2), (2,)], (2,)),
    "PushBack+PopItem": (push_back_then_pop, [(2,), (2,)], (3, 2)),
    "SetItem": (set_item_replaces_an_element, [(3, 2), (2,)], (3, 2)),
    "PopItem(unused element)": (an_unused_popped_element, [(2,), (2,)], (2, 2)),
    "Length": (length_scales_nothing, [(2,), (2,)], (1, 2)),
    "PopItem(i)": (pop_of_a_middle_element, [(2,), (2,)], (2, 2)),
    "Concat": (concat_of_elements_of_different_lengths, [(2,), (2,)], (5,)),
    "Concat(axis=1)": (concat_along_a_later_axis, [(2,), (2,)], (2, 4)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_list_rule_matches_finite_differences_traced_and_eager(name):
    fn, input_shapes, output_shape = PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.uniform(-1.5, 1.5, s) for s in input_shapes]
    cotangent = rng.normal(size=output_shape)
    expected = numeric_gradients(fn, arrays, cotangent)
    assert_close(graph_gradients(fn, arrays, cotangent), expected, rtol=1e-7, atol=1e-8)
    assert_close(tape_gradients(fn, arrays, cotangent), expected, rtol=1e-7, atol=1e-8)
    assert_close(graph_gradients(fn, arrays, cotangent), tape_gradients(fn, arrays, cotangent), rtol=1e-12, atol=0)


def test_every_list_op_declares_its_gradient():
    for name in ("TensorListFromTensors", "TensorListFromTensor", "TensorListPushBack", "TensorListPopItem",
                 "TensorListGetItem", "TensorListSetItem", "TensorListStack", "TensorListConcat",
                 "TensorListZerosLike", "TensorListAddN", "TensorListScatterAdd", "TensorListInsertItem",
                 "TensorListSplitLike", "TensorListReserve", "TensorListGather", "TensorListScatterIntoExistingList"):
        assert callable(get_op(name).gradient) and not isinstance(get_op(name).gradient, GradientNotImplemented)
    assert isinstance(get_op("TensorListLength").gradient, NotDifferentiable)


def test_second_derivatives_through_pop_and_concat():
    """The gradient ops' own rules: InsertItem (pop(i)'s gradient) pops, SplitLike (concat's) concatenates."""
    def cubic(x):
        rest, element = TensorList.from_tensors([x * x, x * 2.0, x]).pop(0)
        return rt.reduce_sum(rest.concat() * rt.concat([element * x, element], 0))   # sum of 2 x**4 + x**3

    @ag.function
    def second(x):
        first = rt.gradients(cubic(x), x)[0]
        return first, rt.gradients(rt.reduce_sum(first), x)[0]

    x = np.array([0.5, -1.25])
    first, second_derivative = second(rt.constant(x))
    np.testing.assert_allclose(first.numpy(), 8 * x ** 3 + 3 * x ** 2, rtol=1e-14)
    np.testing.assert_allclose(second_derivative.numpy(), 24 * x ** 2 + 6 * x, rtol=1e-14)


# --- the RNN of issue 11 --------------------------------------------------------------------------------
T = 5


def rnn_loss(xs, W, h):
    outs = []
    for t in rt.range(T):
        h = rt.tanh(rt.matmul(xs[t:t + 1], W) + h)
        outs.append(h)
    return rt.reduce_sum(rt.stack(outs) ** 2)


@ag.function
def rnn_gradients(xs, W, h0):
    with rt.GradientTape() as tape:
        tape.watch([W, h0])
        loss = rnn_loss(xs, W, h0)
    return loss, tape.gradient(loss, [W, h0])


def eager_rnn_gradients(xs, W, h0):
    W, h0 = rt.constant(W), rt.constant(h0)
    with rt.GradientTape() as tape:
        tape.watch([W, h0])
        loss = rnn_loss(rt.constant(xs), W, h0)  # unconverted: outs is a Python list
    return loss, tape.gradient(loss, [W, h0])


def rnn_arrays(seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(T, 3)), rng.normal(size=(3, 2)) * 0.6, rng.normal(size=(1, 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_rnn_pattern_gradient_equals_the_eager_tape_and_finite_differences(seed):
    xs, W, h0 = rnn_arrays(seed)
    loss, (grad_W, grad_h0) = rnn_gradients(rt.constant(xs), rt.constant(W), rt.constant(h0))
    eager_loss, (eager_W, eager_h0) = eager_rnn_gradients(xs, W, h0)
    np.testing.assert_allclose(loss.numpy(), eager_loss.numpy(), rtol=1e-13)
    np.testing.assert_allclose(grad_W.numpy(), eager_W.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad_h0.numpy(), eager_h0.numpy(), rtol=1e-12, atol=1e-14)
    numeric_W, numeric_h0 = numeric_gradients(lambda W, h0: rnn_loss(rt.constant(xs), W, h0), [W, h0],
                                              np.array(1.0))
    np.testing.assert_allclose(grad_W.numpy(), numeric_W, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grad_h0.numpy(), numeric_h0, rtol=1e-6, atol=1e-8)


def test_the_rnn_trains_like_the_eager_one():
    xs, W, h0 = rnn_arrays(3)
    graph_W, eager_W, losses = W.copy(), W.copy(), []
    for _ in range(5):
        loss, (grad_W, _) = rnn_gradients(rt.constant(xs), rt.constant(graph_W), rt.constant(h0))
        eager_loss, (eager_grad, _) = eager_rnn_gradients(xs, eager_W, h0)
        np.testing.assert_allclose(loss.numpy(), eager_loss.numpy(), rtol=1e-12)
        losses.append(float(loss.numpy()))
        graph_W = graph_W - 0.02 * grad_W.numpy()
        eager_W = eager_W - 0.02 * eager_grad.numpy()
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0]
    np.testing.assert_allclose(graph_W, eager_W, rtol=1e-12)
    assert rnn_gradients.experimental_get_tracing_count() == 1


def test_a_loop_that_reads_its_own_list_back():
    def feedback(w, h):
        outs = [h]
        for _ in rt.range(4):
            outs.append(rt.sin(outs[-1] * w))
        return rt.reduce_sum(rt.stack(outs) * [1.0, 2.0, 3.0, 4.0, 5.0])

    @ag.function
    def grad(w, h):
        return rt.gradients(feedback(w, h), [w, h])

    w, h = 0.7, 0.4
    got = [g.numpy() for g in grad(rt.constant(w, rt.float64), rt.constant(h, rt.float64))]
    expected = numeric_gradients(feedback, [np.array(w), np.array(h)], np.array(1.0))
    np.testing.assert_allclose(got, expected, rtol=1e-7)


def test_a_list_captured_by_a_tensor_loop_gets_the_sum_of_its_reads():
    def summed_rows(a, n):
        rows = TensorList.from_tensor(a)
        total = a[0] * 0.0
        i = rt.constant(0)
        while i < n:
            total = total + rows[i] * rows[i]
            i += 1
        return total

    @ag.function
    def grad(a, n):
        return rt.gradients(summed_rows(a, n), a)[0]

    a = np.arange(8.0).reshape(4, 2) / 3.0
    np.testing.assert_allclose(grad(rt.constant(a), rt.constant(3)).numpy(), np.vstack([2 * a[:3], [[0.0, 0.0]]]),
                               rtol=1e-14)


# --- second derivatives through a tensor while's accumulators --------------------------------------------
def repeated(step, n):
    def fn(x):
        y = x
        i = rt.constant(0)
        while i < n:
            y = step(y)
            i += 1
        return y
    return fn


def square(y):
    return y * y


def half_exp(y):
    return rt.exp(y) * 0.5


@pytest.mark.parametrize("step, n", [(rt.sin, 3), (square, 2), (half_exp, 4)])
def test_second_derivatives_through_a_while_match_finite_differences(step, n):
    fn = repeated(step, n)

    @ag.function
    def nested_tapes(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            first = inner.gradient(y, x)
        return first, outer.gradient(first, x)

    @ag.function
    def nested_gradients(x):
        first = rt.gradients(fn(x), x)[0]
        return first, rt.gradients(first, x)[0]

    x = 0.3
    first = lambda v: numeric_gradients(fn, [np.array(v)], np.array(1.0))[0]  # noqa: E731
    expected_first, expected_second = first(x), (first(x + 1e-4) - first(x - 1e-4)) / 2e-4
    for program in (nested_tapes, nested_gradients):
        got_first, got_second = program(rt.constant(x, rt.float64))
        np.testing.assert_allclose(got_first.numpy(), expected_first, rtol=1e-8)
        np.testing.assert_allclose(got_second.numpy(), expected_second, rtol=1e-5)


def test_x_to_the_fourth_in_a_loop_has_the_full_second_derivative():
    # the dependency through the accumulator used to be dropped: the answer was half of 12 x**2
    @ag.function
    def second(x):
        y = x
        for _ in rt.range(2):
            y = y * y
        first = rt.gradients(y, x)[0]
        return rt.gradients(first, x)[0]

    assert second(rt.constant(1.5, rt.float64)).numpy() == 12 * 1.5 ** 2


def popped_and_joined(x, n):
    xs = []
    for i in rt.range(n):   # a tensor loop: xs becomes a tensor list in the converted function
        xs.append(x[: i + 1] * rt.cast(i + 1, rt.float64))   # elements of lengths 1, 2, ..., n
    first = xs.pop(0)   # not the last element
    middle = xs.pop(-2)
    return rt.reduce_sum(rt.concat(xs, 0) ** 2) * rt.reduce_sum(first) + rt.reduce_sum(rt.sin(middle))


def test_pop_i_and_concat_of_a_list_built_in_a_tensor_loop_train_like_the_eager_tape():
    @ag.function
    def grad(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            loss = popped_and_joined(x, n)
        return loss, tape.gradient(loss, x)

    x, n = np.array([0.3, -0.7, 1.1, 0.45, -0.2]), np.array(5, np.int32)
    loss, got = grad(rt.constant(x), rt.constant(n))
    (eager,) = tape_gradients(lambda x: popped_and_joined(x, rt.constant(n)), [x], np.array(1.0))  # Python lists
    expected = numeric_gradients(lambda x: popped_and_joined(x, rt.constant(n)), [x], np.array(1.0))[0]
    assert float(loss) == pytest.approx(float(popped_and_joined(rt.constant(x), rt.constant(n))), rel=1e-14)
    np.testing.assert_allclose(got.numpy(), eager, rtol=1e-13)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-7)
    graph_types = {op.type for op in grad.get_concrete_function(rt.constant(x), rt.constant(n)).graph.operations}
    assert {"While", "TensorListInsertItem", "TensorListSplitLike"} <= graph_types
