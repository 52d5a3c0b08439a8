"""Reverse-mode differentiation: the gradient graph of a list of recorded ops, built with runtime ops.

``backprop`` walks ops (graph ``Operation``s, or the eager records of a ``GradientTape``) backwards from
the targets, calling each op's registered VJP (``OpDef.gradient``) and summing the gradients that
reach each tensor. Whatever graph is current receives the new ops: while tracing, the gradient
becomes part of the traced function (then optimized and compiled with it); eagerly, it runs now.

``gradients(ys, xs)`` is that for the graph being traced, like TensorFlow's ``tf.gradients``.

>>> import runtime as rt
>>> @rt.function
... def slope(x):
...     return rt.gradients(x * x * 3.0, x)[0]
>>> slope(rt.constant(2.0))
Tensor(12.0, shape=(), dtype=float32)
"""
from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional, Sequence

from runtime.core import context, dtypes, nest
from runtime import ops as _ops
from runtime.ops.gradient_ops import carries_gradient, is_differentiable_dtype
from runtime.ops.list_gradients import add_lists, zeros_like_list
from runtime.ops.list_ops import TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS
from runtime.ops.tensor_array_ops import TENSOR_LIST_RESERVE
from runtime.ops.variables import READ_VARIABLE
from runtime.core.errors import GradientError
from runtime.core.registry import GradientNotImplemented, NotDifferentiable
from runtime.core.tensor import SymbolicTensor, Tensor

UNCONNECTED = ("none", "zero")

# Stateful ops a gradient may run again when it recomputes a forward computation: a variable read, and
# the ops that make a new tensor list or array (stateful only so that no pass folds or merges two of them).
RERUNNABLE = (READ_VARIABLE, TENSOR_LIST_FROM_TENSORS, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_RESERVE)


def side_effects(graph: Any) -> List[Any]:
    """The ops of ``graph`` (and of the ifs and loops inside it) that recomputing it would repeat
    with an observable effect: every stateful op but those in ``RERUNNABLE``."""
    found = []
    for op in graph.operations:
        if any(op.op_def is rerunnable for rerunnable in RERUNNABLE):
            continue
        if op.op_def.stateful:
            found.append(op)
        for subgraph in op.subgraphs():
            found += side_effects(subgraph)
    return found


class _Requested(threading.local):
    stack: List[List[bool]] = []


_requested = _Requested()


def input_gradient_requested(index: int) -> bool:
    """Whether ``backprop`` will use the gradient of input ``index`` of the op whose rule is running (the
    input depends on a source). A rule that builds work per input (the gradient of a loop's captured
    tensors, of an ``if``'s inputs) skips the others; any other rule may ignore this. An input the rule
    added to the op itself (a variable's value passed in) is not requested.
    """
    stack = _requested.stack
    if not stack:
        return True
    requested = stack[-1]
    return index < len(requested) and requested[index]


def backprop(operations: Sequence[Any], targets: Sequence[Tensor], target_grads: Sequence[Optional[Tensor]],
             sources: Sequence[Tensor]) -> Dict[int, Tensor]:
    """Gradients of ``sum(targets · target_grads)`` for every tensor on a path from ``sources``.

    ``operations`` are in program order and have ``op_def``, ``inputs``, ``outputs``, ``attrs``.
    Returns id(tensor) -> gradient, for the sources (and every tensor between) that the targets reach.
    """
    on_path = {id(s) for s in sources}
    path_ops = []
    for op in operations:
        if any(id(t) in on_path for t in op.inputs):
            path_ops.append(op)
            on_path.update(id(t) for t in op.outputs)
    pending: Dict[int, List[Tensor]] = {}
    for target, grad in zip(targets, target_grads):
        if id(target) in on_path and (is_differentiable_dtype(target.dtype) or
                                      (grad is not None and carries_gradient(target.dtype))):
            pending.setdefault(id(target), []).append(_ops.ones_like(target) if grad is None else grad)
    for op in reversed(path_ops):
        if not any(id(t) in pending for t in op.outputs):
            continue
        rule = op.op_def.gradient
        if isinstance(rule, GradientNotImplemented):
            raise GradientError(
                f"the gradient of {op.op_def.name} (node {_name(op)}), which lies between the sources and the target, "
                f"is not implemented: {rule.reason}")
        if isinstance(rule, NotDifferentiable):
            continue
        if rule is None:
            raise GradientError(
                f"no gradient is registered for op type {op.op_def.name!r} (node {_name(op)}), which lies between "
                "the sources and the target; wrap the value in rt.stop_gradient if no gradient should flow "
                "through it, or declare one with register_gradient next to the op's register_op")
        output_grads = [_summed(pending.pop(id(t), None), t) for t in op.outputs]
        _requested.stack.append([id(t) in on_path for t in op.inputs])
        try:
            input_grads = rule(op, output_grads, _ops)
        finally:
            _requested.stack.pop()
        if len(input_grads) != len(op.inputs):
            raise AssertionError(f"gradient rule of {op.op_def.name} returned {len(input_grads)} gradients for "
                                 f"{len(op.inputs)} inputs")
        for tensor, grad in zip(op.inputs, input_grads):
            if grad is None or id(tensor) not in on_path or not carries_gradient(tensor.dtype):
                continue
            if grad.dtype != tensor.dtype:
                raise AssertionError(f"gradient rule of {op.op_def.name} gave a {grad.dtype.name} gradient for a "
                                     f"{tensor.dtype.name} input")
            pending.setdefault(id(tensor), []).append(grad)
    return {key: _summed(grads, None) for key, grads in pending.items() if grads}


