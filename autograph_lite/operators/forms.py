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
import threading
import types
from typing import Iterator, List

from runtime.core import context
from runtime.core.context import thread_state

# The namespaces generated code reads ``needs_staged_form`` from (``ag__``): what it calls there is swapped
# (under _lock) to the cheapest callable that gives the right answer now, see _install.
_namespaces: List[types.ModuleType] = []
_always_staged = [False]
_graph_on_some_thread = [False]
_lock = threading.Lock()

# ``thread_state.graph`` (None outside a graph, a Graph while one is being built: a Graph is always true),
# read by a call that runs no Python frame.
_current_graph = functools.partial(getattr, thread_state, 'graph', None)
# While no thread builds a graph the answer is false for every thread: ``bool()`` says so from C, three
# times faster than reading the thread's graph (the plain form of every converted call asks, once).
_no_graph_anywhere = bool


def needs_staged_form() -> bool:
    """True while a graph is being built (or inside ``staged_form_always()``)."""
    return _always_staged[0] or thread_state.graph is not None   # runtime.in_graph_mode(), without a call


def _dispatch() -> object:
    """What generated code calls as ``ag__.needs_staged_form()`` now: true (a graph) or false, from C."""
    if _always_staged[0]:
        return _always_true
    return _current_graph if _graph_on_some_thread[0] else _no_graph_anywhere


def _install() -> None:
    with _lock:
        dispatch = _dispatch()
        for namespace in _namespaces:
            namespace.needs_staged_form = dispatch


def _graph_building_changed(building: bool) -> None:
    # Called under runtime's lock when the first thread starts building a graph or the last one stops: the
    # namespaces read the thread's graph before that thread's first converted call in the graph.
    _graph_on_some_thread[0] = building
    _install()


def register_namespace(namespace: types.ModuleType) -> None:
    """Generated code reads ``needs_staged_form`` from ``namespace`` (kept up to date here)."""
    with _lock:
        _namespaces.append(namespace)
    _install()


def _always_true() -> bool:
    return True


@contextlib.contextmanager
def staged_form_always() -> Iterator[None]:
    """Run the staged form of converted functions on Python values too (for tests; not thread-local)."""
    previous = _always_staged[0]
    _always_staged[0] = True
    _install()
    try:
        yield
    finally:
        _always_staged[0] = previous
        _install()


context.on_graph_building_changed(_graph_building_changed)
