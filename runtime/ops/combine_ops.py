"""Ops that build one tensor out of several: concat, stack, and where (select or find).

>>> concat([[1, 2], [3]], 0)
Tensor([1 2 3], shape=(3,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from runtime.core import dtypes
from runtime.core import shapes
from runtime.ops.convert import convert_operands, convert_to_tensor, mixed_dtypes_error
from runtime.ops.list_ops import TensorList
from runtime.ops.pack_op import STACK, merge_dims
from runtime.core.attrs import INT
from runtime.core.registry import apply_op, not_differentiable, register_gradient, register_op
from runtime.core.tensor import Tensor


def _convert_all(values: Sequence[Any], op_name: str) -> List[Tensor]:
    """Tensors for ``values``; Python values adopt the dtype of the first tensor among them."""
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)) or not values:
        raise TypeError(f"{op_name}: values must be a non-empty list of tensors, got {values!r}")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    tensors = [convert_to_tensor(v, None if isinstance(v, Tensor) else dtype) for v in values]
    for i, t in enumerate(tensors):
        if t.dtype != tensors[0].dtype:
            raise TypeError(f"{op_name}: all values must have the same dtype, got {tensors[0].dtype.name} "
                            f"(values[0]) and {t.dtype.name} (values[{i}]); use rt.cast to convert them")
    return tensors


def _concat_infer(specs, attrs):
    dtype = specs[0][0]
    known = [s for _, s in specs if s is not None]
    if not known:
        return [(dtype, None)]
    rank = len(known[0])
    if rank == 0:
        raise ValueError("cannot concatenate scalars; use rt.stack")
    axis = shapes.normalize_axis(attrs["axis"], rank, "ConcatV2")
    out: List[Optional[int]] = list(known[0])
    out[axis] = 0
    for shape in known:
        if len(shape) != rank:
            raise ValueError(f"all values must have the same rank, got shapes {shapes.format_shape(known[0])} "
                             f"and {shapes.format_shape(shape)}")
        for i, d in enumerate(shape):
            if i == axis:
                out[i] = None if out[i] is None or d is None else out[i] + d
            else:
                out[i] = merge_dims(out[i], d, f"dimension {i} differs between shapes "
                                     f"{shapes.format_shape(known[0])} and {shapes.format_shape(shape)}")
    if len(known) < len(specs):
        out[axis] = None  # a value of unknown rank has an unknown size along the axis
    return [(dtype, tuple(out))]


CONCAT = register_op("ConcatV2", ("*values",), _concat_infer,
                     lambda *values, axis: np.concatenate(values, axis),
                     doc="Joins tensors along an existing axis (attr 'axis').", attrs={"axis": INT})


def concat(values: Sequence[Any], axis: int) -> Tensor:
    """Join ``values`` along the existing dimension ``axis``.

    >>> concat([[[1]], [[2]]], axis=1)
    Tensor([[1 2]], shape=(1, 2), dtype=int32)
    """
    if isinstance(values, TensorList):
        return values.concat(axis)
    tensors = _convert_all(values, "ConcatV2")
    return apply_op(CONCAT, tensors, {"axis": shapes.axis_argument(axis, "ConcatV2")})


def stack(values: Sequence[Any], axis: int = 0) -> Tensor:
    """Stack same-shaped ``values`` along a new dimension ``axis``.

    >>> stack([1, 2, 3])
    Tensor([1 2 3], shape=(3,), dtype=int32)
    """
    if isinstance(values, TensorList):
        if axis != 0:
            raise ValueError(f"Pack: a tensor list stacks along axis 0, got axis={axis}; transpose the result")
        return values.stack()
    tensors = _convert_all(values, "Pack")
    return apply_op(STACK, tensors, {"axis": shapes.axis_argument(axis, "Pack")})


def _where_infer(specs, attrs):
    dtype, shape = specs[0]
    if dtype != dtypes.bool:
        raise TypeError(f"condition must be a bool tensor, got {dtype.name}")
    return [(dtypes.int64, (None, None if shape is None else len(shape)))]


WHERE = register_op("Where", ("condition",), _where_infer,
                    lambda condition: np.argwhere(condition).astype(np.int64),
                    doc="Coordinates of the true elements, one row per element (int64).")


def _select_infer(specs, attrs):
    (c_dtype, c_shape), (x_dtype, x_shape), (y_dtype, y_shape) = specs
    if c_dtype != dtypes.bool:
        raise TypeError(f"condition must be a bool tensor, got {c_dtype.name}")
    if x_dtype != y_dtype:
        raise TypeError(f"x and y must have the same dtype, got {x_dtype.name} and {y_dtype.name}")
    return [(x_dtype, shapes.broadcast(c_shape, shapes.broadcast(x_shape, y_shape)))]


SELECT = register_op("SelectV2", ("condition", "t", "e"), _select_infer, np.where,
                     doc="Elementwise choice: t where condition is true, else e (broadcasting).")


def where(condition: Any, x: Any = None, y: Any = None) -> Tensor:
    """With ``x`` and ``y``: elementwise ``x if condition else y``. Alone: the coordinates where
    ``condition`` is true, as an int64 tensor of shape ``(count, rank)``.

    >>> where([True, False], 1, 0)
    Tensor([1 0], shape=(2,), dtype=int32)
    >>> where([False, True])
    Tensor([[1]], shape=(1, 1), dtype=int64)
    """
    condition = convert_to_tensor(condition)
    if condition.dtype != dtypes.bool:
        raise TypeError(f"where: condition must be a bool tensor, got {condition.dtype.name}; compare it "
                        "first (e.g. x > 0)")
    if x is None and y is None:
        return apply_op(WHERE, (condition,))
    if x is None or y is None:
        raise ValueError("where: pass both x and y, or neither (to get the coordinates of true elements)")
    x, y = convert_operands(x, y)
    if x.dtype != y.dtype:
        raise mixed_dtypes_error("SelectV2", "x and y", x.dtype, y.dtype)
    return apply_op(SELECT, (condition, x, y))


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _along(axis: int, rank: int, item: Any) -> tuple:
    return (slice(None),) * (axis % rank) + (item,)


@register_gradient(CONCAT)
def _concat_gradient(op, grads, ops):
    grad = grads[0]
    if grad.ndim is None:
        raise ValueError("gradient of ConcatV2: the result has unknown rank; give the inputs a known rank")
    axis = op.attrs["axis"] % grad.ndim
    results: List[Optional[Tensor]] = []
    start: Any = 0
    for value in op.inputs:
        size = value.shape[axis] if value.shape is not None else None
        stop = start + size if size is not None else start + ops.shape(value)[axis]
        results.append(ops.slice_by_key(grad, _along(axis, grad.ndim, slice(start, stop))))
        start = stop
    return results


@register_gradient(STACK)
def _stack_gradient(op, grads, ops):
    grad = grads[0]
    if grad.ndim is None:
        raise ValueError("gradient of Pack: the result has unknown rank; give the inputs a known rank")
    return [ops.slice_by_key(grad, _along(op.attrs["axis"], grad.ndim, index)) for index in range(len(op.inputs))]


not_differentiable(WHERE, "its result is integer coordinates")


@register_gradient(SELECT)
def _select_gradient(op, grads, ops):
    condition, x, y = op.inputs
    grad = grads[0]
    zero = ops.zeros_like(grad)
    unbroadcast = ops.gradient_ops.unbroadcast
    return [None, unbroadcast(where(condition, grad, zero), x), unbroadcast(where(condition, zero, grad), y)]
