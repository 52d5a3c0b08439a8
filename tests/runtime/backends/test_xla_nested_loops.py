"""jit_compile=True through a gradient of nested tensor loops: the outer loop keeps the inner loop's accumulators
(one list per outer iteration), compiled as one buffer [outer slots, inner slots, ...] when both loops have a
bound known when compiling (a static range, maximum_iterations). The gradients equal the numpy executor's and
jax.grad's of the same program written in JAX; a loop without a bound is a LoweringError naming it."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_xla_backend import assert_same, both

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
V = rt.constant([0.3, -0.7])
W = rt.constant(np.array([[0.5, -0.3], [0.2, 0.8]], np.float32))


def nested_ranges(x, w):
    with rt.GradientTape() as tape:
        tape.watch([x, w])
        y = x
        for i in rt.range(3):
            for j in rt.range(2):
                y = rt.tanh(rt.linalg.matvec(w, y)) * 1.5 + rt.cast(i * j, rt.float32) * 0.1
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, [x, w])


def nested_ranges_in_jax(x, w):
    y = x
    for i in range(3):
        for j in range(2):
            y = jnp.tanh(w @ y) * 1.5 + i * j * 0.1
    return jnp.sum(y * x)


def test_a_gradient_through_two_static_ranges_matches_the_numpy_executor_and_jax_grad():
    compiled = ag.function(nested_ranges, jit_compile=True)
    got = both(nested_ranges, V, W)
    for ours, theirs in zip(got, jax.grad(nested_ranges_in_jax, argnums=(0, 1))(V.numpy(), W.numpy())):
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-5, atol=1e-6)
    compiled(V, W)
    compiled(rt.constant([1.0, 2.0]), W)
    assert compiled.experimental_get_tracing_count() == 1


def three_deep(x, w):
    with rt.GradientTape() as tape:
        tape.watch(w)
        y = x
        for i in rt.range(2):
            for row in w:   # a tensor of static shape: 2 iterations
                for k in rt.range(3):
                    y = rt.tanh(y * row + rt.cast(k, rt.float32) * 0.2)
        loss = rt.reduce_sum(y * y)
    return tape.gradient(loss, w)


def test_a_gradient_through_three_nested_loops_matches_jax_grad():
    def in_jax(x, w):
        y = x
        for i in range(2):
            for row in w:
                for k in range(3):
                    y = jnp.tanh(y * row + k * 0.2)
        return jnp.sum(y * y)
    got = both(three_deep, V, W)
    np.testing.assert_allclose(got.numpy(), jax.grad(in_jax, argnums=1)(V.numpy(), W.numpy()), rtol=1e-5, atol=1e-6)


def bounded_inner(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(3):
            for j in rt.range(n):   # a run-time length: the inner lists' lengths are known only when it runs
                ag.set_loop_options(maximum_iterations=4)
                y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, x)


def bounded_outer(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(n):
            ag.set_loop_options(maximum_iterations=4)
            for j in rt.range(2):
                y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, x)


@pytest.mark.parametrize("n", [0, 1, 7])   # 7: both executors stop at maximum_iterations
def test_maximum_iterations_bounds_either_loop(n):
    for program in (bounded_inner, bounded_outer):
        compiled = ag.function(program, jit_compile=True)
        assert_same(ag.function(program)(V, rt.constant(n)), compiled(V, rt.constant(n)))

    def in_jax(x):   # the same program, for n = 1
        y = x
        for i in range(3):
            y = jnp.tanh(y) * 1.5
        return jnp.sum(y * x)
    if n == 1:
        np.testing.assert_allclose(ag.function(bounded_inner, jit_compile=True)(V, rt.constant(1)).numpy(),
                                   jax.grad(in_jax)(V.numpy()), rtol=1e-5, atol=1e-6)


def test_branches_a_break_and_a_while_around_a_for():
    def branches_and_break(x, w):
        with rt.GradientTape() as tape:
            tape.watch(w)
            y = x
            for i in rt.range(3):
                for j in rt.range(4):
                    if rt.reduce_sum(y) > 1.0:
                        break
                    if rt.reduce_sum(y) > 0.0:
                        y = rt.tanh(rt.linalg.matvec(w, y)) + 0.3
                    else:
                        y = y * 1.2 + 0.1
            loss = rt.reduce_sum(y * y)
        return tape.gradient(loss, w)

    def while_around_for(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            while rt.reduce_sum(y) < 5.0:
                ag.set_loop_options(maximum_iterations=5)
                for j in rt.range(2):
                    y = y * 1.3 + 0.2
            loss = rt.reduce_sum(y * x)
        return tape.gradient(loss, x)
    for x in (V, rt.constant([-0.5, 0.2])):
        both(branches_and_break, x, W)
    both(while_around_for, rt.constant([0.3, 0.7]))
    both(while_around_for, rt.constant([30.0, 0.7]))   # the outer loop runs zero times


def unbounded_outer(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(n):
            for j in rt.range(2):
                y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, x)


def unbounded_inner(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(2):
            for j in rt.range(n):
                y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, x)


@pytest.mark.parametrize("program, kept, line", [
    (unbounded_outer, "while_accumulator", "for i in rt.range(n):"),   # (it keeps the inner loop's lists)
    (unbounded_inner, "Tanh_accumulator", "for j in rt.range(n):"),
])
def test_a_loop_without_a_bound_is_a_lowering_error_naming_it_and_the_fix(program, kept, line):
    with pytest.raises(rt.errors.LoweringError, match=rf"while \(While\) cannot be compiled with jit_compile=True: "
                                                      rf"it keeps values of each iteration for a gradient through "
                                                      rf"this loop \(in '{kept}'\).*known only when the graph runs.*"
                                                      r"maximum_iterations=n") as raised:
        ag.function(program, jit_compile=True)(V, rt.constant(2))
    assert f"in {program.__name__}" in str(raised.value) and line in str(raised.value)
    assert_same(ag.function(program)(V, rt.constant(2)),
                ag.function(program, jit_compile="auto")(V, rt.constant(2)))


def test_an_inner_loop_over_the_outer_counter_is_bounded_by_the_counters_range():
    # for j in rt.range(i): i is at most 3 in the body of for i in rt.range(4), so the inner loop runs at most 3
    # times: its lists get 3 slots (a bound, not an exact count) and the gradient compiles.
    def triangular(x, w):
        with rt.GradientTape() as tape:
            tape.watch(w)
            y = x
            for i in rt.range(4):
                for j in rt.range(i * 2 // 3, i + 1):
                    y = rt.tanh(rt.linalg.matvec(w, y) + rt.cast(j, rt.float32) * 0.1)
            loss = rt.reduce_sum(y * y)
        return tape.gradient(loss, w)

    def in_jax(x, w):
        y = x
        for i in range(4):
            for j in range(i * 2 // 3, i + 1):
                y = jnp.tanh(w @ y + j * 0.1)
        return jnp.sum(y * y)
    got = both(triangular, V, W)
    np.testing.assert_allclose(got.numpy(), jax.grad(in_jax, argnums=1)(V.numpy(), W.numpy()), rtol=1e-5, atol=1e-6)
