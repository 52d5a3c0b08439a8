"""Tensor lists: a list of tensors of one dtype that grows inside graph loops.

A ``TensorList`` is a handle tensor (dtype ``variant``) plus its element dtype. The handle's static shape
*is the shape of the elements* (``None`` where elements differ), so a loop that appends elements of a new
size relaxes it like any loop variable. ``TensorList`` values are immutable: ``append``, ``pop`` and
``set_item`` return a new list, and the old one keeps its contents.

At run time a handle holds a ``ListValue`` (list_values.py): a Python list of arrays shared between versions
of one list plus a length. Appending to the newest version appends in place (amortized O(1), no copying); appending to
an older version (whose storage another version already extended) copies first, so versions never see
each other's elements. ``rt.stack`` / ``rt.concat`` copy once, at the end.

>>> items = TensorList.empty(int32, ())
>>> items = items.append(1).append(2).append(3)
>>> items.stack()
Tensor([1 2 3], shape=(3,), dtype=int32)
>>> items[-1]
Tensor(3, shape=(), dtype=int32)
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from runtime.core import dtypes, shapes
from runtime.core.dtypes import int32  # noqa: F401  (the docstring example)
from runtime.core.errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from runtime.core.attrs import BOOL, DTYPE, INT, OPTIONAL_COUNT, OPTIONAL_SHAPE, TEXT, omittable
from runtime.core.registry import apply_op, register_op
from runtime.core.tensor import EagerTensor, Shape, Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.list_values import (ListValue, all_elements, array_position, checked_shape, is_compatible, label,
                                     read_element, refined, written_one)
from runtime.ops.list_values import unwrap as _unwrap, wrap as _wrap

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _position(value: ListValue, index: np.ndarray, what: str) -> int:
    position = int(index)
    if not -value.length <= position < value.length:
        raise InvalidArgumentError(f"{what} index {position} is out of range for a list of length {value.length}")
    return position % value.length


def _merged(a: Shape, b: Shape, what: str) -> Shape:
    """The element shape of a list holding elements of shapes ``a`` and ``b``: dims that differ are None."""
    if a is None or b is None:
        return None
    if len(a) != len(b):
        raise ValueError(f"{what} has rank {len(b)} but the list's elements have rank {len(a)} (shape "
                         f"{shapes.format_shape(a)}); all elements of a tensor list must have the same rank")
    return tuple(x if x == y else None for x, y in zip(a, b))


def _check_element(element_dtype, spec, what: str) -> None:
    if spec[0] != element_dtype:
        raise TypeError(f"{what} has dtype {spec[0].name} but the list holds {element_dtype.name} elements; "
                        f"all elements of a tensor list have one dtype (convert with rt.cast)")


# --- ops --------------------------------------------------------------------------------------------
def _from_tensors_infer(specs, attrs):
    shape = attrs["element_shape"]
    for number, spec in enumerate(specs):
        _check_element(attrs["element_dtype"], spec, f"element {number}")
        shape = _merged(shape, spec[1], f"element {number}")
    return [(dtypes.variant, shape)]


# Attr ``array``: the TensorArray's name in messages ("" if none); the kernels default it.
ARRAY_NAME = omittable(TEXT)
TENSOR_LIST_FROM_TENSORS = register_op(
    "TensorListFromTensors", ("*element",), _from_tensors_infer,
    lambda *elements, element_dtype, element_shape: _wrap(ListValue(list(elements), len(elements))),
    stateful=True,  # each run makes a new list (never folded into a shared constant)
    doc="A new tensor list holding the inputs (attrs element_dtype, element_shape).",
    attrs={"element_dtype": DTYPE, "element_shape": OPTIONAL_SHAPE})


def _from_tensor_infer(specs, attrs):
    (dtype, shape), = specs
    if shape is not None and not shape:
        raise ValueError("cannot unstack a scalar into a list; give a tensor of rank >= 1")
    _check_element(attrs["element_dtype"], (dtype, shape), "the tensor")
    return [(dtypes.variant, None if shape is None else tuple(shape[1:]))]


def _from_tensor_kernel(tensor, *, element_dtype):
    if tensor.ndim == 0:
        raise ValueError("cannot unstack a scalar into a list")
    return _wrap(ListValue(list(tensor), len(tensor)))


TENSOR_LIST_FROM_TENSOR = register_op(
    "TensorListFromTensor", ("tensor",), _from_tensor_infer, _from_tensor_kernel, stateful=True,
    doc="A new tensor list of the rows of tensor (unstack along axis 0).", attrs={"element_dtype": DTYPE})


def _push_back_infer(specs, attrs):
    (_, shape), element = specs
    _check_element(attrs["element_dtype"], element, "the appended element")
    return [(dtypes.variant, _merged(shape, element[1], "the appended element"))]


def push_back_unwrapped(handle, element) -> ListValue:
    """The list ``handle`` with ``element`` appended, as a bare ``ListValue``: what the compiled executor
    calls in a loop body (every list kernel unwraps a bare value; wrapping costs a 0-d object array)."""
    value = _unwrap(handle)
    items = value.items
    if len(items) != value.length:  # a newer version already extended the shared storage: copy
        items = items[:value.length]
    items.append(element)
    return ListValue(items, value.length + 1)


def _push_back_kernel(handle, element, *, element_dtype):
    return _wrap(push_back_unwrapped(handle, element))


TENSOR_LIST_PUSH_BACK = register_op(
    "TensorListPushBack", ("handle", "element"), _push_back_infer, _push_back_kernel,
    doc="The list with element appended (amortized O(1): the newest version appends in place).",
    attrs={"element_dtype": DTYPE})


def _pop_infer(specs, attrs):
    (_, shape), (index_dtype, index_shape) = specs
    if index_dtype not in _INDEX_DTYPES or index_shape not in ((), None):
        raise TypeError(f"the index must be an int32/int64 scalar, got {index_dtype.name}")
    return [(dtypes.variant, shape), (attrs["element_dtype"], shape)]


def _pop_kernel(handle, index, *, element_dtype):
    value = _unwrap(handle)
    if value.length == 0:
        raise InvalidArgumentError("pop from an empty list")
    position = _position(value, index, "pop")
    if position == value.length - 1:  # the common case shares the storage: no copy
        return _wrap(ListValue(value.items, value.length - 1)), value.items[position]
    items = value.elements()
    element = items.pop(position)
    return _wrap(ListValue(items, len(items))), element


TENSOR_LIST_POP = register_op("TensorListPopItem", ("handle", "index"), _pop_infer, _pop_kernel,
                              doc="The list without element 'index' (Python's index rules), and that element.",
                              attrs={"element_dtype": DTYPE})


def known_element_shape(handle_shape: Shape, attrs: dict) -> Shape:
    """The element shape a reading op's output has: the handle's static shape, refined by the op's attr
    ``element_shape`` (a TensorArray's shape learned from its writes, which a loop's relaxed handle lost)."""
    declared = attrs.get("element_shape")
    if not is_compatible(handle_shape, declared):
        return handle_shape
    return refined(handle_shape, declared)


def _get_item_infer(specs, attrs):
    (_, shape), (index_dtype, index_shape) = specs[:2]
    if index_dtype not in _INDEX_DTYPES or index_shape not in ((), None):
        raise TypeError(f"a list index must be an int32/int64 scalar, got {index_dtype.name} with shape "
                        f"{shapes.format_shape(index_shape)}")
    return [(attrs["element_dtype"], known_element_shape(shape, attrs))]


def _get_item_kernel(handle, index, *, element_dtype, array=None, element_shape=None):
    value = _unwrap(handle)
    if array is None:
        return value.items[_position(value, index, "list")]
    return read_element(value, array_position(value, index, array, "read"), array, "read")


TENSOR_LIST_GET_ITEM = register_op(
    "TensorListGetItem", ("handle", "index"), _get_item_infer, _get_item_kernel,
    doc="Element 'index' of the list (negative counts from the end; attr 'array': TensorArray rules; optional attr "
        "'element_shape': the elements' shape as known while tracing).",
    attrs={"element_dtype": DTYPE, "array": ARRAY_NAME, "element_shape": omittable(OPTIONAL_SHAPE)})


def _set_item_infer(specs, attrs):
    (_, shape), index, element = specs
    _get_item_infer(specs[:2], attrs)
    array = attrs.get("array")
    _check_element(attrs["element_dtype"], element, "the new element" if array is None else "the written value")
    if array is None:
        return [(dtypes.variant, _merged(shape, element[1], "the new element"))]
    return [(dtypes.variant, array_element_shape(shape, element[1], array, attrs.get("same_shape", False)))]


def array_element_shape(shape: Shape, written_shape: Shape, array: str, same_shape: bool) -> Shape:
    """A TensorArray's static element shape after a write of ``written_shape`` (ValueError if it cannot fit)."""
    if not is_compatible(shape, written_shape):
        raise ValueError(f"{label(array)}: cannot write a value of shape {shapes.format_shape(written_shape)}: the "
                         f"array's elements have shape {shapes.format_shape(shape)}" +
                         ("; with infer_shape=True all elements have one shape (make the array with "
                          "infer_shape=False to allow different shapes)" if same_shape else ""))
    return refined(shape, written_shape) if same_shape else shape


