"""Arithmetic simplification: drop operations that return their input unchanged.

``x*1``, ``1*x``, ``x/1``, ``x-0``, ``x+0``, ``-(-x)``,
``Identity(x)`` and a ``Cast`` to the dtype ``x`` already has all become ``x`` — only when the result
has exactly ``x``'s dtype and the constant cannot broadcast ``x`` to a bigger shape. An elementwise op
reading ``BroadcastTo(a, S)`` whose other operand already has shape ``S`` reads ``a`` instead (the op
broadcasts it itself; gradients of broadcasting ops make this pattern). Every rule is exact
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

from runtime.core import shapes
from runtime.core.graph import FuncGraph, Operation
from runtime.ops.gradient_ops import BROADCAST_TO
from runtime.passes.rewrite import GraphBuilder, rebuild
from runtime.core.tensor import SymbolicTensor


def simplify_arithmetic(graph: FuncGraph) -> FuncGraph:
    """A copy of ``graph`` with neutral operations replaced by their operand."""

    return rebuild(graph, lambda source: simplify_op)


def simplify_op(op: Operation, inputs: List[SymbolicTensor], builder: GraphBuilder):
    """The rule for one op: ``[operand]`` if ``op`` returns that input unchanged, else None."""
    operand = _unchanged_operand(op, inputs, builder)
    if operand is not None:
        return [operand]
    return _without_redundant_broadcast(op, inputs, builder)


def _without_redundant_broadcast(op: Operation, inputs: List[SymbolicTensor],
                                 builder: GraphBuilder) -> Optional[List[SymbolicTensor]]:
    """``f(BroadcastTo(a, S), b)`` as ``f(a, b)`` when ``b`` has the static shape ``S`` of the result: every
    element is ``f`` of the same two values either way."""
    ufunc = op.op_def.elementwise_ufunc
    if ufunc is None or ufunc.nin != 2 or len(inputs) != 2 or op.attrs or any(t is None for t in inputs):
        return None
    shape = op.outputs[0].shape
    if shape is None or None in shape:
        return None
    for position in (0, 1):
        broadcast, other = inputs[position], inputs[1 - position]
        if broadcast.op.op_def is not BROADCAST_TO or other.shape != shape:
            continue
        source = broadcast.op.inputs[0]
        if source.dtype != broadcast.dtype or source.shape is None or None in source.shape:
            continue
        try:
            if shapes.broadcast(source.shape, shape) != shape:
                continue
        except ValueError:
            continue
        new_inputs = list(inputs)
        new_inputs[position] = source
        return builder.copy_op(op, new_inputs)
    return None


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
