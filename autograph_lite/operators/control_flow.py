"""``if``, ``while`` and ``for`` as functions: what converted code calls (see docs/GENERATED_CODE.md).

Each operator decides at run time (docs/GENERATED_CODE.md, "The one rule"): a symbolic tensor condition or
iterable is staged (staged_if.py / staged_loops.py); anything else — Python values, eager tensors —
runs as the plain Python statement, with nothing more than two ``isinstance`` checks per test on top.
A tensor list (or TensorArray) as a condition means ``len(xs) > 0``, as for a Python list
(logical.as_condition): after a tensor loop that appended to ``xs``, ``if xs:`` is staged.

>>> state = {'n': 0}
>>> def body(): state['n'] += 1
>>> while_stmt(lambda: state['n'] < 3, body, lambda: (), lambda s: None, ())
>>> state['n']
3
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence

from autograph_lite.contract import Roles
from autograph_lite.operators.iteration import as_staged_iterable
from autograph_lite.operators.logical import PYTHON_CONDITIONS, as_condition
from autograph_lite.operators.staged_if import staged_if
from autograph_lite.operators.loop_options import in_staged_loop_body, python_loop
from autograph_lite.operators.staged_loops import staged_for, staged_while
from autograph_lite.operators.variables import Undefined
from runtime import in_graph_mode
from runtime.core.errors import OperatorNotAllowedInGraphError
from runtime.core.tensor import SymbolicTensor
import runtime as rt

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import int, isinstance, iter, len, str, tuple, type

_TENSOR_LISTS = (rt.TensorList, rt.TensorArray)
_STAGED = (SymbolicTensor, *_TENSOR_LISTS)  # values whose truth exists only when the graph runs
GetState = Callable[[], tuple]
SetState = Callable[[tuple], None]


def if_stmt(cond: Any, body: Callable[[], None], orelse: Callable[[], None], get_state: GetState,
            set_state: SetState, symbol_names: Sequence[str], nouts: int,
            roles: Optional[Mapping[str, str]] = None) -> None:
    """``if cond: body() else: orelse()``; an ``rt.cond`` when ``cond`` is a symbolic tensor.

    ``roles`` names the converter's own state variables (contract.py: return flag, return value, ...).

    >>> taken = []
    >>> if_stmt(0, lambda: taken.append('if'), lambda: taken.append('else'), tuple, print, (), 0)
    >>> taken
    ['else']
    """
    if type(cond) in PYTHON_CONDITIONS:   # the common case, with no check at all
        if cond:
            body()
        else:
            orelse()
        return
    cond = as_condition(cond)
    if isinstance(cond, SymbolicTensor):
        _restoring_state_on_error(staged_if, get_state, set_state, cond, body, orelse, get_state, set_state,
                                  symbol_names, nouts, Roles(roles, symbol_names))
    elif cond:
        body()
    else:
        orelse()


def while_stmt(loop_test: Callable[[], Any], loop_body: Callable[[], None], get_state: GetState,
               set_state: SetState, symbol_names: Sequence[str], roles: Optional[Mapping[str, str]] = None) -> None:
    """``while loop_test(): loop_body()``; an ``rt.while_loop`` when the test is a symbolic tensor.

    The first test decides: a Python (or eager) test makes a Python loop, unrolled while tracing. If the
    test becomes a symbolic tensor inside that loop because a tensor-dependent ``break`` or ``return``
    made the converter's flag a tensor (roles, contract.py), the remaining iterations are staged as one
    ``While`` op. Otherwise one of the user's variables made it a tensor: Python would need its truth
    value, which only exists when the graph runs, so that raises, naming the variable.

    A test that assigns loop variables (``while (i := i + 1) < n:``) is evaluated once before a staged
    loop and then at the end of each iteration, so the graph loop sees the variables it assigned.
    """
    before = tuple(get_state()) if in_graph_mode() else None   # to see whether the test assigns (a walrus)
    test = loop_test()
    if isinstance(test, _TENSOR_LISTS):  # `while xs:` on a tensor list: every test is len(xs) > 0
        loop_test = _length_test(loop_test)
        test = as_condition(test)
    if isinstance(test, SymbolicTensor):
        _restoring_state_on_error(staged_while, get_state, set_state, loop_test, loop_body, get_state, set_state,
                                  symbol_names, Roles(roles, symbol_names), _assigning_test(test, before, get_state))
        return
    if not in_graph_mode():   # no symbolic tensor can appear: the plain loop, nothing on top
        while test:
            loop_body()
            test = loop_test()
        return
    if in_staged_loop_body():
        with python_loop():   # inside a staged loop's body: set_loop_options here is for this loop
            _traced_python_while(test, loop_test, loop_body, get_state, set_state, symbol_names, roles)
        return
    _traced_python_while(test, loop_test, loop_body, get_state, set_state, symbol_names, roles)


def _restoring_state_on_error(stage: Callable[..., None], get_state: GetState, set_state: SetState,
                              *args: Any) -> None:
    """``stage(*args)``, a staged if or loop; if it raises, its variables get back the values they had before
    it: the branches and iterations it traced leave symbolic tensors of their own graphs, or an ``Undefined``
    placeholder (set_state then removes an attribute that did not exist before), which must not stay in the
    user's objects (``c.v``) after the error. (A construct that retraces restores them itself.)"""
    before = get_state()
    try:
        stage(*args)
    except BaseException:
        set_state(before)
        raise


