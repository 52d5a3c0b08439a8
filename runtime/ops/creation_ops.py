"""Ops that make new tensors from a shape or a value: fill, zeros, ones, zeros_like, ones_like,
eye, range.

>>> zeros([2], "int32")
Tensor([0 0], shape=(2,), dtype=int32)
"""
from __future__ import annotations

import builtins
import math
from typing import Any, Optional

import numpy as np

from runtime.core import context, dtypes
from runtime.ops.cast_op import cast
from runtime.ops.convert import constant, convert_to_tensor
from runtime.core.attrs import DTYPE, STATIC_COUNT, STATIC_SHAPE
from runtime.core.registry import apply_op, not_differentiable, register_gradient, register_op
from runtime.ops.shape_ops import constant_value, known_or_none, shape_argument
from runtime.core.tensor import Tensor


def _fill_infer(specs, attrs):
    (_, dims_shape), (dtype, value_shape) = specs
    if value_shape not in (None, ()):
        raise ValueError(f"value must be a scalar, got shape {value_shape}")
    length = None if dims_shape is None else dims_shape[0]
    return [(dtype, known_or_none(attrs.get("static_shape"), length))]


def _fill_kernel(dims, value, *, static_shape=None):
    if value.ndim:
        raise ValueError(f"value must be a scalar, got shape {value.shape}")
    if (dims < 0).any():
        raise ValueError(f"dims must be non-negative, got {dims.tolist()}")
    return np.full(tuple(dims.tolist()), value, dtype=value.dtype)


FILL = register_op("Fill", ("dims", "value"), _fill_infer, _fill_kernel,
                   doc="A tensor of shape 'dims' filled with the scalar 'value'.", attrs={"static_shape": STATIC_SHAPE})


def fill(dims: Any, value: Any) -> Tensor:
    """A tensor of shape ``dims`` whose every element is the scalar ``value``.

    >>> fill([2, 2], 7)
    Tensor([[7 7]
     [7 7]], shape=(2, 2), dtype=int32)
    """
    shape_tensor, static = shape_argument(dims, "Fill", "dims")
    value = convert_to_tensor(value)
    if value.ndim not in (None, 0):
        raise ValueError(f"Fill: value must be a scalar, got shape {value.shape}")
    return apply_op(FILL, (shape_tensor, value), None if static is None else {"static_shape": static})


def zeros(shape: Any, dtype: Any = dtypes.float32) -> Tensor:
    """A tensor of ``shape`` filled with zeros.

    >>> zeros([1, 2])
    Tensor([[0. 0.]], shape=(1, 2), dtype=float32)
    """
    return fill(shape, convert_to_tensor(0, dtype))


def ones(shape: Any, dtype: Any = dtypes.float32) -> Tensor:
    """A tensor of ``shape`` filled with ones.

    >>> ones([2], "int32")
    Tensor([1 1], shape=(2,), dtype=int32)
    """
    return fill(shape, convert_to_tensor(1, dtype))


ZEROS_LIKE = register_op("ZerosLike", ("x",), lambda specs, attrs: [specs[0]], np.zeros_like,
                         doc="Zeros with the shape and dtype of x.", shape_only=True)
ONES_LIKE = register_op("OnesLike", ("x",), lambda specs, attrs: [specs[0]], np.ones_like,
                        doc="Ones with the shape and dtype of x.", shape_only=True)


def _like(op_def, input: Any, dtype: Any) -> Tensor:  # noqa: A002
    input = convert_to_tensor(input)
    result = apply_op(op_def, (input,))
    if dtype is not None and dtypes.as_dtype(dtype) != input.dtype:
        result = cast(result, dtype)
    return result


def zeros_like(input: Any, dtype: Any = None) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """Zeros with the shape of ``input`` (and its dtype unless ``dtype`` is given).

    >>> zeros_like([1.5, 2.5])
    Tensor([0. 0.], shape=(2,), dtype=float32)
    """
    return _like(ZEROS_LIKE, input, dtype)


def ones_like(input: Any, dtype: Any = None) -> Tensor:  # noqa: A002
    """Ones with the shape of ``input`` (and its dtype unless ``dtype`` is given).

    >>> ones_like([[1, 2]])
    Tensor([[1 1]], shape=(1, 2), dtype=int32)
    """
    return _like(ONES_LIKE, input, dtype)


