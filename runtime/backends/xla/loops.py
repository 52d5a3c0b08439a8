"""``While`` as ``lax.while_loop``, with the lists it grows in buffers sized from its bound.

The loop variables, the captured values and the ``State`` (Variables, random key, error code) are the loop's
carry. A list loop variable whose length the body changes (``values.append(x)`` in the loop; the accumulators
a gradient through the loop pushes each iteration's values onto, and the backward loop pops) becomes a
*growable* ``ListBuffer`` first: a traced length in a buffer of ``slots`` fixed when compiling, the loop's
trip count (``loop_bounds.trip_count``: a counter against a static limit, or ``maximum_iterations``) times the
appends of one iteration. When the trip count is exact and every iteration appends the same number, the list's
length after the loop is known again, and it leaves the loop as an ordinary list (``rt.stack(values)``
compiles). Otherwise it stays growable: the backward loop of a gradient pops it, and reading it whole is a
``LoweringError`` naming the list and the fix.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from runtime.backends.xla import loop_bounds, nested_counts, table
from runtime.backends.xla.list_buffers import ElementProbe, ListBuffer, UnknownElements, WriteRanges, empty_buffer
from runtime.backends.xla.lowering import Context, State, as_operand, type_mismatch
from runtime.core.errors import LoweringError
from runtime.core.graph import FuncGraph, Operation
from runtime.ops.cast_op import CAST
from runtime.ops.combine_ops import SELECT
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.core import CONST, IDENTITY, PLACEHOLDER

_NO_BOUND_FIX = ("give the loop a trip count known when compiling: for i in rt.range(n) with a Python n (or a "
                 "tensor of static shape to iterate over), or a bound: ag.set_loop_options(maximum_iterations=n) "
                 "in the loop (rt.while_loop(..., maximum_iterations=n)), n a Python int; or run this function "
                 "with jit_compile=None, or jit_compile='auto' (the numpy executor for this graph)")


def _is_accumulator(name: str) -> bool:
    return name.endswith("_accumulator")   # the gradient pass's name (runtime/passes/while_gradients.py)


def _growable_lists(ctx: Context, op: Operation, loop_vars: List[Any],
                    inputs: List[Any]) -> Tuple[Dict[int, int], Dict[int, Operation]]:
    """Make the list loop variables whose length the body changes growable (in ``loop_vars``), with the slots
    the loop's bound needs, and give a buffer to those whose elements' shape only the body says. Returns
    {position: length after the loop} for those whose length is then known, and {position: an append} for those
    the loop appends to: the appends counted for the slots skip their own check of a free slot
    (``ctx.reserved_appends``), one check after the loop covers them (``_check_slots``).

    A list appended to in loops nested in this one gets the slots of all their appends here, from their trip
    counts (learnt by lowering the body abstractly: an inner loop's limit may be this loop's counter); the
    nested loops then carry it as it is (``ctx.reserved_loops``)."""
    count = op.attrs["num_loop_vars"]
    changes = loop_bounds.list_length_changes(op)
    unknown = [k for k in range(count) if isinstance(loop_vars[k], UnknownElements)]
    if not changes and not unknown:
        return {}, {}
    body = op.attrs["body"]
    trips = loop_bounds.trip_count(op, inputs, ctx.sizing_range)
    known_after: Dict[int, int] = {}
    appended: Dict[int, Operation] = {}
    slots: Dict[int, int] = {}   # position -> slots of each list the loop grows
    nested: List[int] = []       # positions of the lists loops nested in this one append to or write
    reserved: List[int] = []     # positions of the lists a loop around this one reserved slots for
    for k, change in changes.items():
        value = loop_vars[k]
        if not isinstance(value, (ListBuffer, UnknownElements)):
            continue
        what = _what_grows(body.inputs[k].op.name, change)
        growable = isinstance(value, ListBuffer) and value.growable
        if growable and (id(op), k) in ctx.reserved_loops:
            slots[k] = value.slots   # a loop around this one reserved the slots of its appends and writes
            reserved.append(k)
            continue
        grows = change.appends + len(change.writes)
        appends_nested = any(c.all_append_ops() or c.all_write_ops() for _, _, c in change.nested)
        if isinstance(value, UnknownElements) and grows == 0 and not appends_nested:
            continue   # (nothing is written to it here)
        length = value.size if isinstance(value, UnknownElements) else value.length
        base = value.slots if growable else length
        if grows == 0 and not appends_nested:   # popped (a gradient's backward loop), maybe in nested loops
            slots[k] = base
            ctx.reserved_loops.update((id(inner), position) for inner, position in change.inner_loops())
        elif trips is None:
            raise ctx.error(op, f"{what}, and XLA needs the list's size when compiling, but this loop's number of "
                                "iterations is known only when the graph runs; " + _NO_BOUND_FIX)
        elif growable and ctx.loop_depth > 0:
            raise ctx.error(op, f"{what}, and also in the loop around it: the slots that needs are not computed "
                                "yet; collect the values in a TensorArray of a fixed size, or run this function "
                                "with jit_compile=None or 'auto'")
        elif change.nested:   # the slots once the nested loops' trip counts are known (below)
            slots[k] = base
            nested.append(k)
            ctx.reserved_loops.update((id(inner), position) for inner, position in change.inner_loops())
        else:
            slots[k] = base + trips.bound * grows
        if not growable and trips is not None and trips.exact and change.exact and not change.writes and \
                not change.nested:
            known_after[k] = length + trips.bound * change.net
        append_ops = change.all_append_ops()
        ctx.reserved_appends.update(id(append) for append in append_ops)
        if append_ops:
            appended[k] = append_ops[0]
    written = [k for k in slots if changes[k].writes and k not in nested and k not in reserved]
    elements: Dict[int, Any] = {}
    if written or unknown or nested:
        elements, highest, inner_trips = _probe(ctx, op, loop_vars, inputs, slots, unknown)
        for k in written:   # a TensorArray of dynamic_size=True written at run-time indices
            slots[k], length_after = _slots_for_writes(op, inputs, changes[k], trips, loop_vars[k], highest)
            if length_after is not None:
                known_after[k] = length_after
        for k in nested:
            slots[k], length_after = _slots_for_nested_appends(ctx, op, inputs, body.inputs[k].op.name, changes[k],
                                                               loop_vars[k], inner_trips, highest)
            if length_after is not None:
                known_after[k] = length_after
    for k in unknown:
        value, structure = loop_vars[k], elements.get(k)
        if structure is not None:   # written in the body: a buffer for its elements
            length = ctx.jnp.asarray(value.size, np.int32) if k in slots else value.size
            loop_vars[k] = empty_buffer(ctx.jnp, structure, slots.get(k, value.size), length)
    for k, size in slots.items():
        if isinstance(loop_vars[k], ListBuffer):
            loop_vars[k] = loop_vars[k].growable_with(ctx.jnp, size)
    return known_after, appended


def _slots_for_nested_appends(ctx: Context, op: Operation, inputs: List[Any], name: str, change: Any, value: Any,
                              inner_trips: Dict[int, Any],
                              highest: Dict[int, Optional[int]]) -> Tuple[int, Optional[int]]:
    """(slots, length after the loop or None) of a list appended to (or a TensorArray of dynamic_size=True
    written) in tensor loops nested in ``op``: this loop's trips times the appends and writes of one iteration,
    each nested loop's counted with its trip count (the most it can be), and at least the highest index a write
    may write at, where known (``_slots_for_writes``). The length after the loop is known when every loop's trip
    count is exact and every iteration of each appends the same number (and nothing is written), or when this
    loop's is and those of the loops nested in it are, iteration by iteration (``for j in rt.range(i)``)."""
    trips = loop_bounds.trip_count(op, inputs, ctx.sizing_range)
    growable = isinstance(value, ListBuffer) and value.growable
    length = value.size if isinstance(value, UnknownElements) else value.length
    if trips.bound == 0:   # (its body never runs: the inner loops' counts do not matter, nor may they be known)
        return (value.slots if growable else length), (None if growable or not trips.exact else length)
    for inner, _ in change.inner_loops():
        if id(inner) in inner_trips and inner_trips[id(inner)] is None:
            verb = "written" if change.all_write_ops() and not change.all_append_ops() else "appended to"
            raise ctx.error(inner, f"list {name!r} is {verb} in this loop, nested in loop "
                                   f"{op.name} that carries the list, and XLA needs the list's size when compiling, "
                                   "but this loop's number of iterations is known only when the graph runs; "
                                   + _NO_BOUND_FIX)
    appends, net, exact = change.per_iteration(inner_trips)
    slots = (value.slots if growable else length) + trips.bound * appends
    for write in change.all_write_ops():
        if highest.get(id(write)) is not None:
            slots = max(slots, highest[id(write)] + 1)
    if growable or not trips.exact:
        return slots, None
    if not exact:   # inner loops whose counts change with this loop's counter: added up, where known now
        net = _net_counted_by_iteration(op, inputs, change, trips)
        if net is None:
            return slots, None
        return slots, length + net
    return slots, length + trips.bound * net


