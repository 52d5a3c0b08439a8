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
import functools
import types
from typing import Iterator, List

from runtime.core.context import thread_state

# The namespaces generated code reads ``needs_staged_form`` from (``ag__``): staged_form_always swaps it there.
_namespaces: List[types.ModuleType] = []
_always_staged = [False]

# ``thread_state.graph`` (None outside a graph, a Graph while one is being built: a Graph is always true),
# read by a call that runs no Python frame: every converted call outside a graph asks, once.
_current_graph = functools.partial(getattr, thread_state, 'graph', None)


def needs_staged_form() -> bool:
    """True while a graph is being built (or inside ``staged_form_always()``)."""
    return _always_staged[0] or thread_state.graph is not None   # runtime.in_graph_mode(), without a call


def dispatch_operator() -> object:
    """What generated code calls as ``ag__.needs_staged_form()``: a graph (true) or None, from C."""
    return _current_graph


def register_namespace(namespace: types.ModuleType) -> None:
    """Generated code reads ``needs_staged_form`` from ``namespace`` (staged_form_always swaps it there)."""
    _namespaces.append(namespace)


def _always_true() -> bool:
    return True


@contextlib.contextmanager
def staged_form_always() -> Iterator[None]:
    """Run the staged form of converted functions on Python values too (for tests; not thread-local)."""
    previous = _always_staged[0], [namespace.needs_staged_form for namespace in _namespaces]
    _always_staged[0] = True
    for namespace in _namespaces:
        namespace.needs_staged_form = _always_true
    try:
        yield
    finally:
        _always_staged[0] = previous[0]
        for namespace, dispatch in zip(_namespaces, previous[1]):
            namespace.needs_staged_form = dispatch
