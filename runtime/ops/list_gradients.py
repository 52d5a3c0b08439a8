"""Gradients of the tensor-list ops (TensorFlow's rules): the gradient of a list is a list.

The cotangent of a list handle is a list of the same length holding each element's cotangent. So the
rules mirror each other: ``stack`` <-> ``from_tensor`` (unstack), ``append`` <-> ``pop`` of the last
element, ``list[i]`` <-> writing into a list of zeros, ``pop(i)`` <-> inserting at ``i``, ``concat`` <->
splitting into pieces as long as the elements. ``rt.TensorArray``'s ops (attr ``array``) follow the same
rules with the array's index rules: ``write`` <-> ``read``, ``scatter`` <-> ``gather``; an element never
written has no gradient (``None`` in the cotangent list, which counts as zeros). Ops that exist only for
gradients: ``TensorListZerosLike`` (the cotangent of a list nothing downstream reads: zeros shaped like each
element), ``TensorListAddN`` (a list that reaches the target along two paths gets the elementwise sum),
``TensorListScatterAdd`` (a gather's gradient: rows added at their indices, repeated indices summed),
``TensorListInsertItem`` (the inverse of ``pop(i)``), ``TensorListSplitLike`` (a concat's gradient) and
``TensorListResize`` (a TensorArray split's gradient reads the first pieces' gradients).

>>> import runtime as rt
>>> @rt.function
... def grad(x):
...     items = rt.TensorList.empty(rt.float32, ()).append(x).append(x * x)
...     return rt.gradients(rt.reduce_sum(items.stack() * [1.0, 10.0]), x)[0]
>>> grad(rt.constant(3.0))  # d/dx (x + 10 x**2) = 1 + 20 x
Tensor(61.0, shape=(), dtype=float32)
>>> x = rt.constant([1.0, 2.0])
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     array = rt.TensorArray(rt.float32, size=3).write(0, x).write(2, x * x)
...     loss = rt.reduce_sum(array.gather([2, 2, 0]))   # element 2 twice: its gradient counts twice
>>> tape.gradient(loss, x)   # 1 + 2 * 2x
Tensor([5. 9.], shape=(2,), dtype=float32)
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     pieces = rt.TensorArray(rt.float32, size=2, infer_shape=False).split(x * x, [1, 1])
...     loss = rt.reduce_sum(pieces.read(1))
>>> tape.gradient(loss, x)   # d/dx of x[1]**2
Tensor([0. 4.], shape=(2,), dtype=float32)
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     items = rt.TensorList.from_tensors([x, x * 3.0, x[:1]])
...     rest, middle = items.pop(1)
...     loss = rt.reduce_sum(middle) + rt.reduce_sum(rest.concat() * [10.0, 20.0, 30.0])
>>> tape.gradient(loss, x)   # 3 from the popped x * 3; 10 + 30 and 20 from the concatenated x and x[:1]
Tensor([43. 23.], shape=(2,), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import GradientError, InvalidArgumentError
from runtime.core.graph import CONST
from runtime.core.attrs import DTYPE, INT
from runtime.core.registry import apply_op, not_differentiable, register_gradient, register_op
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core import shapes
from runtime.ops.list_ops import (TENSOR_LIST_CONCAT, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS,
                                  TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK, ListValue, _merged, _position, _unwrap,
                                  _wrap)
from runtime.ops.tensor_array_ops import TENSOR_LIST_GATHER, TENSOR_LIST_RESERVE, TENSOR_LIST_SCATTER, TENSOR_LIST_SPLIT


def _zeros_like_kernel(handle):
    elements = _unwrap(handle).elements()
    return _wrap(ListValue([_zeros_like_element(e) for e in elements], len(elements)))


def _zeros_like_element(element):
    """Zeros like an array; a list of zeros like a list held in a list (the accumulators of a nested loop)."""
    if element is None:
        return None
    if _holds_list(element):
        return _zeros_like_kernel(element)
    return np.zeros_like(element)


def _holds_list(element) -> bool:
    return isinstance(element, ListValue) or (type(element) is np.ndarray and element.dtype == object)


TENSOR_LIST_ZEROS_LIKE = register_op(
    "TensorListZerosLike", ("handle",), lambda specs, attrs: [specs[0]], _zeros_like_kernel,
    doc="A new list of zeros shaped like each element of the list (a list's zero gradient).")


def _add_n_infer(specs, attrs):
    (_, a), (_, b) = specs
    return [(dtypes.variant, _merged(a, b, "the second list's elements"))]


def _add_n_kernel(a, b):
    """Element by element; the shorter list counts as ending in None (no gradient): the gradients of one
    TensorArray that grew (dynamic_size) may come from versions of different sizes."""
    first, second = _unwrap(a).elements(), _unwrap(b).elements()
    longer = max(len(first), len(second))
    first, second = first + [None] * (longer - len(first)), second + [None] * (longer - len(second))
    summed = [y if x is None else x if y is None else _add_n_kernel(x, y) if _holds_list(x) else x + y
              for x, y in zip(first, second)]
    return _wrap(ListValue(summed, len(summed)))


TENSOR_LIST_ADD_N = register_op("TensorListAddN", ("handle", "other_handle"), _add_n_infer, _add_n_kernel,
                                doc="The elementwise sum of two lists (summing list gradients; None elements count "
                                    "as zeros).")


def _scatter_add_infer(specs, attrs):
    (_, shape), (dtype, tensor_shape), _ = specs
    return [(dtypes.variant, None if shape is None or tensor_shape is None else
             _merged(shape, tuple(tensor_shape[1:]), "the added rows"))]


def _scatter_add_kernel(handle, tensor, indices, *, element_dtype):
    elements = _unwrap(handle).elements()
    for index, row in zip(np.asarray(indices).reshape(-1), tensor):
        position = int(index)
        if not 0 <= position < len(elements):
            raise InvalidArgumentError(f"cannot add a row at index {position} of a list of length {len(elements)}")
        elements[position] = row.copy() if elements[position] is None else elements[position] + row
    return _wrap(ListValue(elements, len(elements)))


TENSOR_LIST_SCATTER_ADD = register_op(
    "TensorListScatterAdd", ("handle", "tensor", "indices"), _scatter_add_infer, _scatter_add_kernel,
    doc="The list with row k of tensor added to element indices[k] (None counts as zeros; repeated indices "
        "add up): the gradient of TensorListGather.", attrs={"element_dtype": DTYPE})


def _insert_infer(specs, attrs):
    (_, shape), _, element = specs
    return [(dtypes.variant, _merged(shape, element[1], "the inserted element"))]


def _insert_kernel(handle, index, element, *, element_dtype):
    elements = _unwrap(handle).elements()
    grown = ListValue(elements + [None], len(elements) + 1)
    elements.insert(_position(grown, index, "insert"), element)
    return _wrap(ListValue(elements, len(elements)))


TENSOR_LIST_INSERT = register_op(
    "TensorListInsertItem", ("handle", "index", "element"), _insert_infer, _insert_kernel,
    doc="The list with element inserted so that it is at 'index' of the result (negative counts from the end "
        "of the result): the inverse of TensorListPopItem, and its gradient.", attrs={"element_dtype": DTYPE})


def _resize_kernel(handle, size, *, element_dtype):
    elements, size = _unwrap(handle).elements(), int(size)
    if size < 0:
        raise InvalidArgumentError(f"cannot resize a list to {size} elements")
    elements = elements[:size] + [None] * (size - len(elements))
    return _wrap(ListValue(elements, size))


TENSOR_LIST_RESIZE = register_op(
    "TensorListResize", ("handle", "size"), lambda specs, attrs: [specs[0]], _resize_kernel,
    doc="The list cut to its first 'size' elements, or padded with unwritten ones (None: no gradient).",
    attrs={"element_dtype": DTYPE})


def _split_like_infer(specs, attrs):
    (_, shape), _ = specs
    return [(dtypes.variant, shape)]


def _split_like_kernel(handle, tensor, *, element_dtype, axis):
    elements = _unwrap(handle).elements()
    if any(e is None for e in elements):
        raise InvalidArgumentError("cannot split like a list with unwritten elements")
    if not elements:
        return _wrap(ListValue([], 0))
    axis = shapes.normalize_axis(axis, tensor.ndim, "TensorListSplitLike")
    ends = np.cumsum([e.shape[axis] for e in elements])
    if ends[-1] != tensor.shape[axis]:
        raise InvalidArgumentError(f"cannot split {tensor.shape[axis]} rows into pieces of {int(ends[-1])}")
    pieces = np.split(tensor, ends[:-1], axis=axis)
    return _wrap(ListValue(pieces, len(pieces)))


TENSOR_LIST_SPLIT_LIKE = register_op(
    "TensorListSplitLike", ("handle", "tensor"), _split_like_infer, _split_like_kernel,
    doc="tensor split along 'axis' into a list of pieces as long as the list's elements are along it (the "
        "gradient of TensorListConcat).", attrs={"element_dtype": DTYPE, "axis": INT})


def zeros_like_list(handle: Tensor) -> Tensor:
    """The zero gradient of a list: a list of zeros shaped like its elements."""
    return apply_op(TENSOR_LIST_ZEROS_LIKE, (handle,))


def add_lists(a: Tensor, b: Tensor) -> Tensor:
    """The sum of two gradients of one list, element by element."""
    return apply_op(TENSOR_LIST_ADD_N, (a, b))


def _element_attrs(op: Any) -> dict:
    return {"element_dtype": op.attrs["element_dtype"]}


def _indexing_attrs(op: Any) -> dict:
    """Attrs for reading a cotangent list like ``op`` reads its list: a TensorArray's rules (no negative index,
    an error for an element that has no gradient where the array was written) when ``op`` is an array's."""
    if op.attrs.get("array") is None:
        return _element_attrs(op)
    return {**_element_attrs(op), "array": op.attrs["array"]}


