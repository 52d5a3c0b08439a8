"""What a compiled ``While`` can know of itself when compiling: how many times it runs, and how much each
iteration changes the length of each list it carries.

XLA fixes every buffer's size when compiling, so a list a tensor loop appends to (``values.append(x)``, the
accumulators of a gradient through the loop) needs a number of slots known then: the loop's trip count (or a
bound of it) times the appends of one iteration. Both are read from the graph, no JAX involved:

- ``trip_count``: a loop counter compared with a limit known when compiling (``for i in rt.range(n)`` with a
  Python ``n``, ``for row in x`` over a static shape: a ``Less(counter, limit)`` term of the condition, the body
  adding a constant step to the counter), and ``maximum_iterations``. *Exact* when the comparison is the whole
  condition (no ``break`` flag, no other term): the loop then runs exactly that many times.
- ``list_length_changes``: for each list loop variable, the appends (and pops) along its path through one
  iteration of the body, through ``If`` branches (the larger count; inexact when the branches differ) and the
  tensor loops nested in the body that append to it (``LengthChange.nested``: their trip counts are learnt when
  the body is lowered, ``runtime.backends.xla.loops``).

>>> TripCount(bound=5, exact=True)
TripCount(bound=5, exact=True)
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from runtime.core.dtypes import variant
from runtime.core.graph import CONST, FuncGraph, Operation
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.indexing import GATHER
from runtime.ops.core import IDENTITY
from runtime.ops.list_ops import TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK, TENSOR_LIST_SET_ITEM
from runtime.ops.logical_ops import LOGICAL_AND
from runtime.ops.math_ops import ADD, FLOOR_DIV, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, MUL, SUB
from runtime.ops.tensor_array_ops import TENSOR_LIST_SCATTER


class TripCount(NamedTuple):
    bound: int    # the loop runs at most this many times
    exact: bool   # ... and exactly this many times


class LengthChange(NamedTuple):
    """What one iteration does to a list loop variable's length."""

    appends: int   # at most this many appends (the slots one iteration may need)
    net: int       # appends minus pops, when ``exact``
    exact: bool    # the same every iteration (no append or pop in only one branch of an ``if``)
    append_ops: tuple = ()   # the TensorListPushBack ops counted in ``appends``
    writes: tuple = ()       # (TensorListSetItem, its index; None under an if) of each write that may grow it
    nested: tuple = ()       # (While, the list's position in it, its LengthChange) of each loop in the body
    #                          that changes the list's length

    def changes_length(self) -> bool:
        return bool(self.appends or self.net or self.writes or self.nested)

    def inner_loops(self) -> List[Tuple[Operation, int]]:
        """(While, the list's position among its loop variables) of each tensor loop nested in the body (at any
        depth) that changes the list's length."""
        return [entry for inner, position, change in self.nested
                for entry in [(inner, position)] + change.inner_loops()]

    def all_append_ops(self) -> List[Operation]:
        """The appends of one iteration, the nested loops' included."""
        return list(self.append_ops) + [o for _, _, change in self.nested for o in change.all_append_ops()]

    def all_write_ops(self) -> List[Operation]:
        """The writes of one iteration that may grow the list (a TensorArray's), the nested loops' included."""
        return [write for write, _ in self.writes] + [o for _, _, change in self.nested for o in change.all_write_ops()]

    def per_iteration(self, trips: Dict[int, Optional["TripCount"]]) -> Tuple[int, int, bool]:
        """(slots one iteration may fill at most: its appends and writes that may grow the list, net change in
        length, whether exact: the same every iteration and no such write) of one iteration, the nested loops'
        counted with their trip counts ``trips`` ({id(While): TripCount}, learnt when the body was lowered; a loop
        missing from it was not lowered, so never runs: a branch not taken when compiling)."""
        appends, net, exact = self.appends + len(self.writes), self.net, self.exact and not self.writes
        for inner, _, change in self.nested:
            count = trips.get(id(inner), TripCount(0, True))
            inner_appends, inner_net, inner_exact = change.per_iteration(trips)
            appends += count.bound * inner_appends
            net += count.bound * inner_net
            exact = exact and count.exact and inner_exact
        return appends, net, exact


