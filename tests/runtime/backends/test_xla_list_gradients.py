"""jit_compile=True through the gradients of TensorArray.concat (TensorListSplitLike), gather (TensorListScatterAdd),
split (TensorListResize, TensorListInsertItem) and a list's pop(i) (TensorListInsertItem): the numpy executor's
gradients, and jax.grad's of the same program written in JAX."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_xla_backend import assert_same

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
X = rt.constant(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32))


def both_and_jax(program, in_jax, *args):
    expected = ag.function(program)(*args)
    got = ag.function(program, jit_compile=True)(*args)
    assert_same(expected, got)
    np.testing.assert_allclose(got.numpy(), jax.grad(in_jax)(*[a.numpy() for a in args]), rtol=1e-5, atol=1e-6)


def test_a_gradient_through_concat_and_gather_of_an_array_written_in_a_counted_loop():
    def concat(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(rt.float32, size=3)
            for i in rt.range(3):
                ta = ta.write(i, x * rt.cast(i + 1, rt.float32))
            loss = rt.reduce_sum(rt.sin(ta.concat()) ** 2.0)
        return tape.gradient(loss, x)

    def gather(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(rt.float32, size=3)
            for i in rt.range(3):
                ta = ta.write(i, x * rt.cast(i + 1, rt.float32))
            loss = rt.reduce_sum(rt.sin(ta.gather([2, 0, 2])) ** 2.0)   # a repeated index: its rows add up
        return tape.gradient(loss, x)
    both_and_jax(concat, lambda x: jnp.sum(jnp.sin(jnp.concatenate([x, 2 * x, 3 * x])) ** 2), X)
    both_and_jax(gather, lambda x: jnp.sum(jnp.sin(jnp.stack([3 * x, x, 3 * x])) ** 2), X)


def test_a_gradient_through_split_pieces_of_one_length():
    lengths = [1, 1]

    def split(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(rt.float32, size=2, infer_shape=False).split(x * 2.0, lengths)
            loss = rt.reduce_sum(ta.read(1) ** 3.0) + rt.reduce_sum(rt.sin(ta.concat()))
        return tape.gradient(loss, x)

    def in_jax(x):
        y = x * 2.0
        return jnp.sum(y[lengths[0]:] ** 3.0) + jnp.sum(jnp.sin(y))
    both_and_jax(split, in_jax, X)


def test_a_gradient_through_a_lists_pop_at_an_index():
    def pop_first(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            values = [x[0], x[1] * 2.0, x[0] * x[1]]
            for i in rt.range(2):
                values.append(x[1] * rt.cast(i + 1, rt.float32))
            first = values.pop(0)
            loss = rt.reduce_sum(rt.exp(first)) + rt.reduce_sum(rt.stack(values) ** 2.0)
        return tape.gradient(loss, x)

    def in_jax(x):
        rest = jnp.stack([x[1] * 2.0, x[0] * x[1], x[1], x[1] * 2.0])
        return jnp.sum(jnp.exp(x[0])) + jnp.sum(rest ** 2.0)
    both_and_jax(pop_first, in_jax, X)


def test_a_gradient_through_gather_of_an_array_a_bounded_loop_grows():
    def program(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
            for i in rt.range(n):
                ag.set_loop_options(maximum_iterations=4)
                ta = ta.write(i, rt.sin(x * rt.cast(i + 1, rt.float32)))
            loss = rt.reduce_sum(ta.gather([0, ta.size() - 1]) ** 2.0)
        return tape.gradient(loss, x)
    for n in (1, 3, 9):
        assert_same(ag.function(program)(X, rt.constant(n)), ag.function(program, jit_compile=True)(X, rt.constant(n)))