def _net_counted_by_iteration(op: Operation, inputs: List[Any], change: Any, trips: Any) -> Optional[int]:
    """The change of a list's length over all of ``op``'s iterations, its nested loops' trip counts known in
    each (``nested_counts.inner_trips``); None unless every count is, and every iteration of each loop appends and
    pops the same (one level of nesting, no write)."""
    if not change.exact or change.writes:
        return None
    total = trips.bound * change.net
    for inner, _, inner_change in change.nested:
        if inner_change.nested or inner_change.writes or not inner_change.exact:
            return None
        counts = nested_counts.inner_trips(op, inputs, inner)
        if counts is None:
            return None
        total += sum(count.bound for count in counts) * inner_change.net
    return total


def _what_grows(name: str, change: Any) -> str:
    if _is_accumulator(name):
        return f"it keeps values of each iteration for a gradient through this loop (in {name!r})"
    if change.all_write_ops() and not change.all_append_ops():
        return f"TensorArray {name!r} may grow in this loop (dynamic_size=True, written at run-time indices)"
    return f"list {name!r} is appended to in this loop"


def _slots_for_writes(op: Operation, inputs: List[Any], change: Any, trips: Any, value: Any,
                      highest: Dict[int, Optional[int]]) -> Tuple[int, Optional[int]]:
    """(slots, length after the loop or None) of a TensorArray of dynamic_size=True the loop writes (and maybe
    appends to). A write whose index has a known range (a loop counter's, an element of a static range picked
    by it) needs slots up to its highest value; any other may grow the array by one per iteration, a bound a check
    enforces (``list_ops._grown_by_write``). The length after the loop is known when every iteration writes at
    indices whose values are known when compiling (the loop's counter, a loop without break)."""
    growable = isinstance(value, ListBuffer) and value.growable
    length = value.size if isinstance(value, UnknownElements) else value.length
    base = value.slots if growable else length
    unranged = sum(highest.get(id(write)) is None for write, _ in change.writes)
    slots = base + trips.bound * (change.appends + unranged)
    for write, _ in change.writes:
        if highest.get(id(write)) is not None:
            slots = max(slots, highest[id(write)] + 1)
    if growable or not (trips.exact and change.exact) or change.appends or change.net:
        return slots, None
    values = [loop_bounds.index_values(op, inputs, index) for _, index in change.writes]
    if any(v is None for v in values):
        return slots, None
    after = max([length] + [int(v.max()) + 1 for v in values if v.size])
    return max(slots, after), after


