"""Which graph, if any, ops are being added to — per thread, so threads can trace concurrently."""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Optional


class _ThreadState(threading.local):
    graph = None  # the innermost graph being traced on this thread; None = eager
    variable_creation = None  # the VariableCreation policy of the function being traced, if any


class VariableCreation:
    """Whether the function being traced may create ``Variable``s, and the ones it created.

    TensorFlow's rule: a function may create variables on its first trace only (the Keras ``build``
    pattern, ``if self.w is None: self.w = Variable(...)``); ``refusal`` says why not otherwise.
    """

    def __init__(self, function_name: str, allowed: bool, refusal: str = ""):
        self.function_name = function_name
        self.allowed = allowed
        self.refusal = refusal
        self.created: list = []


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


def variable_creation() -> Optional[VariableCreation]:
    """The variable-creation policy of the function being traced on this thread (None: not tracing one)."""
    return _state.variable_creation


@contextlib.contextmanager
def variable_creation_scope(policy: Optional[VariableCreation]) -> Iterator[None]:
    previous = _state.variable_creation
    _state.variable_creation = policy
    try:
        yield
    finally:
        _state.variable_creation = previous
