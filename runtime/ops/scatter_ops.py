"""Reading and writing tensors at lists of multi-dimensional indices, with TensorFlow's semantics.

``indices`` has shape ``[..., K]``: each innermost row ``[i0, ..., iK-1]`` names one element (``K`` equal to the
rank) or one slice (``K`` smaller) of the tensor. ``updates`` has shape ``indices.shape[:-1] +
tensor.shape[K:]``. An index outside ``[0, dim)`` raises ``InvalidArgumentError`` when the op runs
(negative indices are out of range, as in TensorFlow).

>>> tensor_scatter_nd_update([1, 2, 3, 4], [[1], [3]], [20, 40])
Tensor([ 1 20  3 40], shape=(4,), dtype=int32)
>>> gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]])
Tensor([3 2], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from runtime.core import context, dtypes, shapes
from runtime.core.errors import InvalidArgumentError
from runtime.core.registry import apply_op, register_gradient, register_op
from runtime.core.tensor import Shape, Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.creation_ops import zeros

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _index_depth(indices_dtype: Any, indices_shape: Shape, target_shape: Shape) -> Optional[int]:
    """K, the length of each index row, once known; checks the indices' dtype and rank."""
    if indices_dtype not in _INDEX_DTYPES:
        raise TypeError(f"indices must be int32 or int64, got {indices_dtype.name}")
    if indices_shape is None:
        return None
    if len(indices_shape) == 0:
        raise ValueError("indices must have at least one dimension ([..., K]: one index row per element), "
                         "got a scalar; write [[i]] for a single index")
    depth = indices_shape[-1]
    if depth is not None and target_shape is not None and depth > len(target_shape):
        raise ValueError(f"index rows of length {depth} cannot index a tensor of rank {len(target_shape)} "
                         f"(shape {shapes.format_shape(target_shape)})")
    return depth


def _check_in_range(indices: np.ndarray, shape: Tuple[int, ...]) -> Tuple[np.ndarray, ...]:
    """The indices as a numpy advanced-indexing tuple; InvalidArgumentError for an out-of-range row."""
    depth = indices.shape[-1]
    bounds = np.array(shape[:depth], dtype=np.int64)
    bad = ((indices < 0) | (indices >= bounds)).any(axis=-1)
    if bad.any():
        position = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f"indices[{','.join(map(str, position))}]" if position else "indices"
        raise InvalidArgumentError(f"{where} = {indices[position].tolist()} does not index into shape "
                                   f"{list(shape)}")
    return tuple(np.moveaxis(indices, -1, 0))


def _apply(op_def, inputs: Tuple[Tensor, ...]) -> Tensor:
    """``apply_op``, checking the arguments first when running eagerly too (tracing checks them anyway)."""
    if context.current_graph() is None:
        try:
            op_def.infer([(t.dtype, t.shape) for t in inputs], {})
        except (TypeError, ValueError) as error:
            raise type(error)(f"{op_def.name}: {error}") from None
    return apply_op(op_def, inputs)


# --- gather_nd --------------------------------------------------------------------------------------
def _gather_nd_infer(specs, attrs):
    (dtype, params_shape), (indices_dtype, indices_shape) = specs
    depth = _index_depth(indices_dtype, indices_shape, params_shape)
    if depth is None or params_shape is None:
        return [(dtype, None)]
    return [(dtype, tuple(indices_shape[:-1]) + tuple(params_shape[depth:]))]


def _gather_nd_kernel(params, indices):
    if indices.shape[-1] > params.ndim:
        raise ValueError(f"index rows of length {indices.shape[-1]} cannot index a tensor of rank {params.ndim}")
    if indices.shape[-1] == 0:
        return np.array(np.broadcast_to(params, indices.shape[:-1] + params.shape))
    return np.array(params[_check_in_range(indices, params.shape)])


GATHER_ND = register_op("GatherNd", ("params", "indices"), _gather_nd_infer, _gather_nd_kernel,
                        doc="The elements or slices of params named by the rows of indices ([..., K]).")


def gather_nd(params: Any, indices: Any) -> Tensor:
    """The elements (or slices) of ``params`` at each row of ``indices``: shape ``indices.shape[:-1] +
    params.shape[K:]``.

    >>> gather_nd([[1, 2], [3, 4]], [[1]])
    Tensor([[3 4]], shape=(1, 2), dtype=int32)
    """
    return _apply(GATHER_ND, (convert_to_tensor(params), convert_to_tensor(indices)))


# --- tensor_scatter_nd_update / add -------------------------------------------------------------
def _scatter_infer(specs, attrs):
    (dtype, tensor_shape), (indices_dtype, indices_shape), (updates_dtype, updates_shape) = specs
    if updates_dtype != dtype:
        raise TypeError(f"updates must have the tensor's dtype {dtype.name}, got {updates_dtype.name}")
    depth = _index_depth(indices_dtype, indices_shape, tensor_shape)
    if depth is not None and tensor_shape is not None and updates_shape is not None:
        expected = tuple(indices_shape[:-1]) + tuple(tensor_shape[depth:])
        if len(expected) != len(updates_shape) or any(
                a is not None and b is not None and a != b for a, b in zip(expected, updates_shape)):
            raise ValueError(f"updates must have shape indices.shape[:-1] + tensor.shape[{depth}:] = "
                             f"{shapes.format_shape(expected)}, got {shapes.format_shape(updates_shape)}")
    return [(dtype, tensor_shape)]