def _probe(ctx: Context, op: Operation, loop_vars: List[Any], inputs: List[Any], slots: Dict[int, int],
           unknown: List[int]) -> Tuple[Dict[int, Any], Dict[int, Optional[int]], Dict[int, Any]]:
    """What one iteration writes to the lists at ``unknown`` (their elements' structure: an array's shape, or
    for a gradient's accumulator of the inner loop's lists, those lists' slots and shapes), the highest index
    each growing write of a TensorArray may write at (None if not known), and the trip count (or None) of each
    tensor loop in the body ({id(While): TripCount}), learnt by lowering the body once more,
    abstractly (``jax.eval_shape``: nothing of it is compiled), with an ``ElementProbe`` in those lists' place and
    the lists it grows given the slots ``slots`` says."""
    probes = {k: ElementProbe(loop_vars[k].size) for k in unknown}
    values = [probes[k] if k in probes else value.growable_with(ctx.jnp, slots[k]) if k in slots and
              isinstance(value, ListBuffer) else value for k, value in enumerate(loop_vars)]
    carried = [None if isinstance(v, (ElementProbe, UnknownElements)) else v for v in values]
    ranges = loop_bounds.counter_ranges(op, inputs)
    captured = inputs[op.attrs["num_loop_vars"]:]
    start, outer_ranges, ranges_seen = ctx.state, ctx.write_ranges, WriteRanges()
    outer_trips: Optional[Dict[int, Any]] = ctx.loop_trips
    trips_seen: Dict[int, Any] = {}

    def lower_body(traced: List[Any]) -> None:
        ctx.loop_depth += 1
        ctx.write_ranges, ctx.loop_trips = ranges_seen, trips_seen
        try:
            body_values = [v if v is not None else values[k] for k, v in enumerate(traced)]
            for k, (low, high) in ranges.items():
                ctx.set_range(body_values[k], low, high)
            ctx.lower_graph(op.attrs["body"], body_values + list(captured))
        finally:
            ctx.loop_depth -= 1
            ctx.state, ctx.write_ranges, ctx.loop_trips = start, outer_ranges, outer_trips
    ctx.jax.eval_shape(lower_body, carried)
    structures: Dict[int, Any] = {}
    for k, probe in probes.items():
        if len(set(probe.structures)) > 1:
            raise ctx.error(op, f"the values written to {op.attrs['body'].inputs[k].op.name!r} in one iteration "
                                "differ in their shapes, and a list's buffer holds one")
        if probe.structures:
            structures[k] = probe.structures[0]
    return structures, ranges_seen.highest, trips_seen


