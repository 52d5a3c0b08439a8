"""Shapes as tensors: ``shape``, ``size``, ``rank``, and reading shape-like arguments.

Ops whose output shape depends on an argument's *value* (``reshape``'s shape, ``fill``'s dims,
``tile``'s multiples, ``range``'s bounds) take that argument as an int32 input tensor, so it may be
computed at run time. While tracing they also record what is statically known about it in an attr
named ``static_*`` (a tuple whose entries are ints or None), which their shape inference uses —
shape inference only sees dtypes and shapes, never values.

>>> shape(convert_to_tensor([[1, 2, 3]]))
Tensor([1 3], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from runtime.core import context, dtypes
from runtime.ops.cast_op import cast
from runtime.ops.combine_ops import stack
from runtime.ops.convert import convert_to_tensor
from runtime.core.attrs import DTYPE
from runtime.core.registry import apply_op, not_differentiable, register_op
from runtime.core.tensor import EagerTensor, Shape, SymbolicTensor, Tensor

StaticDims = Optional[Tuple[Optional[int], ...]]  # None = not even the length is known


def _shape_infer(specs, attrs):
    shape = specs[0][1]
    return [(attrs["out_type"], (None if shape is None else len(shape),))]


SHAPE = register_op("Shape", ("input",), _shape_infer,
                    lambda x, *, out_type: np.array(x.shape, dtype=out_type),
                    doc="The shape of a tensor as a 1-D int tensor.", shape_only=True, attrs={"out_type": DTYPE})
SIZE = register_op("Size", ("input",), lambda specs, attrs: [(attrs["out_type"], ())],
                   lambda x, *, out_type: np.array(x.size, dtype=out_type),
                   doc="The number of elements of a tensor, as a scalar int tensor.", shape_only=True,
                   attrs={"out_type": DTYPE})
RANK = register_op("Rank", ("input",), lambda specs, attrs: [(dtypes.int32, ())],
                   lambda x: np.array(x.ndim, dtype=np.int32),
                   doc="The number of dimensions of a tensor, as a scalar int32 tensor.", shape_only=True)


def _out_type(out_type: Any) -> np.dtype:
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"out_type must be rt.int32 or rt.int64, got {out_type.name}")
    return out_type


def shape(input: Any, out_type: Any = dtypes.int32) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """The shape of ``input`` as a 1-D int32 tensor (a ``Shape`` op while tracing).

    While tracing, a fully known static shape makes the result a known constant that constant folding
    replaces (see ``constant_value``).

    >>> shape([[1.0], [2.0]])
    Tensor([2 1], shape=(2,), dtype=int32)
    """
    return apply_op(SHAPE, (convert_to_tensor(input),), {"out_type": _out_type(out_type)})


def size(input: Any, out_type: Any = dtypes.int32) -> Tensor:  # noqa: A002
    """The number of elements of ``input`` (a scalar int32 tensor).

    >>> size([[1, 2, 3]])
    Tensor(3, shape=(), dtype=int32)
    """
    return apply_op(SIZE, (convert_to_tensor(input),), {"out_type": _out_type(out_type)})


def rank(input: Any) -> Tensor:  # noqa: A002
    """The number of dimensions of ``input`` (a scalar int32 tensor).

    >>> rank([[1, 2, 3]])
    Tensor(2, shape=(), dtype=int32)
    """
    return apply_op(RANK, (convert_to_tensor(input),))


def constant_value(tensor: Any) -> Optional[np.ndarray]:
    """The value of ``tensor`` if it is known without running anything, else None.

    Known: eager tensors, ``Const`` nodes, ``Shape`` of a fully known shape, ``Pack`` of known values.
    """
    if isinstance(tensor, EagerTensor):
        return tensor._value
    if not isinstance(tensor, SymbolicTensor):
        return None
    op = tensor.op
    if op.type == "Const":
        return op.attrs["value"]
    if op.type == "Shape":
        static = op.inputs[0].shape
        if static is not None and None not in static:
            return np.array(static, dtype=op.attrs["out_type"])
    if op.type == "Pack":
        values = [constant_value(t) for t in op.inputs]
        if all(v is not None for v in values):
            return np.stack(values, axis=op.attrs["axis"])
    return None


def static_dims(tensor: Tensor) -> StaticDims:
    """What is known about the value of a 1-D int tensor: a tuple of ints/None, or None."""
    value = constant_value(tensor)
    if value is not None:
        return tuple(int(v) for v in np.reshape(value, -1))
    if isinstance(tensor, SymbolicTensor):
        op = tensor.op
        if op.type == "Shape" and op.inputs[0].shape is not None:
            return op.inputs[0].shape
        if op.type == "Pack":
            scalars = [constant_value(t) for t in op.inputs]
            return tuple(None if v is None else int(v) for v in scalars)
    if tensor.shape is not None and len(tensor.shape) == 1 and tensor.shape[0] is not None:
        return (None,) * tensor.shape[0]
    return None


def _check_int_tensor(tensor: Tensor, op_name: str, arg: str, rank_: int) -> Tensor:
    if tensor.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{op_name}: {arg} must be an int32 or int64 tensor, got {tensor.dtype.name}")
    if tensor.ndim is not None and tensor.ndim != rank_:
        kind = "a scalar" if rank_ == 0 else "a 1-D tensor (a list of ints)"
        raise ValueError(f"{op_name}: {arg} must be {kind}, got shape {tensor.shape}")
    return tensor


def shape_argument(value: Any, op_name: str, arg: str) -> Tuple[Tensor, StaticDims]:
    """Convert a shape-like argument (int, list of ints/scalar tensors, 1-D int tensor) to a tensor.

    Returns the int tensor and, while tracing, its statically known dims (None when eager).
    """
    if isinstance(value, (int, np.integer)):
        value = [value]
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        if context.in_graph_mode() and any(isinstance(v, SymbolicTensor) for v in value):
            scalars = [_check_int_tensor(convert_to_tensor(v, dtypes.int32) if not isinstance(v, Tensor) else v,
                                         op_name, f"{arg} entries", 0) for v in value]
            scalars = [s if s.dtype == dtypes.int32 else _cast_int32(s) for s in scalars]
            tensor = stack(scalars)
            return tensor, static_dims(tensor)
        value = [int(_check_int_tensor(v, op_name, f"{arg} entries", 0)) if isinstance(v, Tensor) else v
                 for v in value]
    if isinstance(value, (list, tuple)) and not value:
        tensor = EagerTensor(np.zeros((0,), dtype=np.int32))
    elif isinstance(value, Tensor):
        tensor = value
    else:
        try:
            tensor = convert_to_tensor(value, dtypes.int32)
        except (TypeError, ValueError):
            raise TypeError(f"{op_name}: {arg} must be a list of ints or a 1-D int tensor, got {value!r}") from None
    _check_int_tensor(tensor, op_name, arg, 1)
    return tensor, (static_dims(tensor) if context.in_graph_mode() else None)


def _cast_int32(tensor: Tensor) -> Tensor:
    return cast(tensor, dtypes.int32)


def known_or_none(dims: StaticDims, length: Optional[int] = None) -> Shape:
    """A static output shape from known dims (negative entries, e.g. reshape's -1, become None)."""
    if dims is None:
        return None if length is None else (None,) * length
    return tuple(None if d is None or d < 0 else d for d in dims)

for _shape_op in (SHAPE, SIZE, RANK):
    not_differentiable(_shape_op, "it reads only the input's shape, not its values")
