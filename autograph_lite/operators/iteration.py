"""Things a staged ``for`` can iterate: a symbolic tensor (its first dimension), ``range`` with a
symbolic bound, and ``enumerate``/``zip`` over those.

Each is seen through one small interface: ``length()`` (a scalar int32 tensor: the number of
iterations) and ``element(i)`` (the loop target for iteration ``i``, a symbolic counter), so that
``for_stmt`` stages all of them as one ``While`` over a hidden counter.

>>> StagedRange(0, 10, 3)  # what range(n) becomes when n is symbolic (built by py_builtins.range)
StagedRange(0, 10, 3)
"""
from __future__ import annotations

from typing import Any, Sequence

import runtime as rt
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance, len, map, repr, str, tuple, type


class StagedIterable:
    """Base: an iterable whose length is only known when the graph runs."""

    def length(self) -> Any:
        raise NotImplementedError(type(self).__name__)

    def element(self, index: Any) -> Any:
        raise NotImplementedError(type(self).__name__)

    def __iter__(self):
        raise rt.errors.OperatorNotAllowedInGraphError(
            f"Iterating over {self!r} in Python is not possible while tracing: its length depends on a "
            "symbolic tensor. Use it as the iterable of a for loop in a converted function (ag.function), "
            "where the loop is staged into the graph.")


class TensorRows(StagedIterable):
    """A tensor iterated over its first dimension inside a staged loop."""

    def __init__(self, tensor: Any):
        if tensor.shape is not None and len(tensor.shape) == 0:
            raise TypeError(
                f"Cannot iterate over a scalar tensor ({tensor!r}); a for loop over a tensor visits the "
                "rows of its first dimension, so the tensor needs rank >= 1")
        self.tensor = tensor

    def length(self) -> Any:
        shape = self.tensor.shape
        if shape is not None and shape[0] is not None:
            return rt.constant(shape[0], rt.int32)
        return rt.cast(rt.shape(self.tensor)[0], rt.int32)

    def element(self, index: Any) -> Any:
        return rt.gather(self.tensor, index)

    def __repr__(self) -> str:
        return f"TensorRows({self.tensor!r})"


class TensorListItems(StagedIterable):
    """The elements of a tensor list (a Python list a staged loop appended to), in a staged loop."""

    def __init__(self, items: Any):
        self.items = items

    def length(self) -> Any:
        return self.items.length()

    def element(self, index: Any) -> Any:
        return self.items[index]

    def __repr__(self) -> str:
        return f"TensorListItems({self.items!r})"


class StagedRange(StagedIterable):
    """``range(start, limit, delta)`` where at least one bound is a symbolic tensor.

    Never materialized: iteration ``i`` is ``start + i * delta``.
    """

    def __init__(self, start: Any, limit: Any, delta: Any):
        self.start, self.limit, self.delta = start, limit, delta

    def length(self) -> Any:
        # ceil((limit - start) / delta) == -((start - limit) // delta), clipped at 0 (empty range).
        count = -((self.start - self.limit) // self.delta)
        return rt.cast(rt.maximum(count, 0), rt.int32)

    def element(self, index: Any) -> Any:
        index = rt.cast(index, _dtype_of(self.start, self.limit, self.delta))
        return self.start + index * self.delta

    def __rt_tensor__(self) -> Any:
        """Used as an op argument (``rt.reduce_sum(range(n))``), it is the range tensor."""
        return rt.range(self.start, self.limit, self.delta)

    def __repr__(self) -> str:
        return f"StagedRange({self.start!r}, {self.limit!r}, {self.delta!r})"


class StagedEnumerate(StagedIterable):
    """``enumerate(iterable, start)`` over a staged iterable: elements are ``(start + i, item)``."""

    def __init__(self, inner: StagedIterable, start: Any = 0):
        self.inner, self.start = inner, start

    def length(self) -> Any:
        return self.inner.length()

    def element(self, index: Any) -> Any:
        return (index + self.start, self.inner.element(index))

    def __repr__(self) -> str:
        return f"StagedEnumerate({self.inner!r}, start={self.start!r})"


class StagedZip(StagedIterable):
    """``zip(a, b, ...)`` where at least one is staged: stops at the shortest, like ``zip``."""

    def __init__(self, parts: Sequence[StagedIterable]):
        self.parts = tuple(parts)

    def length(self) -> Any:
        length = self.parts[0].length()
        for part in self.parts[1:]:
            length = rt.minimum(length, part.length())
        return length

    def element(self, index: Any) -> Any:
        return tuple(part.element(index) for part in self.parts)

    def __repr__(self) -> str:
        return f"StagedZip({', '.join(map(repr, self.parts))})"


def as_staged_iterable(value: Any) -> Any:
    """``value`` as a StagedIterable if iterating it must be staged, else None (iterate in Python)."""
    if isinstance(value, StagedIterable):
        return value
    if isinstance(value, SymbolicTensor):
        return TensorRows(value)
    if isinstance(value, rt.TensorList):
        return TensorListItems(value)
    return None


def _dtype_of(*values: Any) -> Any:
    for value in values:
        if isinstance(value, rt.Tensor):
            return value.dtype
    return rt.int32
