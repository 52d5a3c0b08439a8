"""Which graph, if any, ops are being added to — per thread, so threads can trace concurrently."""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Optional


class _ThreadState(threading.local):
    graph = None  # the innermost graph being traced on this thread; None = eager


_state = _ThreadState()


def current_graph():
    """The graph ops are added to on this thread, or None when executing eagerly."""
    return _state.graph


def in_graph_mode() -> bool:
    """True while tracing a function on this thread.

    >>> in_graph_mode()
    False
    """
    return _state.graph is not None


@contextlib.contextmanager
def graph_scope(graph) -> Iterator[None]:
    """Add ops to ``graph`` inside the ``with`` block (``None`` means eager)."""
    previous = _state.graph
    _state.graph = graph
    try:
        yield
    finally:
        _state.graph = previous


def outer_graph() -> Optional[object]:
    graph = _state.graph
    return None if graph is None else getattr(graph, "outer_graph", None)
