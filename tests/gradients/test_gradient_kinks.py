"""Gradients *at* the kinks: every differentiable op evaluated where its forward form has a corner, a tie,
a select boundary or a zero, compared with TensorFlow's convention there (docs/GRADIENTS.md has the table).

Finite differences cannot check these points (the one-sided slopes differ), so each kinked op has its
convention written out in numpy below, from TensorFlow's gradient rules; inputs are drawn from the kink
points mixed with ordinary values, cotangents include zeros, and both the eager tape and the traced
``rt.gradients`` must give the convention's values (nan where TensorFlow gives nan). Where TensorFlow is
not exact at a kink and we are, the convention is the exact value and ``DIFFERS_FROM_TENSORFLOW`` says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, Tuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from gradient_checks import graph_gradients, tape_gradients
from runtime.core.registry import NotDifferentiable, registered_ops
from test_gradient_rules import CHECKED_ELSEWHERE

SETTINGS = settings(max_examples=10, deadline=None)
ALPHA = 0.2  # leaky_relu's default slope


@dataclass(frozen=True)
class Kink:
    """``fn(*tensors)``; ``points``: values of each input drawn with the kinks; ``convention(*arrays, g)``:
    TensorFlow's gradients there (one array per input)."""

    fn: Callable
    points: Tuple[Sequence[float], ...]
    convention: Callable


def _sorted_order(x, descending):
    """The positions sort/top_k read, ties in index order (TF's top_k lists the lower index first)."""
    return np.argsort(-x if descending else x, axis=-1, kind="stable")


def _scatter_rows(g, order, like):
    """``g[..., j]`` added at position ``order[..., j]`` of the last axis of zeros shaped like ``like``."""
    out = np.zeros_like(like)
    for row in np.ndindex(order.shape[:-1]):
        out[row][order[row]] += g[row]
    return out


def _extremum(x, g, pick):
    hits = (x == pick(x, axis=-1, keepdims=True)).astype(x.dtype)
    return [hits / hits.sum(axis=-1, keepdims=True) * g[..., None]]


def _cumprod_exact(x, g):
    """d/dx_i of sum_j g_j prod_{k<=j} x_k, by the product of the others (no division)."""
    grad = np.zeros_like(x)
    for i in range(x.shape[-1]):
        for j in range(i, x.shape[-1]):
            others = np.delete(x[..., :j + 1], i, axis=-1)
            grad[..., i] += g[..., j] * np.prod(others, axis=-1)
    return grad


def _prod_exact(x, g):
    return [np.stack([np.prod(np.delete(x, i, axis=-1), axis=-1) for i in range(x.shape[-1])], -1) * g[..., None]]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _no_nan(g, value):
    with np.errstate(all="ignore"):
        return np.where(g == 0, 0.0, value)


