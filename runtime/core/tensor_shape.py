"""``TensorShape``: a static shape as TensorFlow's ``tf.TensorShape``, and what ``tensor.shape`` returns.

A shape of known rank is a tuple of its dims (``None`` = unknown dim), so it equals the tuple, hashes like it,
indexes, slices and concatenates like it; it adds TensorFlow's ``as_list()``, ``rank``, ``dims`` and friends.
It also equals the list of its dims, as in TensorFlow. ``TensorShape(None)`` is the shape of unknown rank.
Its repr is TensorFlow's, ``TensorShape([None, 3])``; ``str()`` gives the tuple, ``(None, 3)``, as in
TensorFlow, so messages that show a shape read "shape (None, 3)".

>>> shape = TensorShape([None, 3])
>>> shape.rank, shape.as_list(), shape == (None, 3), shape == [None, 3], shape[1]
(2, [None, 3], True, True, 3)
>>> shape
TensorShape([None, 3])
>>> print(shape)
(None, 3)
>>> TensorShape(None).rank is None
True
"""
from __future__ import annotations

from typing import Any, Iterator, List, Optional

import numpy as np


def as_shape_tuple(shape: Any) -> Optional[tuple]:
    """``shape`` (a TensorShape, a list/tuple of ints and None, or None) as a plain tuple of dims, or None.

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


class TensorShape(tuple):
    """A static shape, as TensorFlow's ``tf.TensorShape``: a tuple of dims that may be unknown (``None``),
    or ``TensorShape(None)``, a shape of unknown rank.

    >>> TensorShape([2, 3]).is_fully_defined(), TensorShape([2, None]).is_compatible_with((2, 5))
    (True, True)
    """

    __slots__ = ()

    def __new__(cls, dims: Any = None) -> "TensorShape":
        known = as_shape_tuple(dims)
        if known is None:
            return tuple.__new__(_UnknownRankShape)
        return tuple.__new__(TensorShape, known)

    @property
    def rank(self) -> Optional[int]:
        """The number of dims, or None when unknown."""
        return len(self)

    ndims = rank

    @property
    def dims(self) -> Optional[tuple]:
        """The dims as a plain tuple (None when the rank is unknown)."""
        return tuple(self)

    def as_list(self) -> List[Optional[int]]:
        """The dims as a list (ValueError when the rank is unknown, as in TensorFlow)."""
        return list(self)

    def is_fully_defined(self) -> bool:
        return all(dim is not None for dim in self)

    def is_compatible_with(self, other: Any) -> bool:
        """True if some shape fits both (unknown dims and unknown rank fit anything).

        >>> TensorShape([None, 3]).is_compatible_with((2, 3))
        True
        """
        dims = as_shape_tuple(other)
        return dims is None or (len(self) == len(dims) and all(
            a is None or b is None or a == b for a, b in zip(self, dims)))

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, _UnknownRankShape):
            return False
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    # str() is the tuple, as TensorFlow's: messages read "shape (2, 3)". repr() says what it is, as TensorFlow's.
    __str__ = tuple.__repr__

    def __repr__(self) -> str:
        return f"TensorShape({list(self)!r})"


class _UnknownRankShape(TensorShape):
    """``TensorShape(None)``: no dims to list, index or count."""

    __slots__ = ()

    @property
    def rank(self) -> Optional[int]:
        return None

    ndims = rank

    @property
    def dims(self) -> Optional[tuple]:
        return None

    def as_list(self) -> List[Optional[int]]:
        raise ValueError("as_list() is not defined on an unknown TensorShape")

    def is_fully_defined(self) -> bool:
        return False

    def is_compatible_with(self, other: Any) -> bool:
        as_shape_tuple(other)  # still refuses what is not a shape
        return True

    def __len__(self) -> int:
        raise ValueError("len() of a TensorShape of unknown rank")

    def __iter__(self) -> Iterator[Optional[int]]:
        raise ValueError("cannot iterate over a TensorShape of unknown rank")

    def __getitem__(self, key: Any) -> Any:
        raise ValueError("cannot index a TensorShape of unknown rank")

    def __eq__(self, other: Any) -> bool:
        return other is None or isinstance(other, _UnknownRankShape)

    def __hash__(self) -> int:
        return hash(None)

    def __bool__(self) -> bool:
        return True

    def __str__(self) -> str:
        return "<unknown rank>"

    def __repr__(self) -> str:
        return "TensorShape(None)"


def known(dims: tuple) -> TensorShape:
    """``dims`` (a tuple of ints and None, already checked) as a TensorShape, without checking it again."""
    return tuple.__new__(TensorShape, dims)
