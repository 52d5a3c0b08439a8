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
    push = stack.append
    while stack:
        op = stack.pop()
        key = id(op)
        if key in needed:
            continue
        needed.add(key)
        for tensor in op.inputs:  # (a loop, not extend(generator): this runs for every op of every plan)
            push(tensor.op)
        if side_effects:  # control inputs only chain stateful ops in program order
            stack.extend(op.control_inputs)
    return needed


# Ops whose kernels read no values that could be out of range, by what they need to know to be sure the shapes
# agree (shape inference checked what was known when the op was made): nothing, the rank, or every dim.
_ANY_SHAPE = (CAST, IDENTITY, ZEROS_LIKE, ONES_LIKE)
_KNOWN_RANK = (TRANSPOSE, EXPAND_DIMS)  # their attr (perm, axis) was checked against the rank
_KNOWN_SHAPES = (RESHAPE, BROADCAST_TO, SUM)  # sizes must agree: only fully known shapes prove it


def cannot_fail(op: Operation) -> bool:
    """Whether ``op`` is pure and raises on no input values, so it may run where the program might never have
    run it (before a loop that may run zero times, or out of a branch that may not be taken).

    Elementwise ufuncs without an integer zero-divisor check and ``MatMul`` qualify when broadcasting cannot
    fail at run time (``broadcast_cannot_fail``; for ``MatMul`` also known, equal inner dims); a few shape ops
    when enough of their input's shape is known. ``gather`` (an index out of range), integer ``//``, ``%`` and
    ``**`` (a zero divisor, a negative power) and every stateful op (print, assert, random, variables) do not:
    moving them could raise, or act, where the program did not.
    """
    op_def = op.op_def
    if op_def.stateful or op.subgraphs():
        return False
    if op_def in _ANY_SHAPE:
        return True
    if op_def.elementwise_ufunc is not None and not op_def.zero_divisor_error:
        return broadcast_cannot_fail([t.shape for t in _distinct(op.inputs)])
    if op_def is MATMUL:
        a, b = (t.shape for t in op.inputs)
        return (a is not None and b is not None and len(a) >= 2 and len(b) >= 2 and a[-1] is not None
                and a[-1] == b[-2] and broadcast_cannot_fail([a[:-2], b[:-2]]))
    if op_def in _KNOWN_RANK:
        return op.inputs[0].shape is not None
    if op_def in _KNOWN_SHAPES:
        return all(t.shape is not None and None not in t.shape for t in [*op.inputs, *op.outputs])
    return False


def broadcast_cannot_fail(shapes: Sequence[Optional[tuple]]) -> bool:
    """Whether tensors of these static shapes (of distinct tensors) broadcast at run time whatever their unknown
    dims turn out to be, given that shape inference accepted them: on each axis at most one operand has an
    unknown dim, and every other operand has 1 there (or lacks the axis).

    >>> broadcast_cannot_fail([(None, 3), (3,)]), broadcast_cannot_fail([(None,), (None,)])
    (True, False)
    """
    if len(shapes) <= 1:
        return True  # one operand (or one tensor read twice): nothing to disagree with
    if any(shape is None for shape in shapes):
        return False
    for axis in range(1, max(len(shape) for shape in shapes) + 1):
        dims = [shape[-axis] for shape in shapes if len(shape) >= axis]
        if None in dims and (dims.count(None) > 1 or any(d is not None and d != 1 for d in dims)):
            return False
    return True


def _distinct(tensors: Sequence[SymbolicTensor]) -> list:
    found = {}
    for t in tensors:
        found.setdefault(id(t), t)
    return list(found.values())
