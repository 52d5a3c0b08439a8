"""Ordering along an axis: ``top_k``, ``sort`` and ``argsort``.

Equal values keep their order, as in TensorFlow: ``top_k`` lists the lower index first among ties and
``argsort`` is stable in both directions (descending does not reverse ties).

>>> values, indices = top_k([1, 3, 3, 2], k=2)
>>> indices
Tensor([1 2], shape=(2,), dtype=int32)
>>> argsort([2, 1, 2, 1], direction="DESCENDING")
Tensor([0 2 1 3], shape=(4,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from runtime.core import dtypes
from runtime.core import shapes
from runtime.ops.convert import convert_to_tensor
from runtime.core.attrs import DTYPE, INT, SORT_DIRECTION, STATIC_COUNT
from runtime.core.registry import not_differentiable, register_gradient, register_op
from runtime.ops.shape_ops import constant_value
from runtime.ops.validated import apply_validated
from runtime.core.tensor import Tensor

_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _stable_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices sorting ``x`` along ``axis``; equal values keep their original order either way."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # stable descending = the ascending stable order of the reversed axis, read backwards, mirrored
    last = x.shape[axis] - 1
    return last - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _check_sortable(dtype, shape, what: str) -> None:
    if dtype.kind not in "fiu":
        raise TypeError(f"{what} must be a numeric tensor, got {dtype.name}")
    if shape is not None and len(shape) == 0:
        raise ValueError(f"{what} must have at least one dimension, got a scalar")


def _top_k_infer(specs, attrs):
    (dtype, shape), (k_dtype, k_shape) = specs
    _check_sortable(dtype, shape, "input")
    if k_dtype not in (dtypes.int32, dtypes.int64) or k_shape not in ((), None):
        raise TypeError(f"k must be a scalar int32 tensor, got {k_dtype.name} of shape {shapes.format_shape(k_shape)}")
    k = attrs.get("static_k")
    if k is not None and k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if k is not None and shape is not None and shape[-1] is not None and shape[-1] < k:
        raise ValueError(f"input must have at least k={k} entries in its last dimension, got shape "
                         f"{shapes.format_shape(shape)}")
    out = None if shape is None else shape[:-1] + (k,)
    return [(dtype, out), (attrs["index_type"], out)]


def _top_k_kernel(x, k, *, index_type, static_k=None):
    k = int(k)
    if not 0 <= k <= x.shape[-1]:
        raise ValueError(f"input must have at least k={k} entries in its last dimension, got shape {x.shape}")
    indices = _stable_order(x, -1, descending=True)[..., :k]
    return np.take_along_axis(x, indices, -1), indices.astype(index_type)


TOP_K = register_op("TopKV2", ("input", "k"), _top_k_infer, _top_k_kernel,
                    doc="The k largest entries of the last axis and their indices (lower index first on ties).",
                    attrs={"index_type": DTYPE, "static_k": STATIC_COUNT})


class TopKV2(NamedTuple):
    """What ``top_k`` returns, as TensorFlow's namedtuple: ``result.values``, ``result.indices``."""
    values: Tensor
    indices: Tensor


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32,  # noqa: A002
          name: Any = None) -> TopKV2:
    """The ``k`` largest entries along the last axis, largest first, and their indices.

    Among equal values the lower index comes first. ``sorted`` is accepted for TensorFlow
    compatibility; the values are always sorted.

    >>> top_k([[1.0, 5.0, 3.0]], k=2).values
    Tensor([[5. 3.]], shape=(1, 2), dtype=float32)
    """
    input = convert_to_tensor(input)
    k_tensor = convert_to_tensor(k, None if isinstance(k, Tensor) else dtypes.int32)
    attrs = {"index_type": dtypes.as_dtype(index_type)}
    if attrs["index_type"] not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"TopKV2: index_type must be rt.int32 or rt.int64, got {attrs['index_type'].name}")
    known = constant_value(k_tensor)
    if known is not None and known.ndim == 0:
        attrs["static_k"] = int(known)
    return TopKV2(*apply_validated(TOP_K, (input, k_tensor), attrs, name=name))


