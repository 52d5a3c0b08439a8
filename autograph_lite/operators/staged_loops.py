"""``while`` and ``for`` loops staged as one ``rt.while_loop`` over the loop's state variables.

A staged ``for`` gets a hidden int32 counter as its first loop variable; the loop target for
iteration ``i`` is ``iterable.element(i)`` and the optional ``extra_test`` (``not break_``,
``not do_return``) is folded into the loop condition.

State rules (checked while tracing the body, so errors name the variable):

* a variable first assigned inside the loop (the ``for`` target too) enters it as a zeros placeholder of
  the dtype and shape the body gives it (found by tracing the body once, then retracing), together
  with a bool "defined" loop variable; after the loop its value is guarded by ``EnsureDefined``, so
  reading it after a loop that ran zero times fails when the graph runs (``InvalidArgumentError``
  naming it and the loop's line), as in TensorFlow. Reading it in the body before the body assigns
  it is a ``StateError`` while tracing ("define it before the loop");
* ``retval_`` gets a placeholder the same way; after a loop that may have returned it is a
  ``PartialReturnValue``;
* ``ag.set_loop_options`` at the top of the body: the loop is traced again with its options;
* a variable first assigned inside the loop whose rank the body changes is declared of unknown rank (one retrace,
  ``RankChanges``), as in TensorFlow; every other loop variable keeps its dtype, structure and rank from one
  iteration to the next (a Python list the body only item-assigns is a structure of loop variables: the body
  changes its own copy; data_structures.set_item);
* a key the body adds to a dict that the function uses only through constant keys (role ``record``) is a
  variable the loop creates (``NeedsLoopKey``): a placeholder and a "defined" flag, left out of the dict the
  condition and the body start from, guarded after the loop like the variables above;
* ``None`` and other non-graph values must stay what they were;
* a Python global may not be rebound in the loop (it would be left holding a symbolic tensor).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import runtime as rt
from runtime.core import nest
from autograph_lite.contract import RECORD, Roles
from autograph_lite.operators.containers.checks import before_loop_tensor_list, check_loop_state, check_not_aliased
from autograph_lite.operators.containers.data_structures import (carried_by_loop, note_list_rebuilt, tensor_list_from,
                                                                 watch, watch_copy)
from autograph_lite.operators.containers.loop_dict_keys import added_keys, refuse_added_key, with_keys, without_keys
from autograph_lite.operators.logical import as_condition, truth_value
from autograph_lite.operators.loop_options import declare_options, while_loop_options
from autograph_lite.operators.staged_exceptions import traced
from autograph_lite.operators.staged_state import (check_no_rebound_globals, describe, display_name, dtype_of,
                                                   is_stageable, placeholder_like)
from autograph_lite.operators.staging import (Containers, FlagUnchanged, Learned, NeedsLoopKey, NeedsPlaceholder,
                                              RankChanges, retrace_until_settled, staging)
from autograph_lite.operators.variables import PartialReturnValue, Undefined, UndefinedReturnValue

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import (bool, enumerate, float, getattr, hasattr, int, isinstance, len, list, set, str, tuple, type, zip)

_COUNTER_NAME = "<loop counter>"


@dataclasses.dataclass(frozen=True)
class LoopSpec:
    """What the converter's call says about one staged loop: the same for every trace of it."""
    loop_test: Optional[Callable[[], Any]]     # a while loop's test (None for a for loop)
    loop_body: Callable[..., None]             # a for loop's body takes the element
    get_state: Callable[[], tuple]
    set_state: Callable[[tuple], None]
    names: Tuple[str, ...]                     # the state variables
    roles: Roles
    iterable: Any = None                       # a for loop's staged iterable (iteration.py)
    length: Any = None                         # its number of elements, a tensor of the graph around the loop
    extra_test: Optional[Callable[[], Any]] = None   # a for loop's `not break_`, `not do_return`
    first_test: Any = None                     # a rotated while loop's first test value (see staged_while)


def staged_while(loop_test: Callable[[], Any], loop_body: Callable[[], None], get_state: Callable[[], tuple],
                 set_state: Callable[[tuple], None], symbol_names: Sequence[str], roles: Roles,
                 first_test: Any = None) -> None:
    """Build one ``While`` op from a ``while`` loop whose test is a symbolic tensor.

    ``first_test``: the value of a test that assigns loop variables (a walrus), already evaluated once
    before the loop. The loop is then rotated: the test runs at the end of each iteration, in the body
    graph, and the condition graph reads its value, carried as one more loop variable.
    """
    _run(LoopSpec(loop_test, loop_body, get_state, set_state, tuple(symbol_names), roles, first_test=first_test))


