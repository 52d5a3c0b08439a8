"""Regressions of jit_compile=True found by running code we did not write on both executors (every op's samples
on edge inputs: test_xla_every_op.py): each failed before its fix."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

pytest.importorskip("jax")


def a_range_of_run_time_length(n):
    return rt.range(n)


def test_a_range_of_run_time_length_returned_is_a_lowering_error_not_a_crash_inside_jax():
    # It was a TypeError from jax.numpy.asarray (the range is never built as an array: docs/XLA.md)
    with pytest.raises(rt.errors.LoweringError, match=r"Range \(Range\) cannot be compiled with jit_compile=True: a "
                                                      r"range whose length is known only when the graph runs is "
                                                      r"returned") as raised:
        ag.function(a_range_of_run_time_length, jit_compile=True)(rt.constant(5))
    assert "in a_range_of_run_time_length" in str(raised.value)   # the user's line
    auto = ag.function(a_range_of_run_time_length, jit_compile="auto")
    assert auto(rt.constant(5)).numpy().tolist() == [0, 1, 2, 3, 4]


def inverse(x):
    return rt.linalg.inv(x)


def test_the_inverse_of_an_invertible_matrix_whose_determinant_underflows_compiles():
    # The singular-matrix check compared the determinant with 0: 0.1 ** 40 underflows in float32, so the compiled
    # call failed its check, though numpy inverts the matrix
    x = rt.constant(np.eye(40, dtype=np.float32) * 0.1)
    got = ag.function(inverse, jit_compile=True)(x).numpy()
    np.testing.assert_allclose(got, np.eye(40, dtype=np.float32) * 10, rtol=1e-6)
    singular = rt.constant([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(rt.errors.InvalidArgumentError, match="Input is not invertible"):
        ag.function(inverse, jit_compile=True)(singular)
