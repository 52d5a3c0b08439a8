"""Reading parts of a tensor: ``tensor[key]`` (``slice_by_key``) and ``gather``.

``slice_by_key`` is one ``StridedSlice`` op whose attr ``key`` encodes the whole subscript as a tuple of
items: ``("index", i)``, ``("slice", start, stop, step)``, ``("ellipsis",)``, ``("newaxis",)``. Any
number in an item may instead be ``("input", k)``: the value of extra input ``k``, a scalar int tensor
known only at run time (e.g. a loop counter: ``x[i]``).

>>> convert_to_tensor([[1, 2, 3], [4, 5, 6]])[1, ::-1]
Tensor([6 5 4], shape=(3,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError, in_users_words
from runtime.core import shapes
from runtime.ops.convert import convert_to_tensor
from runtime.ops.gradient_ops import unbroadcast
from runtime.core.attrs import INT, OPTIONAL_SHAPE, SLICE_KEY, STATIC_COUNT, key_check
from runtime.core.registry import apply_op, register_gradient, register_op
from runtime.core.tensor import EagerTensor, Tensor

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)
_VALID_KEYS = ("valid subscripts are ints, slices (a:b:c), ... (Ellipsis), None (new axis) and scalar int "
               "tensors")


def _resolve(value: Any, dynamic: Tuple[np.ndarray, ...]) -> Optional[int]:
    if type(value) is not tuple:
        return value
    array = dynamic[value[1]]
    if array.ndim:
        raise ValueError(f"an index tensor must be a scalar, got shape {array.shape}")
    return int(array)


def _strided_slice_kernel(x, *dynamic, key):
    return np.array(x[_index_tuple(key, dynamic)])  # a copy, not a view: tensors never share memory


def _slice_length(size: Optional[int], start, stop, step) -> Optional[int]:
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if size is None or any(type(c) is tuple for c in (start, stop, step)):
        return None
    return len(range(*slice(start, stop, step).indices(size)))


def _strided_slice_infer(specs, attrs):
    dtype, shape = specs[0]
    for index_dtype, index_shape in specs[1:]:
        if index_dtype not in _INDEX_DTYPES or index_shape not in ((), None):
            raise TypeError(f"index tensors must be int32/int64 scalars, got {index_dtype.name} with shape "
                            f"{shapes.format_shape(index_shape)}")
    key = attrs["key"]
    if shape is None:
        return [(dtype, None)]
    consumed = sum(1 for item in key if item[0] in ("index", "slice"))
    if consumed > len(shape):
        raise ValueError(f"too many indices for a tensor of shape {shapes.format_shape(shape)}: {consumed} "
                         f"indices for rank {len(shape)}")
    out: List[Optional[int]] = []
    dim = 0
    for item in key:
        kind = item[0]
        if kind == "ellipsis":
            skipped = len(shape) - consumed
            out.extend(shape[dim:dim + skipped])
            dim += skipped
        elif kind == "newaxis":
            out.append(1)
        elif kind == "index":
            size, value = shape[dim], item[1]
            if size is not None and type(value) is int and not -size <= value < size:
                raise ValueError(f"index {value} is out of bounds for dimension {dim} with size {size}")
            dim += 1
        else:
            out.append(_slice_length(shape[dim], *item[1:]))
            dim += 1
    out.extend(shape[dim:])
    return [(dtype, tuple(out))]


STRIDED_SLICE = register_op("StridedSlice", ("input", "*index"), _strided_slice_infer, _strided_slice_kernel,
                            doc="tensor[key]: attr 'key' encodes the subscript; extra inputs are dynamic indices.",
                            attrs={"key": SLICE_KEY}, attrs_check=key_check(1))


def _key_number(value: Any, dynamic: List[Tensor]) -> Any:
    """A slice component or index: a Python int, None, or ("input", k) for a run-time tensor."""
    if value is None or type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"a bool ({value!r}) cannot be used as an index; {_VALID_KEYS}")
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Tensor):
        if value.dtype not in _INDEX_DTYPES or value.ndim not in (0, None):
            raise TypeError(in_users_words(f"only scalar int32/int64 tensors can be used as indices, got dtype "
                                           f"{value.dtype.name} with shape {value.shape}; use rt.gather to pick "
                                           "several elements"))
        if isinstance(value, EagerTensor):
            return int(value._value)
        dynamic.append(value)
        return ("input", len(dynamic) - 1)
    hint = " use rt.gather for a list of indices." if isinstance(value, (list, np.ndarray)) else ""
    raise TypeError(in_users_words(f"invalid index {value!r} of type {type(value).__name__}: {_VALID_KEYS}.{hint}"))


def _encode_key(key: Any) -> Tuple[tuple, List[Tensor]]:
    items = key if type(key) is tuple else (key,)
    dynamic: List[Tensor] = []
    encoded = []
    for item in items:
        if item is Ellipsis:
            if ("ellipsis",) in encoded:
                raise IndexError("an index can only have a single ellipsis ('...')")
            encoded.append(("ellipsis",))
        elif item is None:
            encoded.append(("newaxis",))
        elif type(item) is slice:
            encoded.append(("slice", _key_number(item.start, dynamic), _key_number(item.stop, dynamic),
                            _key_number(item.step, dynamic)))
        else:
            encoded.append(("index", _key_number(item, dynamic)))
    return tuple(encoded), dynamic


def slice_by_key(tensor: Any, key: Any) -> Tensor:
    """``tensor[key]`` with numpy basic indexing; indices may be scalar int tensors (even symbolic).

    An index out of range raises ``InvalidArgumentError`` at run time (``ValueError`` while tracing if
    the index and dimension are both known).

    >>> convert_to_tensor([10, 20, 30])[-1]
    Tensor(30, shape=(), dtype=int32)
    """
    tensor = convert_to_tensor(tensor)
    encoded, dynamic = _encode_key(key)
    return apply_op(STRIDED_SLICE, (tensor, *dynamic), {"key": encoded})


def _gather_infer(specs, attrs):
    (dtype, params_shape), (indices_dtype, indices_shape) = specs
    if indices_dtype not in _INDEX_DTYPES:
        raise TypeError(f"indices must be int32 or int64, got {indices_dtype.name}")
    if params_shape is None or indices_shape is None:
        return [(dtype, None)]
    axis = shapes.normalize_axis(attrs["axis"], len(params_shape), "GatherV2")
    return [(dtype, params_shape[:axis] + indices_shape + params_shape[axis + 1:])]


def _gather_kernel(params, indices, *, axis):
    size = params.shape[axis]
    out_of_range = (indices < 0) | (indices >= size)
    if out_of_range.any():
        position = tuple(int(i) for i in np.argwhere(out_of_range)[0])
        where = f"indices[{','.join(map(str, position))}]" if position else "indices"
        raise InvalidArgumentError(f"{where} = {indices[position]} is not in [0, {size})")
    return np.take(params, indices, axis=axis)


GATHER = register_op("GatherV2", ("params", "indices"), _gather_infer, _gather_kernel,
                     doc="Picks slices of params along attr 'axis' at the given indices.", attrs={"axis": INT})


def gather(params: Any, indices: Any, axis: Optional[int] = None, batch_dims: int = 0) -> Tensor:
    """The slices of ``params`` along ``axis`` at ``indices`` (an int tensor or list of any shape).

    An index outside ``[0, params.shape[axis])`` raises ``InvalidArgumentError`` when the op runs.
    ``axis`` defaults to ``batch_dims``. With ``batch_dims=b``, the first ``b`` dims of ``params`` and
    ``indices`` are batch dims: row ``i`` of the batch gathers from row ``i`` of ``params`` only, as in
    ``tf.gather``.

    >>> gather([10, 20, 30], [2, 0])
    Tensor([30 10], shape=(2,), dtype=int32)
    >>> gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]], batch_dims=1)
    Tensor([[3 1]
     [5 5]], shape=(2, 2), dtype=int32)
    """
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    if indices.dtype not in _INDEX_DTYPES:
        raise TypeError(f"GatherV2: indices must be int32 or int64, got {indices.dtype.name}")
    if batch_dims != 0:
        return _batched_gather(params, indices, shapes.axis_argument(batch_dims if axis is None else axis, "GatherV2"),
                               shapes.axis_argument(batch_dims, "GatherV2", "batch_dims"))
    axis = shapes.axis_argument(0 if axis is None else axis, "GatherV2")
    if params.ndim is not None:
        if not -params.ndim <= axis < params.ndim:
            raise ValueError(f"GatherV2: axis {axis} is out of range for params of shape {params.shape}")
        axis %= params.ndim
    elif axis < 0:
        raise ValueError("GatherV2: a negative axis needs params of known rank")
    return apply_op(GATHER, (params, indices), {"axis": axis})


def _batched_gather(params: Tensor, indices: Tensor, axis: int, batch_dims: int) -> Tensor:
    """``gather`` with leading batch dims: one ``GatherNd`` over (batch row, index) pairs, which checks every
    index against its own row (an index past a row's end must not read the next row)."""
    from runtime.ops.array_ops import reshape, transpose
    from runtime.ops.creation_ops import range as arange
    from runtime.ops.gradient_ops import broadcast_to
    from runtime.ops.rows_ops import concat, stack
    from runtime.ops.scatter_ops import gather_nd
    from runtime.ops.shape_ops import shape
    if params.ndim is None or indices.ndim is None:
        raise ValueError("gather with batch_dims needs params and indices of known rank")
    if batch_dims < 0:
        batch_dims += indices.ndim
    axis = int(axis) + (params.ndim if axis < 0 else 0)
    if not 0 <= batch_dims <= indices.ndim or batch_dims > params.ndim:
        raise ValueError(f"gather: batch_dims={batch_dims} must be in [0, {min(indices.ndim, params.ndim)}] for "
                         f"params of shape {params.shape} and indices of shape {indices.shape}")
    if not batch_dims <= axis < params.ndim:
        raise ValueError(f"gather: axis {axis} must be in [batch_dims={batch_dims}, {params.ndim}) for params of "
                         f"shape {params.shape}")
    outer = list(range(batch_dims, axis))           # params dims between the batch and the gathered axis
    rest = list(range(axis + 1, params.ndim))
    moved = transpose(params, list(range(batch_dims)) + [axis] + outer + rest)  # batch, axis, outer, rest
    params_shape, indices_shape = shape(moved), shape(indices)
    batch_shape = indices_shape[:batch_dims]
    rows = reshape(moved, concat([[-1], params_shape[batch_dims:]], 0))          # [B, axis, outer, rest]
    picked = reshape(indices, concat([[-1], indices_shape[batch_dims:]], 0))     # [B, I...]
    index_rank = indices.ndim - batch_dims
    row_of = reshape(arange(0, shape(picked)[0], dtype=picked.dtype), [-1] + [1] * index_rank)
    coordinates = stack([broadcast_to(row_of, shape(picked)), picked], axis=-1)
    gathered = gather_nd(rows, coordinates)                                      # [B, I..., outer, rest]
    result = reshape(gathered, concat([batch_shape, indices_shape[batch_dims:], params_shape[batch_dims + 1:]], 0))
    # TensorFlow's order: batch, outer, I..., rest
    first_outer = batch_dims + index_rank
    order = (list(range(batch_dims)) + list(range(first_outer, first_outer + len(outer)))
             + list(range(batch_dims, first_outer)) + list(range(first_outer + len(outer), result.ndim)))
    return result if not outer else transpose(result, order)


def _index_tuple(key: tuple, dynamic: Tuple[np.ndarray, ...]) -> tuple:
    index = []
    for item in key:
        kind = item[0]
        if kind == "index":
            index.append(_resolve(item[1], dynamic))
        elif kind == "slice":
            index.append(slice(_resolve(item[1], dynamic), _resolve(item[2], dynamic), _resolve(item[3], dynamic)))
        else:
            index.append(Ellipsis if kind == "ellipsis" else None)
    return tuple(index)


def _slice_update_infer(specs, attrs):
    (dtype, shape), (value_dtype, value_shape) = specs[:2]
    if value_dtype != dtype:
        raise TypeError(f"the new value must have the tensor's dtype {dtype.name}, got {value_dtype.name}")
    ((_, part_shape),) = _strided_slice_infer([specs[0], *specs[2:]], attrs)
    if part_shape is not None and value_shape is not None:
        try:
            fits = shapes.broadcast(part_shape, value_shape) == part_shape or None in part_shape
        except ValueError:
            fits = False
        if not fits or len(value_shape) > len(part_shape):
            raise ValueError(f"cannot assign a value of shape {shapes.format_shape(value_shape)} to a part of shape "
                             f"{shapes.format_shape(part_shape)}")
    return [(dtype, shape)]


def _slice_update_kernel(x, value, *dynamic, key):
    return _slice_update_in_place(x.copy(), value, *dynamic, key=key)  # tensors are immutable: a new one


def _slice_update_in_place(x, value, *dynamic, key):
    index = _index_tuple(key, dynamic)
    if any(item is None for item in index):
        raise ValueError("a new axis (None) cannot be assigned to")
    x[index] = value  # numpy copies value first if it overlaps x (e.g. d[1] = d[0])
    return x


STRIDED_SLICE_UPDATE = register_op(
    "TensorStridedSliceUpdate", ("input", "value", "*index"), _slice_update_infer, _slice_update_kernel,
    doc="A copy of input with input[key] = value (numpy broadcasting); attr 'key' as in StridedSlice.",
    in_place_kernel=_slice_update_in_place, attrs={"key": SLICE_KEY}, attrs_check=key_check(2))


def update_by_key(tensor: Any, key: Any, value: Any) -> Tensor:
    """A copy of ``tensor`` with ``tensor[key] = value`` applied: what ``x[key] = value`` becomes in converted code.

    ``key`` is anything ``tensor[key]`` accepts; ``value`` broadcasts to the selected part and takes the
    tensor's dtype. An index out of range raises ``InvalidArgumentError`` when the op runs.

    >>> update_by_key(convert_to_tensor([1, 2, 3, 4]), slice(1, 3), 0)
    Tensor([1 0 0 4], shape=(4,), dtype=int32)
    """
    tensor = convert_to_tensor(tensor)
    value = convert_to_tensor(value, tensor.dtype)
    encoded, dynamic = _encode_key(key)
    if ("newaxis",) in encoded:
        raise IndexError(f"cannot assign to a new axis (None) in the subscript {key!r}")
    return apply_op(STRIDED_SLICE_UPDATE, (tensor, value, *dynamic), {"key": encoded})


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _strided_slice_grad_infer(specs, attrs):
    return [(specs[1][0], attrs["static_shape"])]


def _strided_slice_grad_kernel(shape, grad, *dynamic, key, static_shape):
    out = np.zeros(tuple(shape.tolist()), dtype=grad.dtype)
    out[_index_tuple(key, dynamic)] = grad  # basic indexing selects each element at most once
    return out


STRIDED_SLICE_GRAD = register_op(
    "StridedSliceGrad", ("shape", "grad", "*index"), _strided_slice_grad_infer, _strided_slice_grad_kernel,
    doc="Zeros of 'shape' with 'grad' written at the subscript attr 'key' (the gradient of StridedSlice).",
    attrs={"key": SLICE_KEY, "static_shape": OPTIONAL_SHAPE}, attrs_check=key_check(2))


@register_gradient(STRIDED_SLICE)
def _strided_slice_gradient(op, grads, ops):
    x, dynamic = op.inputs[0], op.inputs[1:]
    shape = ops.shape(x)
    grad = apply_op(STRIDED_SLICE_GRAD, (shape, grads[0], *dynamic), {"key": op.attrs["key"],
                                                                      "static_shape": x.shape})
    return [grad] + [None] * len(dynamic)


@register_gradient(STRIDED_SLICE_GRAD)
def _strided_slice_grad_gradient(op, grads, ops):
    dynamic = op.inputs[2:]
    return [None, apply_op(STRIDED_SLICE, (grads[0], *dynamic), {"key": op.attrs["key"]})] + [None] * len(dynamic)


def _segment_sum_infer(specs, attrs):
    (dtype, data_shape), (ids_dtype, ids_shape), _ = specs
    if ids_dtype not in _INDEX_DTYPES:
        raise TypeError(f"segment_ids must be int32 or int64, got {ids_dtype.name}")
    if data_shape is None or ids_shape is None:
        return [(dtype, None)]
    return [(dtype, (attrs.get("static_num_segments"),) + data_shape[len(ids_shape):])]


def _segment_sum_kernel(data, segment_ids, num_segments, *, static_num_segments=None):
    count = int(num_segments)
    bad = (segment_ids < 0) | (segment_ids >= count)
    if bad.any():
        raise InvalidArgumentError(f"segment_ids contains {segment_ids[bad].flat[0]}, not in [0, {count})")
    out = np.zeros((count,) + data.shape[segment_ids.ndim:], dtype=data.dtype)
    np.add.at(out, segment_ids, data)
    return out


UNSORTED_SEGMENT_SUM = register_op(
    "UnsortedSegmentSum", ("data", "segment_ids", "num_segments"), _segment_sum_infer, _segment_sum_kernel,
    doc="Row i of the result is the sum of the data rows whose segment id is i.",
    attrs={"static_num_segments": STATIC_COUNT})


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any) -> Tensor:
    """Sums the slices of ``data`` into ``num_segments`` rows by ``segment_ids`` (the leading dims).

    >>> unsorted_segment_sum([1, 2, 3], [0, 1, 0], 2)
    Tensor([4 2], shape=(2,), dtype=int32)
    """
    data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    count = convert_to_tensor(num_segments, segment_ids.dtype)
    static = int(count._value) if isinstance(count, EagerTensor) else None
    return apply_op(UNSORTED_SEGMENT_SUM, (data, segment_ids, count), {"static_num_segments": static})