ORDINARY = (-2.5, -0.75, 1.25, 3.0)
KINKS = {
    "Abs": Kink(rt.abs, ((0.0,) + ORDINARY,), lambda x, g: [g * np.sign(x)]),
    "Sign": Kink(rt.sign, ((0.0,) + ORDINARY,), lambda x, g: [np.zeros_like(x)]),
    "Relu": Kink(rt.nn.relu, ((0.0,) + ORDINARY,), lambda x, g: [g * (x > 0)]),
    "Relu6": Kink(rt.nn.relu6, ((0.0, 6.0, 7.0) + ORDINARY,), lambda x, g: [g * ((x > 0) & (x < 6))]),
    "LeakyRelu": Kink(rt.nn.leaky_relu, ((0.0,) + ORDINARY,), lambda x, g: [np.where(x > 0, g, ALPHA * g)]),
    "Elu": Kink(rt.nn.elu, ((0.0,) + ORDINARY,), lambda x, g: [np.where(x > 0, g, g * np.exp(x))]),
    # ties go to x in both (TF: x >= y for Maximum, x <= y for Minimum)
    "Maximum": Kink(rt.maximum, ((0.0, 1.0, -1.0), (0.0, 1.0, -1.0)),
                    lambda x, y, g: [g * (x >= y), g * (x < y)]),
    "Minimum": Kink(rt.minimum, ((0.0, 1.0, -1.0), (0.0, 1.0, -1.0)),
                    lambda x, y, g: [g * (x <= y), g * (x > y)]),
    # at a bound the value is t's: t gets the gradient, the bound none (TF: strict < and >)
    "ClipByValue": Kink(lambda t: rt.clip_by_value(t, -1.0, 1.0), ((-1.0, 1.0, 0.0, -2.0, 2.0),),
                        lambda t, g: [g * ((t >= -1) & (t <= 1))]),
    "SelectV2": Kink(lambda a, b: rt.where(a >= b, a, b), ((0.0, 1.0), (0.0, 1.0)),
                     lambda a, b, g: [g * (a >= b), g * (a < b)]),
    # ties share the gradient equally (TF's _MinOrMaxGrad)
    "Max": Kink(lambda x: rt.reduce_max(x, -1), ((1.0, 2.0),), lambda x, g: _extremum(x, g, np.max)),
    "Min": Kink(lambda x: rt.reduce_min(x, -1), ((1.0, 2.0),), lambda x, g: _extremum(x, g, np.min)),
    # ties: the gradient goes where top_k put each value, the lower index first
    "Sort": Kink(lambda x: rt.sort(x, -1, "DESCENDING"), ((1.0, 2.0),),
                 lambda x, g: [_scatter_rows(g, _sorted_order(x, True), x)]),
    "TopKV2": Kink(lambda x: rt.math.top_k(x, 1)[0], ((1.0, 2.0),),
                   lambda x, g: [_scatter_rows(g, _sorted_order(x, True)[..., :1], x)]),
    # TF's sqrt, rsqrt and reciprocal gradients are 0 where the output gradient is 0 (even at x = 0)
    "Sqrt": Kink(rt.sqrt, ((0.0, 4.0, -1.0),), lambda x, g: [_no_nan(g, g / (2 * np.sqrt(x)))]),
    "Rsqrt": Kink(rt.math.rsqrt, ((0.0, 4.0),), lambda x, g: [_no_nan(g, -0.5 * g * x ** -1.5)]),
    "Reciprocal": Kink(rt.math.reciprocal, ((0.0, 2.0),), lambda x, g: [_no_nan(g, -g / x ** 2)]),
    # log has no such rule in TF: 0 * (1 / 0) is nan
    "Log": Kink(rt.log, ((0.0, 2.0),), lambda x, g: [g / x]),
    # d/dy x**y is 0 for x <= 0 (TF masks log(x)); d/dx keeps 0 * inf = nan at x = 0, y < 1
    "Pow": Kink(rt.pow, ((0.0, 2.0), (0.0, 2.0, 0.5)),
                lambda x, y, g: [g * y * x ** (y - 1), g * x ** y * np.log(np.where(x > 0, x, 1.0))]),
    # at the jumps of floor(x / y): the one-sided slopes of x - floor(x / y) y, as TF
    "FloorMod": Kink(rt.mod, ((0.0, 2.0, 3.0), (1.0, 2.0)), lambda x, y, g: [g, -g * np.floor(x / y)]),
    # the product of the others, exact with zeros (TF divides by the zero here only for cumprod)
    "Prod": Kink(lambda x: rt.reduce_prod(x, -1), ((0.0, 2.0, 3.0),), lambda x, g: _prod_exact(x, g)),
    "Cumprod": Kink(lambda x: rt.math.cumprod(x, -1), ((0.0, 2.0, 3.0),), lambda x, g: [_cumprod_exact(x, g)]),
    # one rule for the whole stable form: sigmoid(x) - z, also at x = 0
    "SigmoidCrossEntropyWithLogits": Kink(
        lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), ((0.0, 0.3, 1.0), (0.0, 0.0, 2.0)),
        lambda z, x, g: [-g * x, g * (_sigmoid(x) - z)]),
}
# Where the convention above is exact and TensorFlow's value is not.
DIFFERS_FROM_TENSORFLOW = {
    "Cumprod": "TF divides the running sum by x: at x = [2, 0, 3, 4] it gives [1, 0, 0, 0] where the answer is "
               "[1, 32, 0, 0] (JAX is exact too)",
}

