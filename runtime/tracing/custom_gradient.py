"""``rt.custom_gradient``: a function that returns its value *and* its gradient function (TensorFlow's decorator).

The decorated ``f(*args)`` returns ``(y, grad_fn)``; ``grad_fn(*dys)`` returns the gradient of each tensor
argument (one tensor, or a list/tuple with one entry per tensor argument; None for none). If ``f`` reads
trainable Variables, ``grad_fn`` must take a keyword argument ``variables`` (the Variables, in the order
first read) and return ``(input_gradients, variable_gradients)``. Gradients never flow into ``f``'s own ops:
that is the point (straight-through estimators, gradient clipping, hand-written stable rules).

Eagerly, each recording tape records one step whose rule calls ``grad_fn`` (at gradient time, so a tape around
that call sees its ops: gradients of gradients); ``f``'s own ops are recorded but no gradient reaches them
from the values, only through what ``grad_fn`` reads of them (TensorFlow pauses the tapes during ``f``
eagerly, so there a gradient function built from ``f``'s intermediates has no second derivative through
them; here it has, eagerly and traced alike). While
tracing (``rt.function``, ``ag.function``, in tensor ifs and loops too), ``f``'s ops go into the graph and
``grad_fn`` is traced right away into a graph of its own, held by a ``CustomGradient`` op
(``runtime.ops.custom_gradient_ops``) whose rule copies that graph in: so the gradient is part of the saved
function too, and a loaded function has it.

>>> import runtime as rt
>>> @rt.custom_gradient
... def clip_gradient(x):
...     def grad(dy):
...         return rt.clip_by_value(dy, -1.0, 1.0)
...     return rt.identity(x), grad
>>> x = rt.constant(3.0)
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     y = clip_gradient(x * 5.0)
>>> tape.gradient(y, x)  # the gradient reaching x * 5 was clipped to 1
Tensor(5.0, shape=(), dtype=float32)
"""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, List, Optional, Sequence, Tuple

from runtime import ops as _ops
from runtime.core import context, nest
from runtime.core.errors import GradientError
from runtime.core.graph import FuncGraph
from runtime.core.registry import apply_op, eager_op_hooks, register_gradient
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT, GradientFunction
from runtime.ops.variables import READ_VARIABLE, Variable
from runtime.passes.rewrite import copy_into
from runtime.tracing import tape as _tape


def custom_gradient(f: Callable) -> Callable:
    """Decorate ``f(*args) -> (y, grad_fn)`` so that gradients of ``y`` are ``grad_fn``'s, not ``f``'s ops'.

    ``y`` is a tensor or a nest of tensors; ``grad_fn(*dys)`` gets one output gradient per tensor of ``y``
    and returns one gradient per tensor argument of ``f`` (a single tensor when there is one). With
    Variables read in ``f``: ``grad_fn(*dys, variables=...)`` returns ``(input_grads, variable_grads)``.

    >>> @custom_gradient
    ... def log1pexp(x):  # a stable gradient for log(1 + e^x): 1 - 1 / (1 + e^x), never inf / inf
    ...     e = _ops.exp(x)
    ...     def grad(dy):
    ...         return dy * (1 - 1 / (1 + e))
    ...     return _ops.log(1 + e), grad
    >>> x = _ops.constant(100.0)
    >>> with _tape.GradientTape() as t:
    ...     t.watch(x)
    ...     y = log1pexp(x)
    >>> t.gradient(y, x)
    Tensor(1.0, shape=(), dtype=float32)
    """
    name = getattr(f, "__name__", "custom_gradient_function")

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        if context.current_graph() is None:
            return _eager_call(f, name, args, kwargs)
        return _traced_call(f, name, args, kwargs)
    return decorated


# --- what both forms share -----------------------------------------------------------------------------
def _tensor_arguments(args: Sequence[Any]) -> List[Any]:
    """The tensor arguments, Variables among them: as in TensorFlow, a Variable passed *as an argument* is an input
    (``grad_fn`` returns its gradient with the others'); only Variables ``f`` reads without being given them are
    its ``variables``."""
    return [leaf for leaf in nest.flatten(list(args)) if isinstance(leaf, (Tensor, Variable))]


