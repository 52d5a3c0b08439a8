"""Spread of a tensor: ``reduce_variance``, ``reduce_std`` and ``moments``, built from registered ops.

Composites, as in TensorFlow: the mean is subtracted before squaring (no ``E[x^2] - E[x]^2`` cancellation),
and their gradients are the gradients of the ops they are made of.

>>> reduce_variance([1.0, 2.0, 3.0, 4.0])
Tensor(1.25, shape=(), dtype=float32)
>>> mean, variance = moments([[1.0, 2.0], [3.0, 6.0]], axes=[0])
>>> mean, variance
(Tensor([2. 4.], shape=(2,), dtype=float32), Tensor([1. 4.], shape=(2,), dtype=float32))
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from runtime.core.tensor import Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.math_ops import subtract
from runtime.ops.reduction_ops import reduce_mean
from runtime.ops.unary_ops import sqrt, square

Axis = Union[None, int, Sequence[int]]


def _floating(input_tensor: Any, op: str) -> Tensor:
    tensor = convert_to_tensor(input_tensor)
    if tensor.dtype.kind != "f":
        raise TypeError(f"{op}: input must be a floating-point tensor, got {tensor.dtype.name}; "
                        "convert it first, e.g. rt.cast(x, rt.float32)")
    return tensor


def reduce_variance(input_tensor: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The variance (mean squared deviation from the mean) over ``axis``, as ``tf.math.reduce_variance``.

    >>> reduce_variance([[1.0, 3.0], [5.0, 7.0]], axis=1)
    Tensor([1. 1.], shape=(2,), dtype=float32)
    """
    tensor = _floating(input_tensor, "reduce_variance")
    deviation = subtract(tensor, reduce_mean(tensor, axis, keepdims=True))
    return reduce_mean(square(deviation), axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The standard deviation over ``axis``: ``sqrt(reduce_variance(...))``, as ``tf.math.reduce_std``.

    >>> reduce_std([1.0, 3.0])
    Tensor(1.0, shape=(), dtype=float32)
    """
    return sqrt(reduce_variance(_floating(input_tensor, "reduce_std"), axis, keepdims))


def moments(x: Any, axes: Sequence[int], shift: Optional[Any] = None, keepdims: bool = False,
            name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``(mean, variance)`` of ``x`` over ``axes``, as ``tf.nn.moments`` (a plain tuple there too).

    ``shift`` is accepted for TensorFlow compatibility and not used (TensorFlow ignores it as well).

    >>> moments([2.0, 4.0], axes=[0])
    (Tensor(3.0, shape=(), dtype=float32), Tensor(1.0, shape=(), dtype=float32))
    """
    tensor = _floating(x, "moments")
    mean = reduce_mean(tensor, axes, keepdims=True)
    variance = reduce_mean(square(subtract(tensor, mean)), axes, keepdims=True)
    if keepdims:
        return mean, variance
    return reduce_mean(mean, axes, keepdims=False), reduce_mean(variance, axes, keepdims=False)
