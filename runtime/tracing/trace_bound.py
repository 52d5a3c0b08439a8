"""``max_traces``: a least-recently-used bound on the graphs one ``Function`` keeps.

A long-running server that calls a function with ever new Python values (or shapes) would otherwise keep
every graph for the life of the function. With ``max_traces=n`` the function keeps at most ``n``: tracing
an ``n + 1``-th evicts the one whose last call is oldest; calling an evicted signature again traces it again
(``experimental_get_tracing_count`` counts that trace too).

>>> bound = TraceBound("f", 2)
>>> bound.added("a"), bound.added("b"), bound.used("a"), bound.added("c")
([], [], None, ['b'])
"""
from __future__ import annotations

import collections
from typing import Any, List


class TraceBound:
    """The concrete functions of one Function in order of last use; ``added`` says which to evict."""

    def __init__(self, name: str, max_traces: Any):
        if type(max_traces) is not int or max_traces < 1:
            raise ValueError(f"{name}: max_traces must be an int >= 1 (or None for no bound), got {max_traces!r}")
        self.limit = max_traces
        self._order: "collections.OrderedDict[int, Any]" = collections.OrderedDict()

    def used(self, concrete: Any) -> None:
        """``concrete`` ran a call: it becomes the most recently used."""
        try:
            self._order.move_to_end(id(concrete))
        except KeyError:  # evicted by another thread meanwhile, or traced before the bound knew it
            pass

    def added(self, concrete: Any) -> List[Any]:
        """``concrete`` was just traced; returns the least recently used ones beyond the limit, now forgotten."""
        self._order[id(concrete)] = concrete
        evicted = []
        while len(self._order) > self.limit:
            evicted.append(self._order.popitem(last=False)[1])
        return evicted