def _not_arguments(variables: Sequence[Variable], inputs: Sequence[Any]) -> List[Variable]:
    return [v for v in variables if not any(v is x for x in inputs)]


def _split_result(result: Any, name: str) -> Tuple[Any, Callable]:
    if not (isinstance(result, (tuple, list)) and len(result) == 2 and callable(result[1])):
        raise TypeError(f"rt.custom_gradient: {name} must return a pair (value, grad_fn) with grad_fn a function of "
                        f"the output gradients, got {type(result).__name__} {result!r:.80}")
    return result[0], result[1]


def _takes_variables(grad_fn: Callable) -> bool:
    try:
        parameters = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _call_gradient(grad_fn: Callable, name: str, output_grads: Sequence[Any], variables: Sequence[Variable],
                   inputs: Sequence[Tensor]) -> List[Optional[Tensor]]:
    """``grad_fn``'s gradients, one per input then one per variable, each a tensor of its dtype or None."""
    if variables:
        result = grad_fn(*output_grads, variables=list(variables))
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(f"rt.custom_gradient: the gradient function of {name} takes 'variables', so it must "
                            "return a pair (input_gradients, variable_gradients)")
        input_grads, variable_grads = result
        variable_grads = list(variable_grads) if isinstance(variable_grads, (tuple, list)) else [variable_grads]
        if len(variable_grads) != len(variables):
            raise ValueError(f"rt.custom_gradient: the gradient function of {name} returned {len(variable_grads)} "
                             f"variable gradient(s) for the {len(variables)} variable(s) it was given "
                             f"({', '.join(v.name for v in variables)})")
    else:
        input_grads, variable_grads = grad_fn(*output_grads), []
    if isinstance(input_grads, (tuple, list)):
        input_grads = list(input_grads)
    else:
        input_grads = [input_grads]
    if len(input_grads) != len(inputs):
        raise ValueError(f"rt.custom_gradient: the gradient function of {name} returned {len(input_grads)} "
                         f"gradient(s) for {len(inputs)} tensor argument(s); return one per tensor argument "
                         "(None for one that gets no gradient)")
    targets = list(inputs) + list(variables)
    return [None if g is None else _ops.convert_to_tensor(g, t.dtype)
            for g, t in zip(input_grads + variable_grads, targets)]


def _check_variables(grad_fn: Callable, name: str, variables: Sequence[Variable]) -> None:
    if variables and not _takes_variables(grad_fn):
        raise TypeError(f"rt.custom_gradient: {name} reads the Variable(s) {', '.join(v.name for v in variables)}, "
                        "so its gradient function must take a keyword argument 'variables' and return "
                        "(input_gradients, variable_gradients), as in TensorFlow")


# --- eagerly --------------------------------------------------------------------------------------------
class _EagerCall:
    """What a tape records for an eager call: its "rule" calls the user's gradient function."""

    def __init__(self, name: str, grad_fn: Callable, inputs: List[Tensor], variables: List[Variable]):
        self.name = name
        self.grad_fn, self.inputs, self.variables = grad_fn, inputs, variables

    def gradient(self, record: Any, output_grads: List[Optional[Tensor]], ops: Any) -> List[Optional[Tensor]]:
        return _call_gradient(self.grad_fn, self.name, output_grads, self.variables, self.inputs)


class _VariableReads(threading.local):
    seen: Optional[List[Variable]] = None


_reads = _VariableReads()


def _note_variable_reads(op_def, inputs, attrs, outputs) -> None:
    seen = _reads.seen
    if seen is None:
        return
    found = [attrs["variable"]] if op_def is READ_VARIABLE else [t for t in inputs if isinstance(t, Variable)]
    seen.extend(v for v in found if v.trainable and not any(v is known for known in seen))


