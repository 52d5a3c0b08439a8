"""Shape inference helpers shared by op declarations (None = unknown dim; shape None = unknown rank)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from runtime.core.tensor import Shape
from runtime.core.tensor_shape import TensorShape, as_shape_tuple  # noqa: F401  (their home before tensor.shape was one)


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
