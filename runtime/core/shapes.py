"""Shape inference helpers shared by op declarations (None = unknown dim; shape None = unknown rank)."""
from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence

import numpy as np

from runtime.core.tensor import Shape


def broadcast(a: Shape, b: Shape) -> Shape:
    """numpy broadcasting of two static shapes, with unknown dims.

    >>> broadcast((None, 3), (3,))
    (None, 3)
    """
    if a is None or b is None:
        return None
    result = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == 1:
            result.append(y)
        elif y == 1 or y == x:
            result.append(x)
        elif x is None or y is None:
            result.append(x if y is None else y)
        else:
            raise ValueError(f"shapes {format_shape(a)} and {format_shape(b)} are not broadcast-compatible "
                             f"(dimension {x} vs {y})")
    return tuple(reversed(result))


def format_shape(shape: Shape) -> str:
    if shape is None:
        return "<unknown rank>"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def most_specific_common_shape(a: Shape, b: Shape) -> Shape:
    """A shape both ``a`` and ``b`` fit: dims that differ become None, different ranks give None.

    >>> most_specific_common_shape((2, 3), (4, 3))
    (None, 3)
    """
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def axis_argument(axis: Any, op: str, name: str = "axis") -> int:
    """``axis`` as a Python int, if it is an integer (Python, numpy, or a scalar integer tensor's value);
    a TypeError naming ``op`` otherwise (``int(1.5)`` would silently pick axis 1).

    >>> axis_argument(np.int64(1), "ConcatV2")
    1
    >>> axis_argument(1.5, "ConcatV2")
    Traceback (most recent call last):
    TypeError: ConcatV2: axis must be an int, got 1.5 (float)
    """
    if type(axis) is int:
        return axis
    if not isinstance(axis, (bool, np.bool_)):
        if isinstance(axis, (int, np.integer)):
            return int(axis)
        dtype, shape = getattr(axis, "dtype", None), getattr(axis, "shape", None)
        if isinstance(dtype, np.dtype) and dtype.kind in "iu" and shape == () and hasattr(axis, "numpy"):
            return int(axis.numpy())
    raise TypeError(f"{op}: {name} must be an int, got {axis!r:.80} ({type(axis).__name__})")


def axes_argument(axes: Any, op: str, name: str = "axis") -> tuple:
    """``axes`` (an int, or a list/tuple/array of ints) as a tuple of Python ints; TypeError naming ``op``.

    >>> axes_argument([0, np.int32(2)], "Transpose", "perm")
    (0, 2)
    """
    if isinstance(axes, (list, tuple)) or (isinstance(axes, np.ndarray) and axes.ndim == 1):
        try:
            return tuple(axis_argument(a, op, name) for a in axes)
        except TypeError:
            raise TypeError(f"{op}: {name} must be an int or a list of ints, got {axes!r:.80}") from None
    try:
        return (axis_argument(axes, op, name),)
    except TypeError:
        raise TypeError(f"{op}: {name} must be an int or a list of ints, got {axes!r:.80} "
                        f"({type(axes).__name__})") from None


def normalize_axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank if rank else 0


def reduced(shape: Shape, axis: Optional[Sequence[int]], keepdims: bool) -> Shape:
    """The shape after reducing ``axis`` (None = all axes)."""
    if shape is None:
        return None
    axes = range(len(shape)) if axis is None else {normalize_axis(a, len(shape), "reduce") for a in axis}
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


class TensorShape:
    """A static shape, as TensorFlow's ``tf.TensorShape``: dims that may be unknown (``None``), or an
    unknown rank (``TensorShape(None)``). It equals the tuple of its dims.

    >>> shape = TensorShape([None, 3])
    >>> shape.rank, shape.as_list(), shape == (None, 3), shape[1]
    (2, [None, 3], True, 3)
    >>> TensorShape(None).rank is None
    True
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Any):
        self._dims = as_shape_tuple(dims)

    @property
    def rank(self) -> Optional[int]:
        """The number of dims, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> Optional[tuple]:
        return self._dims

    def as_list(self) -> List[Optional[int]]:
        """The dims as a list (ValueError when the rank is unknown, as in TensorFlow)."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(dim is not None for dim in self._dims)

    def is_compatible_with(self, other: Any) -> bool:
        """True if some shape fits both (unknown dims and unknown rank fit anything).

        >>> TensorShape([None, 3]).is_compatible_with((2, 3))
        True
        """
        other = as_shape_tuple(other)
        if self._dims is None or other is None:
            return True
        return len(self._dims) == len(other) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other))

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("len() of a TensorShape of unknown rank")
        return len(self._dims)

    def __iter__(self) -> Iterator[Optional[int]]:
        if self._dims is None:
            raise ValueError("cannot iterate over a TensorShape of unknown rank")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            raise ValueError("cannot index a TensorShape of unknown rank")
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: Any) -> bool:
        try:
            return self._dims == as_shape_tuple(other)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"


def as_shape_tuple(shape: Any) -> Optional[tuple]:
    """``shape`` (a TensorShape, a list/tuple of ints and None, or None) as a tuple of dims, or None.

    >>> as_shape_tuple(TensorShape([2, None])), as_shape_tuple([]), as_shape_tuple(None)
    ((2, None), (), None)
    """
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return shape.dims
    if isinstance(shape, (str, bytes)):
        raise TypeError(f"a shape must be a list of ints and None, got {shape!r}")
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"a shape must be a list of ints and None, got {shape!r}") from None
    out = []
    for dim in dims:
        if dim is not None and not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError(f"a shape must be a list of ints and None, got {shape!r}")
        if dim is not None and dim < 0:
            raise ValueError(f"a shape's dims must be >= 0 or None, got {shape!r}")
        out.append(None if dim is None else int(dim))
    return tuple(out)