def _writing_attrs(op: Any) -> dict:
    """Attrs for writing into a cotangent list at the positions ``op`` reads or writes (elements of any shape
    for an array: its gradient lists follow no infer_shape rule)."""
    if op.attrs.get("array") is None:
        return _element_attrs(op)
    return {**_indexing_attrs(op), "grow": False, "same_shape": False}


def _is_float(op: Any) -> bool:
    return dtypes.as_dtype(op.attrs["element_dtype"]).kind == "f"


def _element_carries(op: Any) -> bool:
    """Whether an element of the list carries a gradient: a float, or a list (a nested loop's accumulator
    held by the enclosing loop's: its gradient is a list too)."""
    return _is_float(op) or dtypes.as_dtype(op.attrs["element_dtype"]) == dtypes.variant


def _int_constant(tensor: Tensor) -> Optional[int]:
    """The value of a constant (or eager) index; None when it is only known at run time."""
    op = getattr(tensor, "op", None)
    if op is not None and op.op_def is CONST:
        return int(op.attrs["value"])
    if isinstance(tensor, EagerTensor):
        return int(np.asarray(tensor.numpy()))
    return None


@register_gradient(TENSOR_LIST_FROM_TENSORS)
def _from_tensors_gradient(op, grads, ops):
    if not _is_float(op) or not op.inputs:
        return [None] * len(op.inputs)
    return [apply_op(TENSOR_LIST_GET_ITEM, (grads[0], ops.constant(i, dtypes.int32)), _element_attrs(op))
            for i in range(len(op.inputs))]


