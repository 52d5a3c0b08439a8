"""Graph optimizer: a pipeline of passes, each FuncGraph → new FuncGraph (the input is never changed).

``optimize_graph`` is what a concrete function runs once after tracing; the traced graph stays
intact for debugging. Passes recurse into If/While subgraphs.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (2,))
...     g.outputs = [rt.multiply(x, rt.add(rt.constant(0), 1))]   # x * (0 + 1) -> x
>>> [op.type for op in optimize_graph(g).operations]
['Placeholder']
"""
from __future__ import annotations

from typing import List

from runtime.core.graph import FuncGraph
from runtime.passes.arithmetic import simplify_arithmetic, simplify_op
from runtime.passes.constant_folding import fold_constants, fold_op
from runtime.passes.cse import cse_rule, eliminate_common_subexpressions
from runtime.passes.loop_invariants import hoist_loop_invariants, hoist_rule
from runtime.passes.prune import prune, prune_in_place
from runtime.passes.rewrite import rebuild
from runtime.ops.control_flow_ops import IF

__all__ = ["optimize_graph", "prune", "fold_constants", "eliminate_common_subexpressions",
           "simplify_arithmetic", "hoist_loop_invariants"]

_MAX_ROUNDS = 3


def optimize_graph(func_graph: FuncGraph) -> FuncGraph:
    """Simplify arithmetic, fold constants, merge common subexpressions and move loop-invariant ops out of
    ``While`` loops, then prune.

    All four rules run in one forward walk over the graph: each op sees its already-optimized
    inputs, so one walk reaches what repeated passes would (an op moved out of a loop goes through the
    other three rules in the graph around the loop, so it folds or merges with what is there). Only an ``If`` replaced
    by its branch
    (constant condition) brings in ops the walk has not seen; then another round runs. Returns a new
    FuncGraph with the same inputs and outputs (and output structure).
    """
    graph = func_graph
    for _ in range(_MAX_ROUNDS):
        inlined: List[bool] = []
        graph = prune_in_place(rebuild(graph, lambda source: _combined_rule(inlined)))  # a new graph: ours
        if not inlined:
            break
    return graph


def _combined_rule(inlined: List[bool]):
    merge = cse_rule()

    def hoist(op, inputs, builder):
        return hoist_rule(op, inputs, builder, lambda moved, outer: rule(moved, outer, builder)
                          or builder.copy_op(moved, outer))

    def rule(op, inputs, builder):
        for step in (simplify_op, fold_op, merge, hoist):
            replacement = step(op, inputs, builder)
            if replacement is not None:
                if op.op_def is IF:
                    inlined.append(True)
                return replacement
        return None

    return rule
