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

from runtime.core.graph import FuncGraph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, TRANSPOSE
from runtime.ops.cast_op import CAST
from runtime.ops.core import IDENTITY
from runtime.ops.creation_ops import ONES_LIKE, ZEROS_LIKE
from runtime.ops.gradient_ops import BROADCAST_TO
from runtime.ops.math_ops import MATMUL
from runtime.ops.reduction_ops import SUM


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


# Ops that cannot fail once shape inference accepted fully known input and output shapes (their kernels read
# no values that could be out of range): safe to run where the program might never have run them (before a
# loop that may run zero times, or out of a branch that may not be taken).
_SAFE_WHEN_SHAPES_KNOWN = (TRANSPOSE, CAST, IDENTITY, MATMUL, RESHAPE, EXPAND_DIMS, BROADCAST_TO, SUM, ZEROS_LIKE,
                           ONES_LIKE)


def cannot_fail(op: Operation) -> bool:
    """Whether ``op`` is pure and raises on no input values: an elementwise ufunc without an integer
    zero-divisor check, or one of a few shape-checked ops, with every input and output shape fully known
    (so inference already proved broadcasting and inner dimensions agree). ``gather`` (an index out of
    range), integer ``//``, ``%`` and ``**`` (a zero divisor, a negative power) and every stateful op
    (print, assert, random, variables) are not: moving them could raise, or act, where the program did not."""
    op_def = op.op_def
    if op_def.stateful or op.subgraphs():
        return False
    known = all(t.shape is not None and None not in t.shape for t in [*op.inputs, *op.outputs])
    safe_ufunc = op_def.elementwise_ufunc is not None and not op_def.zero_divisor_error
    return known and (safe_ufunc or op_def in _SAFE_WHEN_SHAPES_KNOWN)