def _check_updates(tensor, indices, updates):
    depth = indices.shape[-1]
    if depth > tensor.ndim:
        raise ValueError(f"index rows of length {depth} cannot index a tensor of rank {tensor.ndim}")
    expected = indices.shape[:-1] + tensor.shape[depth:]
    if updates.shape != expected:
        raise ValueError(f"updates must have shape {expected}, got {updates.shape}")


def _scatter_update_kernel(tensor, indices, updates):
    _check_updates(tensor, indices, updates)  # checked before copying: the same errors as in place
    return _scatter_update_in_place(tensor.copy(), indices, updates)


def _scatter_update_in_place(tensor, indices, updates):
    _check_updates(tensor, indices, updates)
    if indices.shape[-1] == 0:  # every row names the whole tensor
        rows = updates.reshape((-1,) + tensor.shape)
        if len(rows):
            tensor[...] = rows[-1]
        return tensor
    tensor[_check_in_range(indices, tensor.shape)] = updates  # repeated indices: the last update wins
    return tensor


def _scatter_add_kernel(tensor, indices, updates):
    _check_updates(tensor, indices, updates)
    return _scatter_add_in_place(tensor.copy(), indices, updates)


def _scatter_add_in_place(tensor, indices, updates):
    _check_updates(tensor, indices, updates)
    if indices.shape[-1] == 0:
        tensor += updates.reshape((-1,) + tensor.shape).sum(axis=0, dtype=tensor.dtype)
        return tensor
    np.add.at(tensor, _check_in_range(indices, tensor.shape), updates)  # repeated indices add up
    return tensor


TENSOR_SCATTER_UPDATE = register_op(
    "TensorScatterUpdate", ("tensor", "indices", "updates"), _scatter_infer, _scatter_update_kernel,
    doc="A copy of tensor with the elements/slices named by the rows of indices replaced by updates.",
    in_place_kernel=_scatter_update_in_place)
TENSOR_SCATTER_ADD = register_op(
    "TensorScatterAdd", ("tensor", "indices", "updates"), _scatter_infer, _scatter_add_kernel,
    doc="A copy of tensor with updates added at the elements/slices named by the rows of indices.",
    in_place_kernel=_scatter_add_in_place)


def _scatter_args(tensor: Any, indices: Any, updates: Any) -> Tuple[Tensor, Tensor, Tensor]:
    tensor = convert_to_tensor(tensor)
    return tensor, convert_to_tensor(indices), convert_to_tensor(updates, tensor.dtype)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any) -> Tensor:
    """A copy of ``tensor`` with ``updates`` written at the rows of ``indices`` (tensors are immutable).

    With a repeated index the last update wins.

    >>> tensor_scatter_nd_update([[0, 0], [0, 0]], [[0, 1]], [5])
    Tensor([[0 5]
     [0 0]], shape=(2, 2), dtype=int32)
    """
    return _apply(TENSOR_SCATTER_UPDATE, _scatter_args(tensor, indices, updates))


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any) -> Tensor:
    """A copy of ``tensor`` with ``updates`` added at the rows of ``indices``; repeated indices add up.

    >>> tensor_scatter_nd_add([1, 1, 1], [[0], [0], [2]], [1, 2, 3])
    Tensor([4 1 4], shape=(3,), dtype=int32)
    """
    return _apply(TENSOR_SCATTER_ADD, _scatter_args(tensor, indices, updates))


def scatter_nd(indices: Any, updates: Any, shape: Any) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at the rows of ``indices`` (repeated indices add up).

    >>> scatter_nd([[1], [3]], [9, 7], [5])
    Tensor([0 9 0 7 0], shape=(5,), dtype=int32)
    """
    updates = convert_to_tensor(updates)
    return tensor_scatter_nd_add(zeros(shape, updates.dtype), indices, updates)


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
@register_gradient(GATHER_ND)
def _gather_nd_gradient(op, grads, ops):
    params, indices = op.inputs
    return [tensor_scatter_nd_add(ops.zeros_like(params), indices, grads[0]), None]


@register_gradient(TENSOR_SCATTER_ADD)
def _scatter_add_gradient(op, grads, ops):
    return [grads[0], None, gather_nd(grads[0], op.inputs[1])]


@register_gradient(TENSOR_SCATTER_UPDATE)
def _scatter_update_gradient(op, grads, ops):
    # As in TensorFlow: with a repeated index every update gets the gradient of the slot it names,
    # though only the last one was kept.
    tensor, indices, updates = op.inputs
    return [tensor_scatter_nd_update(grads[0], indices, ops.zeros_like(updates)), None,
            gather_nd(grads[0], indices)]
