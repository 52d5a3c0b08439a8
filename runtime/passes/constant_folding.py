"""Constant folding: evaluate at optimization time what depends only on constants.

An op is folded when it is not stateful, has a kernel, and all its inputs are ``Const`` — or when its
op is declared ``shape_only`` (``Shape``, ``Size``, ...) and its inputs' shapes are fully known. An
``If`` whose condition is a constant is replaced by the branch it always takes. Results larger than
``MAX_FOLDED_ELEMENTS`` stay computed at run time (no huge constants in the graph), and an op whose
kernel fails is left in place, so the error still happens at run time only if the op is needed.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (2,))
...     g.outputs = [rt.add(x, rt.multiply(rt.constant(2), 3))]
>>> [op.type for op in fold_constants(g).operations]
['Placeholder', 'Const', 'Const', 'Const', 'AddV2']
"""
from __future__ import annotations

import math
from typing import List, Optional

import numpy as np

from runtime.core.graph import FuncGraph, Operation
from runtime.passes.rewrite import GraphBuilder, inline, rebuild
from runtime.core.tensor import SymbolicTensor
from runtime.core.graph import CONST
from runtime.ops.control_flow_ops import IF
from runtime.core.graph import PLACEHOLDER

MAX_FOLDED_ELEMENTS = 1_000_000


def fold_constants(graph: FuncGraph, max_elements: int = MAX_FOLDED_ELEMENTS) -> FuncGraph:
    """A copy of ``graph`` where constant-only computations are replaced by ``Const`` nodes.

    Folded ops become unused; ``prune`` removes them.
    """
    return rebuild(graph, lambda source: lambda op, inputs, builder: fold_op(op, inputs, builder, max_elements))


def fold_op(op: Operation, inputs: List[SymbolicTensor], builder: GraphBuilder,
            max_elements: int = MAX_FOLDED_ELEMENTS) -> Optional[List[SymbolicTensor]]:
    """The rule for one op: constants for its outputs (or the inlined branch of an If), else None."""
    if op.op_def is IF and builder.const_value(inputs[0]) is not None:
        branch = op.attrs["then_branch" if builder.const_value(inputs[0]) else "else_branch"]
        return inline(builder, branch, inputs[1:])
    if not _foldable(op, max_elements):
        return None
    if getattr(op.op_def, "shape_only", False) and all(_fully_known(t.shape) for t in inputs):
        # The value is never read: a zero-strided view of the right shape costs no memory.
        arrays = [np.broadcast_to(np.zeros((), t.dtype), t.shape) for t in inputs]
    else:
        arrays = [builder.const_value(t) for t in inputs]
        if any(a is None for a in arrays):
            return None
    results = _evaluate(op, arrays)
    if results is None or not _match_specs(op, results, max_elements):
        return None
    return [builder.constant(value, name=op.name if i == 0 else f"{op.name}_{i}")
            for i, value in enumerate(results)]


def _foldable(op: Operation, max_elements: int) -> bool:
    if op.op_def in (CONST, PLACEHOLDER) or op.op_def.kernel is None or op.subgraphs() or op.is_stateful:
        return False
    if not op.outputs:
        return False
    # Skip big results before computing them when the shapes already tell.
    return not any(_fully_known(t.shape) and math.prod(t.shape) > max_elements for t in op.outputs)


def _evaluate(op: Operation, arrays) -> Optional[List[np.ndarray]]:
    try:
        with np.errstate(all="ignore"):
            result = op.op_def.kernel(*arrays, **op.attrs)
    except Exception:  # noqa: BLE001 - a failing op stays in the graph and fails at run time if needed
        return None
    results = list(result) if isinstance(result, tuple) else [result]
    return [np.array(r) if type(r) is not np.ndarray or not r.flags.owndata else r for r in results]


def _match_specs(op: Operation, results: List[np.ndarray], max_elements: int) -> bool:
    """Fold only what the graph already says: same count, dtypes and (known) shapes; small enough."""
    if len(results) != len(op.outputs):
        return False
    for value, tensor in zip(results, op.outputs):
        if value.dtype != tensor.dtype or value.size > max_elements:
            return False
        if tensor.shape is not None and (len(tensor.shape) != value.ndim or any(
                d is not None and d != v for d, v in zip(tensor.shape, value.shape))):
            return False
    return True


def _fully_known(shape) -> bool:
    return shape is not None and all(d is not None for d in shape)
