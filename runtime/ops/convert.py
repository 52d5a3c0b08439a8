"""Turning Python values into tensors, with TensorFlow's dtype rules.

>>> convert_to_tensor([1, -1])
Tensor([ 1 -1], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from runtime.core import context, dtypes
from runtime.core.errors import in_users_words
from runtime.core.registry import apply_op
from runtime.core.tensor import EagerTensor, Tensor
from runtime.ops.pack_op import STACK


def _array_of(value: Any, dtype: Optional[np.dtype]) -> np.ndarray:
    value_type = type(value)
    if value_type in _SCALAR_KINDS:
        if dtype is None:
            # A Python scalar of its own: the dtype infer_dtype gives it (int32 for an int that fits), made
            # at once (a staged if's `do_return = True` in both branches makes two such constants).
            dtype = _SCALAR_DEFAULTS[value_type]
            if value_type is not int or _INT32_LOW <= value <= _INT32_HIGH:
                return np.array(value, dtype)
            dtype = None  # a wider int: infer_dtype decides (int64, or an error)
        elif dtype.kind in _SCALAR_KINDS[value_type]:
            # The hot case of eager ops, ``x * 2.0`` or ``i + 1``: a Python scalar of the other operand's kind.
            if value_type is not int or _INTEGER_LIMITS[dtype][0] <= value <= _INTEGER_LIMITS[dtype][1]:
                return np.array(value, dtype)
    target = dtypes.infer_dtype(value) if dtype is None else dtype
    if isinstance(value, np.ndarray) and value.dtype == target:
        return value
    try:
        array = np.asarray(value)
    except ValueError:  # numpy refuses ragged nesting, and nesting deeper than its dimensions
        if dtype is not None:
            dtypes.infer_dtype(value)  # the clear error for a list nested too deep (the repr below would recurse)
        array = np.empty((), dtype=object)
    if array.dtype.kind in "SU":
        raise TypeError(f"cannot convert {value!r} (a {type(value).__name__}) to a tensor of dtype {target.name}: "
                        "tensors hold numbers or bools")
    if dtype is not None and array.dtype.kind == "f" and target.kind in "iub":
        if not np.all(np.equal(np.mod(array, 1), 0)):
            raise TypeError(f"cannot convert {value!r} to a tensor of dtype {target.name} without losing "
                            "its fractional part; pass a float dtype or round it explicitly")
    if array.dtype.kind == "O":
        raise TypeError(f"cannot convert {value!r} to a tensor: nested lists must be rectangular and hold "
                        "only numbers or bools")
    # An inferred dtype already fits every Python int (dtypes.infer_dtype widens to int64 or refuses).
    if dtype is not None and target.kind in "iu" and array.dtype != target and array.dtype.kind in "iuf":
        _check_integer_range(value, array, target)
    return array.astype(target, copy=False)


_INTEGER_LIMITS = {dtype: (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
                   for dtype in dtypes.ALL if dtype.kind in "iu"}


# Python scalar types, and the dtype kinds they convert to exactly with one np.array(value, dtype) call.
_SCALAR_KINDS = {float: "f", int: "iu", bool: "b"}
# The dtype each gets when nothing else decides (dtypes.infer_dtype); an int only if it fits int32.
_SCALAR_DEFAULTS = {float: dtypes.float32, int: dtypes.int32, bool: dtypes.bool}
_INT32_LOW, _INT32_HIGH = _INTEGER_LIMITS[dtypes.int32]


def _check_integer_range(value: Any, array: np.ndarray, target: np.dtype) -> None:
    """A value outside ``target``'s range is an error, never numpy's silent wrap-around."""
    low_limit, high_limit = _INTEGER_LIMITS[target]
    if type(value) is int:  # the common case (``x + 1``): no array reductions
        if low_limit <= value <= high_limit:
            return
        low = high = value
    elif np.can_cast(array.dtype, target) or not array.size:
        return
    else:
        low, high = array.min(), array.max()
        if low_limit <= low and high <= high_limit:
            return
    bad = low if low < low_limit else high
    raise ValueError(in_users_words(f"cannot convert {_short(value)} to a tensor of dtype {target.name}: {bad} is "
                                    f"out of its range [{low_limit}, {high_limit}]; pass a wider dtype (e.g. "
                                    "rt.int64) or convert the value explicitly"))


def mixed_dtypes_error(op_name: str, operands: str, first: np.dtype, second: np.dtype) -> TypeError:
    """The error of an op given ``operands`` (e.g. "x and y") of two dtypes, with the cast that fixes it.

    >>> print(mixed_dtypes_error("AddV2", "x and y", dtypes.int32, dtypes.float32))
    AddV2: x and y must have the same dtype, got int32 and float32; convert one with rt.cast(value, rt.int32)
    """
    return TypeError(in_users_words(f"{op_name}: {operands} must have the same dtype, got {first.name} and "
                                    f"{second.name}; convert one with rt.cast(value, rt.{first.name})"))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def convert_to_tensor(value: Any, dtype: Any = None) -> Tensor:
    """A tensor for ``value``: tensors pass through (dtype checked), anything else becomes a constant.

    ``dtype`` defaults to the inferred one (Python float → float32, int → int32, bool → bool). Other
    objects may define ``__rt_tensor__(self)`` returning what they convert to.
    """
    target = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if target is not None and value.dtype != target:
            raise TypeError(in_users_words(f"expected a {target.name} tensor, got {value.dtype.name} tensor "
                                           f"{value!r}; use rt.cast(x, rt.{target.name}) to convert it"))
        return value
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return _pack(value, target)
    try:
        return EagerTensor(_array_of(value, target))
    except TypeError:
        # Objects that stand for a tensor (e.g. a range with symbolic bounds) say how to become one.
        as_tensor = getattr(type(value), "__rt_tensor__", None)
        if as_tensor is None:
            raise
    return convert_to_tensor(as_tensor(value), dtype)


def _holds_tensor(value: Any, depth: int = 0) -> bool:
    if depth >= dtypes.MAX_NESTING:
        raise ValueError(f"cannot convert a {type(value).__name__} nested more than {dtypes.MAX_NESTING} deep to "
                         f"a tensor: a tensor has at most {dtypes.MAX_NESTING} dimensions")
    return any(isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v, depth + 1)) for v in value)


def _first_tensor_dtype(value: Any) -> Optional[np.dtype]:
    for v in value:
        dtype = v.dtype if isinstance(v, Tensor) else _first_tensor_dtype(v) if isinstance(v, (list, tuple)) else None
        if dtype is not None:
            return dtype
    return None


def _pack(value: Sequence[Any], dtype: Optional[np.dtype]) -> Tensor:
    """A list mixing tensors and numbers becomes a ``Pack`` (stack) of them, like TensorFlow's auto-packing."""
    dtype = dtype or _first_tensor_dtype(value)
    return apply_op(STACK, [convert_to_tensor(v, dtype) for v in value], {"axis": 0})