def _record_trips(ctx: Context, op: Operation, inputs: List[Any]) -> None:
    """While a loop's body is probed: this loop's trip count, for the loop around it (``ctx.loop_trips``). A loop
    lowered more than once there (in a branch, in another probe) keeps its largest count, exact only if all are."""
    if ctx.loop_trips is None:
        return
    trips = loop_bounds.trip_count(op, inputs, ctx.sizing_range)
    if id(op) in ctx.loop_trips:
        earlier = ctx.loop_trips[id(op)]
        trips = None if earlier is None or trips is None else loop_bounds.TripCount(
            max(earlier.bound, trips.bound), earlier.exact and trips.exact and earlier.bound == trips.bound)
    ctx.loop_trips[id(op)] = trips


def _popped_lengths(op: Operation, inputs: List[Any], trips: Any) -> Dict[int, Tuple[int, int]]:
    """{position: (lowest, highest) length when the body starts} of the lists a loop that runs exactly ``trips``
    times only pops, the same number each iteration, from a length known when compiling that the pops never
    exhaust (a gradient's backward loop popping what its forward loop pushed): their pops need no check."""
    if trips is None or not trips.exact or trips.bound == 0:
        return {}
    lengths = {}
    for k, change in loop_bounds.list_length_changes(op).items():
        value = inputs[k]
        if (isinstance(value, ListBuffer) and not value.growable and change.exact and change.net < 0 and
                not change.appends and not change.writes and not change.nested and
                value.length + trips.bound * change.net >= 0):
            lengths[k] = (value.length + (trips.bound - 1) * change.net, value.length)
    return lengths


def _check_slots(ctx: Context, op: Operation, values: List[Any], appended: Dict[int, Operation]) -> None:
    """After the loop: each list it appended to fits the slots its bound reserved (no append was dropped; always
    true unless the bound is wrong: a check against our own mistakes, once per loop rather than per append)."""
    for k, append in appended.items():
        value, name = values[k], op.attrs["body"].inputs[k].op.name
        ctx.check(value.length <= value.slots, append, why=f"list {name!r} outgrew the {value.slots} slots the "
                  f"bound of loop {op.name} reserved")


