"""Graph analyses shared by passes and backends.

>>> import runtime as rt
>>> from runtime.core.context import graph_scope
>>> g = rt.FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, ())
...     unused = rt.exp(x)
...     g.outputs = [x + 1.0]
>>> len(needed_ops(g))  # x, the constant 1.0 and the addition; not the unused exp
3
"""
from __future__ import annotations

from typing import Optional, Sequence, Set

from runtime.core.graph import FuncGraph
from runtime.core.tensor import SymbolicTensor


def needed_ops(graph: FuncGraph, outputs: Optional[Sequence[SymbolicTensor]] = None, *,
               side_effects: bool = True) -> Set[int]:
    """ids of the ops of ``graph`` that ``outputs`` (default: the graph's) depend on, incl. those; with
    ``side_effects``, also every stateful op, what it reads and the stateful ops before it."""
    roots = graph.outputs if outputs is None else outputs
    stack = [t.op for t in roots]
    if side_effects:
        stack += [op for op in graph.operations if op.is_stateful]
    needed: Set[int] = set()
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs)
        if side_effects:  # control inputs only chain stateful ops in program order
            stack.extend(op.control_inputs)
    return needed