def constant(value: Any, dtype: Any = None, shape: Optional[Sequence[int]] = None) -> Tensor:
    """A constant tensor; inside a traced function it is a ``Const`` node of the graph.

    >>> constant(5.5)
    Tensor(5.5, shape=(), dtype=float32)
    """
    if isinstance(value, Tensor):
        value = np.asarray(value)
    array = _array_of(value, None if dtype is None else dtypes.as_dtype(dtype))
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)).copy() if array.size == 1 else array.reshape(shape)
    graph = context.current_graph()
    if graph is None:
        return EagerTensor(array)
    return graph.constant(array)


def _exact_scalar(value: Any, dtype: np.dtype) -> bool:
    """True if ``np.array(value, dtype)`` gives exactly what ``_array_of`` would, with no check to make:
    a Python float for a float dtype, a Python int in an integer dtype's range or (|value| <= 2**53, exact
    as a double) for a float dtype."""
    value_type = type(value)
    if value_type is float:
        return dtype.kind == "f"
    if value_type is int:
        kind = dtype.kind
        if kind == "f":
            return -_EXACT_IN_DOUBLE <= value <= _EXACT_IN_DOUBLE
        if kind in "iu":
            low, high = _INTEGER_LIMITS[dtype]
            return low <= value <= high
    return False


_EXACT_IN_DOUBLE = 2 ** 53


def convert_operands(x: Any, y: Any) -> Tuple[Tensor, Tensor]:
    """Convert two operands of a binary op; a Python scalar/list adopts the other tensor's dtype.

    Two Python values take the wider of their default dtypes (``1`` and ``2.5`` → float32).
    """
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):
            return x, y
        dtype = x.dtype
        if _exact_scalar(y, dtype):  # ``x * 2.0``, ``i + 1``: the hot case of eager arithmetic
            return x, EagerTensor(np.array(y, dtype))
        return x, convert_to_tensor(y, dtype)
    if isinstance(y, Tensor):
        dtype = y.dtype
        if _exact_scalar(x, dtype):
            return EagerTensor(np.array(x, dtype)), y
        return convert_to_tensor(x, dtype), y
    if hasattr(type(x), "__rt_tensor__"):  # a tensor-like object: its tensor's dtype decides
        return convert_operands(convert_to_tensor(x), y)
    if hasattr(type(y), "__rt_tensor__"):
        return convert_operands(x, convert_to_tensor(y))
    x_dtype, y_dtype = dtypes.infer_dtype(x), dtypes.infer_dtype(y)
    wider = max(x_dtype, y_dtype, key=lambda d: "bif".index(d.kind) if d.kind in "bif" else 1)
    return convert_to_tensor(x, wider), convert_to_tensor(y, wider)