@table.lowers(WHILE)
def _lower_while(ctx: Context, op: Operation, *inputs: Any) -> tuple:
    count, body_graph = op.attrs["num_loop_vars"], op.attrs["body"]
    captured = list(inputs[count:])
    loop_vars = [as_operand(ctx, v, t, op) for v, t in zip(inputs[:count], body_graph.inputs)]
    _record_trips(ctx, op, list(inputs))
    known_after, appended = _growable_lists(ctx, op, loop_vars, list(inputs))
    trips = loop_bounds.trip_count(op, list(inputs))
    ranges = {**loop_bounds.counter_ranges(op, list(inputs)), **_popped_lengths(op, list(inputs), trips)}
    ctx.loop_depth += 1
    try:
        values = _loop(ctx, op, loop_vars, captured, ranges, trips)
    finally:
        ctx.loop_depth -= 1
    # A list whose length after the loop is known needs no check: the loop runs exactly its trip count (as its
    # unrolled form trusts) and with_static_length asserts that length fits the slots
    _check_slots(ctx, op, values, {k: append for k, append in appended.items() if k not in known_after})
    for k, length in known_after.items():
        values[k] = values[k].with_static_length(length)
    for k, final in loop_bounds.final_counters(op, list(inputs), trips).items():
        values[k] = final   # known when compiling: what reads it after the loop (a backward loop's count) too
    return tuple(values)


# How a loop whose trip count is exact when compiling is compiled: "auto" (unrolled when that lets XLA fuse it
# whole: ``_fuses_unrolled``; else lax.while_loop), "while" (lax.while_loop, its condition evaluated each
# iteration), or "scan" (lax.scan of that many iterations, unrolled COUNTED_LOOP_UNROLL at a time: 1, k, True).
# benchmarks/xla_counted_loops.py measures them: a plain scan pays nowhere, unrolling pays only for elementwise
# bodies over big arrays (a masked escape-time loop: 4x faster) and costs elsewhere (compile time up to 60x).
COUNTED_LOOP_FORM, COUNTED_LOOP_UNROLL = "auto", 1
UNROLL_MAX_TRIPS, UNROLL_MAX_OPS, UNROLL_MIN_ELEMENTS = 64, 2048, 4096
_ELEMENTWISE_FREE = (PLACEHOLDER, CONST, IDENTITY, CAST, SELECT)   # besides ufuncs (+, *, <, ...) and their kind


def _fuses_unrolled(op: Operation, trips: loop_bounds.TripCount, loop_vars: List[Any]) -> bool:
    """Whether unrolling the counted loop ``op`` lets XLA fuse its iterations into one pass over its arrays:
    every op of its body is elementwise (arithmetic, comparisons, casts, selects) and stateless, a loop variable
    is an array of at least UNROLL_MIN_ELEMENTS (scalar loops gain nothing), and the unrolled program stays small
    (at most UNROLL_MAX_TRIPS iterations and UNROLL_MAX_OPS ops: XLA's compile time grows with it)."""
    body = op.attrs["body"]
    if not 0 < trips.bound <= UNROLL_MAX_TRIPS or trips.bound * len(body.operations) > UNROLL_MAX_OPS:
        return False
    if not any(getattr(v, "size", 0) >= UNROLL_MIN_ELEMENTS for v in loop_vars):
        return False
    return all(not o.is_stateful and (o.op_def in _ELEMENTWISE_FREE or o.op_def.elementwise_ufunc is not None or
                                      o.op_def.into_kernel is not None) for o in body.operations)


