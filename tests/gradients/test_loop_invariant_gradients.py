"""The backward loop of a tensor while does not redo per iteration what is the same in every iteration: a
forward-body value computed only from loop-invariant values (``W * 0.5``) is recomputed, not accumulated
(memory: one copy, not one per iteration), and backward-body ops that read only invariant values
(``transpose(W * 0.5)``) run once before the backward loop, when they cannot fail (a loop may run zero
times: hoisting must not raise an error the loop never would)."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from gradient_checks import converted_eager_tape_gradients, converted_tape_gradients, numeric_gradients
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.list_ops import TENSOR_LIST_PUSH_BACK


def scaled_rnn(h, weights):
    state = h
    i = rt.constant(0)
    while i < 5:
        w = weights * 0.5                       # the same in every iteration
        state = rt.tanh(rt.matmul(state, w))
        i += 1
    return rt.reduce_sum(state * state)


def loops(graph, name):
    return [op for op in graph.operations if op.op_def is WHILE and op.name == name]


def test_an_invariant_forward_value_is_recomputed_once_not_accumulated():
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3)), rng.normal(size=(3, 3)) * 0.8]
    got, grads = converted_tape_gradients(scaled_rnn, arrays)
    np.testing.assert_allclose(got[0], converted_eager_tape_gradients(scaled_rnn, arrays)[0], rtol=1e-12)
    for ours, expected in zip(got, numeric_gradients(scaled_rnn, arrays, np.array(1.0))):
        np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-9)

    graph = grads.get_concrete_function(*[rt.constant(a) for a in arrays]).unoptimized_graph
    (forward,) = loops(graph, "while")
    pushed = sorted(op.inputs[1].op.type for op in forward.attrs["body"].operations
                    if op.op_def is TENSOR_LIST_PUSH_BACK)
    assert pushed == ["Placeholder", "Tanh"]                      # not the Mul of weights * 0.5
    (backward,) = loops(graph, "while_grad")
    between = graph.operations[graph.operations.index(forward):graph.operations.index(backward)]
    hoisted = [op for op in between if op.type == "Transpose"]
    assert [op.inputs[0].op.type for op in hoisted] == ["Mul"]   # transpose(weights * 0.5), computed once
    assert any(t is hoisted[0].outputs[0] for t in backward.inputs)
    transposed = [op.inputs[0].op.type for op in backward.attrs["body"].operations if op.type == "Transpose"]
    assert transposed == ["TensorListPopItem"]                    # only the popped state's, which varies


def gather_scaled(y, table, index, n):
    i = rt.constant(0)
    while i < n:
        y = y * rt.gather(table, index)            # index is invariant, and may be out of range
        i += 1
    return rt.reduce_sum(y)


def test_an_invariant_op_that_could_fail_stays_in_the_loop():
    @ag.function
    def grad(y, table, index, n):
        with rt.GradientTape() as tape:
            tape.watch([y, table])
            loss = gather_scaled(y, table, index, n)
        return tape.gradient(loss, [y, table])

    y, table = rt.constant([1.0, 2.0], rt.float64), rt.constant([3.0, 0.5], rt.float64)
    # zero iterations: the gather (index 7 is out of range) never runs, so no error, and dy = 1, dtable = 0
    dy, dtable = grad(y, table, rt.constant(7), rt.constant(0))
    assert dy.numpy().tolist() == [1.0, 1.0] and dtable.numpy().tolist() == [0.0, 0.0]
    dy, dtable = grad(y, table, rt.constant(1), rt.constant(3))   # y * 0.5**3: dy = 0.125, dtable[1] = 3 * 0.25 * 3
    assert dy.numpy().tolist() == [0.125, 0.125] and dtable.numpy().tolist() == [0.0, 2.25]
    with pytest.raises(rt.errors.InvalidArgumentError):
        grad(y, table, rt.constant(7), rt.constant(2))   # the forward loop's own gather fails, as it should


def test_hoisting_inside_a_nested_loop_gradient():
    def nested(x, w):
        total = x
        for i in rt.range(3):
            for j in rt.range(2):
                total = rt.tanh(rt.matmul(total, w * 0.9))
        return rt.reduce_sum(total)

    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=(1, 2)), rng.normal(size=(2, 2))]
    got, _ = converted_tape_gradients(nested, arrays)
    for ours, expected in zip(got, numeric_gradients(nested, arrays, np.array(1.0))):
        np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-9)


def rnn_over_data(xs, W, h):
    outs = []
    for t in rt.range(rt.shape(xs)[0]):
        h = rt.tanh(rt.matmul(xs[t:t + 1], W) + h)
        outs.append(h)
    return rt.reduce_sum(rt.stack(outs) ** 2)


def test_the_backward_loop_skips_gradients_no_source_needs():
    """Only W is differentiated: the data the loop slices (xs) gets no gradient, which would cost a zeros
    tensor of xs's full shape per iteration (quadratic in the sequence length)."""
    @ag.function
    def step(xs, W, h):
        with rt.GradientTape() as tape:
            tape.watch(W)
            loss = rnn_over_data(xs, W, h)
        return loss, tape.gradient(loss, W)

    rng = np.random.default_rng(2)
    xs, W, h = rng.normal(size=(6, 3)), rng.normal(size=(3, 2)) * 0.5, rng.normal(size=(1, 2))
    loss, grad_w = step(rt.constant(xs), rt.constant(W), rt.constant(h))
    expected = numeric_gradients(lambda W: rnn_over_data(rt.constant(xs), W, rt.constant(h)), [W], np.array(1.0))[0]
    np.testing.assert_allclose(grad_w.numpy(), expected, rtol=1e-6, atol=1e-9)

    graph = step.get_concrete_function(rt.constant(xs), rt.constant(W), rt.constant(h)).unoptimized_graph
    (backward,) = loops(graph, "while_grad")
    body_types = {op.type for op in backward.attrs["body"].operations}
    assert "StridedSliceGrad" not in body_types and "MatMul" in body_types

    @ag.function
    def both(xs, W, h):   # asked for, the data's gradient is there
        with rt.GradientTape() as tape:
            tape.watch([xs, W])
            loss = rnn_over_data(xs, W, h)
        return tape.gradient(loss, [xs, W])
    grad_xs, _ = both(rt.constant(xs), rt.constant(W), rt.constant(h))
    expected_xs = numeric_gradients(lambda xs: rnn_over_data(xs, rt.constant(W), rt.constant(h)), [xs],
                                    np.array(1.0))[0]
    np.testing.assert_allclose(grad_xs.numpy(), expected_xs, rtol=1e-6, atol=1e-9)


