"""``rt.TensorArray``: TensorFlow's ``tf.TensorArray``, on the tensor-list handle (list_ops, list_values).

An array of ``size`` tensors of one dtype, written once per step of a loop and stacked at the end. Like
every value here it is immutable: ``write``, ``scatter`` and ``unstack`` return a new array (write
``ta = ta.write(i, x)``; TensorFlow's eager arrays also change in place, its graph arrays do not). The same
code runs eagerly, traced, and as the state of ``rt.while_loop`` or a converted tensor loop.

TensorFlow's rules, with errors where TensorFlow would give made-up values:
- indices start at 0 (no negative indices); reading or writing past the size is an error, except that
  writes to a ``dynamic_size=True`` array grow it;
- reading (or stacking, gathering, concatenating) an element never written is an error naming it
  (TensorFlow gives zeros when the element shape is known);
- with ``infer_shape=True`` (the default) every element has one shape, checked when it is written;
- ``clear_after_read`` is accepted and ignored (reads never clear), as in TensorFlow's graph arrays.

>>> ta = TensorArray(float32, size=0, dynamic_size=True)
>>> ta = ta.write(0, 10).write(1, 20).write(2, 30)
>>> ta.read(1)
Tensor(20.0, shape=(), dtype=float32)
>>> ta.stack()
Tensor([10. 20. 30.], shape=(3,), dtype=float32)
>>> ta.size(), ta.element_shape
(Tensor(3, shape=(), dtype=int32), TensorShape([]))
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from runtime.core import dtypes, shapes
from runtime.core.errors import InvalidArgumentError, OperatorNotAllowedInGraphError, in_users_words
from runtime.core.dtypes import float32, int32  # noqa: F401  (the docstring examples)
from runtime.core.attrs import BOOL, DTYPE, OPTIONAL_SHAPE, TEXT
from runtime.core.registry import apply_op, register_op
from runtime.core.shapes import TensorShape, as_shape_tuple
from runtime.core.tensor import EagerTensor, Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.creation_ops import range as range_
from runtime.ops.shape_ops import shape
from runtime.ops.list_ops import (ARRAY_NAME, TENSOR_LIST_CONCAT, TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK, array_element_shape, known_element_shape)
from runtime.ops.list_values import (ListValue, array_position, checked_shape, label, read_element, refined, unwrap,
                                     wrap, written)

_INT_DTYPES = (dtypes.int32, dtypes.int64)
_NOTHING_WRITTEN = object()   # a TensorArray's learned element shape before its first write (None: unknown rank)


# --- ops --------------------------------------------------------------------------------------------
def _reserve_infer(specs, attrs):
    (dtype, shape), = specs
    if dtype not in _INT_DTYPES or shape not in ((), None):
        raise TypeError(f"a TensorArray's size must be an int32/int64 scalar, got {dtype.name} with shape "
                        f"{shapes.format_shape(shape)}")
    return [(dtypes.variant, attrs["element_shape"])]


def _reserve_kernel(num_elements, *, element_dtype, element_shape, array=""):
    size = int(num_elements)
    if size < 0:
        raise ValueError(f"{label(array)}: the size must be >= 0, got {size}")
    return wrap(ListValue([], 0, size, element_shape))


TENSOR_LIST_RESERVE = register_op(
    "TensorListReserve", ("num_elements",), _reserve_infer, _reserve_kernel,
    stateful=True,  # each run makes a new array (never folded into a shared constant)
    doc="A new list of num_elements unwritten elements (attrs element_dtype, element_shape, array).",
    attrs={"element_dtype": DTYPE, "element_shape": OPTIONAL_SHAPE, "array": ARRAY_NAME})


def _indices_infer(index_spec, what: str):
    dtype, shape = index_spec
    if dtype not in _INT_DTYPES or (shape is not None and len(shape) != 1):
        raise TypeError(f"{what} indices must be a 1-D int32/int64 tensor, got {dtype.name} with shape "
                        f"{shapes.format_shape(shape)}")
    return None if shape is None else shape[0]


def _gather_infer(specs, attrs):
    (_, shape), indices = specs
    shape = known_element_shape(shape, attrs)
    count = _indices_infer(indices, "gather")
    return [(attrs["element_dtype"], None if shape is None else (count,) + tuple(shape))]


def _gather_kernel(handle, indices, *, element_dtype, element_shape, array=""):
    value = unwrap(handle)
    elements = [read_element(value, array_position(value, index, array, "gather"), array, "gather")
                for index in np.asarray(indices).reshape(-1)]
    if elements:
        return np.stack(elements)
    known = value.shape if value.shape is not None else element_shape
    if known is None or None in known:
        raise ValueError(f"{label(array)}: cannot gather no elements when the element shape "
                         f"{shapes.format_shape(known)} is not fully known")
    return np.zeros((0,) + tuple(known), dtype=element_dtype)


TENSOR_LIST_GATHER = register_op("TensorListGather", ("handle", "indices"), _gather_infer, _gather_kernel,
                                 doc="The elements at indices, stacked (TensorArray rules; attr array).",
                                 attrs={"element_dtype": DTYPE, "element_shape": OPTIONAL_SHAPE, "array": ARRAY_NAME})


def _check_rows_written(attrs, dtype, tensor_shape, written: str, action: str) -> None:
    """The value a scatter or split writes row by row: of the array's dtype, not a scalar."""
    if dtype != attrs["element_dtype"]:
        raise TypeError(f"{label(attrs['array'])} holds {attrs['element_dtype'].name} elements but the {written} "
                        f"value is {dtype.name}")
    if tensor_shape is not None and not tensor_shape:
        raise ValueError(f"{label(attrs['array'])}: cannot {action} a scalar; give a tensor of rank >= 1")