def _loop(ctx: Context, op: Operation, loop_vars: List[Any], captured: List[Any],
          ranges: Dict[int, Tuple[int, int]], trips: Optional[loop_bounds.TripCount]) -> List[Any]:
    """The loop's values after ``lax.while_loop`` (``ctx.state`` carried through it)."""
    count, limit = op.attrs["num_loop_vars"], op.attrs["maximum_iterations"]
    cond_graph, body_graph = op.attrs["cond"], op.attrs["body"]
    jnp, lax = ctx.jnp, ctx.lax

    def condition(values: List[Any], state: State):
        ctx.state = state
        (go,) = ctx.lower_graph(cond_graph, list(values) + captured)
        return jnp.asarray(go, dtype=bool), ctx.state

    def body(values: List[Any], state: State):
        ctx.state = state
        for k, (low, high) in ranges.items():   # the counters' values (lists' lengths) when the body runs
            ctx.set_range(values[k].length if isinstance(values[k], ListBuffer) else values[k], low, high)
        outputs = ctx.lower_graph(body_graph, list(values) + captured)
        return [as_operand(ctx, v, t, op) for v, t in zip(outputs, body_graph.inputs)], ctx.state

    def guarded_condition(values: List[Any], state: State, iteration: Any):
        """The condition, unless the limit is reached (then False, without evaluating it: its checks and
        draws must not happen one time more than the numpy executor's)."""
        go, after = condition(values, state)
        if limit is None:
            return go, after
        if after is state:  # the condition touches no state: evaluating it once more changes nothing
            return go & (iteration < limit), state
        return lax.cond(iteration < limit, lambda s: condition(values, s), lambda s: (jnp.asarray(False), s),
                        state)

    start = ctx.state
    pure = condition(loop_vars, start)[1] is start   # the condition touches no state (lowered once to see)
    unroll = (COUNTED_LOOP_UNROLL if COUNTED_LOOP_FORM == "scan" else True if COUNTED_LOOP_FORM == "auto" and
              trips is not None and trips.exact and _fuses_unrolled(op, trips, loop_vars) else None)
    if unroll is not None and trips is not None and trips.exact and pure:
        # A trip count exact when compiling: the condition is not evaluated (it holds exactly that many times)
        def scan_body(carry, _):
            return body(*carry), None
        try:
            (values, ctx.state), _ = lax.scan(scan_body, (loop_vars, start), None, length=trips.bound, unroll=unroll)
        except TypeError as error:
            raise _changing_shape(ctx, op, body_graph, count, error) from None
        return list(values)
    if pure:   # (the usual case): lax.while_loop's own condition computes it
        def pure_condition(carry):
            iteration, values, state = carry
            go = condition(values, state)[0]
            return go if limit is None else go & (iteration < limit)

        def pure_body(carry):
            iteration, values, state = carry
            values, state = body(values, state)
            return (None if limit is None else iteration + np.int32(1)), values, state
        try:
            _, values, ctx.state = lax.while_loop(pure_condition, pure_body,
                                                  (None if limit is None else np.int32(0), loop_vars, start))
        except TypeError as error:
            raise _changing_shape(ctx, op, body_graph, count, error) from None
        return list(values)

    # The condition changes the state (checks, random draws): it is evaluated at the end of the body (and once
    # before the loop), so that what it changes is carried like the body's changes.
    go, state = guarded_condition(loop_vars, start, np.int32(0))

    def loop_body(carry):
        iteration, values, state, _ = carry
        values, state = body(values, state)
        iteration = iteration + np.int32(1)
        go, state = guarded_condition(values, state, iteration)
        return iteration, values, state, go

    carry = (np.int32(0), loop_vars, state, go)
    try:
        _, values, ctx.state, _ = lax.while_loop(lambda c: c[3], loop_body, carry)
    except TypeError as error:
        raise _changing_shape(ctx, op, body_graph, count, error) from None
    return list(values)


def _changing_shape(ctx: Context, op: Operation, body_graph: FuncGraph, count: int, error: Exception) -> LoweringError:
    names = [p.op.name for p in body_graph.inputs[:count]]
    return ctx.error(op, f"a loop variable (of {', '.join(names)}) changes shape or structure between iterations, "
                         "and XLA needs one shape per loop variable: preallocate it at its final size; for a list "
                         "appended to in the loop, give the loop a trip count known when compiling or collect the "
                         "values in a TensorArray of a fixed size (rt.TensorArray(dtype, size=n), n a Python int) "
                         f"written at the loop counter; or use jit_compile='auto' to run this graph on the numpy "
                         f"executor ({type_mismatch(error)})")
