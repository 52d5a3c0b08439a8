"""Data types: numpy dtypes under TensorFlow's names, and the rules for inferring them.

Python scalars follow TensorFlow's defaults: ``float`` → float32, ``int`` → int32, ``bool`` → bool.
Nested lists take the widest kind among their contents (bool < int < float).

>>> infer_dtype([1, 2.5])
dtype('float32')
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

DType = np.dtype

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
bool = np.dtype("bool")  # noqa: A001 - TensorFlow's public name

# The dtype of a handle tensor (e.g. a tensor list, runtime.ops.list_ops): its value is a Python object that
# only ops of its kind read. Not a dtype users make tensors of (not in ALL), but graphs save and load it.
variant = np.dtype(object)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool)
_BY_NAME = {d.name: d for d in ALL}
_CANONICAL = {d: d for d in ALL + (variant,)}
_DTYPE_CLASSES = frozenset(type(d) for d in ALL + (variant,))
_PYTHON_TYPES = {builtins.float: float32, builtins.int: int32, builtins.bool: bool}
_KIND_RANK = {"bool": 0, "int": 1, "int64": 2, "float": 3}
_KIND_DEFAULT = {"bool": bool, "int": int32, "int64": int64, "float": float32}
_INT32, _INT64 = np.iinfo(np.int32), np.iinfo(np.int64)


def _int_kind(value: int) -> str:
    """'int' (int32) for ints that fit, 'int64' beyond, as TensorFlow does; beyond int64 is an error."""
    if _INT32.min <= value <= _INT32.max:
        return "int"
    if _INT64.min <= value <= _INT64.max:
        return "int64"
    raise ValueError(f"the Python int {value} is out of the range of int64 ([{_INT64.min}, {_INT64.max}]), "
                     "the widest integer dtype; use a float (float(value)) if an approximation will do")


def as_dtype(value: Any) -> np.dtype:
    """Normalize a dtype-like (``rt.float32``, ``"int32"``, ``np.int64``, ``float``) to a supported dtype.

    >>> as_dtype("int32")
    dtype('int32')
    """
    if type(value) in _DTYPE_CLASSES:  # fast path (hot in eager ops): already one of ours
        canonical = _CANONICAL.get(value)
        if canonical is not None:
            return canonical
    if value in _PYTHON_TYPES:
        return _PYTHON_TYPES[value]
    try:
        dtype = np.dtype(value)
    except TypeError:
        raise TypeError(f"{value!r} is not a dtype; use one of {', '.join(sorted(_BY_NAME))}") from None
    if dtype == variant:
        return variant
    if dtype.name not in _BY_NAME:
        raise TypeError(f"dtype {dtype.name} is not supported; use one of {', '.join(sorted(_BY_NAME))}")
    return _BY_NAME[dtype.name]


# numpy's limit on dimensions: a list nested deeper cannot be a tensor (and would exhaust Python's stack here)
MAX_NESTING = 64


def _python_kind(value: Any, depth: int = 0) -> str | None:
    """The widest Python scalar kind inside ``value`` ('bool', 'int', 'int64', 'float'), or None if empty."""
    if isinstance(value, builtins.range):
        return max(_int_kind(value.start), _int_kind(value.stop), key=_KIND_RANK.__getitem__)
    if isinstance(value, (list, tuple)):
        if depth >= MAX_NESTING:
            raise ValueError(f"cannot convert a {type(value).__name__} nested more than {MAX_NESTING} deep to a "
                             f"tensor: a tensor has at most {MAX_NESTING} dimensions")
        kinds = [k for k in (_python_kind(item, depth + 1) for item in value) if k is not None]
        return max(kinds, key=_KIND_RANK.__getitem__) if kinds else None
    if isinstance(value, (builtins.bool, np.bool_)):
        return "bool"
    if isinstance(value, (builtins.int, np.integer)):
        return _int_kind(int(value))
    if isinstance(value, (builtins.float, np.floating)):
        return "float"
    raise TypeError(f"cannot convert a {type(value).__name__} ({value!r}) to a tensor")


def infer_dtype(value: Any) -> np.dtype:
    """The dtype a Python value (scalar, nested list, numpy array or scalar) becomes as a tensor."""
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(value.dtype)
    return _KIND_DEFAULT[_python_kind(value) or "float"]


def is_floating(dtype: np.dtype) -> builtins.bool:
    return dtype.kind == "f"


def is_integer(dtype: np.dtype) -> builtins.bool:
    return dtype.kind in "iu"
