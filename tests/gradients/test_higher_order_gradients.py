"""Gradients of gradients: the gradient rules are written with runtime ops, so they are differentiable too.

Second derivatives are checked as Hessian-vector products: the gradient of ``<grad f(x) . w, v>`` (for
random cotangents ``w`` and directions ``v``) against central finite differences of that first
gradient (itself checked against finite differences in test_gradient_rules). Built three ways: nested
eager tapes, nested tapes inside an ``ag.function``, and ``rt.gradients`` of ``rt.gradients``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from gradient_checks import assert_close, numeric_gradients
from runtime.core.registry import NotDifferentiable, registered_ops
from test_gradient_rules import BINARY, NEW_UNARY, REDUCTIONS, UNARY

F64 = rt.float64


def f64(value):
    return rt.constant(value, F64)


def total(tensors):
    result = tensors[0]
    for tensor in tensors[1:]:
        result = result + tensor
    return result


def directional_gradient(fn, xs, w, v):
    """``<grad of sum(fn(xs) * w), v>`` with an eager tape (or a tape in the graph being traced)."""
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    grads = tape.gradient(y, xs, output_gradients=w, unconnected_gradients="zero")
    return total([rt.reduce_sum(g * d) for g, d in zip(grads, v)])


def nested_tapes(fn, arrays, w, v):
    """The Hessian-vector product with a tape over a tape, eagerly."""
    xs = [f64(a) for a in arrays]
    with rt.GradientTape() as outer:
        outer.watch(xs)
        inner = directional_gradient(fn, xs, f64(w), [f64(d) for d in v])
    return [np.asarray(g) for g in outer.gradient(inner, xs, unconnected_gradients="zero")]


def traced_nested_tapes(fn, arrays, w, v):
    @ag.function
    def hvp(xs, w, v):
        with rt.GradientTape() as outer:
            outer.watch(xs)
            inner = directional_gradient(fn, xs, w, v)
        return outer.gradient(inner, xs, unconnected_gradients="zero")
    return [np.asarray(g) for g in hvp([f64(a) for a in arrays], f64(w), [f64(d) for d in v])]


def gradients_of_gradients(fn, arrays, w, v):
    @rt.function
    def hvp(xs, w, v):
        first = rt.gradients(fn(*xs), xs, grad_ys=w, unconnected_gradients="zero")
        inner = total([rt.reduce_sum(g * d) for g, d in zip(first, v)])
        return rt.gradients(inner, xs, unconnected_gradients="zero")
    return [np.asarray(g) for g in hvp([f64(a) for a in arrays], f64(w), [f64(d) for d in v])]


def expected_hvp(fn, arrays, w, v):
    first = lambda *xs: directional_gradient(fn, list(xs), f64(w), [f64(d) for d in v])  # noqa: E731
    return numeric_gradients(first, arrays, np.array(1.0))


def check_second_order(fn, arrays, rng, ways=(nested_tapes, gradients_of_gradients)):
    out = np.asarray(fn(*[f64(a) for a in arrays]))
    w = rng.standard_normal(out.shape)
    v = [rng.standard_normal(a.shape) for a in arrays]
    expected = expected_hvp(fn, arrays, w, v)
    for way in ways:
        assert_close(way(fn, arrays, w, v), expected, rtol=1e-4, atol=1e-5)


# --- the ops named in issue 14, each way -------------------------------------------------------------
NAMED = {  # name: (function, shapes, value range)
    "tanh": (rt.tanh, [(3, 2)], (-2, 2)),
    "sigmoid": (rt.math.sigmoid, [(4,)], (-2, 2)),
    "exp": (rt.exp, [(2, 3)], (-2, 2)),
    "log": (rt.log, [(5,)], (0.3, 2)),
    "matmul": (lambda a, b: rt.matmul(a, b) * rt.matmul(a, b), [(2, 3), (3, 4)], (-2, 2)),
    "softmax": (rt.nn.softmax, [(3, 4)], (-2, 2)),
    "mul": (lambda a, b: a * b * a, [(3,), (2, 3)], (-2, 2)),
    "div": (lambda a, b: a / b, [(3,), (3,)], (0.5, 2)),
    "pow": (rt.pow, [(4,), (4,)], (0.5, 2)),
    "relu": (lambda x: rt.nn.relu(x) * x, [(6,)], (-2, 2)),
    "where": (lambda x: rt.where(x > 0.0, x * x * x, rt.sin(x)), [(6,)], (-2, 2)),
    "mlp": (lambda x, w: rt.reduce_mean(rt.nn.log_softmax(rt.matmul(rt.tanh(rt.matmul(x, w)), w))),
            [(4, 3), (3, 3)], (-1, 1)),
}


@pytest.mark.parametrize("name", sorted(NAMED))
@pytest.mark.parametrize("way", [nested_tapes, traced_nested_tapes, gradients_of_gradients])
def test_second_derivatives_of_the_named_ops(name, way):
    fn, shape_list, (low, high) = NAMED[name]
    rng = np.random.default_rng(sorted(NAMED).index(name))
    arrays = [rng.uniform(low, high, s) for s in shape_list]
    if name in ("relu", "where"):
        arrays = [np.where(np.abs(a) < 0.1, 0.5, a) for a in arrays]  # away from the kink
    check_second_order(fn, arrays, rng, ways=(way,))


def test_known_second_derivatives_exactly():
    x = f64([0.3, -1.2, 2.0])
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.tanh(x)
        dy = inner.gradient(y, x)
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(dy.numpy(), 1 - t * t, rtol=1e-14)
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), -2 * t * (1 - t * t), rtol=1e-12)

    @ag.function
    def third(x):  # d3/dx3 of x**4 = 24 x, three tapes deep inside one graph
        with rt.GradientTape() as t3:
            t3.watch(x)
            with rt.GradientTape() as t2:
                t2.watch(x)
                with rt.GradientTape() as t1:
                    t1.watch(x)
                    y = x * x * x * x
                d1 = t1.gradient(y, x)
            d2 = t2.gradient(d1, x)
        return d1, d2, t3.gradient(d2, x)

    d1, d2, d3 = third(f64(1.5))
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (4 * 1.5 ** 3, 12 * 1.5 ** 2, 24 * 1.5)
    assert third.experimental_get_tracing_count() == 1


# --- every differentiable op's rule, differentiated again ----------------------------------------------
def every_unary():
    table = {name: (fn, value_range) for name, (fn, value_range) in UNARY.items()}
    table.update(NEW_UNARY)
    return table


@pytest.mark.parametrize("op_type", sorted(every_unary()))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_unary_rules_are_differentiable(op_type, seed):
    fn, (low, high) = every_unary()[op_type]
    rng = np.random.default_rng(seed)
    shape = (4, 2) if op_type in NEW_UNARY else (3, 2)
    check_second_order(fn, [rng.uniform(low, high, shape)], rng)


@pytest.mark.parametrize("op_type", sorted(BINARY))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), broadcast=st.booleans())
def test_binary_rules_are_differentiable(op_type, seed, broadcast):
    fn, x_range, y_range = BINARY[op_type]
    rng = np.random.default_rng(seed)
    x = rng.uniform(*x_range, (2, 3))
    y = rng.uniform(*y_range, (3,) if broadcast else (2, 3))
    # f(x, y) * x makes the rule's own result depend on x, so even linear ops have a nonzero Hessian
    check_second_order(lambda a, b: fn(a, b) * a, [x, y], rng)


@pytest.mark.parametrize("op_type", sorted(REDUCTIONS))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), keepdims=st.booleans())
def test_reduction_rules_are_differentiable(op_type, seed, keepdims):
    rng = np.random.default_rng(seed)
    reduce = REDUCTIONS[op_type]
    check_second_order(lambda x: reduce(x * x, 1, keepdims=keepdims) * reduce(x, 1, keepdims=keepdims),
                       [rng.uniform(0.5, 2.0, (3, 4))], rng)


STRUCTURAL = {  # array ops whose rules are themselves array ops (scatter, slice-grad, segment sums...)
    "StridedSlice": lambda x: x[1:, ::-1] * x[:-1, :],
    "GatherV2": lambda x: rt.gather(x, [2, 0, 2]) * rt.gather(x, [1, 1, 0]),
    "GatherNd": lambda x: rt.gather_nd(x, [[1], [2]]) * x[:2],
    "ConcatV2/Pack": lambda x: rt.concat([x, x * x], 0) * rt.stack([x, x], 0)[0, 0],
    "Reshape/Transpose/Tile": lambda x: rt.tile(rt.transpose(rt.reshape(x * x, [2, 3])), [1, 2]) * x[0, 0],
    "Cumsum/Cumprod": lambda x: rt.math.cumsum(x * x, 0) * rt.math.cumprod(x, 1),
    "Sort/TopKV2": lambda x: rt.math.sort(x * x, 1) * rt.math.top_k(x, 2)[0][:, :1],
    "UnsortedSegmentSum": lambda x: rt.unsorted_segment_sum(x * x, [0, 1, 0], 2) * x[0],
    "TensorScatterUpdate": lambda x: rt.tensor_scatter_nd_update(x, [[0]], x[1:2] * x[2:3]) * x,
    "SelectV2/Maximum": lambda x: rt.where(x > 1.0, x * x, rt.maximum(x, 1.2) * x),
    "Mean/Max/Prod": lambda x: rt.reduce_mean(x * x, 0) * rt.reduce_max(x, 0) * rt.reduce_prod(x, 0),
}


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_array_op_rules_are_differentiable(name):
    rng = np.random.default_rng(sorted(STRUCTURAL).index(name))
    x = rng.uniform(0.5, 2.0, (3, 2))
    x = np.where(np.abs(x - 1.0) < 0.05, 1.5, x)
    x = np.where(np.abs(x - 1.2) < 0.05, 0.7, x)  # away from the kinks of where/maximum
    check_second_order(STRUCTURAL[name], [x], rng)


def test_the_higher_order_checks_cover_the_issues_list():
    checked = set(every_unary()) | set(BINARY) | set(REDUCTIONS)
    assert {"Tanh", "Sigmoid", "Exp", "Log", "Softmax", "Mul", "RealDiv", "Pow", "Relu"} <= checked
    differentiable = {name for name, op in registered_ops().items()
                      if op.gradient is not None and not isinstance(op.gradient, NotDifferentiable)}
    assert checked - {"MirrorPad_symmetric", "Repeat_flat"} <= differentiable


# --- persistent tapes: Jacobians row by row ---------------------------------------------------------
def test_a_persistent_tape_gives_a_jacobian_row_by_row_eagerly_and_traced():
    def jacobian(x):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = rt.stack([rt.reduce_sum(x * x), rt.reduce_prod(x), rt.sin(x[0]) * x[1]])
            rows = [y[i] for i in range(3)]  # sliced while recording: a slice taken later is not on the tape
        return rt.stack([tape.gradient(row, x) for row in rows])

    x = np.array([0.5, -2.0, 1.5])
    expected = np.array([2 * x,
                         [x[1] * x[2], x[0] * x[2], x[0] * x[1]],
                         [np.cos(x[0]) * x[1], np.sin(x[0]), 0.0]])
    np.testing.assert_allclose(jacobian(f64(x)).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(ag.function(jacobian)(f64(x)).numpy(), expected, rtol=1e-12)


def test_a_hessian_from_a_persistent_inner_tape():
    @ag.function
    def hessian(x):
        with rt.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.exp(x[0] * x[1]) + rt.reduce_sum(x * x * x)
            g = inner.gradient(y, x)
            rows = [g[i] for i in range(2)]
        return rt.stack([outer.gradient(row, x) for row in rows])

    a, b = 0.3, -0.7
    e = np.exp(a * b)
    expected = [[b * b * e + 6 * a, e + a * b * e], [e + a * b * e, a * a * e + 6 * b]]
    np.testing.assert_allclose(hessian(f64([a, b])).numpy(), expected, rtol=1e-12)


# --- second derivatives through a tensor while ------------------------------------------------------
def nested_tapes_over_a_loop(body):
    @ag.function
    def first_and_second(x, n):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = x * 0.0 if body == "add" else x
                i = rt.constant(0)
                while i < n:
                    y = y + rt.sin(x) if body == "add" else rt.sin(y)
                    i += 1
            first = inner.gradient(y, x)
        return first, outer.gradient(first, x)
    return first_and_second


def test_a_second_derivative_through_a_while_that_reads_only_loop_invariants():
    first, second = nested_tapes_over_a_loop("add")(f64(0.5), rt.constant(3))  # y = 3 sin x
    np.testing.assert_allclose([first.numpy(), second.numpy()], [3 * np.cos(0.5), -3 * np.sin(0.5)], rtol=1e-14)


def test_a_second_derivative_through_a_whiles_accumulators():
    # d/dx of the gradient flows through the values the forward loop accumulated in tensor lists (their rules:
    # list_gradients.py); y = sin(sin(sin(x)))
    x = 0.5
    a = np.sin(x)
    b = np.sin(a)
    first_expected = np.cos(b) * np.cos(a) * np.cos(x)
    second_expected = (-np.sin(b) * np.cos(a) ** 2 * np.cos(x) ** 2 - np.cos(b) * np.sin(a) * np.cos(x) ** 2
                       - np.cos(b) * np.cos(a) * np.sin(x))
    first, second = nested_tapes_over_a_loop("chain")(f64(x), rt.constant(3))
    np.testing.assert_allclose(first.numpy(), first_expected, rtol=1e-14)
    np.testing.assert_allclose(second.numpy(), second_expected, rtol=1e-12)
