"""Which form of a converted function runs: the plain form's first statement asks ``needs_staged_form``.

A converted function has two forms (converters/plain_form.py): the staged form (what ``ag.to_code``
shows, every construct a call of an operator) and the plain form (the user's own statements). Outside
a graph the operators only run the plain Python statements, so the plain form runs there; while a
graph is being built the staged form runs.

``staged_form_always()`` makes every converted function run its staged form even outside a graph: the
tests use it to check the staged form on Python values (it is what runs for Python values while tracing).

>>> needs_staged_form()
False
>>> with staged_form_always():
...     needs_staged_form()
True
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from runtime.core.context import thread_state

_always_staged = [False]


def needs_staged_form() -> bool:
    """True while a graph is being built (or inside ``staged_form_always()``)."""
    return _always_staged[0] or thread_state.graph is not None   # runtime.in_graph_mode(), without a call


@contextlib.contextmanager
def staged_form_always() -> Iterator[None]:
    """Run the staged form of converted functions on Python values too (for tests; not thread-local)."""
    previous = _always_staged[0]
    _always_staged[0] = True
    try:
        yield
    finally:
        _always_staged[0] = previous
