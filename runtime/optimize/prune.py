"""Prune: keep only the ops that the outputs or a side effect need (non-strict execution).

An op whose result nothing needs is dropped, so an error it would raise is never raised. Stateful
ops (print, assign, random, assert, and If/While holding one) always stay, with everything they read.
If/While bodies are pruned the same way against their own outputs.

>>> import numpy as np
>>> from runtime.graph import FuncGraph
>>> from runtime.context import graph_scope
>>> import runtime as rt
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, ())
...     unused = rt.multiply(x, x)
...     g.outputs = [rt.add(x, 1.0)]
>>> len(g.operations), len(prune(g).operations)
(4, 3)
"""
from __future__ import annotations

from typing import Optional, Sequence, Set

from runtime.graph import FuncGraph
from runtime.tensor import SymbolicTensor
from runtime.optimize.rewrite import rebuild


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


def prune(graph: FuncGraph) -> FuncGraph:
    """A copy of ``graph`` without the ops no output or side effect needs (inputs always stay)."""

    def make_visitor(source: FuncGraph):
        keep = needed_ops(source)

        def visit(op, inputs, builder):
            # An unneeded op maps to nothing: no later kept op reads it, by construction of ``keep``.
            return None if id(op) in keep else []

        return visit

    return rebuild(graph, make_visitor)
