"""An ``if`` whose condition is a symbolic tensor: both branches traced into one ``rt.cond``.

Each branch starts from the state before the ``if`` (``set_state(init)``), runs, and its state after
(``get_state()``) is checked against the other branch's:

* a variable undefined in one branch and defined in the other is an error ("initialize it before the
  if"), since the graph must produce it on both paths — unless the branch that leaves it undefined
  returned: the code after the ``if`` only runs where the return flag is False, so a placeholder does.
  The roles of the converter's variables (return flag and value) come from the generated call
  (contract.py); a branch has returned when it set the return flag to True, or when it is the else
  branch of the guard ``if not do_return:`` (role ``return_guard``);
* ``None``, strings and other non-graph values may only pass through unchanged;
* a ``retval_`` that only one branch sets gets a zeros placeholder on the other path and becomes a
  ``PartialReturnValue`` (valid where ``do_return`` is True); a later ``if not do_return:`` that
  returns makes it whole again, and ``return_value`` rejects it at the end of the function otherwise;
* a Python global may not be rebound in either branch (it would be left holding a symbolic tensor);
* a name the function changes in place after the ``if`` (role ``picked``) may not be bound to two different
  lists, dicts or sets by the branches: the merged value would be a new one, which neither of them is;
* a Python list or dict that the branches change in place is each branch's own copy (containers/branch_lists.py): merged
  element by element, or a tensor list when the branches leave different numbers of elements.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Sequence, Tuple

import runtime as rt
from runtime.core import nest
from autograph_lite.contract import RETURN_FLAG, RETURN_GUARD, Roles
from autograph_lite.operators.containers.branch_lists import BranchLists
from autograph_lite.operators.containers.checks import (check_if_state, check_not_aliased,
                                                        check_one_container_picked)
from autograph_lite.operators.containers.data_structures import carried_by_if, stage_outer_list_change
from autograph_lite.operators.logical import truth_value
from autograph_lite.operators.staged_exceptions import traced
from autograph_lite.operators.staged_state import (check_no_rebound_globals, describe, display_name, dtype_of,
                                                   is_stageable, placeholder_like)
from autograph_lite.operators.staging import Learned, NeedsPlaceholder, retrace_until_settled
from autograph_lite.operators.variables import PartialReturnValue, Undefined, UndefinedReturnValue

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, enumerate, float, int, isinstance, iter, list, next, str, tuple, zip

# Kinds of a state variable at the end of one branch.
UNDEFINED, NO_RETURN, OUTPUT, PARTIAL, PASSTHROUGH = "undefined", "no return", "output", "partial", "passthrough"
_BRANCH_NAMES = {True: "if", False: "else"}


@dataclasses.dataclass(frozen=True)
class IfSpec:
    """What the converter's call says about one staged if: the same for every trace of it."""
    body: Callable[[], None]
    orelse: Callable[[], None]
    get_state: Callable[[], tuple]
    set_state: Callable[[tuple], None]
    names: Tuple[str, ...]   # the state variables: the first ``nouts`` are the if's outputs, the rest only read
    nouts: int
    roles: Roles


def staged_if(cond: Any, body: Callable[[], None], orelse: Callable[[], None], get_state: Callable[[], tuple],
              set_state: Callable[[tuple], None], symbol_names: Sequence[str], nouts: int, roles: Roles) -> None:
    """Trace ``body`` and ``orelse`` as the branches of an ``rt.cond`` on the symbolic ``cond``."""
    spec = IfSpec(body, orelse, get_state, set_state, tuple(symbol_names), nouts, roles)
    check_no_rebound_globals(roles, symbol_names[:nouts], "if")
    init = tuple(get_state())
    check_if_state(roles, symbol_names[:nouts], init)
    pred = truth_value(cond)
    lists = BranchLists(init, nouts, tuple(symbol_names))

    def before_tensor_list(index: int, element: Any) -> None:
        # The branches leave the list with different lengths, or a loop (or if) in a branch makes it a tensor
        # list: so does this if, on both paths. A branch may have stopped half-way: what it changed in place must
        # not be seen by the next trace.
        lists.restore()
        stage_outer_list_change(init[index], element)   # an if or loop around that carries it makes it one first

    learned = Learned(before_tensor_list)

    def trace_branches() -> None:  # traced at most once more per return variable or list (see Retrace)
        for index in learned.tensor_lists:
            check_not_aliased(roles, symbol_names[index], "if")
        start = lists.start_state(init, learned.tensor_lists, tuple(symbol_names))
        tracer = _BranchTracer(spec, learned, lists, start)
        with carried_by_if(learned, lists.carried(learned)):
            outputs = rt.cond(pred, tracer.true_fn, tracer.false_fn, output_names=tracer.output_names)
        set_state(lists.settle(tracer.merge(outputs)))

    retrace_until_settled(learned, trace_branches, init, set_state)


