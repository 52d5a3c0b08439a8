"""The ranges of a lowering's traced integer values: what lets it leave out an index check that cannot fail.

Two sources declare them (``KnownRanges.set_range``), keyed by the traced value itself:

- the interval analysis of the graph (``runtime.backends.xla.value_ranges``), run before lowering: each tensor's
  fact narrower than its dtype's whole range is declared on the value lowered for it (``declare_facts``);
- the lowering's own knowledge when it runs: a loop counter in its body (``loop_bounds.counter_ranges``: the
  counter's start and limit are often known only as lowered values), and arithmetic of such a value and a Python
  int (``propagate``).

Two declarations for one value are both true, so the value has their intersection. A range that does not fit the
value's dtype is not declared (the value could have wrapped around).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from runtime.core.errors import LoweringError
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, SQUEEZE
from runtime.ops.core import IDENTITY
from runtime.ops.indexing import STRIDED_SLICE
from runtime.ops.math_ops import ADD, FLOOR_DIV, MUL, SUB

_ARITHMETIC = (ADD, SUB, MUL, FLOOR_DIV)   # (an int scalar of a known range and a Python int: ``propagate``)
SIZING_LIMIT = 1 << 20
_KEEPING = (IDENTITY, STRIDED_SLICE, RESHAPE, SQUEEZE, EXPAND_DIMS)   # their results' elements are inputs'


def _is_static(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


class KnownRanges:
    """The ranges part of the lowering's ``Context``."""

    _ranges: Dict[int, tuple]   # id(traced int value) -> (it, lowest, highest value its elements can have)
    facts: Any                  # the program's ``value_ranges.Analysis`` (None: none, e.g. a lowering in a test)

    def set_range(self, value: Any, low: int, high: int) -> None:
        """Declare that the traced integer ``value``'s elements are always in ``[low, high]``."""
        low, high = int(low), int(high)
        dtype = np.dtype(getattr(value, "dtype", np.int64))
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if low < info.min or high > info.max:
                return   # (not a range of this dtype: the value could have wrapped around)
        known = self.value_range(value)
        if known is not None:
            low, high = max(low, known[0]), min(high, known[1])
            if low > high:   # (only where it never runs: two true ranges of one value meet)
                return
        self._ranges[id(value)] = (value, low, high)

    def value_range(self, value: Any) -> Optional[tuple]:
        """(lowest, highest) of ``value`` if declared (``set_range``), else None."""
        entry = self._ranges.get(id(value))
        return entry[1:] if entry is not None and entry[0] is value else None

    def sizing_range(self, value: Any) -> Optional[tuple]:
        """``value_range``, if small enough to size a buffer with (a loop's limit bounding its trips, a TensorArray's
        highest index): within +-SIZING_LIMIT; None otherwise (such a buffer would not fit in memory: the list's
        size is then as unknown as without a range, and the lowering says so)."""
        known = self.value_range(value)
        return known if known is not None and -SIZING_LIMIT <= known[0] and known[1] <= SIZING_LIMIT else None

    def always_within(self, value: Any, low: int, high: int) -> bool:
        """Whether ``value`` is known, when compiling, to be in ``[low, high]``: its range check can be left out."""
        known = self.value_range(value)
        return known is not None and low <= known[0] and known[1] <= high

    def declare_facts(self, tensors: Sequence[Any], values: Sequence[Any]) -> None:
        """Declare the analysis's facts of ``tensors`` on their lowered ``values`` (traced integer arrays)."""
        facts = self.facts
        for tensor, value in zip(tensors, values):
            if id(tensor) in facts.shaped and hasattr(value, "shape") and tensor.shape is not None:
                declared, actual = tuple(tensor.shape), tuple(value.shape)
                if len(declared) != len(actual) or any(d is not None and d != a for d, a in zip(declared, actual)):
                    raise LoweringError(f"{tensor.op.name}: the graph declares shape {declared} but its value has "
                                        f"{actual}; the value ranges derived from it would be wrong (a bug: please "
                                        "report it, and run this function with jit_compile=None meanwhile)")
            known = facts.known(tensor)
            if known is not None and not _is_static(value) and hasattr(value, "shape") and \
                    np.dtype(value.dtype).kind in "iu":   # (an array: not a list's buffer, nor a lazy range)
                self.set_range(value, *known)

    def propagate(self, op_def: Any, inputs: List[Any], results: Sequence[Any]) -> None:
        """The range of ``i * 3 + 1``, ``i - 1``, ``i // 2`` (``i`` an integer scalar of a declared range, the
        other a Python int), and of the elements of a declared value reshaped or sliced."""
        if op_def in _KEEPING and inputs and not _is_static(results[0]):
            known = self.value_range(inputs[0])   # elements of the input, the same values: the same range
            if known is not None and results[0].dtype.kind in "iu":
                self.set_range(results[0], *known)
        if op_def not in _ARITHMETIC:
            return
        (x, y), result = inputs, results[0]
        known, constant = self.value_range(x), y
        if known is None and op_def is not SUB:
            known, constant = self.value_range(y), x
        if known is None or not _is_static(constant) or np.ndim(constant) or \
                np.asarray(constant).dtype.kind not in "iu":
            return
        c = int(constant)
        if op_def is FLOOR_DIV and (c <= 0 or constant is x):
            return
        low, high = known
        ends = {ADD: (low + c, high + c), SUB: (low - c, high - c), MUL: (low * c, high * c),
                FLOOR_DIV: (low // max(c, 1), high // max(c, 1))}[op_def]
        if np.dtype(result.dtype).kind == "i":   # (set_range declares nothing that could have wrapped around)
            self.set_range(result, min(ends), max(ends))
