"""Graph optimizer: a pipeline of passes, each FuncGraph → new FuncGraph (the input is never changed).

``optimize_graph`` is what a concrete function runs once after tracing; the traced graph stays
intact for debugging. Passes recurse into If/While subgraphs.

>>> import runtime as rt
>>> from runtime.graph import FuncGraph
>>> from runtime.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (2,))
...     g.outputs = [rt.multiply(x, rt.add(rt.constant(0), 1))]   # x * (0 + 1) -> x
>>> [op.type for op in optimize_graph(g).operations]
['Placeholder']
"""
from __future__ import annotations

from runtime.graph import FuncGraph
from runtime.optimize.arithmetic import simplify_arithmetic
from runtime.optimize.constant_folding import fold_constants
from runtime.optimize.cse import eliminate_common_subexpressions
from runtime.optimize.prune import prune

__all__ = ["optimize_graph", "prune", "fold_constants", "eliminate_common_subexpressions",
           "simplify_arithmetic"]

_MAX_ROUNDS = 3  # each round can expose more work for the next (a fold enables a simplification...)


def optimize_graph(func_graph: FuncGraph) -> FuncGraph:
    """Prune, fold constants, simplify arithmetic and merge common subexpressions until nothing changes.

    Returns a new FuncGraph with the same inputs and outputs (and output structure).
    """
    graph = prune(func_graph)
    for _ in range(_MAX_ROUNDS):
        before = _size(graph)
        graph = prune(eliminate_common_subexpressions(simplify_arithmetic(fold_constants(graph))))
        if _size(graph) == before:
            break
    return graph


def _size(graph: FuncGraph) -> int:
    return sum(1 + sum(_size(g) for g in op.subgraphs()) for op in graph.operations)
