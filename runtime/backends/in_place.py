"""Which updates (``x[i, j] = v``, scatter) may write into their input instead of copying it.

Tensors are immutable, so an update op's kernel copies its input 0 and changes the copy: a 65x65 table
filled cell by cell in a loop is copied 4,225 times. The compiled executor calls the op's
``in_place_kernel`` instead (same checks, same values, no copy) where this plan proves it safe:

- **Owned**: input 0's array belongs to this call and to nobody else. It is the result of an update op
  (a copy or, by induction, an owned array), a loop variable updated in place in its loop (below), or
  the body's placeholder of such a loop variable. Graph inputs, constants, pooled buffers and anything
  a kernel may return as a view are never owned.
- **Dies here**: the update is the last reader of input 0 (graph outputs count as read at the end), and
  input 0 is not also another input of the same op.
- **No alias survives**: every earlier reader returns a new array (elementwise ops, ``MatMul``,
  ``SelectV2``, a dtype-changing ``Cast``, ``StridedSlice``, updates), or its results are dead by now
  and were only read by such ops (or by this update, as the new value: numpy copies an overlapping
  value before writing it).

An **elementwise op** (a ufunc of input 0's own shape and dtype, at least ``MIN_BUFFER_ELEMENTS``
elements, its result a graph output) is written into input 0 the same way (``np.add(counts, step,
out=counts)``) when input 0 is owned and dies there, and a ``SelectV2`` into its else-value
(``np.copyto(z, new, where=inside)``): a loop's accumulator ``counts += step`` or masked update
``z = where(inside, new, z)`` then keeps one array for the whole loop. The result is an output, so the
memory plan never pools it.

A ``While`` loop variable is **updated in place** when the body's result for it is its placeholder
passed through a chain of in-place updates (elementwise ones included, and in-place loops); the loop
then enters with an owned array: the incoming value itself when it is owned and dies at the loop, else one
copy at loop entry (instead of one per iteration). Everything is per call (no array outlives it or is
shared between threads), so concurrent calls are safe.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> from runtime.ops.indexing import update_by_key
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (3,))
...     once = update_by_key(x, 0, 7)       # x is the caller's: copied
...     twice = update_by_key(once, 1, 8)   # once is ours and dies here: written in place
...     g.outputs = [twice]
>>> plan = plan_in_place(g, g.operations[1:])
>>> [op.name for op in g.operations if id(op) in plan.updates]
['TensorStridedSliceUpdate_1']
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from runtime.backends.buffer_plan import SELECT_INTO, UFUNC, write_kind
from runtime.core.graph import FuncGraph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops.cast_op import CAST
from runtime.ops.combine_ops import SELECT
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.core import CONST
from runtime.ops.indexing import STRIDED_SLICE
from runtime.ops.math_ops import MATMUL
from runtime.passes.analysis import needed_ops


@dataclass
class InPlacePlan:
    """``updates``: ids of the update ops to run with their in-place kernel; ``loop_vars``: id(While) ->
    indices of the loop variables its body updates in place; ``entry_copies``: id(While) -> those of
    them copied once at loop entry (the incoming array is not owned or is read later)."""

    updates: set = field(default_factory=set)
    loop_vars: Dict[int, Tuple[int, ...]] = field(default_factory=dict)
    entry_copies: Dict[int, Tuple[int, ...]] = field(default_factory=dict)


def graph_ops(graph: FuncGraph) -> List[Operation]:
    """The ops of ``graph`` the executor emits, in program order: needed ones, without constants and inputs."""
    needed = needed_ops(graph)
    inputs = {id(t.op) for t in graph.inputs}
    return [op for op in graph.operations
            if id(op) in needed and op.op_def is not CONST and id(op) not in inputs]


def _fresh_result(op: Operation) -> bool:
    """Whether ``op``'s results are new arrays, never a view or a reference to an input's array."""
    op_def = op.op_def
    if op_def.elementwise_ufunc is not None or op_def in (MATMUL, SELECT, STRIDED_SLICE):
        return True
    if op_def is CAST:
        return op.inputs[0].dtype != op.outputs[0].dtype  # a Cast to the same dtype returns its input
    return op_def.in_place_kernel is not None


def written_input(op: Operation) -> Optional[int]:
    """Which input's array an op writing its result into an input writes into, or None: an elementwise ufunc
    of input 0's own shape and dtype (no broadcast grows it, no cast changes it) writes into input 0; a
    ``SelectV2`` of its else-value's shape into the else-value (``np.copyto(e, t, where=c)`` is
    ``where(c, t, e)``). Only results big enough for an ``out=`` call to pay (``MIN_BUFFER_ELEMENTS``)."""
    kind = write_kind(op)
    if kind == UFUNC:
        index = 0
    elif kind == SELECT_INTO:
        index = 2
    else:
        return None
    x, result = op.inputs[index], op.outputs[0]
    return index if x.shape == result.shape and x.dtype == result.dtype else None


def plan_in_place(graph: FuncGraph, ops: Sequence[Operation], owned_inputs: FrozenSet[int] = frozenset(),
                  memo: Optional[Dict] = None) -> InPlacePlan:
    """The in-place plan of ``ops`` (``graph_ops(graph)``); ``owned_inputs``: positions of the graph's
    inputs whose arrays the graph may overwrite (loop variables updated in place). See the module doc."""
    memo = {} if memo is None else memo
    plan = InPlacePlan()
    end = len(ops)
    last_use: Dict[int, int] = {}
    readers: Dict[int, List[Operation]] = {}
    for position, op in enumerate(ops):
        for t in op.inputs:
            last_use[id(t)] = position
            readers.setdefault(id(t), []).append(op)
    for t in graph.outputs:
        last_use[id(t)] = end
    outputs = {id(t) for t in graph.outputs}
    owned = {id(graph.inputs[i]) for i in owned_inputs}

    def no_alias_survives(reader: Operation, consumer: Operation, position: int) -> bool:
        if reader is consumer or _fresh_result(reader):
            return True
        for result in reader.outputs:  # a view of the array: dead by now, read only by fresh-result ops
            if last_use.get(id(result), -1) > position:
                return False
            if not all(r is consumer or _fresh_result(r) for r in readers.get(id(result), ())):
                return False
        return True

    def may_overwrite(tensor: SymbolicTensor, consumer: Operation, position: int) -> bool:
        return (id(tensor) in owned and last_use.get(id(tensor)) == position
                and sum(t is tensor for t in consumer.inputs) == 1
                and all(no_alias_survives(r, consumer, position) for r in readers[id(tensor)]))

    for position, op in enumerate(ops):
        if op.op_def.in_place_kernel is not None:
            if may_overwrite(op.inputs[0], op, position):
                plan.updates.add(id(op))
            owned.add(id(op.outputs[0]))  # a copy, or (in place) an owned array: ours either way
        elif op.outputs and id(op.outputs[0]) in outputs and written_input(op) is not None:  # (never pooled)
            if may_overwrite(op.inputs[written_input(op)], op, position):
                plan.updates.add(id(op))
                owned.add(id(op.outputs[0]))  # that input's owned array
        elif op.op_def is WHILE:
            loop_vars = loop_vars_updated_in_place(op, memo)
            if loop_vars:
                plan.loop_vars[id(op)] = loop_vars
                plan.entry_copies[id(op)] = tuple(i for i in loop_vars
                                                  if not may_overwrite(op.inputs[i], op, position))
                owned.update(id(op.outputs[i]) for i in loop_vars)
    return plan


def loop_vars_updated_in_place(op: Operation, memo: Dict) -> Tuple[int, ...]:
    """Indices of the loop variables of the ``While`` ``op`` whose body result is their placeholder passed
    through in-place updates only (so the loop needs an owned array at entry and never copies inside)."""
    key = ("loop", id(op))
    if key in memo:
        return memo[key]
    body: FuncGraph = op.attrs["body"]
    count = op.attrs["num_loop_vars"]
    chains: Dict[int, List[Tuple[Operation, int]]] = {}
    for i in range(count):
        result = body.outputs[i]
        if body.inputs[i].shape == () or sum(t is result for t in body.outputs) != 1:
            continue  # 0-d loop variables run as numpy scalars; a result returned twice would alias
        chain = _update_chain(result, body.inputs[i])
        if chain:
            chains[i] = chain
    ops = graph_ops(body) if chains else []
    for i in list(chains):
        # The next iteration overwrites the body's result: no other reader may keep it (a list it is
        # appended to would see every element change to the last one).
        if not all(_fresh_result(op) for op in ops if any(t is body.outputs[i] for t in op.inputs)):
            del chains[i]
    while chains:
        plan = plan_in_place(body, ops, frozenset(chains), memo)
        broken = [i for i, chain in chains.items() if not all(_in_place_step(plan, step) for step in chain)]
        if not broken:
            break
        for i in broken:
            del chains[i]
    memo[key] = result = tuple(sorted(chains))
    return result


def _update_chain(result: SymbolicTensor, placeholder: SymbolicTensor) -> List[Tuple[Operation, int]]:
    """(op, input index) steps from ``placeholder`` to ``result`` through updates and in-place loops, or []."""
    chain = []
    tensor = result
    while tensor is not placeholder:
        producer = tensor.op
        index = 0 if producer.op_def.in_place_kernel is not None else (
            written_input(producer) if tensor is result else None)  # (elementwise: the body's result only)
        if index is not None:
            chain.append((producer, index))
            tensor = producer.inputs[index]
        elif producer.op_def is WHILE and tensor.index < producer.attrs["num_loop_vars"]:
            chain.append((producer, tensor.index))
            tensor = producer.inputs[tensor.index]
        else:
            return []
    return chain


def _in_place_step(plan: InPlacePlan, step: Tuple[Operation, int]) -> bool:
    op, index = step
    if op.op_def is WHILE:
        return index in plan.loop_vars.get(id(op), ()) and index not in plan.entry_copies.get(id(op), ())
    return id(op) in plan.updates
