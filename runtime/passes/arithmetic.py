"""Arithmetic simplification: drop operations that return their input unchanged.

``x*1``, ``1*x``, ``x/1``, ``x-0``, ``x+0``, ``-(-x)``,
``Identity(x)`` and a ``Cast`` to the dtype ``x`` already has all become ``x`` — only when the result
has exactly ``x``'s dtype and the constant cannot broadcast ``x`` to a bigger shape. Every rule is exact
bit for bit, NaNs and signed zeros included: for floats ``x - 0.0`` is ``x`` but ``x - (-0.0)`` is not
(``-0.0 - -0.0`` is ``+0.0``), and ``x + (-0.0)`` is ``x`` but ``x + 0.0`` is not.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, (None, 3))
...     g.outputs = [rt.identity(rt.multiply(x, [1.0, 1.0, 1.0]))]
>>> simplified = simplify_arithmetic(g)
>>> simplified.outputs[0] is simplified.inputs[0]
True
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from runtime.core.graph import FuncGraph, Operation
from runtime.passes.rewrite import GraphBuilder, rebuild
from runtime.core.tensor import SymbolicTensor


def simplify_arithmetic(graph: FuncGraph) -> FuncGraph:
    """A copy of ``graph`` with neutral operations replaced by their operand."""

    return rebuild(graph, lambda source: simplify_op)


def simplify_op(op: Operation, inputs: List[SymbolicTensor], builder: GraphBuilder):
    """The rule for one op: ``[operand]`` if ``op`` returns that input unchanged, else None."""
    operand = _unchanged_operand(op, inputs, builder)
    return None if operand is None else [operand]


def _unchanged_operand(op: Operation, inputs: List[SymbolicTensor],
                       builder: GraphBuilder) -> Optional[SymbolicTensor]:
    """The input that ``op`` returns unchanged, if there is one."""
    if len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    algebra = op.op_def.algebra  # declared with the op (runtime.core.registry.Algebra)
    if algebra.noop_when_same_dtype and len(inputs) == 1 and inputs[0].dtype == out.dtype:
        return inputs[0]
    if algebra.self_inverse and len(inputs) == 1 and inputs[0].op.op_def is op.op_def:
        inner = inputs[0].op.inputs[0]
        return inner if inner.dtype == out.dtype else None
    for positions, neutral, zero_sign in algebra.neutral:
        if len(inputs) != 2:
            continue
        for position in positions:
            constant = builder.const_value(inputs[position])
            operand = inputs[1 - position]
            if constant is None or operand.dtype != out.dtype:
                continue
            if out.dtype.kind == "f" and zero_sign is not None and not np.all(np.signbit(constant) == zero_sign):
                continue
            if np.all(constant == neutral) and _broadcast_keeps_shape(constant.shape, operand.shape):
                return operand
    return None


def _broadcast_keeps_shape(constant_shape, operand_shape) -> bool:
    """True if broadcasting a constant of ``constant_shape`` against the operand cannot grow it."""
    if operand_shape is None or len(constant_shape) > len(operand_shape):
        return False
    trailing = operand_shape[len(operand_shape) - len(constant_shape):]
    return all(c == 1 or c == d for c, d in zip(constant_shape, trailing))