def _scatter_infer(specs, attrs):
    (_, shape), (dtype, tensor_shape), indices = specs
    _check_rows_written(attrs, dtype, tensor_shape, "scattered", "scatter or unstack")
    count = _indices_infer(indices, "scatter")
    if tensor_shape is not None and None not in (count, tensor_shape[0]) and count != tensor_shape[0]:
        raise ValueError(f"{label(attrs['array'])}: scatter got {count} indices for {tensor_shape[0]} rows")
    rows = None if tensor_shape is None else tuple(tensor_shape[1:])
    return [(dtypes.variant, array_element_shape(shape, rows, attrs["array"], attrs["same_shape"]))]


def _scatter_kernel(handle, tensor, indices, *, element_dtype, array, grow, same_shape):
    value = unwrap(handle)
    indices = np.asarray(indices).reshape(-1)
    if tensor.ndim == 0 or len(indices) != len(tensor):
        raise ValueError(f"{label(array)}: scatter got {len(indices)} indices for "
                         f"{len(tensor) if tensor.ndim else 'a scalar, not'} rows")
    updates = {array_position(value, index, array, "write", grow): row for index, row in zip(indices, tensor)}
    shape = value.shape
    if updates:  # every row has one shape: check it once
        shape = checked_shape(value, tensor.shape[1:], array, next(iter(updates)), same_shape)
    return wrap(written(value, updates, shape))


# TensorArray writes: the array's name in messages, whether a write may grow it, whether every element
# must keep one shape (the kernels need all three).
_WRITE_ATTRS = {"element_dtype": DTYPE, "array": TEXT, "grow": BOOL, "same_shape": BOOL}
TENSOR_LIST_SCATTER = register_op(
    "TensorListScatterIntoExistingList", ("handle", "tensor", "indices"), _scatter_infer, _scatter_kernel,
    doc="The list with row k of tensor written at indices[k] (TensorArray rules: attrs array, grow, same_shape).",
    attrs=_WRITE_ATTRS)