def _set_item_kernel(handle, index, element, *, element_dtype, array=None, grow=False, same_shape=False):
    value = _unwrap(handle)
    if array is None:
        items = value.elements()  # a copy: older versions keep their element
        items[_position(value, index, "list assignment")] = element
        return _wrap(ListValue(items, len(items)))
    position = array_position(value, index, array, "write", grow)
    shape = checked_shape(value, element.shape, array, position, same_shape)
    return _wrap(written_one(value, position, element, shape))


TENSOR_LIST_SET_ITEM = register_op(
    "TensorListSetItem", ("handle", "index", "element"), _set_item_infer, _set_item_kernel,
    doc="The list with element 'index' replaced (copies the list). With attr 'array' (a TensorArray's name): "
        "TensorFlow's rules; 'grow' lets the write extend the array, 'same_shape' makes every element one shape; "
        "a write past the end of the newest version does not copy.",
    attrs={"element_dtype": DTYPE, "array": ARRAY_NAME, "grow": omittable(BOOL),
           "same_shape": omittable(BOOL)})


def _length_kernel(handle):
    return np.array(_unwrap(handle).size, dtype=np.int32)


TENSOR_LIST_LENGTH = register_op("TensorListLength", ("handle",), lambda specs, attrs: [(dtypes.int32, ())],
                                 _length_kernel, doc="The number of elements (int32).")