def _summed(grads: Optional[List[Tensor]], like: Optional[Tensor]) -> Optional[Tensor]:
    """The sum of the gradients that reached one tensor; zeros (or None) when none did."""
    if not grads:
        if like is None or not carries_gradient(like.dtype):
            return None
        return zeros_gradient(like)
    total = grads[0]
    for grad in grads[1:]:
        total = add_gradients(total, grad)
    return total


def zeros_gradient(like: Tensor) -> Tensor:
    """The zero gradient of ``like``: zeros shaped like it (a list of zeros for a tensor list)."""
    if like.dtype == dtypes.variant:
        return zeros_like_list(like)
    if like.shape is not None and None not in like.shape:  # reads nothing: a loop's gradient need not keep `like`
        return _ops.zeros(list(like.shape), like.dtype)
    return _ops.zeros_like(like)


def add_gradients(a: Tensor, b: Tensor) -> Tensor:
    """Two gradients of one tensor summed (element by element for a tensor list's)."""
    return add_lists(a, b) if a.dtype == dtypes.variant else a + b


def _name(op: Any) -> str:
    return getattr(op, "name", op.op_def.name)


def check_unconnected(unconnected_gradients: str) -> str:
    value = getattr(unconnected_gradients, "value", unconnected_gradients)
    if value not in UNCONNECTED:
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
    return value


def unconnected(source: Any, unconnected_gradients: str) -> Optional[Tensor]:
    """The gradient of a source the target does not depend on: None, or zeros shaped like it."""
    if unconnected_gradients == "zero":
        return _ops.zeros(list(source.shape), source.dtype) if not isinstance(source, SymbolicTensor) \
            else _ops.zeros_like(source)
    return None


def gradients(ys: Any, xs: Any, grad_ys: Any = None, unconnected_gradients: str = "none") -> List[Optional[Tensor]]:
    """Symbolic gradients of ``sum(ys)`` with respect to each of ``xs``, added to the graph being traced.

    ``ys`` and ``xs`` are tensors (or lists of them) of the current graph; ``grad_ys`` weights each
    ``y`` (ones by default). A ``x`` that no ``y`` depends on gets None (or zeros with
    ``unconnected_gradients='zero'``). Use ``rt.GradientTape`` outside traced functions.
    """
    graph = context.current_graph()
    if graph is None:
        raise RuntimeError("rt.gradients only works while tracing (inside an rt.function / ag.function); "
                           "eagerly, record the computation with rt.GradientTape and call tape.gradient")
    mode = check_unconnected(unconnected_gradients)
    ys_list = nest.flatten(ys)
    xs_list = [_as_graph_source(graph, x) for x in nest.flatten(xs)]
    seeds = [None] * len(ys_list) if grad_ys is None else [
        None if g is None else _ops.convert_to_tensor(g, y.dtype) for g, y in zip(nest.flatten(grad_ys), ys_list)]
    for y in ys_list:
        if not (isinstance(y, SymbolicTensor) and y.graph is graph):
            raise ValueError(f"rt.gradients: ys must be tensors computed in the function being traced, got {y!r}")
    found = backprop(list(graph.operations), ys_list, seeds, xs_list)
    return [found.get(id(x)) if id(x) in found else unconnected(x, mode) for x in xs_list]


def _as_graph_source(graph: Any, x: Any) -> SymbolicTensor:
    if isinstance(x, SymbolicTensor) and x.graph is graph:
        return x
    raise ValueError(f"rt.gradients: xs must be tensors of the function being traced (inputs or values computed "
                     f"in it), got {x!r}; for Variables use rt.GradientTape")
