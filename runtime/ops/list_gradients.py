"""Gradients of the tensor-list ops (TensorFlow's rules): the gradient of a list is a list.

The cotangent of a list handle is a list of the same length holding each element's cotangent. So the
rules mirror each other: ``stack`` <-> ``from_tensor`` (unstack), ``append`` <-> ``pop`` of the last
element, ``list[i]`` <-> writing into a list of zeros. Two ops exist only for gradients:
``TensorListZerosLike`` (the cotangent of a list nothing downstream reads: zeros shaped like each element)
and ``TensorListAddN`` (a list that reaches the target along two paths gets the elementwise sum).

>>> import runtime as rt
>>> @rt.function
... def grad(x):
...     items = rt.TensorList.empty(rt.float32, ()).append(x).append(x * x)
...     return rt.gradients(rt.reduce_sum(items.stack() * [1.0, 10.0]), x)[0]
>>> grad(rt.constant(3.0))  # d/dx (x + 10 x**2) = 1 + 20 x
Tensor(61.0, shape=(), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import GradientError, InvalidArgumentError
from runtime.core.graph import CONST
from runtime.core.registry import apply_op, gradient_not_implemented, not_differentiable, register_gradient, register_op
from runtime.core.tensor import EagerTensor, Tensor
from runtime.ops.list_ops import (TENSOR_LIST_CONCAT, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS,
                                  TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK, ListValue, _merged, _unwrap, _wrap)


def _zeros_like_kernel(handle):
    elements = _unwrap(handle).elements()
    return _wrap(ListValue([None if e is None else np.zeros_like(e) for e in elements], len(elements)))


TENSOR_LIST_ZEROS_LIKE = register_op(
    "TensorListZerosLike", ("handle",), lambda specs, attrs: [specs[0]], _zeros_like_kernel,
    doc="A new list of zeros shaped like each element of the list (a list's zero gradient).")


def _add_n_infer(specs, attrs):
    (_, a), (_, b) = specs
    return [(dtypes.variant, _merged(a, b, "the second list's elements"))]


def _add_n_kernel(a, b):
    first, second = _unwrap(a).elements(), _unwrap(b).elements()
    if len(first) != len(second):
        raise InvalidArgumentError(f"cannot add the gradients of lists of lengths {len(first)} and {len(second)}")
    summed = [y if x is None else x if y is None else x + y for x, y in zip(first, second)]
    return _wrap(ListValue(summed, len(summed)))


TENSOR_LIST_ADD_N = register_op("TensorListAddN", ("a", "b"), _add_n_infer, _add_n_kernel,
                                doc="The elementwise sum of two lists of one length (summing list gradients).")


def zeros_like_list(handle: Tensor) -> Tensor:
    """The zero gradient of a list: a list of zeros shaped like its elements."""
    return apply_op(TENSOR_LIST_ZEROS_LIKE, (handle,))


def add_lists(a: Tensor, b: Tensor) -> Tensor:
    """The sum of two gradients of one list, element by element."""
    return apply_op(TENSOR_LIST_ADD_N, (a, b))


def _element_attrs(op: Any) -> dict:
    array = op.attrs.get("array")
    if array is not None:  # a TensorArray's read/write/stack: its rules differ (unwritten elements, sizes)
        raise GradientError(
            f"the gradient of {op.op_def.name} on the TensorArray{f' {array!r}' if array else ''} (node {op.name}) "
            "is not implemented: TensorArray has no gradient rules yet; collect the values in a Python list "
            "instead (`values.append(x)` in the loop, then rt.stack(values)): tensor lists are differentiable")
    return {"element_dtype": op.attrs["element_dtype"]}


def _is_float(op: Any) -> bool:
    return dtypes.as_dtype(op.attrs["element_dtype"]).kind == "f"


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
    return [rest, element if _is_float(op) else None]


@register_gradient(TENSOR_LIST_POP)
def _pop_gradient(op, grads, ops):
    rest, element = grads
    if _int_constant(op.inputs[1]) != -1:
        raise GradientError(
            f"the gradient of popping an element other than the last from a tensor list (node {op.name}) is not "
            "implemented: only list.pop() (the last element) is differentiable; read the element with list[i] "
            "and rebuild the list without it, or stack the list and slice it")
    if element is None:
        element = ops.zeros_like(op.outputs[1])
    return [apply_op(TENSOR_LIST_PUSH_BACK, (rest, element), _element_attrs(op)), None]


@register_gradient(TENSOR_LIST_GET_ITEM)
def _get_item_gradient(op, grads, ops):
    handle, index = op.inputs
    zeros = zeros_like_list(handle)
    return [apply_op(TENSOR_LIST_SET_ITEM, (zeros, index, grads[0]), _element_attrs(op)), None]


@register_gradient(TENSOR_LIST_SET_ITEM)
def _set_item_gradient(op, grads, ops):
    _, index, element = op.inputs
    attrs = _element_attrs(op)
    rest = apply_op(TENSOR_LIST_SET_ITEM, (grads[0], index, ops.zeros_like(element)), attrs)
    element_grad = apply_op(TENSOR_LIST_GET_ITEM, (grads[0], index), attrs) if _is_float(op) else None
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


not_differentiable(TENSOR_LIST_LENGTH, "a list's length is an integer")
gradient_not_implemented(TENSOR_LIST_CONCAT, "the gradient of concatenating a tensor list's elements is not "
                                             "implemented; append same-shaped elements and use rt.stack(list) "
                                             "(then reshape) instead")