# Every other op with a gradient rule: no point where its forward form has a kink or a select.
SMOOTH = {
    **{op: "differentiable everywhere on its domain" for op in (
        "Neg", "Square", "Exp", "Tanh", "Sigmoid", "Softplus", "LogSigmoid", "Sin", "Cos", "Log1p", "Expm1", "Erf", "Erfc",
        "Softmax", "LogSoftmax", "AddV2", "Sub", "Mul", "RealDiv", "MatMul", "Einsum", "MatrixDeterminant",
        "MatrixInverse", "Cast", "Identity")},
    **{op: "linear: it moves, copies or sums values" for op in (
        "Sum", "Mean", "Cumsum", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Tile", "BroadcastTo",
        "SumToShape", "StridedSlice", "StridedSliceGrad", "GatherV2", "GatherNd", "UnsortedSegmentSum", "ConcatV2",
        "Pack", "Unpack", "SplitV", "Fill", "TensorScatterAdd", "TensorScatterUpdate", "TensorStridedSliceUpdate",
        "PadV2", "MirrorPad", "ReverseV2", "Repeat", "MatrixDiagPart", "EnsureDefined")},
}


def _draw_arrays(data, kink: Kink):
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2), label="shape"))
    arrays = [np.array(data.draw(st.lists(st.sampled_from(list(points)), min_size=int(np.prod(shape)),
                                          max_size=int(np.prod(shape))))).reshape(shape).astype(np.float64)
              for points in kink.points]
    return arrays


@pytest.mark.parametrize("op_type", sorted(KINKS))
@SETTINGS
@given(data=st.data())
def test_gradient_at_the_kinks_follows_the_convention(op_type, data):
    kink = KINKS[op_type]
    arrays = _draw_arrays(data, kink)
    with np.errstate(all="ignore"):
        out_shape = np.asarray(kink.fn(*[rt.constant(a) for a in arrays])).shape
    cotangent = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, -2.0, 0.5]), min_size=int(np.prod(out_shape)),
                                            max_size=int(np.prod(out_shape))))).reshape(out_shape)
    with np.errstate(all="ignore"):
        expected = kink.convention(*arrays, cotangent)
        for ours in (tape_gradients(kink.fn, arrays, cotangent), graph_gradients(kink.fn, arrays, cotangent)):
            for index, (got, want) in enumerate(zip(ours, expected)):
                want = np.broadcast_to(want, arrays[index].shape)
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, equal_nan=True,
                                           err_msg=f"{op_type}: input {index} at {arrays}, cotangent {cotangent}")


def test_every_differentiable_op_is_checked_at_its_kinks_or_has_none():
    # the runtime's own ops (a test module may register ops of its own, e.g. the testing toolkit's)
    rules = {name for name, op in registered_ops().items() if op.infer.__module__.startswith("runtime.")
             and op.gradient is not None and not isinstance(op.gradient, NotDifferentiable)}
    unclassified = rules - set(KINKS) - set(SMOOTH) - set(CHECKED_ELSEWHERE)
    assert sorted(unclassified) == [], "add each to KINKS (with TF's convention at its kinks) or SMOOTH (why none)"
    assert not set(KINKS) & set(SMOOTH)
    assert set(DIFFERS_FROM_TENSORFLOW) <= set(KINKS)


# --- the issue's examples, with TensorFlow 2.21's values (float64) ------------------------------------
def _tape_gradient(fn, x, *others):
    x = rt.constant(np.asarray(x, np.float64))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x, *others)
    return np.asarray(tape.gradient(y, x))


def test_sigmoid_cross_entropy_at_a_zero_logit_is_sigmoid_minus_label():
    labels = rt.constant([1.0, 0.3], rt.float64)
    grad = _tape_gradient(lambda x: rt.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x), [0.0, 0.0])
    np.testing.assert_allclose(grad, [-0.5, 0.2], rtol=1e-15)  # TF: [-0.5, 0.2]; we gave [-1, -0.3]


