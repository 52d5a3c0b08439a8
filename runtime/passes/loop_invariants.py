"""Loop-invariant code motion: what a ``While``'s cond or body computes the same way in every iteration runs
once, before the loop.

A value is loop-invariant when it is a captured tensor, a loop variable the body passes on unchanged, a
constant, or the result of a pure op reading only invariant values. Such an op moves out of the loop when it
also cannot fail (``analysis.cannot_fail``): the loop may run zero times, and a moved op must not raise an
error the loop would never have raised. So ``matmul(W, W)`` (known shapes) or ``exp(a) * b`` move;
``gather(table, i)`` (an index out of range raises), integer ``//`` and ``%``, and every stateful op (print,
assert, random, variable reads and writes) stay in the loop. The loop then captures the moved results (new
inputs after its captured ones). Inner loops are rebuilt first, so an inner loop's invariant moves into the
outer body and, when it is invariant there too, out of the outer loop as well. An ``If`` of the cond or body
(at any depth of Ifs) loses the same kind of ops from its branches: they then run even when their branch
would not have, which only ops that cannot fail may. Each moved op computes exactly what it computed in the
loop (same kernel, same inputs), so values and gradients are unchanged bit for bit.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     w = g.add_placeholder(rt.float32, (2, 2), name="w")
...     g.outputs = list(rt.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + rt.matmul(w, w)),
...                                    [rt.constant(0), rt.zeros((2, 2))]))
>>> [op.type for op in hoist_loop_invariants(g).operations if op.type in ("MatMul", "While")]
['MatMul', 'While']
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence

from runtime.core import nest
from runtime.core.graph import CONST, PLACEHOLDER, FuncGraph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.passes.analysis import cannot_fail
from runtime.passes.prune import prune_in_place
from runtime.passes.rewrite import GraphBuilder, rebuild, rebuilt_attrs

# place(op, inputs) -> the outputs standing for ``op`` applied to ``inputs`` in the graph around the loop.
Place = Callable[[Operation, List[SymbolicTensor]], Sequence[SymbolicTensor]]


def hoist_loop_invariants(graph: FuncGraph) -> FuncGraph:
    """A copy of ``graph`` where every ``While`` (at any depth) computes its invariant values before it runs."""

    def make_visitor(source: FuncGraph):
        def visit(op: Operation, inputs: List[SymbolicTensor], builder: GraphBuilder):
            return hoist_rule(op, inputs, builder, lambda moved, ins: builder.copy_op(moved, ins))
        return visit

    return rebuild(graph, make_visitor)


def hoist_rule(op: Operation, inputs: List[SymbolicTensor], builder: GraphBuilder,
               place: Place) -> Optional[List[SymbolicTensor]]:
    """The rule for one op: for a ``While``, the outputs of a copy whose cond and body (rebuilt by the
    builder's pass first) no longer compute their invariant values; ``place`` puts each moved op (and each
    constant it reads) into the builder's graph, e.g. through the optimizer's rules. None for other ops."""
    if op.op_def is not WHILE:
        return None
    attrs = rebuilt_attrs(op, builder)  # fresh graphs, ours to edit
    cond, body, count = attrs["cond"], attrs["body"], attrs["num_loop_vars"]
    invariant = [k for k in range(len(inputs)) if k >= count or body.outputs[k] is body.inputs[k]]
    reads = [_move_out(subgraph, {id(subgraph.inputs[k]): inputs[k] for k in invariant}, place)
             for subgraph in (cond, body)]
    if not any(reads):
        return builder.copy_op(op, inputs, attrs)
    extra = _new_values(reads, {id(inputs[k]) for k in invariant})
    for subgraph, read in zip((cond, body), reads):
        _take_as_inputs(subgraph, extra, read, {id(inputs[k]): subgraph.inputs[k] for k in invariant})
        prune_in_place(subgraph)  # what only a dead op read is not kept as a capture (dropped below)
    all_inputs = _drop_unread_captures([cond, body], count, inputs + extra)
    return builder.copy_op(op, all_inputs, attrs)


def _move_out(graph: FuncGraph, outside: Dict[int, SymbolicTensor], place: Place) -> Dict[int, SymbolicTensor]:
    """Place the ops of ``graph`` (a loop's cond or body, or a branch of an ``If`` in one) that read only
    values in ``outside`` (id(tensor of ``graph``) -> its value outside the loop) or constants, and cannot
    fail. Returns id(tensor) -> outer value for what ``graph`` still reads of them: outputs of moved ops,
    and outer values an ``If`` of ``graph`` now takes as inputs (its branches' moved ops' results)."""
    moved, lifted = set(), []
    for op in graph.operations:
        if op.op_def is IF:
            lifted += _lift_from_branches(op, outside, place)
            continue
        if op.op_def is PLACEHOLDER or op.op_def is CONST:
            continue
        if not all(id(t) in outside or t.op.op_def is CONST for t in op.inputs) or not cannot_fail(op):
            continue  # (the cheap test first: most ops of a loop read a value that changes)
        for t in op.inputs:
            if id(t) not in outside:  # a constant of the loop: the moved op reads a copy of it
                outside[id(t)] = place(t.op, [])[0]
        outside.update((id(old), new) for old, new in zip(op.outputs, place(op, [outside[id(t)] for t in op.inputs])))
        moved.add(id(op))
    graph._used_names.difference_update(op.name for op in graph.operations if id(op) in moved)  # names free again
    graph.operations = [op for op in graph.operations if id(op) not in moved]
    read = [t for op in graph.operations for t in op.inputs] + list(graph.outputs)
    found = {id(t): outside[id(t)] for t in read if id(t.op) in moved}
    found.update((id(value), value) for value in lifted)  # an If's new input is, for now, the outer value
    return found


def _lift_from_branches(op: Operation, outside: Dict[int, SymbolicTensor], place: Place) -> List[SymbolicTensor]:
    """Move what the branches of the ``If`` ``op`` compute from loop-invariant values (``_move_out``): run
    unconditionally, once, before the loop, which is sound because only ops that cannot fail move. The If
    then takes their results as new inputs, appended to ``op.inputs`` as the outer values themselves until
    the loop's graph reads them from its own inputs (``_take_as_inputs``). Returns those outer values."""
    branches = op.subgraphs()
    invariant = [(j, outside[id(t)]) for j, t in enumerate(op.inputs[1:]) if id(t) in outside]
    reads = [_move_out(branch, {id(branch.inputs[j]): value for j, value in invariant}, place)
             for branch in branches]
    values = _new_values(reads, {id(value) for _, value in invariant})
    if any(reads):
        for branch, read in zip(branches, reads):
            _take_as_inputs(branch, values, read, {id(value): branch.inputs[j] for j, value in invariant})
        op.inputs = op.inputs + values
    return values


def _new_values(reads: List[Dict[int, SymbolicTensor]], taken: set) -> List[SymbolicTensor]:
    """The outer values in ``reads`` that are not already inputs (ids in ``taken``), each once, in order."""
    values, seen = [], set(taken)
    for read in reads:
        for value in read.values():
            if id(value) not in seen:
                seen.add(id(value))
                values.append(value)
    return values


def _take_as_inputs(graph: FuncGraph, values: List[SymbolicTensor], read: Dict[int, SymbolicTensor],
                    existing: Dict[int, SymbolicTensor]) -> None:
    """Give ``graph`` one placeholder per value in ``values`` (captured, after its other inputs) and make what
    read a moved op's result (``read``: id -> outer value) read the placeholder of its outer value instead,
    or the input already standing for it (``existing``: id(outer value) -> placeholder)."""
    first_new = len(graph.inputs)
    for value in values:
        graph.captures[id(value)] = (value, graph.add_placeholder(value.dtype, value.shape, name=value.op.name))
    fresh = graph.inputs[first_new:]
    standing = dict(existing)
    standing.update((id(value), placeholder) for value, placeholder in zip(values, fresh))
    # Placeholders first: a saved graph is loaded in program order, readers after what they read.
    fresh_ops = {id(t.op) for t in fresh}
    graph.operations = [t.op for t in fresh] + [op for op in graph.operations if id(op) not in fresh_ops]
    replaced = {key: standing[id(value)] for key, value in read.items()}
    if not replaced:
        return

    def new(tensor):
        return replaced.get(id(tensor), tensor) if isinstance(tensor, SymbolicTensor) else tensor

    for op in graph.operations:
        op.inputs = [new(t) for t in op.inputs]
        for sub in op.subgraphs():  # what an inner loop or branch records as captured from here
            sub.captures = {key: (new(o), inner) for key, (o, inner) in sub.captures.items()}
    graph.outputs = [new(t) for t in graph.outputs]
    graph.structured_outputs = nest.map_structure(new, graph.structured_outputs)


def _drop_unread_captures(graphs: List[FuncGraph], count: int, inputs: List[SymbolicTensor]) -> List[SymbolicTensor]:
    """Remove the captured inputs that no graph of the loop reads any more (their readers moved out);
    returns the loop's remaining inputs."""
    read = set()
    for graph in graphs:
        read.update(id(t) for op in graph.operations for t in op.inputs)
        read.update(id(t) for t in graph.outputs)
    keep = [k for k in range(len(inputs)) if k < count or any(id(g.inputs[k]) in read for g in graphs)]
    if len(keep) == len(inputs):
        return inputs
    kept = set(keep)
    for graph in graphs:
        dropped = {id(graph.inputs[k].op) for k in range(len(inputs)) if k not in kept}
        graph.operations = [op for op in graph.operations if id(op) not in dropped]
        graph.captures = {key: (outer, inner) for key, (outer, inner) in graph.captures.items()
                          if id(inner.op) not in dropped}
        graph.inputs = [graph.inputs[k] for k in keep]
    return [inputs[k] for k in keep]