def test_an_if_gradient_skips_inputs_no_source_reaches():
    @ag.function
    def step(x, data):
        with rt.GradientTape() as tape:
            tape.watch(x)
            if x > 0.0:
                y = x * rt.reduce_sum(data * data)
            else:
                y = x
        return tape.gradient(y, x)

    data = rt.constant([1.0, 2.0])
    assert float(step(rt.constant(1.5), data)) == 5.0
    graph = step.get_concrete_function(rt.constant(1.5), data).unoptimized_graph
    (gradient_if,) = [op for op in graph.operations if op.name == "cond_grad"]
    assert len(gradient_if.outputs) == 1   # x's gradient only, not data's


def test_a_long_chain_in_a_loop_body_is_no_recursion_problem():
    def long_body(x, w):
        i = rt.constant(0)
        while i < 2:
            for _ in range(1500):      # a Python loop: 1500 chained ops in the tensor loop's body
                x = x * w
            i += 1
        return rt.reduce_sum(x)

    @ag.function
    def grad(x, w):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = long_body(x, w)
        return tape.gradient(y, x)

    assert float(grad(rt.constant(2.0, rt.float64), rt.constant(1.0001, rt.float64))) == pytest.approx(
        1.0001 ** 3000, rel=1e-9)


def test_a_long_chain_of_invariant_ops_is_recomputed_without_recursion():
    def scaled(x, w):
        i = rt.constant(0)
        while i < 2:
            scale = w
            for _ in range(1500):      # 1500 chained ops of the captured w: invariant, recomputed once
                scale = scale * 1.0001
            x = x * scale
            i += 1
        return rt.reduce_sum(x)

    @ag.function
    def grad(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            y = scaled(x, w)
        return tape.gradient(y, [x, w])

    dx, dw = grad(rt.constant(2.0, rt.float64), rt.constant(1.0, rt.float64))
    # y = x * (w * 1.0001**1500)**2: dy/dx = (w c)**2, dy/dw = 2 x w c**2, with c = 1.0001**1500
    c = 1.0001 ** 1500
    assert (float(dx), float(dw)) == (pytest.approx(c * c, rel=1e-12), pytest.approx(4.0 * c * c, rel=1e-12))


def test_gradients_through_a_loop_whose_invariant_moved_stay_exact():
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3)), rng.normal(size=(3, 3)) * 0.8]
    got, grads = converted_tape_gradients(scaled_rnn, arrays)
    eager = converted_eager_tape_gradients(scaled_rnn, arrays)
    for ours, theirs in zip(got, eager):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    for ours, expected in zip(got, numeric_gradients(scaled_rnn, arrays, np.array(1.0))):
        np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-9)
    graph = grads.get_concrete_function(*[rt.constant(a) for a in arrays]).graph
    (forward,) = loops(graph, "while")
    # the optimized graph computes weights * 0.5 once, before the forward loop
    assert "Mul" not in [op.type for op in forward.attrs["body"].operations]
    assert graph.operations.index(next(op for op in graph.operations if op.type == "Mul")) < \
        graph.operations.index(forward)
