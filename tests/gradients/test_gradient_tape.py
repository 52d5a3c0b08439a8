"""rt.GradientTape: eager recording, inside traced functions (one graph), variables, and TF's API details."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from gradient_checks import assert_close, numeric_gradients, tape_gradients


def f64(value):
    return rt.constant(value, rt.float64)


def mlp_loss(x, w1, w2):
    hidden = rt.maximum(rt.matmul(x, w1), 0.0)
    logits = rt.matmul(hidden, w2)
    shifted = logits - rt.reduce_max(logits, axis=1, keepdims=True)
    return -rt.reduce_mean(shifted[:, 0] - rt.log(rt.reduce_sum(rt.exp(shifted), axis=1)))


def test_eager_tape_matches_finite_differences():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((5, 3)), rng.standard_normal((3, 4)), rng.standard_normal((4, 2))]
    assert_close(tape_gradients(mlp_loss, arrays, np.array(1.0)), numeric_gradients(mlp_loss, arrays, np.array(1.0)))


def test_traced_tape_builds_one_graph_equal_to_the_eager_gradients():
    rng = np.random.default_rng(1)
    x, w1, w2 = (f64(rng.standard_normal(s)) for s in [(5, 3), (3, 4), (4, 2)])

    @ag.function
    def grads(x, w1, w2):
        with rt.GradientTape() as tape:
            tape.watch([w1, w2])
            loss = mlp_loss(x, w1, w2)
        return tape.gradient(loss, [w1, w2])

    traced = grads(x, w1, w2)
    with rt.GradientTape() as tape:
        tape.watch([w1, w2])
        loss = mlp_loss(x, w1, w2)
    eager = tape.gradient(loss, [w1, w2])
    for a, b in zip(traced, eager):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)
    assert grads.experimental_get_tracing_count() == 1
    op_types = {op.type for op in grads.get_concrete_function(x, w1, w2).graph.operations}
    assert {"MatMul", "SumToShape"} & op_types and "Transpose" in op_types  # backward pass in the same graph


def test_trainable_variables_are_watched_when_read_and_gradients_sum_over_reads():
    w = rt.Variable(3.0)
    frozen = rt.Variable(2.0, trainable=False)
    with rt.GradientTape() as tape:
        loss = w * w + rt.exp(w.read_value()) + frozen * w
    grad_w, grad_frozen = tape.gradient(loss, [w, frozen])
    np.testing.assert_allclose(float(grad_w), 6.0 + np.exp(3.0) + 2.0, rtol=1e-6)
    assert grad_frozen is None
    assert tape.watched_variables() == [w]


def test_variables_inside_a_traced_step_and_eager_agree():
    w = rt.Variable([[1.0, -2.0], [0.5, 3.0]])
    b = rt.Variable([0.1, -0.1])
    x = rt.constant([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])

    def loss_and_grads(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.square(rt.matmul(x, w) + b))
        return loss, tape.gradient(loss, {"w": w, "b": b})

    eager_loss, eager_grads = loss_and_grads(x)
    traced_loss, traced_grads = ag.function(loss_and_grads)(x)
    assert float(traced_loss) == pytest.approx(float(eager_loss))
    for key in ("w", "b"):
        np.testing.assert_allclose(np.asarray(traced_grads[key]), np.asarray(eager_grads[key]), rtol=1e-6)
    expected_w = 2 * np.asarray(x).T @ (np.asarray(x) @ np.asarray(w) + np.asarray(b))
    np.testing.assert_allclose(np.asarray(eager_grads["w"]), expected_w, rtol=1e-6)


def test_watch_accessed_variables_false_watches_only_what_is_given():
    w, v = rt.Variable(2.0), rt.Variable(5.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        loss = w * v
    assert tape.gradient(loss, [w, v], unconnected_gradients="zero")[0].numpy() == 0.0
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        loss = w * v
    assert float(tape.gradient(loss, v)) == 2.0


def test_persistent_tape_allows_several_gradients_and_a_plain_tape_one():
    x = f64(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(y, x)) == 6.0
    assert float(tape.gradient(z, x)) == 108.0
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y, x)


def test_stop_recording_and_stop_gradient_make_constants():
    x = f64(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            constant = x * 10.0
        y = x * constant + x * rt.stop_gradient(x)
    assert float(tape.gradient(y, x)) == 20.0 + 2.0
    with pytest.raises(RuntimeError, match="the tape is not recording"):
        with tape.stop_recording():
            pass


def test_unconnected_integer_and_output_gradients():
    x, unused, count = f64([1.0, 2.0]), f64(1.0), rt.constant(3)
    with rt.GradientTape() as tape:
        tape.watch([x, unused, count])
        y = x * rt.cast(count, rt.float64)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, unused, count])
        y = x * rt.cast(count, rt.float64)
    none_grads = tape.gradient(y, [x, unused, count])
    assert none_grads[1] is None and none_grads[2] is None
    np.testing.assert_array_equal(none_grads[0].numpy(), [3.0, 3.0])
    zero = tape.gradient(y, unused, unconnected_gradients="zero")
    assert zero.numpy() == 0.0 and zero.dtype == rt.float64
    tape_grads = tape.gradient(y, x, output_gradients=f64([1.0, -2.0]))
    np.testing.assert_array_equal(tape_grads.numpy(), [3.0, -6.0])
    with pytest.raises(ValueError, match="unconnected_gradients must be 'none' or 'zero', got 'zeros'"):
        tape.gradient(y, x, unconnected_gradients="zeros")


def test_several_targets_are_summed_and_sources_keep_their_structure():
    a, b = f64(2.0), f64(3.0)
    with rt.GradientTape() as tape:
        tape.watch([a, b])
        targets = [a * b, a + b]
    grads = tape.gradient(targets, {"a": a, "pair": (b,)})
    assert float(grads["a"]) == 4.0 and float(grads["pair"][0]) == 3.0


def test_an_ag_function_called_under_an_eager_tape_is_recorded():
    w = rt.Variable(2.0)

    @ag.function
    def model(x):
        if x > 0:
            return w * x * x
        return -w * x

    with rt.GradientTape() as tape:
        x = rt.constant(3.0)
        tape.watch(x)
        y = model(x)
    grad_x, grad_w = tape.gradient(y, [x, w])
    assert (float(grad_x), float(grad_w)) == (12.0, 9.0)


def test_gradient_called_in_a_branch_of_the_tapes_function_is_computed_there():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return rt.cond(x > 0, lambda: tape.gradient(y, x), lambda: x)
    assert float(f(rt.constant(1.5))) == 3.0  # TF: 3.0 (the gradient ops are made in the branch)
    assert float(f(rt.constant(-1.5))) == -1.5


def test_gradient_called_in_another_graph_is_a_clear_error():
    with rt.GradientTape() as tape:
        x = rt.constant(2.0)
        tape.watch(x)
        y = x * x

    @rt.function
    def f():
        return tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="must be called in the function .* where the tape recorded"):
        f()


# TensorFlow 2.21's values: the gradient with respect to a tensor the tape computed (not watched itself)
def test_gradient_with_respect_to_a_recorded_intermediate_in_a_traced_function():
    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            a = x * 2.0
            y = a * a
        return tape.gradient(y, a), tape_gradient_of_unrecorded(x)

    def tape_gradient_of_unrecorded(x):
        with rt.GradientTape() as tape:
            b = x * 2.0  # x not watched: b is a constant to this tape
            y = b * b
        return tape.gradient(y, b)
    grad, unwatched = f(rt.constant(1.0, rt.float64))
    assert float(grad) == 4.0 and unwatched is None  # TF: 4.0 and None


def test_gradient_with_respect_to_what_a_tensor_while_leaves_in_a_variable():
    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            i = rt.constant(0)
            while i < 3:
                x = x * 2.0
                i += 1
            y = rt.reduce_sum(x * x)
        return tape.gradient(y, x)
    np.testing.assert_array_equal(np.asarray(f(rt.constant([1.0, -2.0], rt.float64))), [16.0, -32.0])  # TF


def test_gradient_with_respect_to_what_a_tensor_if_leaves_in_a_variable():
    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            if rt.reduce_sum(x) > 0:
                x = x * 2.0
            else:
                x = x * 3.0
            y = rt.reduce_sum(x * x)
        return tape.gradient(y, x)
    np.testing.assert_array_equal(np.asarray(f(rt.constant([1.0, 2.0], rt.float64))), [4.0, 8.0])  # TF
    np.testing.assert_array_equal(np.asarray(f(rt.constant([-1.0, -2.0], rt.float64))), [-6.0, -12.0])


def test_gradient_with_respect_to_an_intermediate_that_starts_a_loop_variable():
    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            a = 2.0 * x
            c = a
            for _ in rt.range(3):
                c = c * 5.0
        return tape.gradient(c, a)
    assert float(f(rt.constant(1.0, rt.float64))) == 125.0  # TF: 125


def test_variables_read_inside_a_tensor_loop_and_if_get_their_gradients():
    w, v = rt.Variable(np.float64(2.0)), rt.Variable(np.float64(0.5))

    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            y = x
            while y < 10.0:
                y = y * w
                if y > 5.0:  # an if in the loop reads both variables too
                    y = y + v * w
        return y, tape.gradient(y, [w, v])

    def plain(x, w, v):  # the same program on floats: y = 1.5 -> 3 -> 7 (6 + 1) -> 15 (14 + 1)
        y = x
        while y < 10.0:
            y = y * w
            if y > 5.0:
                y = y + v * w
        return y

    y, (grad_w, grad_v) = f(rt.constant(1.5, rt.float64))
    eps = 1e-6
    assert float(y) == plain(1.5, 2.0, 0.5) == 15.0
    assert float(grad_w) == pytest.approx((plain(1.5, 2 + eps, 0.5) - plain(1.5, 2 - eps, 0.5)) / (2 * eps), rel=1e-8)
    assert float(grad_v) == pytest.approx((plain(1.5, 2.0, 0.5 + eps) - plain(1.5, 2.0, 0.5 - eps)) / (2 * eps),
                                          rel=1e-8)
    assert (float(grad_w), float(grad_v)) == (20.5, 6.0)


def test_a_variable_assigned_inside_the_loop_that_reads_it_is_a_clear_error():
    w = rt.Variable(2.0)

    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            y = x
            while y < 10.0:
                y = y * w
                w.assign_add(1.0)
        return tape.gradient(y, w)
    with pytest.raises(NotImplementedError, match="Variable 'Variable' is assigned inside a tensor-dependent if/loop"):
        f(rt.constant(1.5))


def test_watch_rejects_python_values():
    with rt.GradientTape() as tape:
        with pytest.raises(TypeError, match="GradientTape.watch: expected tensors or Variables, got float 1.0"):
            tape.watch(1.0)
