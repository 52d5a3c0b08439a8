"""Prune: keep only the ops that the outputs or a side effect need (non-strict execution).

An op whose result nothing needs is dropped, so an error it would raise is never raised. Stateful
ops (print, assign, random, assert, and If/While holding one) always stay, with everything they read.
If/While bodies are pruned the same way against their own outputs.

>>> import numpy as np
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
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


from runtime.core.graph import FuncGraph
from runtime.passes.analysis import needed_ops
from runtime.passes.rewrite import rebuild


def prune(graph: FuncGraph) -> FuncGraph:
    """A copy of ``graph`` without the ops no output or side effect needs (inputs always stay)."""

    def make_visitor(source: FuncGraph):
        keep = needed_ops(source)

        def visit(op, inputs, builder):
            # An unneeded op maps to nothing: no later kept op reads it, by construction of ``keep``.
            return None if id(op) in keep else []

        return visit

    return rebuild(graph, make_visitor)


def prune_in_place(graph: FuncGraph) -> FuncGraph:
    """``prune`` for a graph a pass has just built and nobody else holds: drops the unneeded ops from
    its (and its kept subgraphs') operation lists instead of copying every kept op into a new graph.
    Returns ``graph``."""
    keep = needed_ops(graph)
    inputs = {id(t.op) for t in graph.inputs}
    graph.operations = [op for op in graph.operations if id(op) in keep or id(op) in inputs]
    for op in graph.operations:
        for subgraph in op.subgraphs():
            prune_in_place(subgraph)
    return graph