def _static(value: Any) -> Optional[int]:
    """``value`` as a Python int if it is a numpy integer scalar (known when compiling), else None."""
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0 and np.asarray(value).dtype.kind in "iu":
        return int(value)
    return None


def _known(tensor: Any, graph: FuncGraph, outer_values: Dict[int, Any]) -> Optional[int]:
    """The value of ``tensor`` (a scalar of ``graph``) when it is a constant or a placeholder fed a static value."""
    if tensor.op.op_def is CONST:
        return _static(np.asarray(tensor.op.attrs["value"]))
    if id(tensor) in outer_values:
        return _static(outer_values[id(tensor)])
    return None


def conjuncts(tensor: Any) -> List[Any]:
    """The terms of a condition joined by ``and`` (through identities): each bounds a loop on its own."""
    op = tensor.op
    if op.op_def is LOGICAL_AND:
        return conjuncts(op.inputs[0]) + conjuncts(op.inputs[1])
    if op.op_def is IDENTITY:
        return conjuncts(op.inputs[0])
    return [tensor]


_FLIPPED = {LESS: GREATER, LESS_EQUAL: GREATER_EQUAL, GREATER: LESS, GREATER_EQUAL: LESS_EQUAL}


class _Counter(NamedTuple):
    position: int      # of the loop variable
    comparison: Any    # LESS, LESS_EQUAL, GREATER or GREATER_EQUAL, the counter on the left
    start: int
    limit: int
    step: int
    ranged: bool = False   # the limit is the farthest value of a run-time limit's known range: trips are a bound


def _counter(term: Any, op: Operation, inputs: Sequence[Any], value_range: Any = None) -> Optional[_Counter]:
    """``term`` as a counter (a loop variable the body adds a constant step to) compared with a limit, all
    known when compiling (or, with ``value_range``, a limit of a known range: ``for j in rt.range(i)`` in the
    body of ``for i in rt.range(3)``); else None."""
    cond, body, count = op.attrs["cond"], op.attrs["body"], op.attrs["num_loop_vars"]
    comparison = term.op.op_def
    if comparison not in _FLIPPED:
        return None
    left, right = term.op.inputs
    position = {id(p): k for k, p in enumerate(cond.inputs)}
    if position.get(id(left), count) >= count:   # the counter on the right: Less(limit, i) is Greater(i, limit)
        left, right, comparison = right, left, _FLIPPED[comparison]
    k = position.get(id(left), count)
    if k >= count or left.dtype.kind not in "iu" or left.shape != ():
        return None
    # the limit: a constant, a captured value or a loop variable the body passes on unchanged, known now
    invariant = {id(p): inputs[j] for j, p in enumerate(cond.inputs)
                 if j >= count or body.outputs[j] is body.inputs[j]}
    limit, start = _known(right, cond, invariant), _static(inputs[k])
    step = _step(body, k, count, inputs)
    if start is None or step is None:
        return None
    if limit is None and value_range is not None and id(right) in invariant:
        known = value_range(invariant[id(right)])   # the farthest the limit can be, in the counter's direction
        if known is not None:
            return _Counter(k, comparison, start, known[1] if step > 0 else known[0], step, ranged=True)
    if limit is None:
        return None
    return _Counter(k, comparison, start, limit, step)


def _counted_trips(term: Any, op: Operation, inputs: Sequence[Any], value_range: Any = None) -> Optional[tuple]:
    """(trips, whether exactly) of a loop whose condition is ``term`` alone, if ``term`` compares a counter with a
    limit: exactly for a limit known when compiling, at most for one of a known range."""
    counter = _counter(term, op, inputs, value_range)
    if counter is None:
        return None
    trips = _trips(counter)
    return None if trips is None else (trips, not counter.ranged)