def _static_int(value: Any, name: str) -> int:
    known = constant_value(value) if isinstance(value, Tensor) else value
    if known is None:
        raise TypeError(f"eye: {name} must be known while tracing (a Python int or a constant), got {value!r}")
    if np.ndim(known) != 0 or not float(known).is_integer() or known < 0:
        raise ValueError(f"eye: {name} must be a non-negative integer, got {known!r}")
    return int(known)


def eye(num_rows: Any, num_columns: Optional[Any] = None, dtype: Any = dtypes.float32) -> Tensor:
    """The identity matrix with ``num_rows`` rows (and ``num_columns`` columns, default square).

    Its size must be known while tracing, so in a graph it is a constant.

    >>> eye(2, dtype="int32")
    Tensor([[1 0]
     [0 1]], shape=(2, 2), dtype=int32)
    """
    rows = _static_int(num_rows, "num_rows")
    columns = rows if num_columns is None else _static_int(num_columns, "num_columns")
    return constant(np.eye(rows, columns, dtype=dtypes.as_dtype(dtype)))


def _range_infer(specs, attrs):
    for (dtype, shape), name in zip(specs, ("start", "limit", "delta")):
        if shape not in (None, ()):
            raise ValueError(f"{name} must be a scalar, got shape {shape}")
    return [(attrs["dtype"], (attrs.get("static_length"),))]


def _range_length(start, limit, delta) -> int:
    if delta == 0:
        raise ValueError("delta must not be 0")
    return builtins.max(0, math.ceil((limit - start) / delta))


def _range_kernel(start, limit, delta, *, dtype, static_length=None):
    start, limit, delta = start.item(), limit.item(), delta.item()
    length = _range_length(start, limit, delta)
    return (start + delta * np.arange(length, dtype=np.float64 if dtype.kind == "f" else np.int64)).astype(dtype)


RANGE = register_op("Range", ("start", "limit", "delta"), _range_infer, _range_kernel,
                    doc="start, start + delta, ... up to but excluding limit.",
                    attrs={"dtype": DTYPE, "static_length": STATIC_COUNT})


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None) -> Tensor:  # noqa: A001
    """A 1-D tensor ``[start, start + delta, ...]`` stopping before ``limit``, like Python's ``range``.

    ``range(n)`` counts from 0. The dtype is the widest of the arguments' (int32 unless one is a float
    or a tensor of another dtype) unless given. An empty range is an empty tensor.

    >>> range(1, 7, 2)
    Tensor([1 3 5], shape=(3,), dtype=int32)
    """
    if limit is None:
        start, limit = 0, start
    args = (start, limit, delta)
    if dtype is None:
        inferred = [a.dtype if isinstance(a, Tensor) else dtypes.infer_dtype(a) for a in args]
        dtype = builtins.max(inferred, key=lambda d: (d.kind == "f", d.itemsize))
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind not in "fiu":
        raise TypeError(f"Range: dtype must be a number type, got {dtype.name}")
    tensors = []
    for arg, name in zip(args, ("start", "limit", "delta")):
        tensor = arg if isinstance(arg, Tensor) else convert_to_tensor(arg, dtype)
        if tensor.dtype != dtype:
            raise TypeError(f"Range: {name} has dtype {tensor.dtype.name} but the range is {dtype.name}; "
                            f"pass dtype=rt.{tensor.dtype.name} or cast it")
        if tensor.ndim not in (None, 0):
            raise ValueError(f"Range: {name} must be a scalar, got shape {tensor.shape}")
        tensors.append(tensor)
    attrs = {"dtype": dtype}
    if context.in_graph_mode():
        known = [constant_value(t) for t in tensors]
        if all(k is not None for k in known):
            try:
                attrs["static_length"] = _range_length(*(k.item() for k in known))
            except ValueError as error:
                raise ValueError(f"Range: {error}") from None
    return apply_op(RANGE, tensors, attrs)


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
@register_gradient(FILL)
def _fill_gradient(op, grads, ops):
    return [None, ops.reduce_sum(grads[0])]  # every element is a copy of the one value


not_differentiable(ZEROS_LIKE, "its result does not depend on the input's values (TensorFlow gives None too)")
not_differentiable(ONES_LIKE, "its result does not depend on the input's values (TensorFlow gives None too)")
not_differentiable(RANGE, "its result is a fixed sequence (integer bounds; TensorFlow gives None too)")