def _assigning_test(test: Any, before: tuple, get_state: GetState) -> Any:
    """``test`` when evaluating it changed a state variable (the first test of a rotated staged loop), else None.
    (An attribute not set yet reads as a new ``Undefined`` each time: unchanged.)"""
    return test if any(now is not was and not (type(now) is Undefined and type(was) is Undefined)
                       for was, now in zip(before, get_state())) else None


def _length_test(loop_test: Callable[[], Any]) -> Callable[[], Any]:
    """The loop test of ``while xs:`` over a tensor list: ``len(xs) > 0``, a bool tensor."""
    return lambda: as_condition(loop_test())


def _traced_python_while(test, loop_test, loop_body, get_state, set_state, symbol_names, roles) -> None:
    """A Python while loop while tracing: its test may become a tensor through a staged break/return."""
    while test:
        before = tuple(get_state())
        loop_body()
        before_test = tuple(get_state())
        test = as_condition(loop_test())  # a Python list the body made a tensor list: len(xs) > 0
        if isinstance(test, SymbolicTensor):
            roles_ = Roles(roles, symbol_names)
            after = tuple(get_state())
            became = [name for name, was, now in zip(symbol_names, before, after)
                      if isinstance(now, _STAGED) and not isinstance(was, _STAGED)]
            if not any(roles_.is_flag(name) for name in became):
                lists = [name for name, now in zip(symbol_names, after)
                         if name in became and isinstance(now, _TENSOR_LISTS)]
                raise _test_became_a_tensor(became, lists)
            _restoring_state_on_error(staged_while, get_state, set_state, loop_test, loop_body, get_state, set_state,
                                      symbol_names, roles_, _assigning_test(test, before_test, get_state))
            return


def _test_became_a_tensor(names: Sequence[str], lists: Sequence[str] = ()) -> Exception:
    what = " and ".join(f"'{name}'" for name in names) or "a value the condition reads"
    example = names[0] if names else "the condition's variable"
    if lists:  # a Python list that a tensor loop in the body appended to: its length is a tensor now
        kind = "a tensor list (a tensor-dependent loop in the body changed it)"
        fix = (f"Make {lists[0]} a tensor list before the loop (e.g. {lists[0]} = rt.TensorList.from_tensors("
               "[...], dtype)) or test a Python value")
    else:
        kind, fix = "a symbolic tensor", f"Make {example} a tensor before the loop (e.g. {example} = rt.constant(...))"
    return OperatorNotAllowedInGraphError(
        f"the condition of this while loop was a Python value when the loop started, but {what} became "
        f"{kind} in the loop body, so the condition is now a tensor; a Python loop cannot test it "
        "(its value exists only when the graph runs) and the loop cannot become a graph loop halfway. "
        f"{fix}, so that the whole loop is a graph loop")


def for_stmt(iterable: Any, extra_test: Optional[Callable[[], Any]], loop_body: Callable[[Any], None],
             get_state: GetState, set_state: SetState, symbol_names: Sequence[str],
             roles: Optional[Mapping[str, str]] = None) -> None:
    """``for target in iterable: loop_body(target)``, stopping once ``extra_test()`` is false.

    Over a symbolic tensor, ``range`` of a symbolic bound, or enumerate/zip of those: one staged
    ``While``.  Over anything else: a Python loop (unrolled while tracing).  ``extra_test`` runs
    before each iteration (before the next element is taken, so an iterator is not advanced past a
    ``break``); if it becomes a symbolic tensor inside a Python loop (a tensor-dependent ``break``),
    each remaining iteration is staged as an ``if`` on it.
    """
    staged = as_staged_iterable(iterable)
    if staged is not None:
        _restoring_state_on_error(staged_for, get_state, set_state, staged, extra_test, loop_body, get_state,
                                  set_state, symbol_names, Roles(roles, symbol_names))
    elif in_staged_loop_body():
        with python_loop():   # inside a staged loop's body: set_loop_options here is for this loop
            _python_for(iterable, extra_test, loop_body, get_state, set_state, symbol_names, roles)
    else:
        _python_for(iterable, extra_test, loop_body, get_state, set_state, symbol_names, roles)


def _python_for(iterable, extra_test, loop_body, get_state, set_state, symbol_names, roles) -> None:
    if extra_test is None:
        for target in iterable:
            loop_body(target)
        return
    _python_for_with_extra_test(iterable, extra_test, loop_body, get_state, set_state, symbol_names, roles)


def _python_for_with_extra_test(iterable, extra_test, loop_body, get_state, set_state, symbol_names, roles) -> None:
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
                get_state, set_state, symbol_names, len(symbol_names), roles)


def _nothing() -> None:
    """The else branch of a staged iteration guard: the state stays as it is."""
