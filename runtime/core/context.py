"""Which graph, if any, ops are being added to — per thread, so threads can trace concurrently."""
from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator, List, Optional


class _ThreadState(threading.local):
    graph = None  # the innermost graph being traced on this thread; None = eager
    variable_creation = None  # the VariableCreation policy of the function being traced, if any
    name_prefix = ""  # "outer/inner/" inside rt.name_scope("outer") and name_scope("inner")


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
thread_state = _state  # read ``thread_state.graph`` where a call to current_graph() costs too much (eager ops)

# How many threads have a graph in ``thread_state.graph`` now (read it, never write it: graph_scope does).
# Code that asks "is a graph being built on this thread?" for every call it makes (converted code's dispatch:
# millions of times outside any graph) asks the cheaper "on any thread?" first; a listener hears when that
# answer changes (under the lock, so the changes it hears are in order). A thread that dies inside a
# graph_scope leaves the count high: the cheap answer is then "maybe", never a wrong "no".
_building_lock = threading.Lock()
threads_building = [0]
_building_listeners: List[Callable[[bool], None]] = []


def on_graph_building_changed(listener: Callable[[bool], None]) -> None:
    """Call ``listener(True)`` when a thread starts building a graph while none was, ``listener(False)``
    when the last one stops; called once now with the current answer.

    >>> on_graph_building_changed(lambda building: None)
    """
    with _building_lock:
        _building_listeners.append(listener)
        listener(threads_building[0] > 0)


def _count_building(change: int) -> None:
    with _building_lock:
        before = threads_building[0]
        threads_building[0] = before + change
        if (before > 0) != (before + change > 0):
            for listener in _building_listeners:
                listener(before + change > 0)


def current_graph():
    """The graph ops are added to on this thread, or None when executing eagerly."""
    return _state.graph


def in_graph_mode() -> bool:
    """True while tracing a function on this thread.

    >>> in_graph_mode()
    False
    """
    return _state.graph is not None


class graph_scope:
    """Add ops to ``graph`` inside the ``with`` block (``None`` means eager).

    A class rather than a ``contextlib.contextmanager`` generator: tracing an ``if`` enters it about six
    times, and a generator-based one costs ~3 us to enter and leave, this ~0.5 us.

    >>> with graph_scope("g"):
    ...     current_graph()
    'g'
    """

    __slots__ = ("_graph", "_previous")

    def __init__(self, graph) -> None:
        self._graph = graph

    def __enter__(self) -> None:
        previous = self._previous = _state.graph
        _state.graph = self._graph
        if (previous is None) is not (self._graph is None):   # this thread starts or stops building one
            _count_building(1 if previous is None else -1)

    def __exit__(self, *exc_info) -> None:
        _state.graph = self._previous
        if (self._previous is None) is not (self._graph is None):
            _count_building(-1 if self._previous is None else 1)


def outer_graph() -> Optional[object]:
    graph = _state.graph
    return None if graph is None else getattr(graph, "outer_graph", None)


def variable_creation() -> Optional[VariableCreation]:
    """The variable-creation policy of the function being traced on this thread (None: not tracing one)."""
    return _state.variable_creation


class variable_creation_scope:
    """``policy`` is the variable-creation policy inside the ``with`` block (a class for the same reason as
    ``graph_scope``)."""

    __slots__ = ("_policy", "_previous")

    def __init__(self, policy: Optional[VariableCreation]) -> None:
        self._policy = policy

    def __enter__(self) -> None:
        self._previous = _state.variable_creation
        _state.variable_creation = self._policy

    def __exit__(self, *exc_info) -> None:
        _state.variable_creation = self._previous


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[str]:
    """Prefix the names of the ops created inside the ``with`` block with ``name/`` (scopes nest), as
    TensorFlow's ``tf.name_scope`` does; yields the full prefix. Eager ops have no names: no effect.

    >>> with name_scope("layer1") as scope:
    ...     with name_scope("dense") as inner:
    ...         print(scope, inner, scoped_name("MatMul"))
    layer1/ layer1/dense/ layer1/dense/MatMul
    """
    if not isinstance(name, str) or not name or "/" in name.strip("/"):
        raise ValueError(f"name_scope: the name must be a non-empty string without '/', got {name!r}")
    previous = _state.name_prefix
    _state.name_prefix = previous + name.strip("/") + "/"
    try:
        yield _state.name_prefix
    finally:
        _state.name_prefix = previous


def scoped_name(base: str) -> str:
    """``base`` inside the current name scope (unchanged if it already carries the scope's prefix, as the
    names of an op's captured constants do)."""
    prefix = _state.name_prefix
    if not prefix or base.startswith(prefix):
        return base
    return prefix + base
