"""Common-subexpression elimination: the same op on the same inputs with the same attrs runs once.

Never merges stateful ops (two reads of a variable around an assign differ) nor If/While. Constants
merge when dtype, shape and bytes agree (so ``0.0`` and ``-0.0`` stay apart, equal NaNs merge).

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, (3,))
...     g.outputs = [rt.multiply(rt.add(x, x), rt.add(x, x))]
>>> [op.type for op in eliminate_common_subexpressions(g).operations]
['Placeholder', 'AddV2', 'Mul']
"""
from __future__ import annotations

from typing import Any, Dict, Hashable, List

import numpy as np

from runtime.core.graph import FuncGraph, Operation
from runtime.passes.rewrite import GraphBuilder, rebuild
from runtime.core.tensor import SymbolicTensor
from runtime.core.graph import PLACEHOLDER


def eliminate_common_subexpressions(graph: FuncGraph) -> FuncGraph:
    """A copy of ``graph`` where each repeated pure computation is computed once."""

    return rebuild(graph, lambda source: cse_rule())


def cse_rule():
    """The rule for the ops of one graph: an earlier equal op's outputs, or the op copied and remembered.

    One rule per graph: a subgraph cannot read its parent's tensors directly, so tables are not shared.
    """
    seen: Dict[Hashable, List[SymbolicTensor]] = {}

    def merge(op: Operation, inputs: List[SymbolicTensor], builder: GraphBuilder):
        if op.is_stateful or op.subgraphs() or op.op_def is PLACEHOLDER:
            return None
        key = (op.type, tuple(id(t) for t in inputs), attrs_key(op.attrs))
        if key in seen:
            return seen[key]
        outputs = builder.copy_op(op, inputs)
        seen[key] = outputs
        return outputs

    return merge


def attrs_key(attrs: Dict[str, Any]) -> Hashable:
    """A hashable value equal for two attr dicts exactly when the ops compute the same thing."""
    return tuple(sorted((name, value_key(value)) for name, value in attrs.items()))


def value_key(value: Any) -> Hashable:
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, (float, np.floating)):
        return ("float", type(value).__name__, repr(value))  # keeps -0.0 apart from 0.0
    if isinstance(value, (bool, int, str, bytes, type(None), np.integer, np.bool_, np.dtype)):
        return (type(value).__name__, value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(value_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), value_key(v)) for k, v in value.items())))
    return ("object", id(value))  # e.g. a Variable or a callable: equal only to itself