def _trips(counter: _Counter) -> Optional[int]:
    _, comparison, start, limit, step, _ = counter
    holds = {LESS: start < limit, LESS_EQUAL: start <= limit, GREATER: start > limit,
             GREATER_EQUAL: start >= limit}[comparison]
    if not holds:
        return 0
    if comparison in (LESS, LESS_EQUAL) and step > 0:
        return -((start - limit) // step) if comparison is LESS else (limit - start) // step + 1
    if comparison in (GREATER, GREATER_EQUAL) and step < 0:
        return -((limit - start) // -step) if comparison is GREATER else (start - limit) // -step + 1
    return None   # the counter moves away from its limit: the condition's other terms end the loop, if anything


def _step(body: FuncGraph, k: int, count: int, inputs: Sequence[Any]) -> Optional[int]:
    """The constant the body adds to loop variable ``k`` each iteration (``i + 1``), if it does."""
    counter, update = body.inputs[k], body.outputs[k].op
    captured = {id(p): inputs[j] for j, p in enumerate(body.inputs) if j >= count}
    if update.op_def is ADD and len(update.inputs) == 2:
        a, b = update.inputs
        if a is counter:
            return _known(b, body, captured)
        if b is counter:
            return _known(a, body, captured)
    if update.op_def is SUB and update.inputs[0] is counter:
        step = _known(update.inputs[1], body, captured)
        return None if step is None else -step
    return None


def trip_count(op: Operation, inputs: Sequence[Any], value_range: Any = None) -> Optional[TripCount]:
    """How many times the ``While`` ``op`` runs on ``inputs`` (its lowered inputs: numpy arrays are known when
    compiling), if that is bounded by what is known then; None otherwise. ``value_range(value)``: the (lowest,
    highest) a traced scalar can be, if known (``Context.value_range``): a limit's range bounds the trips."""
    terms = conjuncts(op.attrs["cond"].outputs[0])
    counted = [trips for trips in (_counted_trips(term, op, inputs, value_range) for term in terms)
               if trips is not None]
    bound = min(trips for trips, _ in counted) if counted else None
    exact = bound is not None and len(terms) == 1 and counted[0][1]
    limit = op.attrs["maximum_iterations"]
    if limit is not None:
        limit = max(int(limit), 0)
        if bound is None or limit < bound:
            bound, exact = limit, exact   # a counted loop cut by maximum_iterations still runs exactly `limit`
    return None if bound is None else TripCount(max(bound, 0), exact)


def counter_ranges(op: Operation, inputs: Sequence[Any]) -> Dict[int, Tuple[int, int]]:
    """{position: (lowest, highest)}: the values a counter of the ``While`` ``op`` can have in its body. The body
    runs only when the condition holds, so when its term ``i < limit`` does; and the counter moves from its start
    toward the limit by a constant step: ``start <= i <= limit - 1``. (Index checks on it can be left out.)"""
    ranges: Dict[int, Tuple[int, int]] = {}
    for term in conjuncts(op.attrs["cond"].outputs[0]):
        counter = _counter(term, op, inputs)
        if counter is None:
            continue
        k, comparison, start, limit, step, _ = counter
        if comparison is LESS and step > 0:
            low, high = start, limit - 1
        elif comparison is LESS_EQUAL and step > 0:
            low, high = start, limit
        elif comparison is GREATER and step < 0:
            low, high = limit + 1, start
        elif comparison is GREATER_EQUAL and step < 0:
            low, high = limit, start
        else:
            continue
        if k in ranges:
            low, high = max(low, ranges[k][0]), min(high, ranges[k][1])
        ranges[k] = (low, high)
    limit = op.attrs["maximum_iterations"]
    if limit is not None and int(limit) > 0:   # a counter of a static start and step, whatever the condition:
        body, count = op.attrs["body"], op.attrs["num_loop_vars"]   # in iteration t (< limit), start + t * step
        for k in range(count):
            start = _static(inputs[k])
            step = _step(body, k, count, inputs) if start is not None and body.inputs[k].shape == () else None
            if step is None:
                continue
            ends = (start, start + step * (int(limit) - 1))
            low, high = min(ends), max(ends)
            if k in ranges:
                low, high = max(low, ranges[k][0]), min(high, ranges[k][1])
            ranges[k] = (low, high)
    return ranges


def final_counters(op: Operation, inputs: Sequence[Any], trips: Optional[TripCount]) -> Dict[int, np.ndarray]:
    """{position: value after the loop} of the ``While`` ``op``'s counters (loop variables of a static start the
    body adds a constant to), when the loop runs exactly ``trips`` times: ``start + trips * step``, known when
    compiling. (A gradient's backward loop counts down from its forward loop's count: it is counted too.)

    >>> import runtime as rt
    >>> @rt.function
    ... def f():
    ...     return rt.while_loop(lambda i, j: i < 4, lambda i, j: (i + 1, j - 3), [rt.constant(0), rt.constant(5)])
    >>> loop = [op for op in f.get_concrete_function().graph.operations if op.type == "While"][0]
    >>> {k: int(v) for k, v in final_counters(loop, [np.int32(0), np.int32(5)], TripCount(4, True)).items()}
    {0: 4, 1: -7}
    """
    if trips is None or not trips.exact:
        return {}
    body, count = op.attrs["body"], op.attrs["num_loop_vars"]
    finals: Dict[int, np.ndarray] = {}
    for k in range(count):
        start = _static(inputs[k])
        step = _step(body, k, count, inputs) if start is not None else None
        if step is not None:   # (cast as the loop's int arithmetic wraps)
            finals[k] = np.asarray(start + trips.bound * step).astype(np.asarray(inputs[k]).dtype)
    return finals


def index_values(op: Operation, inputs: Sequence[Any], index: Any) -> Optional[np.ndarray]:
    """Every value ``index`` (an int scalar of the ``While`` ``op``'s body) takes over the loop's iterations, when
    that is known when compiling: the loop runs exactly its trip count (its condition is one counter's comparison)
    and ``index`` is computed from that counter by picking from a static vector (``for t in rt.range(a, b, c)``:
    the range's element at the counter) and adding, subtracting, multiplying or floor-dividing by Python ints.
    None otherwise.

    >>> import runtime as rt
    >>> @rt.function
    ... def f():
    ...     return rt.while_loop(lambda i: i < 4, lambda i: (i + 1,), [rt.constant(0)])
    >>> loop = [op for op in f.get_concrete_function().graph.operations if op.type == "While"][0]
    >>> index_values(loop, [np.int32(0)], loop.attrs["body"].inputs[0]).tolist()
    [0, 1, 2, 3]
    """
    trips = trip_count(op, inputs)
    terms = conjuncts(op.attrs["cond"].outputs[0])
    counter = _counter(terms[0], op, inputs) if trips is not None and trips.exact else None
    if counter is None or index is None:
        return None
    body, count = op.attrs["body"], op.attrs["num_loop_vars"]
    captured = {id(p): inputs[j] for j, p in enumerate(body.inputs) if j >= count}
    values = counter.start + counter.step * np.arange(trips.bound, dtype=np.int64)
    return _values_over_iterations(index, body.inputs[counter.position], values, captured)


_INDEX_ARITHMETIC = {ADD: np.add, SUB: np.subtract, MUL: np.multiply, FLOOR_DIV: np.floor_divide}


def _values_over_iterations(tensor: Any, counter: Any, values: np.ndarray, captured: Dict[int, Any],
                            depth: int = 0) -> Optional[np.ndarray]:
    """``tensor``'s value in each iteration, ``counter`` taking ``values`` (see ``index_values``), or None."""
    if tensor is counter:
        return values
    op = tensor.op
    if depth > 8 or tensor.shape != () or tensor.dtype.kind not in "iu":
        return None
    if op.op_def is IDENTITY:
        return _values_over_iterations(op.inputs[0], counter, values, captured, depth + 1)
    if op.op_def is GATHER and op.attrs.get("axis", 0) in (0, -1):
        picked = _values_over_iterations(op.inputs[1], counter, values, captured, depth + 1)
        params = op.inputs[0]
        vector = np.asarray(params.op.attrs["value"]) if params.op.op_def is CONST else captured.get(id(params))
        if picked is not None and isinstance(vector, (np.ndarray, np.generic)) and np.ndim(vector) == 1 and \
                (picked.size == 0 or (picked.min() >= 0 and picked.max() < vector.shape[0])):
            return np.asarray(vector)[picked].astype(np.int64)
        return None
    arithmetic = _INDEX_ARITHMETIC.get(op.op_def)
    if arithmetic is not None:
        operands = []
        for operand in op.inputs:
            known = _known(operand, operand.op.graph, captured)
            operands.append(known if known is not None else
                            _values_over_iterations(operand, counter, values, captured, depth + 1))
        if any(v is None for v in operands) or (op.op_def is FLOOR_DIV and np.any(np.asarray(operands[1]) == 0)):
            return None
        return arithmetic(*operands).astype(np.int64)
    return None


def list_length_changes(op: Operation) -> Dict[int, Any]:
    """For each list loop variable of the ``While`` ``op`` whose length one iteration changes, a
    ``LengthChange``; lists the body rebuilds, or passes on at the same length, are left out (the loop's carry
    keeps their length)."""
    body, count = op.attrs["body"], op.attrs["num_loop_vars"]
    changes: Dict[int, Any] = {}
    for k in range(count):
        if body.inputs[k].dtype != variant:
            continue
        change = _path_change(body.outputs[k], body.inputs[k])
        if change is not None and change.changes_length():
            changes[k] = change
    return changes


_KEEPS_LENGTH = (TENSOR_LIST_SET_ITEM, TENSOR_LIST_SCATTER, IDENTITY)


def _path_change(tensor: Any, start: Any) -> Any:
    """The length change from ``start`` (a list placeholder) to ``tensor`` (a list derived from it by list ops
    and branches), or None if ``tensor`` is not derived from ``start`` that way."""
    appends = net = 0
    exact = True
    append_ops: List[Operation] = []
    writes: List[tuple] = []
    nested: List[tuple] = []
    while tensor is not start:
        op = tensor.op
        if op.op_def is TENSOR_LIST_PUSH_BACK:
            appends, net = appends + 1, net + 1
            append_ops.append(op)
        elif op.op_def is TENSOR_LIST_POP:
            net -= 1
        elif op.op_def is TENSOR_LIST_SET_ITEM and op.attrs.get("grow"):
            writes.append((op, op.inputs[1]))
        elif op.op_def is IF:
            branch_changes = []
            for branch in (op.attrs["then_branch"], op.attrs["else_branch"]):
                out = branch.outputs[tensor.index]
                found = None
                for j, placeholder in enumerate(branch.inputs):
                    found = _path_change(out, placeholder)
                    if found is not None:
                        branch_changes.append((j, found))
                        break
                if found is None:
                    return None
            (j, then_change), (other, else_change) = branch_changes
            if j != other:
                return None
            # (the loops of both branches are counted: a bound; the length after the loop is not predicted)
            nested += then_change.nested + else_change.nested
            appends += max(then_change.appends, else_change.appends)
            append_ops += then_change.append_ops + else_change.append_ops
            net += then_change.net
            exact = (exact and then_change.exact and else_change.exact and then_change.net == else_change.net
                     and len(then_change.writes) == len(else_change.writes)
                     and not then_change.nested and not else_change.nested)
            # (a write in a branch may not happen: its index is not followed, so the length after the loop is not
            # predicted from it)
            writes += [(write, None) for write, _ in then_change.writes + else_change.writes]
            tensor = op.inputs[1 + j]
            continue
        elif op.op_def is WHILE:
            inner = op.attrs["body"]
            inner_change = _path_change(inner.outputs[tensor.index], inner.inputs[tensor.index])
            if inner_change is not None and inner_change.changes_length():
                nested.append((op, tensor.index, inner_change))
            tensor = op.inputs[tensor.index]
            continue
        elif op.op_def not in _KEEPS_LENGTH:
            return None
        tensor = op.inputs[0]
    return LengthChange(appends, net, exact, tuple(append_ops), tuple(writes), tuple(nested))