def staged_for(iterable: Any, extra_test: Optional[Callable[[], Any]], loop_body: Callable[[Any], None],
               get_state: Callable[[], tuple], set_state: Callable[[tuple], None],
               symbol_names: Sequence[str], roles: Roles) -> None:
    """Build one ``While`` op from a ``for`` over a staged iterable (see iteration.py)."""
    _run(LoopSpec(None, loop_body, get_state, set_state, tuple(symbol_names), roles, iterable=iterable,
                  length=iterable.length(), extra_test=extra_test))


def _run(spec: LoopSpec) -> None:
    check_no_rebound_globals(spec.roles, spec.names, "loop")
    init = tuple(spec.get_state())
    check_loop_state(spec.roles, spec.names, init)
    learned = Learned(lambda index, element: before_loop_tensor_list(spec.roles, spec.names[index], init[index],
                                                                     element))
    learned.key_added = lambda index, key, value: _loop_key(spec, learned, index, key, value)

    def trace_loop() -> None:  # traced at most once more per placeholder, constant flag, tensor list, options
        loop = _Loop(spec, learned, init)
        with carried_by_loop(learned, loop.watched, loop.copies, loop.before_item_assigned):
            outputs = rt.while_loop(loop.cond, loop.body, loop.initial_vars(),
                                    loop_var_names=loop.loop_var_names, **loop.while_loop_options())
        final = loop.final_state(outputs)
        for before, after in zip(init, final):
            note_list_rebuilt(before, after)   # the ifs and loops around carry the new list as they did the old
        spec.set_state(final)

    retrace_until_settled(learned, trace_loop, init, spec.set_state)


def _loop_key(spec: LoopSpec, learned: Learned, index: int, key: Any, value: Any) -> None:
    """The body adds ``key`` (set to ``value``) to the dict variable ``index``: a variable the loop creates when
    the function reads and writes the dict only through constant keys (role ``record``: nothing can see the key
    before the body sets it, nor miss it after the loop), as TensorFlow accepts it; a StateError otherwise."""
    name = spec.names[index]
    if spec.roles.of(name) != RECORD:
        refuse_added_key(name, key, "whose state must keep the same keys in every iteration (a key the loop adds "
                                    "is accepted only when the function reads and writes the dict through constant "
                                    "keys alone, d['k'], never passing, returning, iterating or measuring it)")
    if not is_stageable(value) or isinstance(value, (rt.TensorList, rt.TensorArray)):
        refuse_added_key(name, key, f"to {describe(value)}: a key a tensor loop adds is a variable the loop creates, "
                                    "which must hold a tensor or a number")
    if key not in learned.loop_keys.get(index, {}):
        raise NeedsLoopKey(learned, index, key, value)