class _BranchTracer:
    """One trace of a staged if: runs the two branches for ``rt.cond`` from the state ``init`` and reconciles
    their states into one output tuple, with the ``learned`` facts of earlier traces."""

    def __init__(self, spec: IfSpec, learned: Learned, lists: BranchLists, init: tuple):
        self.init, self.get_state, self.set_state = init, spec.get_state, spec.set_state
        self.lists, self.learned = lists, learned
        self.names, self.nouts, self.return_hints = spec.names, spec.nouts, learned.placeholders
        self.body, self.orelse = spec.body, spec.orelse
        self.roles = spec.roles
        self.do_return_at = spec.roles.index(RETURN_FLAG, RETURN_GUARD)
        # `if not do_return:` -> in the else branch a return has certainly happened.
        self.else_has_returned = spec.roles.index(RETURN_GUARD) is not None
        self.raw: Dict[bool, tuple] = {}
        self.kinds: Dict[bool, List[str]] = {}
        self.first = None  # which branch rt.cond traced first
        self.output_names: List[str] = []

    def true_fn(self):
        return self._trace(True, self.body)

    def false_fn(self):
        return self._trace(False, self.orelse)

    def _trace(self, which: bool, branch: Callable[[], None]) -> tuple:
        self.set_state(self.init)
        self.lists.restore()
        traced(branch, f"{_BRANCH_NAMES[which]} branch of a tensor-dependent if")
        raw = self.lists.captured(tuple(self.get_state())[:self.nouts])
        self.raw[which] = raw
        if self.first is None:
            self.first = which
            return self._first_outputs(which, raw)
        return self._second_outputs(which, raw)

    def _has_returned(self, which: bool, raw: tuple) -> bool:
        if self.do_return_at is None:
            return False
        return raw[self.do_return_at] is True or (not which and self.else_has_returned)

    def _first_outputs(self, which: bool, raw: tuple) -> tuple:
        kinds, outputs = [], []
        for index, value in enumerate(raw):
            if isinstance(value, Undefined):
                if index in self.return_hints and self._has_returned(which, raw):
                    kinds.append(OUTPUT)  # never read: everything after a return is guarded by do_return
                    outputs.append(placeholder_like(self.return_hints[index]))
                else:
                    kinds.append(UNDEFINED)
            elif isinstance(value, UndefinedReturnValue):
                if index in self.return_hints:
                    kinds.append(PARTIAL)
                    outputs.append(placeholder_like(self.return_hints[index]))
                else:
                    kinds.append(NO_RETURN)
            elif isinstance(value, PartialReturnValue):
                kinds.append(OUTPUT if self._has_returned(which, raw) else PARTIAL)
                outputs.append(value.value)
            elif is_stageable(value):
                kinds.append(OUTPUT)
                outputs.append(value)
            else:
                kinds.append(PASSTHROUGH)
        self.kinds[which] = kinds
        # Filled in place: rt.cond holds this list and names outputs from it in its own errors.
        self.output_names[:] = [name for name, kind in zip(self.names, kinds) if kind in (OUTPUT, PARTIAL)]
        return tuple(outputs)

    def _second_outputs(self, which: bool, raw: tuple) -> tuple:
        first = not which
        branches = (_BRANCH_NAMES[which], _BRANCH_NAMES[first])
        first_raw, first_kinds = self.raw[first], self.kinds[first]
        kinds, outputs = [], []
        for index, (value, first_kind) in enumerate(zip(raw, first_kinds)):
            name, first_value = display_name(self.names[index], self.roles), first_raw[index]
            check_one_container_picked(self.roles, self.names[index], value, first_value, "if")
            if self.lists.check_lengths(index, value, first_value, self.learned, branches):  # the same elements
                kinds.append(first_kind)
                if first_kind == OUTPUT:
                    outputs.append(value)
            elif isinstance(value, Undefined) and first_kind == UNDEFINED:
                kinds.append(UNDEFINED)
            elif isinstance(value, Undefined):
                # Fine if this branch returned: code after the if runs only where do_return is False.
                if first_kind not in (OUTPUT, PARTIAL) or not self._has_returned(which, raw):
                    raise _defined_in_one_branch(name, first)
                kinds.append(first_kind)
                outputs.append(placeholder_like(first_value))
            elif first_kind == UNDEFINED:
                if not self._has_returned(first, first_raw) or not is_stageable(_unwrap(value)):
                    raise _defined_in_one_branch(name, which)
                raise NeedsPlaceholder(self.learned, index, _unwrap(value))
            elif isinstance(value, UndefinedReturnValue):
                if first_kind == NO_RETURN:
                    kinds.append(NO_RETURN)
                else:
                    kinds.append(PARTIAL)
                    outputs.append(placeholder_like(first_value))
            elif first_kind == NO_RETURN:
                raise NeedsPlaceholder(self.learned, index, value)
            elif first_kind == PASSTHROUGH or not is_stageable(_unwrap(value)):
                if value is not first_value:
                    raise _mismatch(name, which, value, first_value, self.else_has_returned)
                kinds.append(PASSTHROUGH)
            else:
                is_partial = isinstance(value, PartialReturnValue) and not self._has_returned(which, raw)
                value = _unwrap(value)
                if not nest.same_structure(value, _unwrap(first_value)):
                    raise _mismatch(name, which, value, _unwrap(first_value), self.else_has_returned)
                _check_same_dtype(name, which, value, _unwrap(first_value), self.else_has_returned)
                kinds.append(PARTIAL if is_partial else first_kind)
                outputs.append(value)
        self.kinds[which] = kinds
        return tuple(outputs)

    def merge(self, outputs: Any) -> tuple:
        """The state after the ``if``: cond outputs, or the common value where both branches agree."""
        outputs = iter(outputs if isinstance(outputs, (tuple, list)) else (outputs,))
        merged = []
        true_raw, false_raw = self.raw[True], self.raw[False]
        for index, first_kind in enumerate(self.kinds[self.first]):
            second_kind = self.kinds[not self.first][index]
            if first_kind in (UNDEFINED, NO_RETURN, PASSTHROUGH):
                merged.append(true_raw[index])
                continue
            output = next(outputs)
            if true_raw[index] is false_raw[index] and not isinstance(true_raw[index], PartialReturnValue):
                merged.append(true_raw[index])  # same value on both paths: keep it as it was
            elif PARTIAL in (first_kind, second_kind):
                merged.append(PartialReturnValue(output))
            else:
                merged.append(output)
        return tuple(merged) + self.init[self.nouts:]


