"""Shared helpers for gradient tests: central finite differences, and our gradients in graph and eager mode.

Every check differentiates ``sum(f(*xs) * w)`` for a random cotangent ``w``, so a rule is tested with a
general output gradient, not only ones.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np

import autograph_lite as ag
import runtime as rt

EPSILON = 1e-6


def numeric_gradients(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray) -> List[np.ndarray]:
    """Central differences of ``sum(fn(*arrays) * cotangent)`` in float64, one array per input."""
    def scalar(values):
        return float(np.sum(np.asarray(fn(*[rt.constant(v) for v in values])) * cotangent))

    results = []
    for index, array in enumerate(arrays):
        grad = np.zeros_like(array)
        for position in np.ndindex(array.shape):
            values = [a.copy() for a in arrays]
            values[index][position] += EPSILON
            up = scalar(values)
            values[index][position] -= 2 * EPSILON
            down = scalar(values)
            grad[position] = (up - down) / (2 * EPSILON)
        results.append(grad)
    return results


def graph_gradients(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray,
                    dynamic: bool = False) -> List[Optional[np.ndarray]]:
    """Our gradients, built by ``rt.gradients`` while tracing (``dynamic``: every dim unknown)."""
    specs = [rt.TensorSpec([None] * a.ndim if dynamic else a.shape, rt.float64) for a in arrays]

    def traced(xs):
        y = fn(*xs)
        return rt.gradients(y, list(xs), grad_ys=rt.constant(cotangent) if not dynamic else
                            rt.reshape(rt.constant(cotangent.ravel()), rt.shape(y)))

    function = rt.function(traced, input_signature=[specs])
    return [None if g is None else np.asarray(g) for g in function([rt.constant(a) for a in arrays])]


def tape_gradients(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray) -> List[Optional[np.ndarray]]:
    """Our gradients, recorded eagerly by ``rt.GradientTape``."""
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(*xs)
    grads = tape.gradient(y, xs, output_gradients=rt.constant(cotangent))
    return [None if g is None else np.asarray(g) for g in grads]


def assert_close(ours: Sequence[Optional[np.ndarray]], expected: Sequence[np.ndarray], rtol: float = 1e-5,
                 atol: float = 1e-6) -> None:
    assert len(ours) == len(expected)
    for index, (got, want) in enumerate(zip(ours, expected)):
        got = np.zeros_like(want) if got is None else got
        assert got.shape == want.shape, f"input {index}: gradient shape {got.shape} != {want.shape}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"gradient of input {index}")


def converted_tape_gradients(fn: Callable, arrays: Sequence[np.ndarray]):
    """Gradients of the converted ``fn`` by a GradientTape inside one ``ag.function``; returns them and that function."""
    @ag.function
    def grads(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return tape.gradient(y, list(xs))
    return [np.asarray(g) for g in grads(*[rt.constant(a) for a in arrays])], grads


def converted_eager_tape_gradients(fn: Callable, arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
    """Gradients of the converted ``fn`` run eagerly: its tensor ifs and loops run as Python, the tape records the ops."""
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = ag.to_graph(fn)(*xs)
    return [np.asarray(g) for g in tape.gradient(y, xs)]
