"""Shape inference helpers shared by op declarations (None = unknown dim; shape None = unknown rank)."""
from __future__ import annotations

from typing import Optional, Sequence

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
