"""``if``, ``while`` and ``for`` as functions: what converted code calls (see docs/GENERATED_CODE.md).

Each operator decides at run time (SEMANTICS.md, "the one rule"): a symbolic tensor condition or
iterable is staged (staged_if.py / staged_loops.py); anything else — Python values, eager tensors —
runs as the plain Python statement, with nothing more than one ``isinstance`` check per test on top.

>>> state = {'n': 0}
>>> def body(): state['n'] += 1
>>> while_stmt(lambda: state['n'] < 3, body, lambda: (), lambda s: None, ())
>>> state['n']
3
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from autograph_lite.operators.iteration import as_staged_iterable
from autograph_lite.operators.staged_if import staged_if
from autograph_lite.operators.staged_loops import staged_for, staged_while
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import int, isinstance, iter, len, str, tuple

GetState = Callable[[], tuple]
SetState = Callable[[tuple], None]


def if_stmt(cond: Any, body: Callable[[], None], orelse: Callable[[], None], get_state: GetState,
            set_state: SetState, symbol_names: Sequence[str], nouts: int) -> None:
    """``if cond: body() else: orelse()``; an ``rt.cond`` when ``cond`` is a symbolic tensor.

    >>> taken = []
    >>> if_stmt(0, lambda: taken.append('if'), lambda: taken.append('else'), tuple, print, (), 0)
    >>> taken
    ['else']
    """
    if isinstance(cond, SymbolicTensor):
        staged_if(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    elif cond:
        body()
    else:
        orelse()


def while_stmt(loop_test: Callable[[], Any], loop_body: Callable[[], None], get_state: GetState,
               set_state: SetState, symbol_names: Sequence[str]) -> None:
    """``while loop_test(): loop_body()``; an ``rt.while_loop`` once the test is a symbolic tensor.

    A test that is a Python bool at first and becomes symbolic after some iterations (a Python counter
    compared with a tensor that the body assigns, say) is staged from that iteration on: the
    iterations already run stay unrolled in the graph, the rest is one ``While`` op.
    """
    test = loop_test()
    while True:
        if isinstance(test, SymbolicTensor):
            staged_while(loop_test, loop_body, get_state, set_state, symbol_names)
            return
        if not test:
            return
        loop_body()
        test = loop_test()


def for_stmt(iterable: Any, extra_test: Optional[Callable[[], Any]], loop_body: Callable[[Any], None],
             get_state: GetState, set_state: SetState, symbol_names: Sequence[str]) -> None:
    """``for target in iterable: loop_body(target)``, stopping once ``extra_test()`` is false.

    Over a symbolic tensor, ``range`` of a symbolic bound, or enumerate/zip of those: one staged
    ``While``.  Over anything else: a Python loop (unrolled while tracing).  ``extra_test`` runs
    before each iteration (before the next element is taken, so an iterator is not advanced past a
    ``break``); if it becomes a symbolic tensor inside a Python loop (a tensor-dependent ``break``),
    each remaining iteration is staged as an ``if`` on it.
    """
    staged = as_staged_iterable(iterable)
    if staged is not None:
        staged_for(staged, extra_test, loop_body, get_state, set_state, symbol_names)
    elif extra_test is None:
        for target in iterable:
            loop_body(target)
    else:
        _python_for_with_extra_test(iterable, extra_test, loop_body, get_state, set_state, symbol_names)


def _python_for_with_extra_test(iterable, extra_test, loop_body, get_state, set_state, symbol_names) -> None:
    go_on = extra_test()
    iterator = iter(iterable)
    if not isinstance(go_on, SymbolicTensor):
        if not go_on:
            return
        # The next element is taken only after extra_test passed, as Python's for + break does.
        for target in iterator:
            loop_body(target)
            go_on = extra_test()
            if isinstance(go_on, SymbolicTensor):
                break
            if not go_on:
                return
        else:
            return
    # A tensor-dependent break/return happened: every remaining iteration runs only if it did not.
    for target in iterator:
        if_stmt(extra_test(), lambda target=target: loop_body(target), _nothing,
                get_state, set_state, symbol_names, len(symbol_names))


def _nothing() -> None:
    """The else branch of a staged iteration guard: the state stays as it is."""