def _unwrap(value: Any) -> Any:
    return value.value if isinstance(value, PartialReturnValue) else value


def _defined_in_one_branch(name: str, defined_in: bool) -> rt.errors.StateError:
    branch, other = _BRANCH_NAMES[defined_in], _BRANCH_NAMES[not defined_in]
    return rt.errors.StateError(
        f"{name} is defined only in the {branch} branch of a tensor-dependent if and is used "
        f"after it; initialize it before the if (or assign it in the {other} branch too), so that it has a value "
        "on both paths of the graph")


def _where(which: bool, return_guard: bool) -> str:
    """Where a branch's value comes from, in the user's terms. In the guard ``if not do_return:`` that
    follows an ``if`` holding a ``return``, the if branch is the code after it (a later ``return``, where
    the error points) and the else branch is where that earlier ``return`` ran."""
    if return_guard:
        return "at this return" if which else "at an earlier return (inside a tensor-dependent if)"
    return f"in the {_BRANCH_NAMES[which]} branch"


def _mismatch(name: str, which: bool, value: Any, other_value: Any, return_guard: bool = False
              ) -> rt.errors.StateError:
    if return_guard:
        return rt.errors.StateError(
            f"{name} is {describe(value)} {_where(which, True)} but {describe(other_value)} "
            f"{_where(not which, True)}; every return must give a tensor (or number) of the same dtype and "
            "structure")
    return rt.errors.StateError(
        f"{name} is {describe(value)} in the {_BRANCH_NAMES[which]} branch but "
        f"{describe(other_value)} in the {_BRANCH_NAMES[not which]} branch of a tensor-dependent if; both "
        "branches must leave it a tensor (or number) of the same dtype and structure")


def _adopts(number: Any, dtype: Any) -> bool:
    """True if a Python number on one path can take the tensor dtype of the other (rt.cond converts it)."""
    if isinstance(number, bool):
        return dtype.kind == 'b'
    if isinstance(number, int):
        return dtype.kind in 'iuf'
    return isinstance(number, float) and dtype.kind == 'f'


def _check_same_dtype(name: str, which: bool, value: Any, other_value: Any, return_guard: bool = False) -> None:
    dtype, other_dtype = dtype_of(value), dtype_of(other_value)
    if dtype is None or other_dtype is None or dtype == other_dtype:
        return
    if not isinstance(other_value, rt.Tensor) and isinstance(value, rt.Tensor) and _adopts(other_value, dtype):
        return
    if not isinstance(value, rt.Tensor) and isinstance(other_value, rt.Tensor) and _adopts(value, other_dtype):
        return
    if return_guard:
        raise rt.errors.StateError(
            f"{name} has dtype {dtype.name} {_where(which, True)} but dtype {other_dtype.name} "
            f"{_where(not which, True)}; give every return the same dtype (e.g. with rt.cast)")
    raise rt.errors.StateError(
        f"{name} has dtype {dtype.name} in the {_BRANCH_NAMES[which]} branch but dtype "
        f"{other_dtype.name} in the {_BRANCH_NAMES[not which]} branch of a tensor-dependent if; "
        "give it the same dtype in both (e.g. with rt.cast)")