def _stack_infer(specs, attrs):
    (_, shape), = specs
    shape = known_element_shape(shape, attrs)
    return [(attrs["element_dtype"], None if shape is None else (attrs.get("length"),) + tuple(shape))]


def _stack_kernel(handle, *, element_dtype, element_shape, array=None, length=None):
    value = _unwrap(handle)
    elements = all_elements(value, array, "stack")
    if value.shape is not None:
        element_shape = value.shape
    if not elements:
        if element_shape is None or None in element_shape:
            raise InvalidArgumentError(f"cannot stack an empty list whose element shape "
                                       f"{shapes.format_shape(element_shape)} is not fully known")
        return np.zeros((0,) + tuple(element_shape), dtype=element_dtype)
    shapes_seen = {e.shape for e in elements}
    if len(shapes_seen) > 1:
        raise InvalidArgumentError(f"cannot stack list elements of different shapes {sorted(shapes_seen)}; "
                                   "use rt.concat(list, axis) to join them along an existing axis")
    if getattr(elements[0], "dtype", None) in (None, object):
        return np.stack(elements)
    # Elements of one shape and dtype: np.array stacks them as np.stack does, without np.stack's expand_dims
    # per element (a loop's 200 scalars: ~11 us instead of ~700)
    return np.array(elements)


