"""Ops gradients are made of: ``broadcast_to``, ``stop_gradient``, and summing a gradient back to the
shape of a broadcast input (``unbroadcast``), the one place broadcasting is undone.

>>> broadcast_to([1, 2], [2, 2])
Tensor([[1 2]
 [1 2]], shape=(2, 2), dtype=int32)
>>> unbroadcast(convert_to_tensor([[1, 2], [3, 4]]), convert_to_tensor([0, 0]))
Tensor([4 6], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core import dtypes
from runtime.core import shapes
from runtime.ops.convert import convert_to_tensor
from runtime.core.attrs import OPTIONAL_SHAPE, STATIC_SHAPE
from runtime.core.registry import apply_op, not_differentiable, register_gradient, register_op
from runtime.ops.shape_ops import known_or_none, shape, shape_argument
from runtime.core.tensor import Tensor


def _check_broadcastable(in_shape, target) -> None:
    """numpy's rule for ``broadcast_to``: aligned from the right, each dim of the input is 1 or the target's
    (the target is never broadcast itself). A ValueError names both shapes, like TensorFlow's
    "Unable to broadcast tensor of shape ... to tensor of shape ..."."""
    problem = None
    if len(in_shape) > len(target):
        problem = "the target has a lower rank"
    else:
        for dim, target_dim in zip(reversed(in_shape), reversed(target)):
            if dim is not None and target_dim is not None and dim != 1 and dim != target_dim:
                problem = f"dimension {dim} vs {target_dim}"
                break
    if problem is not None:
        raise ValueError(f"cannot broadcast a tensor of shape {shapes.format_shape(tuple(in_shape))} to shape "
                         f"{shapes.format_shape(tuple(target))} ({problem}); each dim of the input must be 1 or "
                         "equal to the target's, counting from the last")


def _broadcast_to_infer(specs, attrs):
    (dtype, in_shape), (_, dims_shape) = specs
    target = attrs.get("static_shape")
    if target is None:
        return [(dtype, known_or_none(None, None if dims_shape is None else dims_shape[0]))]
    target = known_or_none(target)
    if in_shape is not None:
        _check_broadcastable(in_shape, target)
    return [(dtype, target)]


def _broadcast_to_kernel(x, shape, *, static_shape=None):
    target = tuple(shape.tolist())
    _check_broadcastable(x.shape, target)
    # A new array, as every kernel's result: numpy's broadcast view is read-only and aliases the input.
    return np.array(np.broadcast_to(x, target))


BROADCAST_TO = register_op("BroadcastTo", ("input", "shape"), _broadcast_to_infer, _broadcast_to_kernel,
                           doc="The input repeated along new or size-1 dims to the given shape.",
                           attrs={"static_shape": STATIC_SHAPE})


def broadcast_to(input: Any, shape: Any) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """``input`` broadcast (numpy rules) to ``shape``, a list of ints or an int tensor."""
    tensor = convert_to_tensor(input)
    dims, static = shape_argument(shape, "BroadcastTo", "shape")
    return apply_op(BROADCAST_TO, (tensor, dims), None if static is None else {"static_shape": static})


def _sum_to_shape_infer(specs, attrs):
    (dtype, _), _ = specs
    return [(dtype, attrs["static_shape"])]  # None: the rank is known only when the graph runs


def _sum_to_shape_kernel(x, shape, *, static_shape):
    target = tuple(shape.tolist())
    extra = x.ndim - len(target)
    axes = tuple(range(extra)) + tuple(extra + i for i, d in enumerate(target) if d == 1 and x.shape[extra + i] != 1)
    summed = np.sum(x, axis=axes, keepdims=True, dtype=x.dtype) if axes else x
    return np.reshape(summed, target)


SUM_TO_SHAPE = register_op("SumToShape", ("input", "shape"), _sum_to_shape_infer, _sum_to_shape_kernel,
                           doc="Sums a broadcast result back to a shape it was broadcast from (its gradient).",
                           attrs={"static_shape": OPTIONAL_SHAPE})


def unbroadcast(grad: Tensor, like: Tensor) -> Tensor:
    """``grad`` (of a result ``like`` was broadcast into) summed back to ``like``'s shape.

    Nothing to do when the shapes are the same and known; else one ``SumToShape`` op, reading
    ``rt.shape(like)`` when the graph runs if some dim (or the rank) of ``like`` is unknown: the kernel
    finds the broadcast axes from the shapes it is given.
    """
    g_shape, x_shape = grad.shape, like.shape
    if g_shape is not None and g_shape == x_shape and None not in x_shape:
        return grad
    known = x_shape is not None and None not in x_shape
    target = convert_to_tensor(np.array(x_shape, np.int32)) if known else shape(like)
    return apply_op(SUM_TO_SHAPE, (grad, target), {"static_shape": x_shape})


@register_gradient(BROADCAST_TO)
def _broadcast_to_gradient(op, grads, ops):
    return [unbroadcast(grads[0], op.inputs[0]), None]


@register_gradient(SUM_TO_SHAPE)
def _sum_to_shape_gradient(op, grads, ops):
    return [broadcast_to(grads[0], shape(op.inputs[0])), None]


STOP_GRADIENT = register_op("StopGradient", ("input",), lambda specs, attrs: [specs[0]], lambda x: x,
                            doc="Returns its input; gradients do not flow through it.")
not_differentiable(STOP_GRADIENT, "it exists to block gradients (rt.stop_gradient)")


def stop_gradient(input: Any) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """``input``, seen by gradients as a constant (its gradient is None).

    >>> stop_gradient(3.0)
    Tensor(3.0, shape=(), dtype=float32)
    """
    return apply_op(STOP_GRADIENT, (convert_to_tensor(input),))


def is_differentiable_dtype(dtype: np.dtype) -> bool:
    """Only floating-point tensors carry gradients (integer and bool ones get None, as in TF)."""
    return dtypes.as_dtype(dtype).kind == "f"


def carries_gradient(dtype: np.dtype) -> bool:
    """Whether the gradient pass sends a gradient to a tensor of ``dtype``: floats, and tensor-list handles
    (whose gradient is a list of their elements' gradients; see list_gradients.py).

    >>> carries_gradient(dtypes.float32), carries_gradient(dtypes.variant), carries_gradient(dtypes.int32)
    (True, True, False)
    """
    return is_differentiable_dtype(dtype) or dtypes.as_dtype(dtype) == dtypes.variant