@register_gradient(UNSORTED_SEGMENT_SUM)
def _segment_sum_gradient(op, grads, ops):
    return [gather(grads[0], op.inputs[1]), None, None]


@register_gradient(GATHER)
def _gather_gradient(op, grads, ops):
    # Each params row gets the sum of the gradients of the result rows that picked it.
    params, indices = op.inputs
    grad, axis = grads[0], op.attrs["axis"]
    if params.ndim is None or indices.ndim is None:
        raise ValueError("gradient of GatherV2: params and indices need a known rank")
    index_axes = list(range(axis, axis + indices.ndim))
    rest = [a for a in range(grad.ndim) if a not in index_axes]
    moved = ops.transpose(grad, index_axes + rest) if axis else grad  # the picked rows first
    rows = ops.reshape(indices, [-1])
    if moved.shape is not None and None not in moved.shape[indices.ndim:]:
        flat = ops.reshape(moved, [-1, *moved.shape[indices.ndim:]])
    else:
        flat = ops.reshape(moved, ops.concat([ops.constant([-1]), ops.shape(moved)[indices.ndim:]], 0))
    size = params.shape[axis] if params.shape[axis] is not None else ops.shape(params)[axis]
    summed = unsorted_segment_sum(flat, rows, size)
    if axis:  # put the params axis back where it was
        summed = ops.transpose(summed, list(range(1, axis + 1)) + [0] + list(range(axis + 1, params.ndim)))
    return [summed, None]


@register_gradient(STRIDED_SLICE_UPDATE)
def _slice_update_gradient(op, grads, ops):
    value, dynamic = op.inputs[1], op.inputs[2:]
    grad, key = grads[0], op.attrs["key"]
    overwritten = apply_op(STRIDED_SLICE_UPDATE, (grad, ops.zeros([], grad.dtype), *dynamic), {"key": key})
    part = apply_op(STRIDED_SLICE, (grad, *dynamic), {"key": key})
    return [overwritten, unbroadcast(part, value)] + [None] * len(dynamic)