TENSOR_LIST_STACK = register_op(
    "TensorListStack", ("handle",), _stack_infer, _stack_kernel,
    doc="The elements stacked along a new first axis (one copy); attr 'length': their number when known "
        "statically (a fixed-size TensorArray), 'array': TensorArray rules (every element written).",
    attrs={"element_dtype": DTYPE, "element_shape": OPTIONAL_SHAPE, "array": ARRAY_NAME,
           "length": omittable(OPTIONAL_COUNT)})


def _concat_infer(specs, attrs):
    (_, shape), = specs
    if shape is None:
        return [(attrs["element_dtype"], None)]
    axis = shapes.normalize_axis(attrs["axis"], len(shape), "TensorListConcat")
    return [(attrs["element_dtype"], tuple(None if i == axis else d for i, d in enumerate(shape)))]


def _concat_kernel(handle, *, element_dtype, axis, array=None):
    elements = all_elements(_unwrap(handle), array, "concatenate")
    if not elements:
        raise InvalidArgumentError("cannot concatenate an empty list")
    return np.concatenate(elements, axis=axis)


TENSOR_LIST_CONCAT = register_op("TensorListConcat", ("handle",), _concat_infer, _concat_kernel,
                                 doc="The elements joined along the existing axis 'axis' (one copy).",
                                 attrs={"element_dtype": DTYPE, "axis": INT, "array": ARRAY_NAME})


# their gradients: list_gradients.py


# --- the Python side ---------------------------------------------------------------------------------
def _index_tensor(index: Any, what: str) -> Tensor:
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer, Tensor)):
        raise TypeError(f"{what} must be an int or a scalar int tensor, got {type(index).__name__} {index!r}")
    return convert_to_tensor(index, dtypes.int32 if not isinstance(index, Tensor) else None)


