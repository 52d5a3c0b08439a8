"""Minimal programs reduced from what the random programs of test_gradient_programs.py found wrong, each
with the gradient TensorFlow gives."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

def doubled_in_a_list(x, n):
    if rt.reduce_sum(x) > 0.0:
        parts = []
        for _ in rt.range(n):
            parts.append(x * 2.0)          # a tensor list made inside the branch: no side effect
        x = rt.reduce_sum(rt.stack(parts), 0)
    return rt.reduce_sum(x * x)


def test_a_list_made_in_a_loop_inside_a_tensor_if_is_differentiable():
    @ag.function
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = doubled_in_a_list(x, n)
        return tape.gradient(y, x)
    x = rt.constant([1.0, 2.0], rt.float64)
    assert gradient(x, rt.constant(2)).numpy().tolist() == [32.0, 64.0]       # d/dx sum((4x)^2) = 32x
    assert gradient(-x, rt.constant(2)).numpy().tolist() == [-2.0, -4.0]
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = ag.to_graph(doubled_in_a_list)(x, rt.constant(3))
    assert tape.gradient(y, x).numpy().tolist() == [72.0, 144.0]


def printing_in_a_nested_if(x, n):
    if rt.reduce_sum(x) > 0.0:
        for _ in rt.range(n):
            if rt.reduce_sum(x) > 1.0:
                rt.print(x)
            x = x * 2.0
    return rt.reduce_sum(x * x)


def test_a_side_effect_nested_in_a_branch_is_refused_by_its_name():
    @ag.function
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = printing_in_a_nested_if(x, n)
        return tape.gradient(y, x)
    with pytest.raises(NotImplementedError, match=r"branch cond_true_\d+ has a side effect \(PrintV2, node PrintV2\)"):
        gradient(rt.constant([1.0, 2.0]), rt.constant(2))


def written_twice(x):
    array = rt.TensorArray(rt.float64, size=2)
    array = array.write(0, x * 2.0)
    array = array.write(1, x * x)
    return rt.reduce_sum(array.stack())


def test_the_gradient_function_of_a_function_making_a_tensor_array():
    function = ag.function(written_twice)
    x = rt.constant([1.0, 2.0], rt.float64)
    function(x)
    assert rt.function_gradient(function, wrt="x")(x).numpy().tolist() == [4.0, 6.0]     # 2 + 2x
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = function.get_concrete_function(x)(x)   # recorded as one call: its gradient is the function's VJP
    assert tape.gradient(y, x).numpy().tolist() == [4.0, 6.0]


def test_iterating_an_eager_tensor_under_a_tape_reaches_its_gradient():
    m = rt.constant([[1.0, 2.0], [3.0, 4.0]], rt.float64)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(m)
        squares = rt.reduce_sum(rt.stack([rt.reduce_sum(row * row) for row in m]))
        first, second = m
        product = rt.reduce_sum(first * second)
    assert tape.gradient(squares, m).numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert tape.gradient(product, m).numpy().tolist() == [[3.0, 4.0], [1.0, 2.0]]
    assert [row.numpy().tolist() for row in m] == [[1.0, 2.0], [3.0, 4.0]]     # no tape: the same rows


def first_replaced(x):
    x[0] = rt.reduce_sum(x * x)
    return rt.reduce_sum(x * 3.0)


def test_a_function_with_item_assignment_called_under_an_eager_tape():
    function = ag.function(first_replaced)
    x = rt.constant([1.0, 2.0, 3.0], rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = function(x)
    assert y.numpy() == 3.0 * 14.0 + 15.0
    assert tape.gradient(y, x).numpy().tolist() == [6.0, 15.0, 21.0]           # 3 * 2x, plus 3 for x[1:]


def states_after_updates(a, n):
    states = []
    for _ in rt.range(n):
        a[0] = a[0] + 1.0
        states.append(a)           # the list keeps this iteration's array: the next update must copy it
    return rt.stack(states)


def squares_after_updates(a, c, n):
    for _ in rt.range(n):
        a[1:] = c[1:]
        c = rt.reduce_sum(a * a) * c   # the gradient keeps each iteration's a on an accumulator list
    return rt.reduce_sum(c)


def test_a_loop_variable_appended_to_a_list_is_not_updated_in_place_by_the_next_iteration():
    expected = [[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]
    function = ag.function(states_after_updates)
    for _ in range(2):  # the reference interpreter, then the compiled executor
        assert function(rt.constant([0.0, 5.0]), rt.constant(3)).numpy().tolist() == expected

    @ag.function
    def gradient(a, c, n):
        with rt.GradientTape() as tape:
            tape.watch(c)
            y = squares_after_updates(a, c, n)
        return tape.gradient(y, c)
    a, c = rt.constant([0.5, 0.2], rt.float64), rt.constant([0.3, -0.4], rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(c)
        y = ag.to_graph(squares_after_updates)(a, c, rt.constant(2))
    eager = tape.gradient(y, c).numpy()
    np.testing.assert_allclose(eager, [0.11352736, 0.14549608], rtol=1e-7)   # finite differences
    np.testing.assert_allclose(gradient(a, c, rt.constant(2)).numpy(), eager, rtol=1e-13)


def nested_sines(x, n):
    for _ in rt.range(n):
        x = x * 2.0
        for _ in rt.range(n):
            x = rt.sin(x)        # the inner loop's accumulators are held in the outer loop's
    return x


def test_second_derivatives_through_nested_tensor_loops():
    @ag.function
    def second(x, n):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = nested_sines(x, n)
            slope = inner.gradient(y, x)
        return slope, outer.gradient(slope, x)

    def eager_slope(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = ag.to_graph(nested_sines)(x, rt.constant(2))
        return tape.gradient(y, x).numpy()
    x = 0.3
    slope, curvature = second(rt.constant(x, rt.float64), rt.constant(1))
    assert slope.numpy() == 2.0 * np.cos(2.0 * x)
    np.testing.assert_allclose(curvature.numpy(), -4.0 * np.sin(2.0 * x), rtol=1e-13)     # was 0.0
    slope, curvature = second(rt.constant(x, rt.float64), rt.constant(2))
    step = 1e-6
    differences = (eager_slope(rt.constant(x + step, rt.float64)) - eager_slope(rt.constant(x - step, rt.float64)))
    np.testing.assert_allclose(curvature.numpy(), differences / (2 * step), rtol=1e-6)


def stacked_in_an_if(x, n):
    if rt.reduce_sum(x) > 0.0:
        rows = rt.TensorArray(rt.float64, size=n, infer_shape=False)   # (with infer_shape, the rank is known)
        for i in rt.range(n):
            rows = rows.write(i, x * rt.cast(i + 1, rt.float64))
        x = rt.reduce_sum(rows.stack(), 0)     # stacked: a tensor of unknown rank
    return rt.reduce_sum(x * x)


def test_a_sum_over_the_first_axes_of_a_tensor_of_unknown_rank_is_differentiable():
    @ag.function
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = stacked_in_an_if(x, n)
        return tape.gradient(y, x)
    x = rt.constant([1.0, 2.0], rt.float64)
    assert gradient(x, rt.constant(3)).numpy().tolist() == [72.0, 144.0]      # d/dx sum((6x)^2) = 72x
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = ag.to_graph(stacked_in_an_if)(x, rt.constant(3))
    assert tape.gradient(y, x).numpy().tolist() == [72.0, 144.0]

    @ag.function
    def from_the_end(x, n):
        rows = rt.TensorArray(rt.float64, size=n, infer_shape=False)
        for i in rt.range(n):
            rows = rows.write(i, x)
        return rt.gradients(rt.reduce_sum(rt.reduce_sum(rows.stack(), -1)), x)
    with pytest.raises(ValueError, match=r"gradient of Sum: the input has unknown rank and the reduced axes \[-1\] "
                                         "count from the end"):
        from_the_end(x, rt.constant(2))
