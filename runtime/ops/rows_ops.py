"""``rt.stack`` and ``rt.concat`` as the public API: a list of tensors, or — as in TensorFlow — one tensor
standing for the list of its rows (a comprehension over a tensor is such a tensor, so
``rt.stack([f(v) for v in t])`` works in a graph as it does eagerly on a Python list).

>>> stack(convert_to_tensor([[1, 2], [3, 4]]), axis=1)
Tensor([[1 3]
 [2 4]], shape=(2, 2), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Sequence

from runtime.core import shapes
from runtime.core.tensor import Tensor
from runtime.ops import combine_ops
from runtime.ops.array_ops import reshape, transpose
from runtime.ops.convert import convert_to_tensor
from runtime.ops.shape_ops import shape


def stack(values: Sequence[Any], axis: int = 0) -> Tensor:
    """Stack same-shaped ``values`` along a new dimension ``axis``; a tensor's rows when ``values`` is one
    (its first dimension moves to ``axis``).

    >>> stack([1, 2, 3])
    Tensor([1 2 3], shape=(3,), dtype=int32)
    """
    if not isinstance(values, Tensor):
        return combine_ops.stack(values, axis)
    rank = _rows_rank(values, "Pack", 1)
    axis = shapes.normalize_axis(shapes.axis_argument(axis, "Pack"), rank, "Pack")
    if axis == 0:
        return values
    return transpose(values, list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank)))


def concat(values: Sequence[Any], axis: int) -> Tensor:
    """Join ``values`` along the existing dimension ``axis``; a tensor's rows when ``values`` is one (then
    along axis 0 only: the first two dimensions merge).

    >>> concat([[[1]], [[2]]], axis=1)
    Tensor([[1 2]], shape=(1, 2), dtype=int32)
    >>> concat(convert_to_tensor([[[1, 2]], [[3, 4]]]), 0)
    Tensor([[1 2]
     [3 4]], shape=(2, 2), dtype=int32)
    """
    if not isinstance(values, Tensor):
        return combine_ops.concat(values, axis)
    _rows_rank(values, "ConcatV2", 2)
    if shapes.axis_argument(axis, "ConcatV2") != 0:
        raise TypeError(f"ConcatV2: a tensor given as values (the list of its rows) is concatenated along axis 0 "
                        f"only, got axis={axis}; pass a list, or use rt.reshape/rt.transpose")
    rest = values.shape[2:]
    if all(dim is not None for dim in rest):
        return reshape(values, [-1, *rest])
    return reshape(values, combine_ops.concat([convert_to_tensor([-1]), shape(values)[2:]], 0))


def _rows_rank(tensor: Tensor, op_name: str, minimum: int) -> int:
    if tensor.ndim is None or tensor.ndim < minimum:
        raise TypeError(f"{op_name}: a tensor given as values stands for the list of its rows, so it needs rank >= "
                        f"{minimum}, got shape {tensor.shape}")
    return tensor.ndim