class _Loop:
    """One trace of a staged loop: ``spec`` from the converter, the ``learned`` facts of earlier traces, and the
    state ``init`` before the loop."""

    def __init__(self, spec: LoopSpec, learned: Learned, init: tuple):
        self.spec, self.learned, self.init = spec, learned, init
        self.names, self.roles = spec.names, spec.roles
        # A test that assigns loop variables is carried as the last loop variable (see staged_while).
        self.first_test = None if spec.first_test is None else _as_condition(spec.first_test)
        self.carried = 0 if spec.first_test is None else 1
        self.body_inputs: tuple = ()
        self.offset = 0 if spec.iterable is None else 1  # the hidden counter comes first
        self.loop_indices: List[int] = []
        self.partial = set()  # indices whose value is a PartialReturnValue inside and after the loop
        self.flagged: List[int] = []  # indices first assigned in the loop: they get a "defined" loop variable
        self.start_values: List[Any] = []
        # (dict variable, key) for each key the loop adds (learned.loop_keys): each gets a "defined" flag too
        self.keyed_flags: List[Tuple[int, Any]] = []
        for index, value in enumerate(init):
            if index in learned.loop_keys:
                keys = learned.loop_keys[index]
                value = with_keys(value, {key: placeholder_like(like) for key, like in keys.items()})
                self.keyed_flags += [(index, key) for key in keys]
            if index in learned.placeholders:
                if isinstance(value, UndefinedReturnValue):
                    self.partial.add(index)
                else:
                    self.flagged.append(index)
                value = placeholder_like(learned.placeholders[index])
            elif index in learned.tensor_lists:
                value = tensor_list_from(self.names[index], value, learned.tensor_lists[index])
            elif isinstance(value, PartialReturnValue):
                self.partial.add(index)
                value = value.value
            elif (isinstance(value, (Undefined, UndefinedReturnValue)) or not is_stageable(value)
                  or index in learned.constant_flags):
                continue
            self.loop_indices.append(index)
            self.start_values.append(value)
        # Python lists among the state: a change to one in the body makes the loop carry it as a tensor list.
        # (Values keep the lists alive, so their ids stay theirs; the body's copies are added in ``body``.)
        self.watched: Containers = {}
        for index, value in enumerate(init):
            watch(self.watched, index, self.names[index], value)
        # The body's copies of the Python lists carried as structures of loop variables (see body).
        self.copies: Containers = {}
        self.loop_var_names = ((_COUNTER_NAME,) if spec.iterable is not None else ()) + tuple(
            self.names[index] for index in self.loop_indices) + tuple(
            f"{self.names[index]} (defined)" for index in self.flagged) + tuple(
            f"{self.names[index]}[{key!r:.40}] (defined)" for index, key in self.keyed_flags) + (
            "<loop condition>",) * self.carried
        self.undefined_names = {self.names[index] for index, value in enumerate(init)
                                if isinstance(value, Undefined) and index not in learned.placeholders}

    def initial_vars(self) -> tuple:
        counter = (rt.constant(0, rt.int32),) if self.spec.iterable is not None else ()
        carried = (self.first_test,) if self.carried else ()
        flags = (rt.constant(False),) * (len(self.flagged) + len(self.keyed_flags))
        return counter + tuple(self.start_values) + flags + carried

    def while_loop_options(self) -> Dict[str, Any]:
        return while_loop_options(self.learned, self.offset, self.loop_indices,
                                  len(self.flagged) + len(self.keyed_flags) + self.carried)

    def apply_options(self, shape_invariants: Sequence[Tuple[Any, Any]], maximum_iterations: Any) -> None:
        """Called by set_loop_options in the body (see loop_options)."""
        declare_options(self.learned, self.body_inputs, self.loop_indices, shape_invariants, maximum_iterations)

    def compose(self, loop_vars: Sequence[Any], inside: bool = True) -> tuple:
        """The full state tuple, with the loop variables taken from ``loop_vars`` (counter and flags excluded).
        ``inside`` (the condition and the body): the keys the loop adds to a dict are left out, as before the
        body first sets them."""
        state = list(self.init)
        for index, value in zip(self.loop_indices, loop_vars[self.offset:self.offset + len(self.loop_indices)]):
            if inside and index in self.learned.loop_keys:
                value = without_keys(value, self.learned.loop_keys[index])
            state[index] = PartialReturnValue(value) if index in self.partial else value
        return tuple(state)

    def final_state(self, outputs: Sequence[Any]) -> tuple:
        """The state after the loop: a variable the loop first assigns may be read only if it ran."""
        state = list(self.compose(outputs, inside=False))
        end = len(outputs) - self.carried
        key_flags = outputs[end - len(self.keyed_flags):end]
        end -= len(self.keyed_flags)
        for (index, key), defined in zip(self.keyed_flags, key_flags):
            name = f"{self.names[index]}[{key!r:.40}]"
            message = (f"{name} is read after a tensor-dependent loop that ran zero times: the loop must iterate "
                       f"at least once to set it (or set {name} before the loop)")
            state[index][key] = nest.map_structure(
                lambda value: rt.debugging.ensure_defined(value, defined, message, name="key_defined"),
                state[index][key])
        flags = outputs[end - len(self.flagged):end]
        for index, defined in zip(self.flagged, flags):
            name = self.names[index]
            message = (f"'{name}' is read after a tensor-dependent loop that ran zero times: the loop must iterate "
                       f"at least once to define '{name}' (or initialize '{name}' before the loop)")
            state[index] = nest.map_structure(
                lambda value: rt.debugging.ensure_defined(value, defined, message, name=f"{name}_defined"),
                state[index])
        return tuple(state)

    def cond(self, *loop_vars: Any) -> Any:
        state = self.compose(loop_vars)
        self.spec.set_state(state)
        if self.carried:
            return loop_vars[-1]   # the test ran at the end of the previous iteration (or before the loop)
        if self.spec.iterable is None:
            condition = _as_condition(traced(self.spec.loop_test, "condition of a tensor-dependent while loop"))
            self._check_test_rebinds_nothing(state)
            return condition
        condition = loop_vars[0] < self.spec.length
        if self.spec.extra_test is not None:
            extra = traced(self.spec.extra_test, "test of a tensor-dependent for loop")
            if isinstance(extra, rt.Tensor):
                condition = rt.logical_and(condition, truth_value(extra))
            elif not extra:
                condition = rt.constant(False)
        return condition

    def _check_test_rebinds_nothing(self, state: tuple) -> None:
        """A test that assigned nothing in its first evaluation (before the loop) is traced as the loop's
        condition, which only decides; what a later evaluation rebinds (e.g. through a helper declaring
        ``nonlocal``) would be lost, so refuse it rather than loop on stale values. (A test that assigns in
        its first evaluation makes a rotated loop: see staged_while.)"""
        after = tuple(self.spec.get_state())
        changed = [self.names[index] for index, (was, now) in enumerate(zip(state, after)) if now is not was]
        if changed:
            raise rt.errors.StateError(
                f"the condition of a tensor-dependent while loop changes {display_name(changed[0], self.roles)}, but "
                "its first test (before the loop) did not, so the graph loop cannot carry the change. Make the "
                "update in the loop body (e.g. `while True:` ... `if not condition: break`)")

    def body(self, *loop_vars: Any) -> tuple:
        state = self.compose(loop_vars)
        for index in self.loop_indices:
            watch(self.watched, index, self.names[index], state[index])
            watch_copy(self.copies, index, self.names[index], state[index])
        self.spec.set_state(state)
        element = None if self.spec.iterable is None else self.spec.iterable.element(loop_vars[0])
        self.body_inputs = tuple(loop_vars[self.offset:self.offset + len(self.loop_indices)])
        staging.loop_bodies.append(self)
        try:
            if self.spec.iterable is None:
                traced(self.spec.loop_body, "body of a tensor-dependent while loop")
            else:
                traced(self.spec.loop_body, "body of a tensor-dependent for loop", element)
        except TypeError as error:
            self._explain_promoted_ints(error)
            raise
        except UnboundLocalError as error:
            name = getattr(error, "symbol_name", None)
            if name not in self.undefined_names:
                raise
            raise rt.errors.StateError(
                f"'{name}' is read inside a tensor-dependent loop before the loop assigns it: it must be defined "
                f"before the loop. A graph loop traces every path of its body once, for all iterations, so "
                f"'{name}' needs a value when the loop starts even if only later iterations read it (e.g. under "
                f"`if i > 0:`); TensorFlow's AutoGraph has the same rule. Initialize '{name}' before the loop "
                "with a value of the dtype and shape the loop gives it").with_traceback(error.__traceback__) from None
        finally:
            staging.loop_bodies.pop()
        # The rotated loop's test, run at the end of the body: it assigns what the next iteration sees.
        carried = [_as_condition(traced(self.spec.loop_test, "condition of a tensor-dependent while loop"))
                   ] if self.carried else []
        after = tuple(self.spec.get_state())
        self._check_non_loop_vars(after, element)
        outputs = [loop_vars[0] + 1] if self.spec.iterable is not None else []
        for position, index in enumerate(self.loop_indices):
            loop_var = loop_vars[self.offset + position]
            if after[index] is loop_var and self.roles.is_flag(self.names[index]):
                # Loop-invariant: the flag keeps the value it had before the loop (a Python bool, or an
                # enclosing loop's flag), so an enclosing loop can see that it is unchanged too.
                raise FlagUnchanged(self.learned, index)
            output = self._loop_output(index, after[index], loop_var, self.start_values[position])
            if index in self.flagged and index not in self.learned.unknown_ranks and _rank_changes(loop_var, output):
                raise RankChanges(self.learned, index)
            outputs.append(output)
        outputs += [rt.constant(True)] * (len(self.flagged) + len(self.keyed_flags))  # an iteration sets them all
        return tuple(outputs + carried)

    def before_item_assigned(self, index: int) -> None:
        """An item of the body's copy of the list variable ``index`` is assigned: after the loop the name holds
        a new list of the loop's outputs, which a holder of the list from before the loop would not see."""
        check_not_aliased(self.roles, self.names[index], "loop", "list", "makes it a new list")

    def _explain_promoted_ints(self, error: TypeError) -> None:
        """A dtype error in the body often comes from a loop variable that started as a Python int (now an
        int32 tensor) being given a float: name it and the fix."""
        if "int32" not in str(error):
            return
        for index, start in zip(self.loop_indices, self.start_values):
            if type(start) is int:
                note = (f"{display_name(self.names[index], self.roles)} is the Python int {start} before the "
                        "tensor-dependent "
                        "loop, so it is an int32 tensor inside it; if the loop makes it a float, initialize it as "
                        f"{float(start)!r} (or convert with rt.cast)")
                if hasattr(error, "add_note"):
                    error.add_note(note)
                elif len(error.args) == 1 and isinstance(error.args[0], str):  # Python < 3.11
                    error.args = (f"{error.args[0]}\n{note}",)

    def _check_non_loop_vars(self, after: tuple, element: Any) -> None:
        for index, before in enumerate(self.init):
            if index in self.loop_indices:
                continue
            value, name = after[index], self.names[index]
            if isinstance(before, Undefined):
                if isinstance(value, Undefined):
                    continue
                if not is_stageable(value):
                    raise rt.errors.StateError(
                        f"{display_name(name, self.roles)} is first assigned inside a tensor-dependent loop, to "
                        f"{describe(value)}, and is used after the loop or in the next iteration; only tensors, "
                        "numbers and structures of them can be loop variables. Initialize it before the loop")
                raise NeedsPlaceholder(self.learned, index, value)  # with a "defined" flag (see final_state)
            if isinstance(before, UndefinedReturnValue):
                if not isinstance(value, UndefinedReturnValue):
                    raise NeedsPlaceholder(self.learned, index,
                                           value.value if isinstance(value, PartialReturnValue) else value)
                continue
            self._carry_added_keys(index, before, value)
            if value is not before and type(value) is type(before) and describe(value) == describe(before):
                # The same kind of Python value, changed ('idle' -> 'run'): the kinds alone would read as no change.
                raise rt.errors.StateError(
                    f"{display_name(name, self.roles)} is {describe(before)} that a tensor-dependent loop changes "
                    f"({before!r:.40} before it, {value!r:.40} after an iteration); a graph loop carries only tensors, "
                    "numbers and structures of them, so a Python value it changes would keep the value of one trace. "
                    "Use a tensor instead (e.g. an int32 code for each state)")
            if value is not before:
                raise rt.errors.StateError(
                    f"{display_name(name, self.roles)} is {describe(before)} before a tensor-dependent loop but "
                    f"{describe(value)} after an iteration; a loop variable must keep its dtype and structure, "
                    "so initialize it before the loop with a value of the kind the loop assigns")

    def _carry_added_keys(self, index: int, before: Any, value: Any) -> None:
        """The keys ``value``, the dict variable ``index`` after the body, has beyond those of ``before`` (an inner
        loop added them): this loop carries them too, or refuses (_loop_key)."""
        if self.roles.of(self.names[index]) == RECORD:
            for key in added_keys(before, value):
                _loop_key(self.spec, self.learned, index, key, value[key])

    def _loop_output(self, index: int, value: Any, loop_var: Any, start: Any) -> Any:
        """The body's new ``value`` of loop variable ``index``, checked against ``loop_var`` (the body's input)
        and ``start`` (its value before the loop: the body may have changed its copy of a list in place)."""
        name = self.names[index]
        if isinstance(value, PartialReturnValue):
            value = value.value
        before = start if value is loop_var else loop_var   # a list the body changed in place: compare its start
        self._carry_added_keys(index, before, value)
        if (isinstance(value, (Undefined, UndefinedReturnValue)) or not is_stageable(value)
                or not nest.same_structure(value, before)):
            raise rt.errors.StateError(
                f"{display_name(name, self.roles)} is {describe(before)} before a tensor-dependent loop but "
                f"{describe(value)} after an iteration; a loop variable must keep its dtype and structure")
        dtype, loop_dtype = dtype_of(value), dtype_of(loop_var)
        if dtype is not None and loop_dtype is not None and dtype != loop_dtype:
            raise rt.errors.StateError(
                f"{display_name(name, self.roles)} has dtype {loop_dtype.name} before a tensor-dependent loop but "
                "dtype "
                f"{dtype.name} after an iteration; a loop variable must keep its dtype: initialize it with a "
                f"{dtype.name} value (e.g. 0.0 instead of 0) or convert with rt.cast")
        return value


def _rank_changes(loop_var: Any, value: Any) -> bool:
    """Whether ``value``, a loop-created variable's new value, is a tensor of another (or an unknown) rank than
    ``loop_var``, the placeholder it entered the body as."""
    if not isinstance(loop_var, rt.Tensor) or loop_var.shape is None:
        return False
    if isinstance(value, rt.Tensor):
        shape = value.shape
    else:   # a Python number is a scalar; a structure is checked by rt.while_loop
        shape = () if isinstance(value, (bool, int, float)) else loop_var.shape
    return shape is None or len(shape) != len(loop_var.shape)


def _as_condition(value: Any) -> Any:
    value = as_condition(value)  # a tensor list: len(value) > 0
    if isinstance(value, rt.Tensor):
        return truth_value(value)
    return rt.constant(bool(value))
