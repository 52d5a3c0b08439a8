"""Neural-network functions (``rt.nn``): activations, softmax, cross-entropies, l2_normalize.

``relu``, ``relu6``, ``leaky_relu``, ``elu``, ``softmax`` and ``log_softmax`` are registered ops, as in
TensorFlow. ``gelu``, the softmax cross-entropy and ``l2_normalize`` are built from registered ops in
forms that stay finite where the textbook formula overflows or cancels: ``gelu`` uses ``erfc`` (no
``1 + erf(x)`` cancelling to 0 for x < -5), the softmax cross-entropy uses ``log_softmax``. The sigmoid
cross-entropy is one op (``SigmoidCrossEntropyWithLogits``) computing ``max(x, 0) - x z + log1p(e^-|x|)``
with its own gradient ``sigmoid(x) - z``: built from ``relu`` and ``abs``, both kinks would take slope 0 at
x = 0 and the gradient there would be ``-z`` instead of ``0.5 - z`` (docs/GRADIENTS.md).

>>> softmax([1000.0, 1000.0])
Tensor([0.5 0.5], shape=(2,), dtype=float32)
>>> relu6([-1, 3, 9])
Tensor([0 3 6], shape=(3,), dtype=int32)
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from runtime.core import shapes
from runtime.core.attrs import FLOAT, INT
from runtime.core.registry import apply_op, register_gradient, register_op
from runtime.core.tensor import Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.math_ops import add, maximum, multiply
from runtime.ops.reduction_ops import reduce_sum
from runtime.ops.special_math_ops import erfc
from runtime.ops.unary_ops import negative, rsqrt, sigmoid, square
from runtime.ops.validated import apply_validated

_FIXES = {"f": "rt.cast(features, rt.float32)", "fiu": "rt.cast(features, rt.int32)"}
_KINDS = {"f": "floating-point", "fiu": "numeric (not bool)"}


def _activation_infer(kinds: str):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        if dtype.kind not in kinds:
            raise TypeError(f"features must be a {_KINDS[kinds]} tensor, got {dtype.name}; convert it with "
                            f"{_FIXES[kinds]}")
        if "axis" in attrs and shape is not None:
            if len(shape) == 0:
                raise ValueError("logits must have at least one dimension, got a scalar")
            shapes.normalize_axis(attrs["axis"], len(shape), "softmax")
        return [specs[0]]
    return infer


def _relu_into(x, *, out):
    return np.maximum(x, x.dtype.type(0), out=out)


def _relu_kernel(x):
    return _relu_into(x, out=np.empty_like(x))


def _relu6_into(x, *, out):
    return np.minimum(np.maximum(x, x.dtype.type(0), out=out), x.dtype.type(6), out=out)


def _relu6_kernel(x):
    return _relu6_into(x, out=np.empty_like(x))


def _leaky_relu_kernel(x, *, alpha):
    return np.where(x > 0, x, x * x.dtype.type(alpha))


def _elu_kernel(x):
    with np.errstate(all="ignore"):
        return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _shifted(x, axis):
    """``x - max(x)`` along ``axis``: exp of it never overflows (a row of -inf stays nan, as in TF)."""
    return x - np.max(x, axis=axis, keepdims=True)


def _softmax_kernel(x, *, axis):
    with np.errstate(all="ignore"):
        e = np.exp(_shifted(x, axis))
        return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax_kernel(x, *, axis):
    with np.errstate(all="ignore"):
        shifted = _shifted(x, axis)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


RELU = register_op("Relu", ("features",), _activation_infer("fiu"), _relu_kernel, doc="max(features, 0).",
                   into_kernel=_relu_into)
RELU6 = register_op("Relu6", ("features",), _activation_infer("fiu"), _relu6_kernel,
                    doc="min(max(features, 0), 6).", into_kernel=_relu6_into)
LEAKY_RELU = register_op("LeakyRelu", ("features",), _activation_infer("f"), _leaky_relu_kernel,
                         doc="features where > 0, else attr 'alpha' * features.", attrs={"alpha": FLOAT})
ELU = register_op("Elu", ("features",), _activation_infer("f"), _elu_kernel,
                  doc="features where > 0, else exp(features) - 1.")
SOFTMAX = register_op("Softmax", ("logits",), _activation_infer("f"), _softmax_kernel,
                      doc="exp(logits) / sum(exp(logits)) along attr 'axis', computed after subtracting the max.",
                      attrs={"axis": INT})
LOG_SOFTMAX = register_op("LogSoftmax", ("logits",), _activation_infer("f"), _log_softmax_kernel,
                          doc="logits - log(sum(exp(logits))) along attr 'axis', computed after subtracting the max.",
                          attrs={"axis": INT})


def relu(features: Any, name: Optional[str] = None) -> Tensor:
    """``max(features, 0)`` elementwise.

    >>> relu([-2.0, 0.5])
    Tensor([0.  0.5], shape=(2,), dtype=float32)
    """
    return apply_validated(RELU, (convert_to_tensor(features),), name=name)


def relu6(features: Any, name: Optional[str] = None) -> Tensor:
    """``min(max(features, 0), 6)`` elementwise.

    >>> relu6([-1.0, 7.0])
    Tensor([0. 6.], shape=(2,), dtype=float32)
    """
    return apply_validated(RELU6, (convert_to_tensor(features),), name=name)


def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> Tensor:
    """``features`` where positive, else ``alpha * features`` (TensorFlow's default alpha is 0.2).

    >>> leaky_relu([-1.0, 2.0])
    Tensor([-0.2  2. ], shape=(2,), dtype=float32)
    """
    return apply_validated(LEAKY_RELU, (convert_to_tensor(features),), {"alpha": float(alpha)}, name=name)


def elu(features: Any, name: Optional[str] = None) -> Tensor:
    """``features`` where positive, else ``exp(features) - 1``.

    >>> elu([-1.0, 2.0])
    Tensor([-0.63212055  2.        ], shape=(2,), dtype=float32)
    """
    return apply_validated(ELU, (convert_to_tensor(features),), name=name)


def softmax(logits: Any, axis: int = -1, name: Optional[str] = None) -> Tensor:
    """``exp(logits) / reduce_sum(exp(logits), axis)``, exact for large logits (the max is subtracted).

    >>> softmax([[1.0, 1.0, 1.0, 1.0]])
    Tensor([[0.25 0.25 0.25 0.25]], shape=(1, 4), dtype=float32)
    """
    return apply_validated(SOFTMAX, (convert_to_tensor(logits),), {"axis": shapes.axis_argument(axis, "Softmax")},
                           name=name)


def log_softmax(logits: Any, axis: int = -1, name: Optional[str] = None) -> Tensor:
    """``logits - log(reduce_sum(exp(logits), axis))``, finite for large logits.

    >>> log_softmax([0.0, 1000.0])
    Tensor([-1000.     0.], shape=(2,), dtype=float32)
    """
    return apply_validated(LOG_SOFTMAX, (convert_to_tensor(logits),),
                           {"axis": shapes.axis_argument(axis, "LogSoftmax")}, name=name)


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _masked(condition: Tensor, g: Tensor, ops, otherwise=None) -> Tensor:
    return ops.where(condition, g, ops.zeros_like(g) if otherwise is None else otherwise)


register_gradient(RELU)(lambda op, grads, ops: [_masked(op.inputs[0] > 0, grads[0], ops)])
register_gradient(RELU6)(lambda op, grads, ops: [
    _masked(ops.logical_and(op.inputs[0] > 0, op.inputs[0] < 6), grads[0], ops)])
register_gradient(LEAKY_RELU)(lambda op, grads, ops: [
    _masked(op.inputs[0] > 0, grads[0], ops, grads[0] * op.attrs["alpha"])])
register_gradient(ELU)(lambda op, grads, ops: [  # d/dx (e^x - 1) = y + 1
    _masked(op.inputs[0] > 0, grads[0], ops, grads[0] * (op.outputs[0] + 1.0))])


@register_gradient(SOFTMAX)
def _softmax_gradient(op, grads, ops):
    y, g, axis = op.outputs[0], grads[0], op.attrs["axis"]
    return [y * (g - ops.reduce_sum(g * y, axis, keepdims=True))]


@register_gradient(LOG_SOFTMAX)
def _log_softmax_gradient(op, grads, ops):
    y, g, axis = op.outputs[0], grads[0], op.attrs["axis"]
    return [g - ops.exp(y) * ops.reduce_sum(g, axis, keepdims=True)]


_SQRT_HALF = 1 / math.sqrt(2)
_SQRT_TWO_OVER_PI = math.sqrt(2 / math.pi)


def gelu(features: Any, approximate: bool = False, name: Optional[str] = None) -> Tensor:
    """Gaussian error linear unit ``x * P(X <= x)`` for a standard normal X.

    ``approximate=False``: ``0.5 x erfc(-x / sqrt 2)`` (= ``0.5 x (1 + erf(x / sqrt 2))``, without
    cancelling to 0 for very negative x). ``approximate=True``: the tanh form
    ``0.5 x (1 + tanh(u))`` with ``u = sqrt(2/pi) (x + 0.044715 x³)``, computed as the equal
    ``x sigmoid(2u)`` for the same reason.

    >>> gelu([-1.0, 0.0, 1.0])
    Tensor([-0.15865527  0.          0.8413447 ], shape=(3,), dtype=float32)
    """
    features = convert_to_tensor(features)
    _activation_infer("f")([(features.dtype, features.shape)], {})
    if approximate:
        inner = multiply(add(features, multiply(0.044715, multiply(features, square(features)))),
                         2 * _SQRT_TWO_OVER_PI)
        return multiply(features, sigmoid(inner))
    return multiply(multiply(0.5, features), erfc(multiply(features, -_SQRT_HALF)))


def _same_shapes(labels: Tensor, logits: Tensor, function: str) -> None:
    if labels.dtype != logits.dtype:
        raise TypeError(f"{function}: labels and logits must have the same dtype, got {labels.dtype.name} and "
                        f"{logits.dtype.name}")
    if logits.dtype.kind != "f":
        raise TypeError(f"{function}: logits must be a floating-point tensor, got {logits.dtype.name}")
    a, b = labels.shape, logits.shape
    if a is not None and b is not None and (len(a) != len(b) or any(
            x is not None and y is not None and x != y for x, y in zip(a, b))):
        raise ValueError(f"{function}: labels and logits must have the same shape, got "
                         f"{shapes.format_shape(a)} and {shapes.format_shape(b)}")


def _sigmoid_cross_entropy_infer(specs, attrs):
    (labels_dtype, labels_shape), (logits_dtype, logits_shape) = specs
    return [(logits_dtype, shapes.broadcast(labels_shape, logits_shape))]


def _sigmoid_cross_entropy_kernel(labels, logits):
    with np.errstate(all="ignore"):
        return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


SIGMOID_CROSS_ENTROPY = register_op(
    "SigmoidCrossEntropyWithLogits", ("labels", "logits"), _sigmoid_cross_entropy_infer,
    _sigmoid_cross_entropy_kernel,
    doc="max(logits, 0) - logits * labels + log1p(exp(-|logits|)); its gradient is sigmoid(logits) - labels.")


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: Optional[str] = None) -> Tensor:
    """Elementwise ``-z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x))`` for labels z and logits x,
    computed as ``max(x, 0) - x z + log1p(exp(-|x|))`` so large |x| never overflows. Its gradient is
    ``sigmoid(x) - z`` for the logits (also at x = 0) and ``-x`` for the labels, as in TensorFlow.

    >>> sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[-100.0, 100.0])
    Tensor([100. 100.], shape=(2,), dtype=float32)
    """
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, None if isinstance(labels, Tensor) else logits.dtype)
    _same_shapes(labels, logits, "sigmoid_cross_entropy_with_logits")
    return apply_op(SIGMOID_CROSS_ENTROPY, (labels, logits), name=name)


@register_gradient(SIGMOID_CROSS_ENTROPY)
def _sigmoid_cross_entropy_gradient(op, grads, ops):
    # One rule for the whole loss: the two kinks of its stable form (max(x, 0) and |x|) cancel exactly,
    # which per-piece rules (each with slope 0 at x = 0) would not see.
    (labels, logits), g = op.inputs, grads[0]
    return [-g * logits, g * (sigmoid(logits) - labels)]


def softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None, axis: int = -1,
                                      name: Optional[str] = None) -> Tensor:
    """``-reduce_sum(labels * log_softmax(logits, axis), axis)``: one loss per example.

    >>> softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1000.0, 0.0]])
    Tensor([1000.], shape=(1,), dtype=float32)
    """
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, None if isinstance(labels, Tensor) else logits.dtype)
    _same_shapes(labels, logits, "softmax_cross_entropy_with_logits")
    return negative(reduce_sum(multiply(labels, log_softmax(logits, axis)), axis))


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: Optional[str] = None) -> Tensor:
    """``x / sqrt(max(reduce_sum(x ** 2, axis), epsilon))``: unit length along ``axis`` (all axes by default).

    >>> l2_normalize([3.0, 4.0])
    Tensor([0.6 0.8], shape=(2,), dtype=float32)
    """
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"l2_normalize: x must be a floating-point tensor, got {x.dtype.name}; convert it with "
                        "rt.cast(x, rt.float32)")
    return multiply(x, rsqrt(maximum(reduce_sum(square(x), axis, keepdims=True), epsilon)))