def _split_infer(specs, attrs):
    (_, shape), (dtype, tensor_shape), lengths = specs
    _check_rows_written(attrs, dtype, tensor_shape, "split", "split")
    _indices_infer(lengths, "split length")
    piece = None if tensor_shape is None else (None,) + tuple(tensor_shape[1:])
    return [(dtypes.variant, array_element_shape(shape, piece, attrs["array"], attrs["same_shape"]))]


def _split_kernel(handle, tensor, lengths, *, element_dtype, array, grow, same_shape):
    value = unwrap(handle)
    lengths = [int(n) for n in np.asarray(lengths).reshape(-1)]
    if tensor.ndim == 0:
        raise ValueError(f"{label(array)}: cannot split a scalar; give a tensor of rank >= 1")
    if any(n < 0 for n in lengths) or sum(lengths) != len(tensor):
        raise InvalidArgumentError(f"{label(array)}: split lengths {lengths} must be >= 0 and add up to the "
                                   f"{len(tensor)} rows of the value")
    ends = np.cumsum(lengths)
    pieces = np.split(tensor, ends[:-1]) if lengths else []
    updates = {array_position(value, k, array, "write", grow): piece for k, piece in enumerate(pieces)}
    shape = value.shape
    if updates:  # one check for all pieces: equal lengths give their exact shape, others a None first dim
        piece_shape = pieces[0].shape if len(set(lengths)) == 1 else (None,) + tensor.shape[1:]
        shape = checked_shape(value, piece_shape, array, 0, same_shape)
    return wrap(written(value, updates, shape))


TENSOR_LIST_SPLIT = register_op(
    "TensorListSplit", ("handle", "tensor", "lengths"), _split_infer, _split_kernel,
    doc="The list with piece k of tensor (lengths[k] rows) written at index k (TensorArray rules: attrs array, "
        "grow, same_shape).", attrs=_WRITE_ATTRS)

# their gradients: list_gradients.py


# --- the Python side ---------------------------------------------------------------------------------
def _index(index: Any, what: str) -> Tensor:
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer, Tensor)):
        raise TypeError(f"a TensorArray {what} must be an int or a scalar int tensor, got "
                        f"{type(index).__name__} {index!r:.60}")
    return convert_to_tensor(index, None if isinstance(index, Tensor) else dtypes.int32)