def test_logistic_regression_from_zero_weights_moves_like_tensorflow():
    # one step of gradient descent from w = 0 on a batch: the step is X^T (sigmoid(0) - z) / n
    features = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.5]])
    labels = np.array([1.0, 0.0, 1.0])

    @rt.function
    def step(w):
        with rt.GradientTape() as tape:
            tape.watch(w)
            logits = rt.reshape(rt.matmul(rt.constant(features), rt.reshape(w, [2, 1])), [3])
            loss = rt.reduce_mean(rt.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        return tape.gradient(loss, w)
    grad = np.asarray(step(rt.constant([0.0, 0.0], rt.float64)))
    np.testing.assert_allclose(grad, features.T @ (0.5 - labels) / 3, rtol=1e-14)


def test_cumprod_with_a_zero_is_exact():
    np.testing.assert_array_equal(_tape_gradient(rt.math.cumprod, [2.0, 0.0, 3.0, 4.0]), [1.0, 32.0, 0.0, 0.0])
    x = [2.0, 0.0, 3.0, 0.0]
    np.testing.assert_array_equal(_tape_gradient(lambda t: rt.math.cumprod(t, exclusive=True, reverse=True), x),
                                  _exclusive_reverse_reference(x))


def _exclusive_reverse_reference(x):
    x = np.asarray(x)
    n = len(x)
    grad = np.zeros(n)
    for j in range(n):  # y_j = prod_{k > j} x_k
        for i in range(j + 1, n):
            grad[i] += np.prod(np.delete(x[j + 1:], i - j - 1))
    return grad


def test_safe_sqrt_where_pattern_gives_zero_below_zero_like_tensorflow():
    grad = _tape_gradient(lambda x: rt.where(x > 0, rt.sqrt(x), rt.zeros_like(x)), [-1.0, 0.0, 4.0])
    np.testing.assert_array_equal(grad, [0.0, 0.0, 0.25])  # TF: [0, 0, 0.25]; JAX: [nan, nan, 0.25]


def test_safe_sqrt_where_pattern_in_a_traced_function():
    @rt.function
    def f(x):
        return rt.gradients(rt.reduce_sum(rt.where(x > 0, rt.sqrt(x), 0.0)), x)[0]
    np.testing.assert_array_equal(np.asarray(f(rt.constant([-1.0, 0.0, 4.0]))), [0.0, 0.0, 0.25])


@pytest.mark.parametrize("name, fn, x, expected", [
    # the max is a constant to the gradient (TF's stop_gradient): exactly softmax, also at ties
    ("logsumexp at a tie", lambda x: rt.reduce_logsumexp(x), [1.0, 1.0], [0.5, 0.5]),
    ("logsumexp with -inf", lambda x: rt.reduce_logsumexp(x), [0.0, -np.inf], [1.0, 0.0]),
    ("softplus far right", lambda x: rt.math.softplus(x), [800.0], [1.0]),
    ("softplus far left", lambda x: rt.math.softplus(x), [-800.0], [0.0]),
    ("log_sigmoid in both tails", lambda x: rt.math.log_sigmoid(x), [-800.0, 0.0, 800.0], [1.0, 0.5, 0.0]),
    # x / sqrt(max(sum x^2, eps)) at 0: the eps side of the max, 1/sqrt(eps) on the diagonal (TF)
    ("l2_normalize at 0", lambda x: rt.reduce_sum(rt.nn.l2_normalize(x)), [0.0, 0.0], [1e6, 1e6]),
    # sqrt(sum x^2) at 0: 0.5/0 * 2*0 is nan in TF and JAX alike
    ("norm at 0", lambda x: rt.norm(x), [0.0, 0.0], [np.nan, np.nan]),
    ("abs at 0", rt.abs, [0.0], [0.0]),
    ("relu at 0", rt.nn.relu, [0.0], [0.0]),
    ("huber-like where at its joint", lambda x: rt.where(rt.abs(x) <= 1.0, 0.5 * x * x, rt.abs(x) - 0.5),
     [1.0, -1.0, 0.0], [1.0, -1.0, 0.0]),
])
def test_composite_forms_at_their_kinks(name, fn, x, expected):
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(_tape_gradient(fn, x), expected, rtol=1e-12, equal_nan=True, err_msg=name)


def test_safe_sqrt_where_pattern_has_a_finite_second_derivative():
    # TF's second derivative here is nan (its SqrtGrad gradient divides by the nan sqrt of x < 0); the function
    # is flat at x <= 0, so 0 is exact, and the random programs' Hessian check needs it.
    def second(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.reduce_sum(rt.where(x > 0, rt.sqrt(x), rt.zeros_like(x)))
            slope = inner.gradient(y, x)
        return outer.gradient(slope, x)
    np.testing.assert_allclose(np.asarray(second(rt.constant([-1.0, 0.0, 4.0], rt.float64))),
                               [0.0, 0.0, -0.25 / 8], rtol=1e-15)
