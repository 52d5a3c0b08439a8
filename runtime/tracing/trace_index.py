"""The traces of one ``Function``, found without scanning them all.

A call whose exact key is not cached needs the first trace that ``accepts`` it (a trace made for
``None`` dims), and with ``reduce_retracing`` the latest trace it can ``relax`` with. Both can only be
traces whose key has the same *shape-free form* (tensor shapes replaced by their ranks; Python values
kept), so traces are grouped by that form and a lookup reads one small group: its cost does not grow
with the number of traces (a function retraced for 2,000 Python values has 2,000 groups of one).
Traces with an unknown-rank tensor accept every rank; they are few and always checked.

>>> import numpy as np
>>> from runtime.tracing.signature import TENSOR
>>> index = TraceIndex()
>>> index.add(((TENSOR, np.dtype("float32"), (None,)),), "any length")
>>> index.add(((TENSOR, np.dtype("float32"), (2, 2)),), "2x2")
>>> index.accepting(((TENSOR, np.dtype("float32"), (5,)),))
'any length'
>>> index.accepting(((TENSOR, np.dtype("float32"), (5, 5)),)) is None
True
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from runtime.tracing.signature import accepts, has_unknown_dims, has_unknown_rank, relax, shape_free

Entry = Tuple[int, Any, Any]  # (trace number, trace key, concrete function)


class TraceIndex:
    """Traces in trace order, grouped by the shape-free form of their keys."""

    def __init__(self) -> None:
        self._traces: List[Entry] = []
        self._by_form: Dict[Any, List[Entry]] = {}        # every trace (candidates for ``relax``)
        self._general_by_form: Dict[Any, List[Entry]] = {}  # traces with None dims (for ``accepts``)
        self._any_rank: List[Entry] = []                  # traces with an unknown-rank tensor
        self._count = 0

    def add(self, key: Any, concrete: Any) -> None:
        entry = (self._count, key, concrete)
        self._count += 1
        self._traces.append(entry)
        form = shape_free(key)
        self._by_form.setdefault(form, []).append(entry)
        if has_unknown_rank(key):
            self._any_rank.append(entry)
        elif has_unknown_dims(key):
            self._general_by_form.setdefault(form, []).append(entry)

    def accepting(self, key: Any) -> Optional[Any]:
        """The earliest trace whose key accepts ``key`` (None dims match any size), or None."""
        candidates = [e for e in self._general_by_form.get(shape_free(key), []) + self._any_rank
                      if accepts(e[1], key)]
        return min(candidates, key=lambda e: e[0])[2] if candidates else None

    def relaxed(self, key: Any) -> Any:
        """``key`` relaxed with the latest trace it can be relaxed with (differing dims -> None)."""
        for _, trace_key, _ in reversed(self._by_form.get(shape_free(key), ())):
            result = relax(trace_key, key)
            if result is not None:
                return result
        return key

    def remove_where(self, drop: Callable[[Any], bool]) -> None:
        """Forget the traces whose key satisfies ``drop`` (rare: an argument keyed by identity died)."""
        kept = [e for e in self._traces if not drop(e[1])]
        self.__init__()
        for _, key, concrete in kept:
            self.add(key, concrete)

    def discard(self, concretes: Any) -> None:
        """Forget the traces of these concrete functions (max_traces evictions); the rest keep their order."""
        gone = {id(c) for c in concretes}

        def kept(entries: List[Entry]) -> List[Entry]:
            return [e for e in entries if id(e[2]) not in gone]
        self._traces, self._any_rank = kept(self._traces), kept(self._any_rank)
        for by_form in (self._by_form, self._general_by_form):
            for form in list(by_form):
                by_form[form] = kept(by_form[form])
                if not by_form[form]:
                    del by_form[form]

    def __len__(self) -> int:
        return len(self._traces)

    def __iter__(self) -> Iterator[Tuple[Any, Any]]:
        return ((key, concrete) for _, key, concrete in self._traces)

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        _, key, concrete = self._traces[index]
        return key, concrete
