"""What the staged ifs and loops being traced on one thread share, and how they retrace.

``Function`` traces on the thread that calls it, so several threads may trace at once. Everything a staged
construct keeps while it is traced (which constructs are open, which Python lists and dicts they carry, whose
body is running) is therefore a field of one thread-local object, ``staging``: a construct of another thread
neither sees it nor is interrupted by it.

A construct is traced until it has learned every fact about its state variables that a trace can reveal
(``Learned``: a placeholder for a variable one path lacks, a flag a loop leaves unchanged, a Python list that
must be a tensor list, the loop's options). The trace that reveals one raises a ``Retrace`` naming the
construct it is for (its ``Learned``); ``retrace_until_settled`` restores the state, records the fact and
traces again. A ``Retrace`` for a construct that is not being traced on this thread any more is a bug of ours:
it leaves as a RuntimeError saying so, never as the internal signal itself.

>>> learned = Learned()
>>> traces = []
>>> def trace():
...     traces.append(dict(learned.placeholders))
...     if 0 not in learned.placeholders:
...         raise NeedsPlaceholder(learned, 0, 1.5)
>>> retrace_until_settled(learned, trace, (None,), lambda state: None)
>>> traces
[{}, {0: 1.5}]
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import BaseException, NotImplementedError, RuntimeError, any, super, type

# {id(container): (index of the state variable, its name, the container)}: the entries keep the containers
# alive, so that their ids stay theirs while the construct is traced.
Containers = Dict[int, Tuple[int, str, Any]]


class Staging(threading.local):
    """The staged constructs being traced on this thread, outermost first."""

    def __init__(self) -> None:
        self.constructs: List[Learned] = []   # every if and loop in retrace_until_settled
        self.loop_bodies: List[Any] = []      # loops whose bodies run (None: a Python loop in one): set_loop_options
        self.loop_containers: List[Tuple[Learned, Containers]] = []   # each loop's Python lists, sets and dicts
        # each loop's body copies of its list variables (carried as structures), and what checks an item
        # assignment to one of them (staged_loops._Loop.before_item_assigned)
        self.loop_copies: List[Tuple[Containers, Callable[[int], None]]] = []
        self.if_lists: List[Tuple[Learned, Containers]] = []          # each if's Python lists


staging = Staging()
# How many staged constructs carry Python containers now, on all threads (see ``carrying``): while none does,
# a change of a Python list is just that change (the plain form's ``xs.append(v)``, ``xs[i] = v``), with no
# thread-local state to read. Never a wrong "none": counted under the lock before the construct's body runs.
# So every stack of carried containers is pushed through ``carrying`` (data_structures.carried_by_loop pushes
# loop_copies only around it): a stack pushed another way would be skipped by those fast paths.
carrying_anywhere = [0]
_carrying_lock = threading.Lock()


class Learned:
    """The facts the traces of one staged if or loop have learned so far, by state variable index. Each is
    learned at most once per variable, so the retracing ends. It also stands for the construct: a ``Retrace``
    names the ``Learned`` of the construct it is for.

    ``before_tensor_list(index, element)``: what the construct checks and does before it makes its Python list
    ``index`` a tensor list (it may raise: a StateError, or a Retrace for a construct around it)."""

    def __init__(self, before_tensor_list: Optional[Callable[[int, Any], None]] = None) -> None:
        self.placeholders: Dict[int, Any] = {}   # variable a path lacks -> a value like the one another path has
        self.constant_flags: Set[int] = set()    # flags a loop body leaves as they were
        self.tensor_lists: Dict[int, Any] = {}   # Python list -> an element (its dtype and shape)
        self.options: Any = None                 # what ag.set_loop_options asked for (loop_options.LoopOptions)
        self.unknown_ranks: Set[int] = set()     # variables first assigned in a loop whose rank the body changes
        self.loop_keys: Dict[int, Dict[Any, Any]] = {}   # dict -> {key a loop adds: a value like the body's}
        self.before_tensor_list = before_tensor_list
        # called when the body adds ``key`` (with ``value``) to the dict variable ``index``: returns if the loop
        # carries it already, else raises (NeedsLoopKey, or a StateError if it cannot): staged_loops.py
        self.key_added: Optional[Callable[[int, Any, Any], None]] = None


class Retrace(BaseException):
    """Raised while a staged ``if``/loop is traced, when the trace lacked a fact about state variable
    ``index`` that it has only now seen: the state is restored and the construct ``owner`` (its ``Learned``)
    traced again, knowing it (``learn``).

    A BaseException, like the other signals of the operators: it passes through the user's code between
    where it is raised and the construct that retraces (a body of an enclosing staged loop), where an
    ``except Exception:`` or ``contextlib.suppress`` would otherwise swallow it and the construct be
    built from a trace that never finished."""

    def __init__(self, owner: Learned, index: int) -> None:
        super().__init__(index)
        self.owner, self.index = owner, index

    def learn(self) -> None:
        raise NotImplementedError


class NeedsPlaceholder(Retrace):
    """A path of the trace lacked a value for variable ``index`` that another path has (``value``): the next
    trace gives that path a zeros placeholder like it (staged_state.placeholder_like)."""

    def __init__(self, owner: Learned, index: int, value: Any) -> None:
        super().__init__(owner, index)
        self.value = value

    def learn(self) -> None:
        self.owner.placeholders[self.index] = self.value


class RankChanges(Retrace):
    """A variable first assigned inside a loop gets another rank (or an unknown one) in the body than the
    value it enters the loop with: the next trace declares its shape of unknown rank, as TensorFlow does for
    such loop-created variables (a variable from before the loop must keep its rank)."""

    def learn(self) -> None:
        self.owner.unknown_ranks.add(self.index)


class NeedsLoopKey(Retrace):
    """A loop body adds ``key`` to its dict variable ``index`` (``value``: what it sets): the next trace carries
    the key as a variable the loop creates (a placeholder like ``value`` and a "defined" flag), hidden from the
    body and the condition until the body sets it, as TensorFlow accepts such a key."""

    def __init__(self, owner: Learned, index: int, key: Any, value: Any) -> None:
        super().__init__(owner, index)
        self.key, self.value = key, value

    def learn(self) -> None:
        self.owner.loop_keys.setdefault(self.index, {})[self.key] = self.value


class FlagUnchanged(Retrace):
    """The body of a loop leaves a return/break/continue flag as it was (a return under a Python condition
    that is never true, say): the next trace keeps the flag the value it had before the loop: a Python bool,
    so what follows the loop still knows no return happened, or an enclosing loop's flag, which that loop then
    sees unchanged in its own body too."""

    def learn(self) -> None:
        self.owner.constant_flags.add(self.index)


class NeedsTensorList(Retrace):
    """The construct's Python list ``index`` must be a tensor list like ``element`` (one of its elements): a
    staged loop's body changes it, or an if's branches leave it with different lengths, or a construct inside
    makes it one. A change inside a construct that does not own the list is signalled to the outermost
    construct that carries it (data_structures.py), which is the one that retraces."""

    def __init__(self, owner: Learned, index: int, element: Any) -> None:
        super().__init__(owner, index)
        self.element = element

    def learn(self) -> None:
        if self.owner.before_tensor_list is not None:
            self.owner.before_tensor_list(self.index, self.element)
        self.owner.tensor_lists[self.index] = self.element


def retrace_until_settled(owner: Learned, trace: Callable[[], None], init: tuple,
                          set_state: Callable[[tuple], None]) -> None:
    """Call ``trace()`` again while it raises a ``Retrace`` for ``owner``: each time, first restore the state
    to ``init`` and learn what the exception says. A Retrace for a construct around this one passes on."""
    staging.constructs.append(owner)
    try:
        while True:
            try:
                return trace()
            except Retrace as caught:
                retry = caught
            if retry.owner is not owner:
                if not any(construct is retry.owner for construct in staging.constructs):
                    raise RuntimeError(
                        f"internal error of autograph_lite: {type(retry).__name__} for a staged construct that is "
                        "not being traced on this thread; please report it with the function being traced"
                    ) from None
                raise retry
            set_state(init)
            retry.learn()
    finally:
        staging.constructs.pop()


@contextlib.contextmanager
def carrying(stack: List[Tuple[Learned, Containers]], owner: Learned, containers: Containers) -> Iterator[None]:
    """``owner``'s ``containers`` on ``stack`` (staging.loop_containers or staging.if_lists) while it is traced."""
    with _carrying_lock:
        carrying_anywhere[0] += 1
    stack.append((owner, containers))
    try:
        yield
    finally:
        stack.pop()
        with _carrying_lock:
            carrying_anywhere[0] -= 1