class TensorList:
    """An immutable list of tensors of one dtype, as one handle tensor in the graph (see module doc).

    Usually made for you: a Python list that a tensor loop appends to becomes one (autograph_lite).
    """

    __slots__ = ("handle", "element_dtype", "name")

    def __init__(self, handle: Tensor, element_dtype: Any, name: Optional[str] = None):
        self.handle, self.element_dtype = handle, dtypes.as_dtype(element_dtype)
        self.name = name  # the variable it stands for, in error messages

    @classmethod
    def empty(cls, element_dtype: Any, element_shape: Shape = None) -> "TensorList":
        """A new empty list of ``element_dtype`` elements (shape ``element_shape``, None dims allowed)."""
        return cls.from_tensors((), element_dtype, element_shape)

    @classmethod
    def from_tensors(cls, elements: Sequence[Any], element_dtype: Any = None, element_shape: Shape = None,
                     name: Optional[str] = None) -> "TensorList":
        """A new list holding ``elements`` (numbers/arrays convert to ``element_dtype``)."""
        tensors = [convert_to_tensor(e, element_dtype) for e in elements]
        if element_dtype is None:
            if not tensors:
                raise ValueError("an empty TensorList needs an element dtype")
            element_dtype = tensors[0].dtype
        element_dtype = dtypes.as_dtype(element_dtype)
        if element_shape is None and tensors:
            element_shape = tensors[0].shape
        attrs = {"element_dtype": element_dtype,
                 "element_shape": None if element_shape is None else tuple(element_shape)}
        return cls(apply_op(TENSOR_LIST_FROM_TENSORS, tensors, attrs), element_dtype, name)

    @classmethod
    def from_tensor(cls, tensor: Any) -> "TensorList":
        """A new list of the rows of ``tensor`` (its first axis)."""
        tensor = convert_to_tensor(tensor)
        return cls(apply_op(TENSOR_LIST_FROM_TENSOR, (tensor,), {"element_dtype": tensor.dtype}), tensor.dtype)

    @property
    def element_shape(self) -> Shape:
        return self.handle.shape if not isinstance(self.handle, EagerTensor) else None

    def _attrs(self) -> dict:
        return {"element_dtype": self.element_dtype}

    def _new(self, handle: Tensor) -> "TensorList":
        return TensorList(handle, self.element_dtype, self.name)

    def _element(self, value: Any) -> Tensor:
        which = f"the list '{self.name}'" if self.name else "a tensor list"
        try:
            tensor = convert_to_tensor(value, None if isinstance(value, Tensor) else self.element_dtype)
        except TypeError as error:
            raise TypeError(f"cannot put {type(value).__name__} {value!r:.60} into {which} of "
                            f"{self.element_dtype.name} tensors: {error}") from None
        if tensor.dtype != self.element_dtype:
            raise TypeError(f"cannot put a {tensor.dtype.name} tensor into {which} of {self.element_dtype.name} "
                            f"elements; all elements of a tensor list have one dtype: convert it with "
                            f"rt.cast(value, rt.{self.element_dtype.name})")
        return tensor

    def append(self, value: Any) -> "TensorList":
        """A new list: this one with ``value`` at the end."""
        return self._new(apply_op(TENSOR_LIST_PUSH_BACK, (self.handle, self._element(value)), self._attrs()))

    def pop(self, index: Any = -1) -> Tuple["TensorList", Tensor]:
        """``(the list without element index, that element)``; IndexError rules as Python's list.pop."""
        handle, element = apply_op(TENSOR_LIST_POP, (self.handle, _index_tensor(index, "a pop index")),
                                   self._attrs())
        return self._new(handle), element

    def set_item(self, index: Any, value: Any) -> "TensorList":
        """A new list with element ``index`` replaced by ``value`` (copies the list when it runs)."""
        inputs = (self.handle, _index_tensor(index, "a list index"), self._element(value))
        return self._new(apply_op(TENSOR_LIST_SET_ITEM, inputs, self._attrs()))

    def __getitem__(self, index: Any) -> Tensor:
        if isinstance(index, slice):
            raise TypeError("a tensor list cannot be sliced; use rt.stack(list)[a:b]")
        return apply_op(TENSOR_LIST_GET_ITEM, (self.handle, _index_tensor(index, "a list index")), self._attrs())

    def length(self) -> Tensor:
        """The number of elements, an int32 tensor."""
        return apply_op(TENSOR_LIST_LENGTH, (self.handle,))

    def stack(self) -> Tensor:
        """The elements stacked along a new first axis (they must have one shape)."""
        attrs = {**self._attrs(), "element_shape": self.element_shape}
        return apply_op(TENSOR_LIST_STACK, (self.handle,), attrs)

    def concat(self, axis: int = 0) -> Tensor:
        """The elements joined along their existing axis ``axis``."""
        return apply_op(TENSOR_LIST_CONCAT, (self.handle,),
                        {**self._attrs(), "axis": shapes.axis_argument(axis, "TensorListConcat")})

    # nest: a tensor list is carried through loops and branches as its handle tensor
    def __rt_components__(self) -> List[Tensor]:
        return [self.handle]

    def __rt_from_components__(self, components: Sequence[Tensor]) -> "TensorList":
        return self._new(components[0])

    # Eagerly a tensor list is a Python list of tensors: its truth, length and elements exist now. While
    # tracing they exist only when the graph runs (converted code stages `if xs:`, len(xs) and `for x in xs`).
    def __bool__(self) -> bool:
        if not isinstance(self.handle, EagerTensor):
            raise OperatorNotAllowedInGraphError(
                "the truth value of a tensor list (len(list) > 0) is a tensor while tracing: test it with "
                "`if xs:` in converted code (ag.function), or with rt.greater(xs.length(), 0)")
        return int(self.length()) > 0

    def __len__(self) -> int:
        if not isinstance(self.handle, EagerTensor):
            raise TypeError("len() of a tensor list is a tensor while tracing: use list.length() (in converted "
                            "code len(list) works)")
        return int(self.length())

    def __iter__(self):
        if not isinstance(self.handle, EagerTensor):
            raise TypeError("a tensor list is iterated by a tensor loop while tracing: `for x in list` in "
                            "converted code, or rt.stack(list)")
        return iter([self[index] for index in range(int(self.length()))])

    def __repr__(self) -> str:
        return f"<TensorList of {self.element_dtype.name} elements, element shape " \
               f"{shapes.format_shape(self.element_shape)}>"