@register_gradient(TENSOR_LIST_FROM_TENSOR)
def _from_tensor_gradient(op, grads, ops):
    if not _is_float(op):
        return [None]
    shape = op.inputs[0].shape
    attrs = {**_element_attrs(op), "element_shape": None if shape is None else tuple(shape[1:])}
    return [apply_op(TENSOR_LIST_STACK, (grads[0],), attrs)]


@register_gradient(TENSOR_LIST_PUSH_BACK)
def _push_back_gradient(op, grads, ops):
    rest, element = apply_op(TENSOR_LIST_POP, (grads[0], ops.constant(-1, dtypes.int32)), _element_attrs(op))
    return [rest, element if _element_carries(op) else None]


@register_gradient(TENSOR_LIST_POP)
def _pop_gradient(op, grads, ops):
    rest, element = grads
    if element is None:
        element = (zeros_like_list(op.outputs[1]) if op.outputs[1].dtype == dtypes.variant
                   else ops.zeros_like(op.outputs[1]))
    if _int_constant(op.inputs[1]) == -1:  # list.pop(): append back (amortized O(1))
        return [apply_op(TENSOR_LIST_PUSH_BACK, (rest, element), _element_attrs(op)), None]
    return [apply_op(TENSOR_LIST_INSERT, (rest, op.inputs[1], element), _element_attrs(op)), None]


@register_gradient(TENSOR_LIST_GET_ITEM)
def _get_item_gradient(op, grads, ops):
    handle, index = op.inputs
    zeros = zeros_like_list(handle)
    return [apply_op(TENSOR_LIST_SET_ITEM, (zeros, index, grads[0]), _writing_attrs(op)), None]


@register_gradient(TENSOR_LIST_SET_ITEM)
def _set_item_gradient(op, grads, ops):
    _, index, element = op.inputs
    rest = apply_op(TENSOR_LIST_SET_ITEM, (grads[0], index, ops.zeros_like(element)), _writing_attrs(op))
    element_grad = apply_op(TENSOR_LIST_GET_ITEM, (grads[0], index), _indexing_attrs(op)) if _is_float(op) else None
    return [rest, None, element_grad]


@register_gradient(TENSOR_LIST_STACK)
def _stack_gradient(op, grads, ops):
    return [apply_op(TENSOR_LIST_FROM_TENSOR, (grads[0],), _element_attrs(op))]


@register_gradient(TENSOR_LIST_ADD_N)
def _add_n_gradient(op, grads, ops):
    return [grads[0], grads[0]]


@register_gradient(TENSOR_LIST_ZEROS_LIKE)
def _zeros_like_gradient(op, grads, ops):
    return [None]


@register_gradient(TENSOR_LIST_CONCAT)
def _concat_gradient(op, grads, ops):
    return [apply_op(TENSOR_LIST_SPLIT_LIKE, (op.inputs[0], grads[0]),
                     {**_element_attrs(op), "axis": op.attrs["axis"]})]


