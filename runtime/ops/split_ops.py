"""Cutting a tensor into pieces along an axis: ``split`` and ``unstack``.

Both have one output per piece, so the number of pieces must be known while tracing.

>>> split([1, 2, 3, 4, 5], [2, -1])
[Tensor([1 2], shape=(2,), dtype=int32), Tensor([3 4 5], shape=(3,), dtype=int32)]
>>> unstack([[1, 2], [3, 4]], axis=1)
[Tensor([1 3], shape=(2,), dtype=int32), Tensor([2 4], shape=(2,), dtype=int32)]
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from runtime.core import shapes
from runtime.core.attrs import COUNT, INT, INTS, optional
from runtime.core.registry import register_gradient, register_op
from runtime.core.tensor import Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.shape_ops import constant_value
from runtime.ops.validated import apply_validated


def _outputs(arrays: List[np.ndarray]):
    """A kernel's results: one output is an array, several a tuple (the registry's convention)."""
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def _resolve_sizes(sizes: Sequence[int], dim: Optional[int], axis: int) -> List[Optional[int]]:
    """The split sizes with a -1 filled in; ValueError if they cannot cut a dim of size ``dim``."""
    if any(s < -1 for s in sizes) or list(sizes).count(-1) > 1:
        raise ValueError(f"size_splits must be >= 0 with at most one -1, got {list(sizes)}")
    known = sum(s for s in sizes if s >= 0)
    if dim is None:
        return [None if s == -1 else s for s in sizes]
    if -1 in sizes:
        if known > dim:
            raise ValueError(f"size_splits {list(sizes)} sum to {known}, more than dimension {axis} of value "
                             f"(size {dim})")
        return [dim - known if s == -1 else s for s in sizes]
    if known != dim:
        raise ValueError(f"size_splits {list(sizes)} sum to {known}, but dimension {axis} of value has size {dim}; "
                         "they must add up to it (or use -1 for one piece)")
    return list(sizes)


def _split_infer(specs, attrs):
    dtype, shape = specs[0]
    num, sizes = attrs["num"], attrs["sizes"]
    count = num if sizes is None else len(sizes)
    if shape is None:
        return [(dtype, None)] * count
    axis = shapes.normalize_axis(attrs["axis"], len(shape), "split")
    dim = shape[axis]
    if sizes is None:
        if dim is not None and dim % num:
            raise ValueError(f"dimension {axis} of value (size {dim}) cannot be split into {num} equal pieces")
        pieces = [None if dim is None else dim // num] * num
    else:
        pieces = _resolve_sizes(sizes, dim, axis)
    return [(dtype, shape[:axis] + (piece,) + shape[axis + 1:]) for piece in pieces]


def _split_kernel(x, *, num, sizes, axis):
    dim = x.shape[axis]
    if sizes is None:
        if dim % num:
            raise ValueError(f"dimension {axis} of value (size {dim}) cannot be split into {num} equal pieces")
        pieces = [dim // num] * num
    else:
        pieces = _resolve_sizes(sizes, dim, axis)
    return _outputs([part.copy() for part in np.split(x, np.cumsum(pieces)[:-1], axis=axis)])


SPLIT = register_op("SplitV", ("value",), _split_infer, _split_kernel,
                    doc="Pieces along attr 'axis': attr 'num' equal ones, or of attr 'sizes' (one may be -1).",
                    attrs={"num": COUNT, "sizes": optional(INTS), "axis": INT})


def split(value: Any, num_or_size_splits: Any, axis: int = 0, num: Optional[int] = None,
          name: Optional[str] = None) -> List[Tensor]:
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal pieces (an int), or into pieces of
    the given sizes (a list; one size may be -1 for the rest). Returns a list of tensors.

    >>> [t.shape for t in split([[1, 2, 3, 4]], 2, axis=1)]
    [TensorShape([1, 2]), TensorShape([1, 2])]
    """
    value = convert_to_tensor(value)
    if isinstance(num_or_size_splits, Tensor):
        known = constant_value(num_or_size_splits)
        if known is None:
            raise ValueError("SplitV: num_or_size_splits must be known while tracing (a Python int or list of "
                             "ints): each piece is one output")
        num_or_size_splits = known.tolist()
    if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(num_or_size_splits, bool):
        if num_or_size_splits < 1:
            raise ValueError(f"SplitV: the number of pieces must be >= 1, got {num_or_size_splits}")
        attrs = {"num": int(num_or_size_splits), "sizes": None}
    else:
        sizes = tuple(int(s) for s in num_or_size_splits)
        if not sizes:
            raise ValueError("SplitV: size_splits must name at least one piece")
        attrs = {"num": len(sizes), "sizes": sizes}
    attrs["axis"] = shapes.axis_argument(axis, "SplitV")
    result = apply_validated(SPLIT, (value,), attrs, name=name)
    return list(result) if isinstance(result, tuple) else [result]


def _unstack_infer(specs, attrs):
    dtype, shape = specs[0]
    num = attrs["num"]
    if shape is None:
        return [(dtype, None)] * num
    axis = shapes.normalize_axis(attrs["axis"], len(shape), "unstack")
    if shape[axis] is not None and shape[axis] != num:
        raise ValueError(f"num={num} does not match dimension {axis} of value (size {shape[axis]})")
    return [(dtype, shape[:axis] + shape[axis + 1:])] * num


def _unstack_kernel(x, *, num, axis):
    if x.shape[axis] != num:
        raise ValueError(f"num={num} does not match dimension {axis} of value (size {x.shape[axis]})")
    return _outputs([np.take(x, index, axis=axis) for index in range(num)])


UNSTACK = register_op("Unpack", ("value",), _unstack_infer, _unstack_kernel,
                      doc="The attr 'num' slices of value along attr 'axis', that axis removed.",
                      attrs={"num": COUNT, "axis": INT})


def unstack(value: Any, num: Optional[int] = None, axis: int = 0, name: Optional[str] = None) -> List[Tensor]:
    """The slices of ``value`` along ``axis`` as a list (``axis`` removed); the inverse of ``rt.stack``.

    ``num`` defaults to the size of that axis, which must then be known while tracing.

    >>> len(unstack([[1, 2], [3, 4], [5, 6]]))
    3
    """
    value = convert_to_tensor(value)
    if value.ndim == 0:
        raise ValueError("Unpack: value must have at least one dimension, got a scalar")
    if num is None:
        if value.ndim is None:
            raise ValueError("Unpack: cannot infer num from a value of unknown rank; pass num=")
        shapes.normalize_axis(shapes.axis_argument(axis, "Unpack"), value.ndim, "unstack")
        num = value.shape[int(axis)]
        if num is None:
            raise ValueError(f"Unpack: cannot infer num from shape {value.shape}: dimension {axis} is unknown "
                             "while tracing; pass num=")
    result = apply_validated(UNSTACK, (value,), {"num": int(num), "axis": int(axis)}, name=name)
    return list(result) if isinstance(result, tuple) else [result]


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
register_gradient(SPLIT)(lambda op, grads, ops: [ops.concat(list(grads), op.attrs["axis"])])
register_gradient(UNSTACK)(lambda op, grads, ops: [ops.stack(list(grads), op.attrs["axis"])])
