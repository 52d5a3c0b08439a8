"""A GradientTape inside the body of a tensor `while`/`for` (or a branch of a tensor `if`): the gradient is
computed in each iteration, not through the loop. The staged loop must give what the same Python code
gives eagerly (where the loop is a Python loop and the tape records op by op): same values, same trip
counts, same Variable updates.
"""
import numpy as np

import autograph_lite as ag
import runtime as rt

F64 = rt.float64


def f64(value):
    return rt.constant(value, F64)


def gradient_descent(x):
    """Minimize (x - 3)^2 + x^4 / 10 until the gradient is tiny: a data-dependent trip count."""
    step = rt.constant(0)
    slope = f64(1.0)
    while rt.abs(slope) > 1e-6 and step < 500:
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = (x - 3.0) ** 2 + x ** 4 / 10.0
        slope = tape.gradient(y, x)
        x = x - 0.05 * slope
        step += 1
    return x, step


def newton(x):
    """Newton's method on f(x) = exp(x) - 2x (minimum at log 2): second derivative from a nested tape."""
    step = rt.constant(0)
    change = f64(1.0)
    while rt.abs(change) > 1e-12 and step < 50:
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.exp(x) - 2.0 * x
            slope = inner.gradient(y, x)
        curvature = outer.gradient(slope, x)
        change = slope / curvature
        x = x - change
        step += 1
    return x, step


def test_gradient_descent_in_a_tensor_while_equals_the_eager_loop():
    staged = ag.function(gradient_descent)
    x, steps = staged(f64(-1.0))
    eager_x, eager_steps = gradient_descent(f64(-1.0))  # Python while on eager tensors, eager tapes
    assert int(steps) == int(eager_steps) and 10 < int(steps) < 500
    np.testing.assert_allclose(x.numpy(), eager_x.numpy(), rtol=1e-12)
    assert abs(2 * (x.numpy() - 3) + 0.4 * x.numpy() ** 3) <= 1e-6
    assert "While" in [op.type for op in staged.get_concrete_function(f64(-1.0)).graph.operations]


def test_newtons_method_with_nested_tapes_in_a_tensor_while():
    staged = ag.function(newton)
    x, steps = staged(f64(3.0))
    eager_x, eager_steps = newton(f64(3.0))
    assert int(steps) == int(eager_steps) == 8
    assert x.numpy() == eager_x.numpy()
    np.testing.assert_allclose(x.numpy(), np.log(2.0), rtol=1e-15)


def make_model():
    w = rt.Variable(np.array([[0.1], [-0.2]], np.float32), name="w")
    b = rt.Variable(np.zeros(1, np.float32), name="b")
    return w, b, rt.optimizers.Adam(learning_rate=0.1)


X = np.array([[1.0, 2.0], [2.0, 0.5], [-1.0, 1.0], [0.5, -1.5]], np.float32)
Y = X @ np.array([[2.0], [-1.0]], np.float32) + 0.5


def train_until_converged(model, x, y):
    """Adam steps inside a tensor while, until the loss stops improving by 1e-4 for 3 steps (early stopping)."""
    w, b, optimizer = model
    best, waited, steps = rt.constant(np.inf), rt.constant(0), rt.constant(0)
    while waited < 3 and steps < 300:
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(rt.matmul(x, w) + b - y))
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        steps += 1
        if loss < best - 1e-4:
            best, waited = loss, 0
        else:
            waited += 1
    return steps, best


def test_variables_and_adam_updated_inside_a_tensor_while_equal_the_eager_loop():
    staged_model, eager_model = make_model(), make_model()
    fit = ag.function(lambda x, y: train_until_converged(staged_model, x, y))
    steps, best = fit(rt.constant(X), rt.constant(Y))
    eager_steps, eager_best = ag.to_graph(train_until_converged)(eager_model, rt.constant(X), rt.constant(Y))
    assert int(steps) == int(eager_steps) and 20 < int(steps) < 300
    np.testing.assert_allclose(best.numpy(), eager_best.numpy(), rtol=1e-5)
    for staged, eager in zip(staged_model[:2], eager_model[:2]):
        np.testing.assert_allclose(staged.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
    assert int(staged_model[2].iterations.numpy()) == int(steps)
    initial = np.mean(np.square(X @ np.array([[0.1], [-0.2]], np.float32) - Y))
    assert best.numpy() < initial / 1000  # it learned (stopping once the loss stalls, not at the exact fit)
    assert fit.experimental_get_tracing_count() == 1
    # a second call continues from the trained variables (the loop runs in the graph, the updates persist)
    more_steps, _ = fit(rt.constant(X), rt.constant(Y))
    assert int(staged_model[2].iterations.numpy()) == int(steps) + int(more_steps)


def test_a_tape_in_a_tensor_for_and_in_a_tensor_if():
    @ag.function
    def sum_of_slopes(x, n):
        total = f64(0.0)
        for i in rt.range(n):
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = rt.sin(x * rt.cast(i, F64))
            total += tape.gradient(y, x)
        return total

    x, n = 0.7, 5
    expected = sum(i * np.cos(x * i) for i in range(n))
    np.testing.assert_allclose(sum_of_slopes(f64(x), rt.constant(n)).numpy(), expected, rtol=1e-12)

    @ag.function
    def slope_where_positive(x):
        if rt.reduce_sum(x) > 0.0:
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = rt.reduce_sum(x * x * x)
            slope = tape.gradient(y, x)
        else:
            slope = rt.zeros_like(x)
        return slope

    np.testing.assert_allclose(slope_where_positive(f64([1.0, 2.0])).numpy(), [3.0, 12.0])
    np.testing.assert_array_equal(slope_where_positive(f64([-1.0, -2.0])).numpy(), [0.0, 0.0])


def test_jacobian_rows_from_a_persistent_tape_inside_a_tensor_for():
    # TF runs tape.gradient in the loop body: the gradient ops are made there, reading the recorded values
    def jacobian(x):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x * 3.0 + rt.reduce_sum(x)
        rows = rt.TensorArray(F64, size=2)
        for i in rt.range(2):
            rows = rows.write(i, tape.gradient(y, x, output_gradients=rt.one_hot(i, 2, dtype=F64)))
        return rows.stack()
    x = f64([1.0, 2.0])
    expected = [[7.0, 1.0], [1.0, 13.0]]  # TF: 6 x_i on the diagonal + 1 everywhere
    np.testing.assert_array_equal(np.asarray(ag.function(jacobian)(x)), expected)
    np.testing.assert_array_equal(np.asarray(ag.to_graph(jacobian)(x)), expected)  # eager: a Python loop


def test_gradient_through_a_recorded_tensor_loop_asked_inside_another_tensor_loop():
    @ag.function
    def f(x):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(3):
                y = y * x  # x ** 4
        total = f64(0.0)
        for k in rt.range(2):
            total += tape.gradient(y, x) * rt.cast(k + 1, F64)
        return total
    assert float(f(f64(2.0))) == 3 * 4 * 2.0 ** 3  # d/dx x^4 = 32, times 1 + 2