class TensorArray:
    """TensorFlow's ``tf.TensorArray`` (see the module doc): ``size`` tensors of ``dtype``, immutable.

    >>> ta = TensorArray(int32, size=2).write(0, 7).write(1, 8)
    >>> ta.stack(), ta.read(0)
    (Tensor([7 8], shape=(2,), dtype=int32), Tensor(7, shape=(), dtype=int32))
    """

    __slots__ = ("handle", "_dtype", "_dynamic_size", "_infer_shape", "_name", "_static_size", "_shape_cell")

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Optional[bool] = None,
                 clear_after_read: Optional[bool] = None, tensor_array_name: Optional[str] = None,
                 element_shape: Any = None, infer_shape: bool = True, name: Optional[str] = None):
        if size is None:
            raise ValueError("TensorArray: size is required: the number of elements (0 with dynamic_size=True "
                             "for an array that grows as it is written)")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size, self._infer_shape = bool(dynamic_size), bool(infer_shape)
        self._name = tensor_array_name or name or ""
        static = isinstance(size, (int, np.integer)) and not isinstance(size, bool) and not dynamic_size
        self._static_size = int(size) if static else None
        declared = as_shape_tuple(element_shape)
        # The element shape learned from the writes, shared by every version of this array (write() returns a
        # new one), as TensorFlow shares it: a write inside a loop body or a branch makes it known to the
        # array after the loop or if too, whose handle's static shape the loop relaxes (see element_shape).
        self._shape_cell: List[Any] = [_NOTHING_WRITTEN if declared is None else declared]
        attrs = {"element_dtype": self._dtype, "element_shape": declared, "array": self._name}
        self.handle = apply_op(TENSOR_LIST_RESERVE, (_index(size, "size"),), attrs)

    # --- properties ---
    @property
    def dtype(self) -> Any:
        """The dtype of the elements."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """True if writes past the end grow the array."""
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        """The shape of the elements as known so far (eagerly: the written elements' shape; while tracing, with
        ``infer_shape=True``, also what any version of this array was written with, as in TensorFlow: a write in
        a loop body gives the array after the loop its element shape).

        >>> TensorArray(float32, size=2, element_shape=[None, 3]).element_shape
        TensorShape([None, 3])
        """
        if isinstance(self.handle, EagerTensor):
            return TensorShape(unwrap(self.handle._value).shape)
        known = self.handle.shape
        learned = self._shape_cell[0]
        if learned is None or learned is _NOTHING_WRITTEN or not self._infer_shape:
            return TensorShape(known)
        return TensorShape(learned if known is None else refined(known, learned))

    # --- reading ---
    def _attrs(self) -> dict:
        return {"element_dtype": self._dtype, "array": self._name}

    def read(self, index: Any, name: Optional[str] = None) -> Tensor:
        """Element ``index`` (0 <= index < size; it must have been written)."""
        attrs = {**self._attrs(), "element_shape": self.element_shape.dims}
        return apply_op(TENSOR_LIST_GET_ITEM, (self.handle, _index(index, "index")), attrs)

    def stack(self, name: Optional[str] = None) -> Tensor:
        """All elements stacked along a new first axis (each must have been written)."""
        attrs = {**self._attrs(), "element_shape": self.element_shape.dims}
        if self._static_size is not None:
            attrs["length"] = self._static_size
        return apply_op(TENSOR_LIST_STACK, (self.handle,), attrs)

    def gather(self, indices: Any, name: Optional[str] = None) -> Tensor:
        """The elements at ``indices``, stacked."""
        indices = convert_to_tensor(indices, None if isinstance(indices, Tensor) else dtypes.int32)
        attrs = {**self._attrs(), "element_shape": self.element_shape.dims}
        return apply_op(TENSOR_LIST_GATHER, (self.handle, indices), attrs)

    def concat(self, name: Optional[str] = None) -> Tensor:
        """All elements joined along their first axis."""
        return apply_op(TENSOR_LIST_CONCAT, (self.handle,), {**self._attrs(), "axis": 0})

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of elements, an int32 tensor."""
        return apply_op(TENSOR_LIST_LENGTH, (self.handle,))

    def __bool__(self) -> bool:
        """Eagerly: True unless the array has no elements (as ``as_condition`` in converted code reads it)."""
        if not isinstance(self.handle, EagerTensor):
            raise OperatorNotAllowedInGraphError(in_users_words(
                "the truth value of a TensorArray (size() > 0) is a tensor while tracing: test it with `if ta:` "
                "in converted code (ag.function), or with rt.greater(ta.size(), 0)"))
        return int(self.size()) > 0

    # --- writing: each returns a new array ---
    def _new(self, handle: Tensor) -> "TensorArray":
        array = object.__new__(TensorArray)
        array.handle, array._dtype, array._dynamic_size = handle, self._dtype, self._dynamic_size
        array._infer_shape, array._name, array._static_size = self._infer_shape, self._name, self._static_size
        array._shape_cell = self._shape_cell
        return array

    def _value(self, value: Any, what: str) -> Tensor:
        try:
            tensor = convert_to_tensor(value, None if isinstance(value, Tensor) else self._dtype)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{label(self._name)} holds {self._dtype.name} elements; cannot {what} "
                            f"{type(value).__name__} {value!r:.60}: {error}") from None
        if tensor.dtype != self._dtype:
            raise TypeError(in_users_words(
                f"{label(self._name)} holds {self._dtype.name} elements but {what} was given a tensor of dtype "
                f"{tensor.dtype.name}; convert it with rt.cast(value, rt.{self._dtype.name})"))
        return tensor

    def _check_shape(self, shape: Any) -> None:
        """A ValueError (in both modes) when elements of ``shape`` cannot be in this array; with
        ``infer_shape=True`` the array's versions learn ``shape`` (see element_shape)."""
        array_element_shape(self.element_shape.dims, shape, self._name, self._infer_shape)
        if self._infer_shape:
            # Each traced write's shape holds for the values it writes; a loop body traced again with relaxed
            # shapes writes a less specific one, which must win (the first trace's may hold for its first
            # iteration only): so the learned shape is what all the writes have in common, never a refinement.
            learned = self._shape_cell[0]
            self._shape_cell[0] = (as_shape_tuple(shape) if learned is _NOTHING_WRITTEN
                                   else shapes.most_specific_common_shape(learned, as_shape_tuple(shape)))

    def _write_attrs(self) -> dict:
        return {**self._attrs(), "grow": self._dynamic_size, "same_shape": self._infer_shape}

    def write(self, index: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """A new array with element ``index`` set to ``value`` (write ``ta = ta.write(i, x)``)."""
        value = self._value(value, "write()")
        self._check_shape(value.shape)
        inputs = (self.handle, _index(index, "index"), value)
        return self._new(apply_op(TENSOR_LIST_SET_ITEM, inputs, self._write_attrs()))

    def scatter(self, indices: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """A new array with row ``k`` of ``value`` written at ``indices[k]``."""
        indices = convert_to_tensor(indices, None if isinstance(indices, Tensor) else dtypes.int32)
        value = self._value(value, "scatter()")
        if value.shape:
            self._check_shape(value.shape[1:])
        inputs = (self.handle, value, indices)
        return self._new(apply_op(TENSOR_LIST_SCATTER, inputs, self._write_attrs()))

    def split(self, value: Any, lengths: Any, name: Optional[str] = None) -> "TensorArray":
        """A new array with piece ``k`` of ``value`` (its next ``lengths[k]`` rows) written at index ``k``.

        >>> TensorArray(float32, size=3, infer_shape=False).split([1.0, 2.0, 3.0, 4.0], [1, 3, 0]).read(1)
        Tensor([2. 3. 4.], shape=(3,), dtype=float32)
        """
        value = self._value(value, "split()")
        if value.shape == ():
            raise ValueError(f"{label(self._name)}: cannot split a scalar; give a tensor of rank >= 1")
        lengths = convert_to_tensor(lengths, None if isinstance(lengths, Tensor) else dtypes.int32)
        if value.shape is not None:
            self._check_shape((None,) + tuple(value.shape[1:]))
        inputs = (self.handle, value, lengths)
        return self._new(apply_op(TENSOR_LIST_SPLIT, inputs, self._write_attrs()))

    def unstack(self, value: Any, name: Optional[str] = None) -> "TensorArray":
        """A new array with row ``k`` of ``value`` written at index ``k`` (TensorFlow's ``scatter(range(n))``)."""
        value = self._value(value, "unstack()")
        if value.shape == ():
            raise ValueError(f"{label(self._name)}: cannot unstack a scalar; give a tensor of rank >= 1")
        rows = None if value.shape is None else value.shape[0]
        return self.scatter(range_(rows if rows is not None else shape(value)[0]), value)

    def identity(self) -> "TensorArray":
        """An array with the same elements and properties."""
        return self._new(self.handle)

    def close(self, name: Optional[str] = None) -> None:
        """Nothing to release: an array's elements go when nothing refers to them (TensorFlow's ``close``)."""
        return None

    # nest: an array is carried through loops and branches as its handle tensor
    def __rt_components__(self) -> List[Tensor]:
        return [self.handle]

    def __rt_from_components__(self, components: Sequence[Tensor]) -> "TensorArray":
        return self._new(components[0])

    def __repr__(self) -> str:
        named = f" '{self._name}'" if self._name else ""
        size = "dynamic size" if self._dynamic_size else "fixed size"
        return (f"<TensorArray{named} of {self._dtype.name} elements of shape "
                f"{shapes.format_shape(self.element_shape.dims)}, {size}>")
