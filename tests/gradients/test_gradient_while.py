"""Gradients through tensor loops (the While op): finite differences in float64, graph == traced tape ==
eager tape, what the forward loop accumulates, and saving a gradient graph."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from gradient_checks import (assert_close, converted_eager_tape_gradients, converted_tape_gradients,
                             numeric_gradients)
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.list_ops import TENSOR_LIST_PUSH_BACK


# --- programs (converted by ag; every loop is a tensor loop: its counter or condition is a tensor) -------
def power(x, w):
    i = rt.constant(0)
    while i < 4:
        x = x * w
        i += 1
    return rt.reduce_sum(x)


def grow_until(x, w):
    while rt.reduce_sum(x) < 100.0:  # data-dependent trip count
        x = x * w
    return rt.reduce_sum(x * x)


def with_break_and_continue(x, w):
    total = rt.zeros_like(x)
    i = rt.constant(0)
    while i < 8:
        i += 1
        if rt.reduce_sum(total) > 30.0:
            break
        if i % 3 == 0:
            continue
        total = total + x * w
    return rt.reduce_sum(total * total)


def early_return(x):
    while rt.reduce_sum(x) < 100.0:
        x = x * 1.5
        if rt.reduce_max(x) > 30.0:
            return rt.reduce_sum(x * x)
    return rt.reduce_sum(x)


def nested(x, w):
    i = rt.constant(0)
    while i < 3:
        j = rt.constant(0)
        while j < i + 1:  # the inner trip count changes with the outer iteration
            x = rt.sin(x) * w + x
            j += 1
        if rt.reduce_sum(x) > 0.0:  # an if in the loop
            x = x * x * 0.5
        else:
            x = x - w
        i += 1
    return rt.reduce_sum(x)


def rnn(h, weights):
    t = rt.constant(0)
    while t < 5:
        h = rt.tanh(rt.matmul(h, weights))
        t += 1
    return rt.reduce_sum(h)


PROGRAMS = {
    "power": (power, [np.array([0.5, -1.5]), np.array([1.2, 0.7])]),
    "grow_until": (grow_until, [np.array([1.0, 2.0]), np.array([1.7, 1.3])]),
    "with_break_and_continue": (with_break_and_continue, [np.array([0.5, 1.5]), np.array([2.0, 0.3])]),
    "early_return_taken": (early_return, [np.array([10.0, 2.0])]),
    "early_return_not_taken": (early_return, [np.array([1.0, 2.0])]),
    "nested": (nested, [np.array([0.3, -0.4]), np.array([0.8, 1.1])]),
    "rnn": (rnn, [np.random.default_rng(0).standard_normal((2, 3)),
                  np.random.default_rng(1).standard_normal((3, 3))]),
}


def graph_gradients(fn, arrays):
    @ag.function
    def grads(*xs):
        return rt.gradients(fn(*xs), list(xs))
    return [np.asarray(g) for g in grads(*[rt.constant(a) for a in arrays])]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_loop_gradients_match_finite_differences_and_agree_everywhere(name):
    fn, arrays = PROGRAMS[name]
    traced, grads = converted_tape_gradients(fn, arrays)
    assert_close(traced, numeric_gradients(ag.to_graph(fn), arrays, np.array(1.0)), rtol=1e-6)
    assert_close(graph_gradients(fn, arrays), traced, rtol=1e-12, atol=0)
    assert_close(converted_eager_tape_gradients(fn, arrays), traced, rtol=1e-10, atol=1e-12)
    graph = grads.get_concrete_function(*[rt.constant(a) for a in arrays]).unoptimized_graph
    assert any(op.op_def is WHILE and op.name.startswith("while_grad") for op in graph.operations)


def test_a_captured_weight_gets_the_sum_of_its_per_iteration_gradients():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64), rt.TensorSpec([], rt.float64),
                                  rt.TensorSpec([], rt.int32)])
    def f(x, w, n):
        _, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y + w * y), [0, x])
        return rt.gradients(y, [x, w, n])
    grad_x, grad_w, grad_n = f(rt.constant(2.0, rt.float64), rt.constant(0.5, rt.float64), rt.constant(3))
    # y = x (1 + w)^n: dy/dw = n x (1 + w)^(n-1) = 3 * 2 * 1.5^2 (one iteration's share would be a third)
    assert float(grad_w) == pytest.approx(13.5, rel=1e-12)
    assert float(grad_x) == pytest.approx(1.5 ** 3, rel=1e-12)
    assert grad_n is None


def test_integer_and_bool_loop_variables_get_no_gradient():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64), rt.TensorSpec([], rt.int32)])
    def f(x, k):
        i, done, y = rt.while_loop(lambda i, done, y: rt.logical_not(done),
                                   lambda i, done, y: (i + k, y > 10.0, y * 2.0), [k, False, x])
        return rt.gradients(y, [x, k]) + rt.gradients(rt.cast(i, rt.float64) + y, [k])
    grad_x, grad_k, grad_k_again = f(rt.constant(1.5, rt.float64), rt.constant(2))
    assert float(grad_x) == 16.0 and grad_k is None and grad_k_again is None  # 1.5 * 2**4 = 24 > 10


def test_a_loop_that_runs_zero_times_passes_the_gradient_through():
    @rt.function(input_signature=[rt.TensorSpec([2], rt.float64), rt.TensorSpec([2], rt.float64)])
    def f(x, w):
        (y,) = rt.while_loop(lambda y: rt.reduce_sum(y) > 1e9, lambda y: (y * w,), [x])
        return rt.gradients(rt.reduce_sum(y * y), [x, w], unconnected_gradients="zero")
    grad_x, grad_w = f(rt.constant([1.0, 2.0], rt.float64), rt.constant([3.0, 4.0], rt.float64))
    np.testing.assert_array_equal(np.asarray(grad_x), [2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(grad_w), [0.0, 0.0])


def test_maximum_iterations_bounds_the_backward_loop_too():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64)])
    def f(x):
        (y,) = rt.while_loop(lambda y: y < 1e6, lambda y: (y * x,), [x], maximum_iterations=3)
        return y, rt.gradients(y, x)[0]
    y, grad = f(rt.constant(1.5, rt.float64))
    assert float(y) == 1.5 ** 4 and float(grad) == pytest.approx(4 * 1.5 ** 3, rel=1e-12)


def test_maximum_iterations_from_loop_options_in_converted_code():
    def capped(x):
        y = x
        while rt.reduce_sum(y) < 1e6:
            ag.set_loop_options(maximum_iterations=5)
            y = y * x
        return rt.reduce_sum(y)
    arrays = [np.array([1.1, 1.3])]
    traced, _ = converted_tape_gradients(capped, arrays)
    # loop options apply to the staged loop only (eagerly the Python loop runs to the end, as in TensorFlow)
    assert_close(traced, numeric_gradients(ag.function(capped), arrays, np.array(1.0)), rtol=1e-6)
    np.testing.assert_allclose(traced[0], 6 * arrays[0] ** 5, rtol=1e-12)


def _pushed(while_op):
    return sorted(op.inputs[1].op.type for op in while_op.attrs["body"].operations
                  if op.op_def is TENSOR_LIST_PUSH_BACK)


def test_only_the_values_the_backward_pass_reads_are_accumulated():
    h, weights = PROGRAMS["rnn"][1]
    _, grads = converted_tape_gradients(rnn, [h, weights])
    graph = grads.get_concrete_function(rt.constant(h), rt.constant(weights)).unoptimized_graph
    (forward,) = [op for op in graph.operations if op.op_def is WHILE and op.name == "while"]
    # matmul's gradient reads h, tanh's reads its output; the weight is read from outside the loop, once
    assert _pushed(forward) == ["Placeholder", "Tanh"]
    assert forward.inputs[-1].op.type == "Placeholder" and forward.inputs[-1].shape == (3, 3)


def test_an_additive_loop_accumulates_nothing():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64), rt.TensorSpec([], rt.float64)])
    def f(x, w):
        _, y = rt.while_loop(lambda i, y: i < 10, lambda i, y: (i + 1, y + w), [0, x])
        return rt.gradients(y, [x, w])
    assert [float(g) for g in f(rt.constant(1.0, rt.float64), rt.constant(2.0, rt.float64))] == [1.0, 10.0]
    graph = f.get_concrete_function().unoptimized_graph
    (forward,) = [op for op in graph.operations if op.op_def is WHILE and op.name == "while"]
    assert _pushed(forward) == []


def test_a_loop_differentiated_twice_gives_the_same_gradients():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64)])
    def f(x):
        (y,) = rt.while_loop(lambda y: y < 50.0, lambda y: (y * x,), [x])
        return rt.gradients(y, x)[0], rt.gradients(y * y, x)[0], y
    first, second, y = f(rt.constant(3.0, rt.float64))  # y = x**4
    assert float(y) == 81.0 and float(first) == 4 * 27.0 and float(second) == 8 * 3.0 ** 7


@settings(max_examples=25, deadline=None)
@given(x=st.floats(0.2, 2.0), w=st.floats(0.5, 1.5), n=st.integers(0, 6))
def test_power_loop_matches_the_closed_form(x, w, n):
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64)] * 2 + [rt.TensorSpec([], rt.int32)])
    def f(x, w, n):
        _, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * w + rt.sin(y)), [0, x])
        return [y] + rt.gradients(y, [x, w])
    y, grad_x, grad_w = f(rt.constant(x, rt.float64), rt.constant(w, rt.float64), rt.constant(n))
    value, dx, dw = x, 1.0, 0.0
    for _ in range(n):  # forward-mode by hand: the chain rule per iteration
        value, dx, dw = value * w + np.sin(value), dx * (w + np.cos(value)), dw * (w + np.cos(value)) + value
    assert float(y) == pytest.approx(value, rel=1e-12)
    assert float(grad_x) == pytest.approx(dx, rel=1e-9, abs=1e-12)
    assert float(grad_w) == pytest.approx(dw, rel=1e-9, abs=1e-12)


def test_a_function_with_a_gradient_loop_saves_and_loads(tmp_path):
    arrays = PROGRAMS["nested"][1]
    expected, _ = converted_tape_gradients(nested, arrays)

    @ag.function
    def grads(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            y = nested(x, w)
        return tape.gradient(y, [x, w])
    rt.save(grads.get_concrete_function(*[rt.constant(a) for a in arrays]), str(tmp_path / "saved"))
    loaded = rt.load(str(tmp_path / "saved"))
    assert_close([np.asarray(g) for g in loaded(*[rt.constant(a) for a in arrays])], expected, rtol=0, atol=0)


def test_a_gradient_loop_exports_to_onnx_with_its_accumulator_as_a_sequence():
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        (y,) = rt.while_loop(lambda y: y < 10.0, lambda y: (y * x,), [x])
        return rt.gradients(y, x)[0]
    from runtime.backends import interpreter
    concrete = f.get_concrete_function()
    session = ort.InferenceSession(rt.export.to_onnx(concrete).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    for value in (1.5, 3.0, 20.0):  # 3 trips, 2 trips, 0 trips
        x = np.array(value, np.float32)
        (theirs,) = session.run(None, {session.get_inputs()[0].name: x})
        (ours,) = interpreter.run_graph(concrete.graph, [x])
        np.testing.assert_array_equal(theirs, ours)


def test_big_loop_values_are_kept_intact_by_the_memory_plan():
    # 64x128 float64 values are past the executor's buffer-pooling size: an accumulated value must never be
    # written over by a later iteration
    rng = np.random.default_rng(3)
    h, weights = rng.standard_normal((64, 128)) * 0.5, rng.standard_normal((128, 128)) / 12.0
    ours = graph_gradients(rnn, [h, weights])
    states = [h]
    for _ in range(5):
        states.append(np.tanh(states[-1] @ weights))
    grad_h, grad_w = np.ones_like(h), np.zeros_like(weights)
    for t in range(5, 0, -1):
        grad_pre = grad_h * (1.0 - states[t] ** 2)
        grad_w += states[t - 1].T @ grad_pre
        grad_h = grad_pre @ weights.T
    assert_close(ours, [grad_h, grad_w], rtol=1e-12, atol=1e-12)


def loop_in_an_if(x, w):
    if rt.reduce_sum(x) > 0.0:
        while rt.reduce_sum(x) < 20.0:
            x = x * w + 1.0
    else:
        x = x * w
    return rt.reduce_sum(x * x)


def growing(x):
    out = x[:1]
    i = rt.constant(1)
    while i < 3:
        ag.set_loop_options(shape_invariants=[(out, rt.TensorShape([None]))])
        out = rt.concat([out, out * x[i]], 0)  # a tensor that grows: its shape is unknown in the loop
        i += 1
    return rt.reduce_sum(out * out)


@pytest.mark.parametrize("fn, arrays", [
    (loop_in_an_if, [np.array([1.0, 2.0]), np.array([1.5, 1.2])]),
    (loop_in_an_if, [np.array([-1.0, -2.0]), np.array([1.5, 1.2])]),
    (growing, [np.array([0.5, 2.0, -1.5])]),
])
def test_loops_in_ifs_and_growing_loop_values(fn, arrays):
    traced, _ = converted_tape_gradients(fn, arrays)
    assert_close(traced, numeric_gradients(ag.to_graph(fn), arrays, np.array(1.0)), rtol=1e-6)
    assert_close(converted_eager_tape_gradients(fn, arrays), traced, rtol=1e-10, atol=1e-12)


def test_a_variable_read_inside_a_tensor_if_gets_its_gradient():
    w = rt.Variable(np.float64(3.0))

    @ag.function
    def f(x):
        with rt.GradientTape() as tape:
            if x > 0.0:
                y = x * w * w
            else:
                y = x + w
        return tape.gradient(y, w)
    assert float(f(rt.constant(2.0, rt.float64))) == 12.0 and float(f(rt.constant(-2.0, rt.float64))) == 1.0


def test_side_effects_in_the_loop_run_once_the_backward_loop_does_not_repeat_them(capsys):
    @ag.function
    def f(x0):
        with rt.GradientTape() as tape:
            tape.watch(x0)
            x = x0
            i = rt.constant(0)
            while i < 3:
                rt.print("step", i)
                x = x * x
                i += 1
        return tape.gradient(x, x0)
    assert float(f(rt.constant(1.5, rt.float64))) == 8 * 1.5 ** 7  # x0**8
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\n"


def test_a_loop_variable_only_other_loop_variables_read_still_carries_its_gradient_back():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64)])
    def f(x):
        _, a, b = rt.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a * x, b + a), [0, x, x])
        return rt.gradients(b, x)[0]  # a is not used after the loop, but b reads it in every iteration
    # b = x + x + x**2 + x**3 after three iterations: db/dx = 2 + 2x + 3x**2
    assert float(f(rt.constant(2.0, rt.float64))) == 18.0


def unknown_shapes(x, w):
    i = rt.constant(0)
    while i < 3:
        x = x * w + rt.sin(x)
        i += 1
    return rt.reduce_sum(x)


def test_with_unknown_dims_the_loop_accumulates_shapes_not_values():
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float64)] * 2)
    def grads(x, w):
        return rt.gradients(unknown_shapes(x, w), [x, w])
    arrays = [np.array([0.3, -1.2, 2.0]), np.array([0.9, 1.1, -0.5])]
    ours = [np.asarray(g) for g in grads(*[rt.constant(a) for a in arrays])]
    assert_close(ours, numeric_gradients(ag.to_graph(unknown_shapes), arrays, np.array(1.0)), rtol=1e-6)
    graph = grads.get_concrete_function().unoptimized_graph
    (forward,) = [op for op in graph.operations if op.op_def is WHILE and op.name == "while"]
    # x (for sin's and the product's gradients) and the shapes the sum's gradient undoes broadcasting to;
    # w is read from outside
    assert _pushed(forward) == ["Placeholder", "Shape", "Shape"]


def test_a_train_step_with_a_variable_read_in_a_loop_saves_loads_and_trains(tmp_path):
    weights = rt.Variable(np.array([[0.5, -0.2], [0.1, 0.3]]))
    optimizer = rt.optimizers.SGD(0.1)

    @ag.function(input_signature=[rt.TensorSpec([2, 2], rt.float64)])
    def step(h):
        with rt.GradientTape() as tape:
            i = rt.constant(0)
            while i < 3:
                h = rt.tanh(rt.matmul(h, weights))
                i += 1
            loss = rt.reduce_sum(h * h)
        grad = tape.gradient(loss, weights)
        optimizer.apply_gradients([(grad, weights)])
        return loss, grad

    h = np.array([[1.0, 0.5], [-0.3, 0.8]])

    def loss_of(w):
        state = h
        for _ in range(3):
            state = np.tanh(state @ w)
        return float(np.sum(state * state))

    start = weights.numpy().copy()
    numeric = np.zeros_like(start)
    for position in np.ndindex(start.shape):
        up, down = start.copy(), start.copy()
        up[position] += 1e-6
        down[position] -= 1e-6
        numeric[position] = (loss_of(up) - loss_of(down)) / 2e-6
    loss, grad = step(rt.constant(h))
    assert float(loss) == pytest.approx(loss_of(start), rel=1e-12)
    np.testing.assert_allclose(np.asarray(grad), numeric, rtol=1e-6)
    np.testing.assert_allclose(weights.numpy(), start - 0.1 * np.asarray(grad), rtol=1e-12)
    rt.save(step, str(tmp_path / "step"))
    loaded = rt.load(str(tmp_path / "step"))
    loaded_loss, loaded_grad = loaded(rt.constant(h))  # the saved copy starts from the saved weights
    after_one = start - 0.1 * np.asarray(grad)
    assert float(loaded_loss) == pytest.approx(loss_of(after_one), rel=1e-12)
    assert float(step(rt.constant(h))[0]) == float(loaded_loss)  # the same step on the same weights


# --- random loop bodies: rt.gradients of a staged rt.while_loop == finite differences of the eager loop ---
BODY_STEPS = {
    "mul": lambda x, w: x * w,
    "sin_plus": lambda x, w: rt.sin(x) + w,
    "tanh": lambda x, w: rt.tanh(x * w + 0.1),
    "square": lambda x, w: x * x * 0.3 + w * 0.5,
    "cond": lambda x, w: rt.cond(rt.reduce_sum(x) > 0.0, lambda: x * w, lambda: x - w),
}


def random_loop(program, n):
    def fn(x, w):
        def body(i, x):
            for name in program:
                x = BODY_STEPS[name](x, w)
            return i + 1, x
        _, y = rt.while_loop(lambda i, x: i < n, body, [0, x])
        return rt.reduce_sum(y * y)
    return fn


@settings(max_examples=30, deadline=None)
@given(program=st.lists(st.sampled_from(sorted(BODY_STEPS)), min_size=1, max_size=3), n=st.integers(0, 4),
       seed=st.integers(0, 1000))
def test_random_loop_bodies_match_finite_differences(program, n, seed):
    rng = np.random.default_rng(seed)
    x, w = rng.uniform(-1, 1, 3), rng.uniform(0.5, 1.2, 3)
    fn = random_loop(program, n)

    @rt.function(input_signature=[rt.TensorSpec([3], rt.float64)] * 2)
    def grads(x, w):
        return rt.gradients(fn(x, w), [x, w], unconnected_gradients="zero")
    ours = [np.asarray(g) for g in grads(rt.constant(x), rt.constant(w))]
    assert_close(ours, numeric_gradients(fn, [x, w], np.array(1.0)), rtol=1e-5, atol=1e-6)


def test_an_eager_tape_over_an_ag_function_with_a_tensor_loop_equals_the_traced_tape():
    @ag.function
    def grow(x, w):
        while rt.reduce_sum(x) < 100.0:
            x = x * w
        return rt.reduce_sum(x * x)

    @ag.function
    def traced(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            y = grow(x, w)
        return tape.gradient(y, [x, w])

    x, w = rt.constant([1.0, 2.0], rt.float64), rt.constant([1.7, 1.3], rt.float64)
    with rt.GradientTape() as tape:  # eagerly the function runs op by op: its loop is a Python loop
        tape.watch([x, w])
        y = grow(x, w)
    eager = [np.asarray(g) for g in tape.gradient(y, [x, w])]
    assert_close([np.asarray(g) for g in traced(x, w)], eager, rtol=1e-12, atol=0)
    assert_close(eager, numeric_gradients(grow, [np.array([1.0, 2.0]), np.array([1.7, 1.3])], np.array(1.0)),
                 rtol=1e-6)