@register_gradient(TENSOR_LIST_SCATTER_ADD)
def _scatter_add_gradient(op, grads, ops):
    handle, tensor, indices = op.inputs
    rows = apply_op(TENSOR_LIST_GATHER, (grads[0], indices), {**_element_attrs(op), "element_shape": None, "array": ""})
    return [grads[0], rows if _is_float(op) else None, None]


@register_gradient(TENSOR_LIST_INSERT)
def _insert_gradient(op, grads, ops):
    rest, element = apply_op(TENSOR_LIST_POP, (grads[0], op.inputs[1]), _element_attrs(op))
    return [rest, None, element if _is_float(op) else None]


@register_gradient(TENSOR_LIST_SPLIT_LIKE)
def _split_like_gradient(op, grads, ops):
    joined = apply_op(TENSOR_LIST_CONCAT, (grads[0],), {**_element_attrs(op), "axis": op.attrs["axis"]})
    return [None, joined if _is_float(op) else None]


# --- TensorArray-only ops --------------------------------------------------------------------------------
@register_gradient(TENSOR_LIST_RESERVE)
def _reserve_gradient(op, grads, ops):
    return [None]  # the size


@register_gradient(TENSOR_LIST_GATHER)
def _gather_gradient(op, grads, ops):
    handle, indices = op.inputs
    summed = apply_op(TENSOR_LIST_SCATTER_ADD, (zeros_like_list(handle), grads[0], indices), _element_attrs(op))
    return [summed, None]


@register_gradient(TENSOR_LIST_SCATTER)
def _scatter_gradient(op, grads, ops):
    """The rows' gradients are the cotangent's elements at the indices; a row that a later row with the same
    index overwrote (the last write wins) gets zeros."""
    handle, tensor, indices = op.inputs
    rest = apply_op(TENSOR_LIST_SCATTER, (grads[0], ops.zeros_like(tensor), indices), _writing_attrs(op))
    if not _is_float(op):
        return [rest, None, None]
    rows = apply_op(TENSOR_LIST_GATHER, (grads[0], indices),
                    {**_indexing_attrs(op), "element_shape": None if tensor.shape is None else tensor.shape[1:]})
    return [rest, ops.where(_kept_rows(indices, tensor, ops), rows, ops.zeros_like(rows)), None]


def _kept_rows(indices: Tensor, tensor: Tensor, ops: Any) -> Tensor:
    """Bool per row of ``tensor``, shaped to broadcast against it: no later row has the same index. Found by
    a stable sort of the indices (a row is kept when the next one in sorted order has another index), so the
    cost is O(k log k) for k rows, not a k x k comparison (an unstack of 10,000 rows scatters 10,000)."""
    rank = None if tensor.shape is None else len(tensor.shape)
    if rank is None:
        raise GradientError("the gradient of TensorArray.scatter needs the scattered value's rank")
    order = ops.argsort(indices)
    ordered = ops.gather(indices, order)
    following = ops.concat([ordered[1:], ordered[:1] * 0 - 1], 0)  # indices are >= 0: -1 follows the last
    last_in_order = ops.cast(ops.not_equal(ordered, following), dtypes.int32)
    kept = ops.scatter_nd(ops.expand_dims(order, 1), last_in_order, ops.shape(indices)) > 0
    return ops.reshape(kept, [-1] + [1] * (rank - 1))


@register_gradient(TENSOR_LIST_SPLIT)
def _split_gradient(op, grads, ops):
    """The value's gradient joins the gradients of the pieces (elements 0..n-1); they are zeros in the rest."""
    handle, tensor, lengths = op.inputs
    rest = apply_op(TENSOR_LIST_SPLIT, (grads[0], ops.zeros_like(tensor), lengths), _writing_attrs(op))
    if not _is_float(op):
        return [rest, None, None]
    pieces = apply_op(TENSOR_LIST_RESIZE, (grads[0], ops.shape(lengths)[0]), _element_attrs(op))
    no_rows = ops.zeros_like(tensor[:0])  # first: concatenating zero pieces (of a value with no rows) is no error
    pieces = apply_op(TENSOR_LIST_INSERT, (pieces, ops.constant(0, dtypes.int32), no_rows), _element_attrs(op))
    joined = apply_op(TENSOR_LIST_CONCAT, (pieces,), {**_element_attrs(op), "axis": 0, "array": op.attrs["array"]})
    return [rest, joined, None]


@register_gradient(TENSOR_LIST_RESIZE)
def _resize_gradient(op, grads, ops):
    size = apply_op(TENSOR_LIST_LENGTH, (op.inputs[0],))
    return [apply_op(TENSOR_LIST_RESIZE, (grads[0], size), _element_attrs(op)), None]


not_differentiable(TENSOR_LIST_LENGTH, "a list's length is an integer")