def _sort_infer(index_dtype=None):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        _check_sortable(dtype, shape, "values")
        if attrs["direction"] not in _DIRECTIONS:
            raise ValueError(f"direction must be 'ASCENDING' or 'DESCENDING', got {attrs['direction']!r}")
        if shape is not None:
            shapes.normalize_axis(attrs["axis"], len(shape), "sort")
        return [(index_dtype or dtype, shape)]
    return infer


def _sort_kernel(x, *, axis, direction):
    ascending = np.sort(x, axis=axis)
    return np.flip(ascending, axis).copy() if direction == "DESCENDING" else ascending


def _argsort_kernel(x, *, axis, direction):
    return _stable_order(x, axis, direction == "DESCENDING").astype(np.int32)


_SORT_ATTRS = {"axis": INT, "direction": SORT_DIRECTION}
SORT = register_op("Sort", ("values",), _sort_infer(), _sort_kernel,
                   doc="The values sorted along attr 'axis' in attr 'direction'.", attrs=_SORT_ATTRS)
ARG_SORT = register_op("ArgSort", ("values",), _sort_infer(dtypes.int32), _argsort_kernel,
                       doc="int32 indices that sort the values along attr 'axis' (stable).", attrs=_SORT_ATTRS)


def _sort_attrs(values: Tensor, axis: int, direction: str) -> dict:
    direction = direction.upper() if isinstance(direction, str) else direction
    return {"axis": shapes.axis_argument(axis, "Sort"), "direction": direction}


def sort(values: Any, axis: int = -1, direction: str = "ASCENDING", name: Any = None) -> Tensor:
    """``values`` sorted along ``axis`` (``direction`` is ``'ASCENDING'`` or ``'DESCENDING'``).

    >>> sort([3, 1, 2], direction="DESCENDING")
    Tensor([3 2 1], shape=(3,), dtype=int32)
    """
    values = convert_to_tensor(values)
    return apply_validated(SORT, (values,), _sort_attrs(values, axis, direction), name=name)


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = True,
            name: Any = None) -> Tensor:
    """int32 indices that sort ``values`` along ``axis``; always stable (equal values keep their order).

    >>> argsort([3.0, 1.0, 2.0])
    Tensor([1 2 0], shape=(3,), dtype=int32)
    """
    values = convert_to_tensor(values)
    return apply_validated(ARG_SORT, (values,), _sort_attrs(values, axis, direction), name=name)


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _scatter_last_axis(grad: Tensor, indices: Tensor, like: Tensor, ops) -> Tensor:
    """Zeros shaped like ``like`` with ``grad[..., j]`` added at position ``indices[..., j]`` of the last axis."""
    width = ops.maximum(ops.shape(like)[-1], 1)  # an empty last axis has no rows to tell apart
    row_shape = ops.concat([ops.shape(like)[:-1], ops.constant([1])], 0)
    row_starts = ops.reshape(ops.range(0, ops.size(like), width), row_shape)  # flat offset of each row
    positions = ops.reshape(ops.cast(indices, dtypes.int32) + row_starts, [-1])
    flat = ops.unsorted_segment_sum(ops.reshape(grad, [-1]), positions, ops.size(like))
    return ops.reshape(flat, ops.shape(like))


@register_gradient(TOP_K)
def _top_k_gradient(op, grads, ops):
    return [_scatter_last_axis(grads[0], op.outputs[1], op.inputs[0], ops), None]


@register_gradient(SORT)
def _sort_gradient(op, grads, ops):
    x, grad = op.inputs[0], grads[0]
    if x.ndim is None:
        raise ValueError("gradient of Sort: the input has unknown rank; give it a known rank")
    axis = op.attrs["axis"] % x.ndim
    order = ops.argsort(x, axis, op.attrs["direction"])  # where each sorted value came from
    if axis == x.ndim - 1:
        return [_scatter_last_axis(grad, order, x, ops)]
    perm = [a for a in range(x.ndim) if a != axis] + [axis]  # the sorted axis last, and back
    back = [int(i) for i in np.argsort(perm)]
    moved = _scatter_last_axis(ops.transpose(grad, perm), ops.transpose(order, perm), ops.transpose(x, perm), ops)
    return [ops.transpose(moved, back)]


not_differentiable(ARG_SORT, "its result is integer indices")