def _eager_call(f: Callable, name: str, args: Tuple[Any, ...], kwargs: dict) -> Any:
    recording = [t for t in _tape._active.tapes if t._recording and t._graph is None]
    outer_reads, _reads.seen = _reads.seen, []
    eager_op_hooks.append(_note_variable_reads)
    try:
        # The tapes record f's ops, as a traced call has them in its graph: no gradient reaches them from the
        # values (their copies below are not recorded), but a gradient function computed from f's
        # intermediates differentiates through them (gradients of gradients, the same eagerly and traced).
        value, grad_fn = _split_result(f(*args, **kwargs), name)
        flat = nest.flatten(value)
        for tape in recording:
            tape._stop_recording()
        try:  # new tensors: the tapes see this call's outputs (even where f returned an argument itself)
            outputs = [_ops.identity(t) if isinstance(t, Tensor) else t for t in flat]
        finally:
            for tape in recording:
                tape._start_recording()
    finally:
        eager_op_hooks.remove(_note_variable_reads)
        variables, _reads.seen = _reads.seen, outer_reads
        if outer_reads is not None:
            outer_reads.extend(v for v in variables if not any(v is known for known in outer_reads))
    inputs = _tensor_arguments(args)
    variables = _not_arguments(variables, inputs)
    _check_variables(grad_fn, name, variables)
    step = _EagerCall(name, grad_fn, inputs, variables)
    tensors = tuple(t for t in outputs if isinstance(t, Tensor))
    for tape in recording:
        tape._record(step, list(inputs) + list(variables), {}, tensors)
    return nest.pack_sequence_as(value, outputs)


# --- while tracing ------------------------------------------------------------------------------------
def _variables_read(operations: Sequence[Any]) -> List[Variable]:
    found: List[Variable] = []
    for op in operations:
        candidates = [op.attrs["variable"]] if op.op_def is READ_VARIABLE else [
            v for sub in op.subgraphs() for v in sub.variables]
        found.extend(v for v in candidates if v.trainable and not any(v is known for known in found))
    return found


def _traced_call(f: Callable, name: str, args: Tuple[Any, ...], kwargs: dict) -> Any:
    graph = context.current_graph()
    start = len(graph.operations)
    value, grad_fn = _split_result(f(*args, **kwargs), name)
    flat = nest.flatten(value)
    outputs = [_ops.convert_to_tensor(t) for t in flat]
    arguments = _tensor_arguments(args)
    inputs = [x if isinstance(x, SymbolicTensor) and x.graph is graph else _ops.identity(x) for x in arguments]
    variables = _not_arguments(_variables_read(graph.operations[start:]), arguments)
    _check_variables(grad_fn, name, variables)
    reads = [apply_op(READ_VARIABLE, (), {"variable": v}, name=f"{v.name}_read") for v in variables]

    gradient_graph = FuncGraph(f"{name}_gradient", outer_graph=graph)
    with context.graph_scope(gradient_graph):
        seeds = [gradient_graph.add_placeholder(t.dtype, t.shape, name="output_gradient") for t in outputs]
        grads = _call_gradient(grad_fn, name, seeds, variables, inputs)
        gradient_graph.outputs = [g for g in grads if g is not None]
    gradient_graph.structured_outputs = list(gradient_graph.outputs)
    captured = gradient_graph.captured_inputs
    gradient_graph.captures = {}  # the op passes what it read as inputs: the graph stands alone (and saves so)
    attrs = {"num_outputs": len(outputs), "num_inputs": len(inputs), "num_variables": len(variables),
             "gradient": GradientFunction(gradient_graph), "gradient_returns": tuple(g is not None for g in grads),
             "function": name}
    op_outputs = apply_op(CUSTOM_GRADIENT, [*outputs, *inputs, *reads, *captured], attrs, name=name)
    results = list(op_outputs) if isinstance(op_outputs, (tuple, list)) else [op_outputs]
    return nest.pack_sequence_as(value, results)


@register_gradient(CUSTOM_GRADIENT)
def _custom_gradient_rule(op, grads, ops):
    attrs = op.attrs
    count, num_inputs, num_variables = attrs["num_outputs"], attrs["num_inputs"], attrs["num_variables"]
    gradient = attrs["gradient"].graph
    read = op.inputs[count + num_inputs + num_variables:]
    target = context.current_graph()
    if target is None:  # an eager tape differentiating a loaded function's recorded call: a graph of its own
        raise GradientError(f"the custom gradient of {attrs['function']} can only be taken in a graph")
    copies = copy_into(gradient, target, list(grads) + list(read))
    found = iter([copies[id(t)] for t in gradient.outputs])
    results = [next(found) if returned else None for returned in attrs["gradient_returns"]]
    return [None] * count + results + [None] * len(read)
