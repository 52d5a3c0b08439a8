"""``ag.set_loop_options``: what a staged loop's body asks of the loop it runs in (TensorFlow's options).

The body calls it at its top. The first trace of the body, made without options, stops with ``LoopOptions`` (a
``Retrace``); the loop is traced again with them, and ``while_loop_options`` turns them (and the ranks the loop
learned are unknown) into ``rt.while_loop``'s arguments. Python loops inside a staged body push ``None`` on the
thread's stack of loop bodies (``python_loop``), so a call in them is for them: nothing.
"""
from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterable, Iterator, Sequence, Tuple

import runtime as rt
from autograph_lite.operators.staging import Learned, Retrace, staging

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, dict, enumerate, isinstance, len, list, next, super, tuple


class LoopOptions(Retrace):
    """``ag.set_loop_options`` ran in a body traced without options: the next trace uses them."""

    def __init__(self, owner: Learned, shape_invariants: Dict[int, Any], maximum_iterations: Any):
        super().__init__(owner, -1)
        self.shape_invariants, self.maximum_iterations = shape_invariants, maximum_iterations

    def learn(self) -> None:
        self.owner.options = self


def set_loop_options(shape_invariants: Sequence[Tuple[Any, Any]] = (), maximum_iterations: Any = None,
                     parallel_iterations: Any = None, swap_memory: Any = None) -> None:
    """Options for the tensor-dependent loop whose body calls this (at its top), with TensorFlow's meaning.

    ``shape_invariants``: ``(variable, shape)`` pairs; the variable keeps that shape in every iteration
    (``None`` dims may change) instead of being relaxed automatically, and a body that breaks it is a
    ``StateError``. ``maximum_iterations``: a Python int bounding the number of iterations.
    ``parallel_iterations`` and ``swap_memory`` are accepted and ignored (one loop runs one iteration at
    a time here). In a loop that runs in Python (not staged) it does nothing.

    >>> for i in range(2):
    ...     set_loop_options(maximum_iterations=1)   # a Python loop: no effect
    >>> i
    1
    """
    if not staging.loop_bodies or staging.loop_bodies[-1] is None:
        return
    staging.loop_bodies[-1].apply_options(shape_invariants, maximum_iterations)


@contextlib.contextmanager
def python_loop() -> Iterator[None]:
    """Marks a loop that runs in Python inside a staged loop's body: set_loop_options there is for it."""
    staging.loop_bodies.append(None)
    try:
        yield
    finally:
        staging.loop_bodies.pop()


def in_staged_loop_body() -> bool:
    """True while the body of a staged loop is being traced on this thread."""
    return bool(staging.loop_bodies)


def declare_options(learned: Learned, body_inputs: Sequence[Any], loop_indices: Sequence[int],
                    shape_invariants: Sequence[Tuple[Any, Any]], maximum_iterations: Any) -> None:
    """The body asked for options (``body_inputs``: its loop variables as it started, the state variables
    ``loop_indices``): the first trace restarts the loop with them (raises ``LoopOptions``); a later one has them."""
    if learned.options is not None:
        return
    declared: Dict[int, Any] = {}
    for pair in shape_invariants:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"set_loop_options: shape_invariants must be (variable, shape) pairs, got {pair!r}")
        variable, shape = pair
        position = next((p for p, value in enumerate(body_inputs) if value is variable), None)
        if position is None:
            raise ValueError(
                f"set_loop_options: {variable!r} in shape_invariants is not a variable of this tensor-dependent "
                "loop as the iteration starts; call set_loop_options at the top of the loop body and name "
                "variables the loop changes")
        declared[loop_indices[position]] = rt.TensorShape(shape).dims
    raise LoopOptions(learned, declared, maximum_iterations)


def while_loop_options(learned: Learned, before: int, loop_indices: Sequence[int], after: int) -> Dict[str, Any]:
    """rt.while_loop's maximum_iterations and shape_invariants (one per loop variable: ``before`` hidden ones, the
    state variables ``loop_indices``, ``after`` hidden ones), from the options and from the loop-created variables
    whose rank the body changes (unknown rank, as in TensorFlow)."""
    options = learned.options
    if options is None and not learned.unknown_ranks:
        return {}
    declared = {} if options is None else dict(options.shape_invariants)
    unknown: Iterable[int] = learned.unknown_ranks
    for index in unknown:
        declared[index] = rt.TensorShape(None)
    invariants = [None] * before + [declared.get(index) for index in loop_indices] + [None] * after
    return {"maximum_iterations": None if options is None else options.maximum_iterations,
            "shape_invariants": invariants}
