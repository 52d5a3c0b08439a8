"""``GradientTape``: record a computation, then ask for the gradient of a result, as in TensorFlow.

Eagerly, the tape records every op whose inputs it watches (a hook in ``apply_op``) and ``gradient``
runs the ops' VJP rules right away. Inside a traced function the ops are already in the graph: the
tape remembers which ops were made while it was recording, and ``gradient`` adds the gradient ops
to the same graph, so forward and backward pass are one traced, optimized, compiled function.
Trainable ``Variable``s are watched automatically when they are read while recording. An eager call of
a ``ConcreteFunction`` (e.g. a loaded one) is recorded as one step whose gradient is the function's VJP.

>>> import runtime as rt
>>> w = rt.Variable(3.0)
>>> with rt.GradientTape() as tape:
...     loss = w * w
>>> tape.gradient(loss, w)
Tensor(6.0, shape=(), dtype=float32)
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Dict, Iterator, List, Optional

from runtime.core import context, nest
from runtime.core.registry import eager_op_hooks
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime import ops as _ops
from runtime.ops.core import IDENTITY
from runtime.ops.variables import READ_VARIABLE, Variable
from runtime.ops.gradient_ops import is_differentiable_dtype
from runtime.passes.gradients import backprop, check_unconnected, unconnected
from runtime.passes.graph_surgery import assigned_variables, insert_before, pass_variable_in, reads_variable
from runtime.tracing.concrete_function import ConcreteFunction, call_hooks
from runtime.tracing.function_gradient import flat_vjp


class _Record:
    """One eagerly run op, as the tape saw it (the shape ``backprop`` walks: op_def, inputs, outputs, attrs)."""

    __slots__ = ("op_def", "inputs", "outputs", "attrs")

    def __init__(self, op_def, inputs, outputs, attrs):
        self.op_def, self.inputs, self.outputs, self.attrs = op_def, inputs, outputs, attrs

    @property
    def type(self) -> str:
        return self.op_def.name

    @property
    def name(self) -> str:
        return self.op_def.name


class _Active(threading.local):
    tapes: List["GradientTape"] = []


_active = _Active()
_hook_users = [0]  # tapes recording eagerly, on all threads: the hook is installed while there are any
_hook_lock = threading.Lock()


def recording_eagerly() -> bool:
    """Whether an eager GradientTape is recording on this thread (``rt.Function`` then runs op by op)."""
    return any(tape._recording and tape._graph is None for tape in _active.tapes)


def _record_eager_op(op_def, inputs, attrs, outputs) -> None:
    for tape in _active.tapes:
        if tape._recording and tape._graph is None:
            tape._record(op_def, inputs, attrs, outputs)


class _FunctionCall:
    """What a tape records for an eager call of a ConcreteFunction (e.g. a loaded one, which has no Python
    code to run op by op): its "gradient rule" runs the function's VJP, a ConcreteFunction built from the
    same graph by ``function_gradient.flat_vjp`` once per function. The Variables the function reads are
    extra inputs of the record, recorded as their values at the call (``GradientTape._snapshot``): the VJP
    computes with those, and gradients reach the (trainable, watched) variables a loaded model reads."""

    def __init__(self, concrete: ConcreteFunction):
        self.concrete = concrete
        self.name = concrete.name
        self.variables = list(concrete.unoptimized_graph.variables)
        self._vjp: Optional[ConcreteFunction] = None

    def gradient(self, record: "_Record", output_grads: List[Optional[Tensor]], ops: Any) -> List[Optional[Tensor]]:
        if self._vjp is None:
            self._vjp = flat_vjp(self.concrete, self.variables)
        count = len(record.inputs) - len(self.variables)
        seeds = [g for g, t in zip(output_grads, record.outputs) if is_differentiable_dtype(t.dtype)]
        values = record.inputs[count:]
        return list(self._vjp(*record.inputs[:count], *seeds, *values))  # recorded in turn by any outer tape


_calls: Dict[int, _FunctionCall] = {}  # id(ConcreteFunction) -> its record kind (VJP built once)


def _record_function_call(concrete: ConcreteFunction, inputs: List[Any], outputs: List[Any]) -> None:
    if not any(tape._recording and tape._graph is None for tape in _active.tapes):
        return
    kind = _calls.get(id(concrete))
    if kind is None or kind.concrete is not concrete:
        kind = _calls[id(concrete)] = _FunctionCall(concrete)
    for tape in _active.tapes:
        if tape._recording and tape._graph is None:
            tape._record(kind, list(inputs) + kind.variables, {}, tuple(outputs))


def _encloses(outer: Any, graph: Any) -> bool:
    """Whether ``graph`` is a branch or loop body (at any depth) of the graph ``outer``.

    A tape recorded in ``outer`` may be asked for a gradient there, as in TensorFlow: the gradient ops are
    made in ``graph`` and read the recorded values as captures (e.g. Jacobian rows in a tensor ``for``).
    """
    if outer is None:
        return False
    enclosing = getattr(graph, "outer_graph", None)
    while enclosing is not None:
        if enclosing is outer:
            return True
        enclosing = getattr(enclosing, "outer_graph", None)
    return False


class GradientTape:
    """Records operations for automatic differentiation (``tf.GradientTape``'s API).

    ``persistent=True`` allows several ``gradient`` calls; ``watch_accessed_variables=False`` watches
    only what ``watch`` is given.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_variables = watch_accessed_variables
        self._recording = False
        self._graph = None
        self._used = False
        self._watched: Dict[int, Any] = {}  # id -> watched tensor or Variable (kept alive)
        self._captured: Dict[int, SymbolicTensor] = {}  # id(watched outer tensor) -> its placeholder here
        self._records: List[_Record] = []  # eager
        self._graph_ops: List[Any] = []  # traced: ops made while recording, closed windows
        self._window_start: Optional[int] = None

    # --- recording -----------------------------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        self._graph = context.current_graph()
        _active.tapes.append(self)
        self._start_recording()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop_recording()
        _active.tapes.remove(self)

    def _start_recording(self) -> None:
        self._recording = True
        if self._graph is None:
            with _hook_lock:
                _hook_users[0] += 1
                if _record_eager_op not in eager_op_hooks:
                    eager_op_hooks.append(_record_eager_op)
                    call_hooks.append(_record_function_call)
        else:
            self._window_start = len(self._graph.operations)

    def _stop_recording(self) -> None:
        if not self._recording:
            return
        self._recording = False
        if self._graph is None:
            with _hook_lock:
                _hook_users[0] -= 1
                if _hook_users[0] == 0 and _record_eager_op in eager_op_hooks:
                    eager_op_hooks.remove(_record_eager_op)
                    call_hooks.remove(_record_function_call)
        else:
            self._graph_ops.extend(self._graph.operations[self._window_start:])
            self._window_start = None

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside this block are not recorded (their results are constants to the gradient)."""
        if not self._recording:
            raise RuntimeError("GradientTape.stop_recording(): the tape is not recording (use it inside the "
                               "tape's `with` block)")
        self._stop_recording()
        try:
            yield
        finally:
            self._start_recording()

    def watch(self, tensor: Any) -> None:
        """Record operations on ``tensor`` (a floating-point tensor or Variable, or a nest of them)."""
        for value in nest.flatten(tensor):
            if not isinstance(value, Tensor):
                raise TypeError(f"GradientTape.watch: expected tensors or Variables, got {type(value).__name__} "
                                f"{value!r}; convert it with rt.constant first")
            self._watched[id(value)] = value
            inner = self._captured_copy(value)
            if inner is not None:
                self._watched[id(inner)] = inner
                self._captured[id(value)] = inner

    def _captured_copy(self, value: Any) -> Optional[SymbolicTensor]:
        """Inside a loop body or branch, the placeholder standing for a watched tensor of an enclosing graph.

        The body's ops read that placeholder, not the outer tensor, so the tape watches it too (as
        TensorFlow records a capture as an identity of the captured value).
        """
        graph = self._graph
        if not isinstance(value, SymbolicTensor) or graph is None or value.graph is graph:
            return None
        enclosing = getattr(graph, "outer_graph", None)
        while enclosing is not None and enclosing is not value.graph:
            enclosing = getattr(enclosing, "outer_graph", None)
        return None if enclosing is None else graph.capture(value)

    def watched_variables(self) -> List[Variable]:
        """The Variables this tape watches (read while recording, or given to ``watch``)."""
        return [v for v in self._watched.values() if isinstance(v, Variable)]

    def _watches(self, value: Any) -> bool:
        if id(value) in self._watched:
            return True
        if isinstance(value, Variable) and value.trainable and self._watch_variables:
            self._watched[id(value)] = value
            return True
        return False

    def _record(self, op_def, inputs, attrs, outputs) -> None:
        if op_def is READ_VARIABLE:  # eager reads: the value stands for the variable (an identity of it)
            variable = attrs["variable"]
            if self._watches(variable):
                self._records.append(_Record(IDENTITY, [variable], [outputs], attrs))
                self._watched[id(outputs)] = outputs
            return
        if any(self._watches(t) for t in inputs):
            outs = list(outputs) if isinstance(outputs, tuple) else [outputs]
            self._records.append(_Record(op_def, [self._snapshot(t) if isinstance(t, Variable) else t
                                                  for t in inputs], outs, attrs))
            self._watched.update((id(t), t) for t in outs)

    def _snapshot(self, variable: Variable) -> Tensor:
        """A Variable an eager op read directly, as its value then: the gradient rule must not see a later
        assignment. The value stands for the variable (an identity of it), as an eager read's does."""
        value = EagerTensor(variable._array)  # assignments replace the array, never write into it
        if self._watches(variable):
            self._records.append(_Record(IDENTITY, [variable], [value], {}))
            self._watched[id(value)] = value
        return value

    # --- differentiating -----------------------------------------------------------------------------
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: str = "none") -> Any:
        """The gradient of ``target`` (summed, if several) with respect to each of ``sources``.

        Returns the structure of ``sources`` with a tensor per source: None where the target does not
        depend on it (zeros with ``unconnected_gradients='zero'``), and for integer sources.
        """
        mode = check_unconnected(unconnected_gradients)
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients; "
                               "create it with rt.GradientTape(persistent=True) to call gradient() again")
        self._used = True
        graph = context.current_graph()
        if graph is not self._graph and not _encloses(self._graph, graph):
            raise RuntimeError("GradientTape.gradient must be called in the function (or eager context) where the "
                               "tape recorded, or in a tensor if/loop inside it; it was called in another one "
                               "(a function the tape's function calls, or an eager tape inside a traced function)")
        was_recording = self._recording
        self._stop_recording()  # not by this tape; an outer tape still records them (gradients of gradients)
        try:
            return self._gradient(target, sources, output_gradients, mode)
        finally:
            if was_recording:
                self._start_recording()

    def _gradient(self, target: Any, sources: Any, output_gradients: Any, mode: str) -> Any:
        targets = nest.flatten(target)
        seeds = [None] * len(targets) if output_gradients is None else [
            None if g is None else _ops.convert_to_tensor(g, t.dtype)
            for g, t in zip(nest.flatten(output_gradients), targets)]
        flat_sources = nest.flatten(sources)
        for source in flat_sources:
            if not isinstance(source, Tensor):
                raise TypeError(f"GradientTape.gradient: sources must be tensors or Variables, got "
                                f"{type(source).__name__} {source!r}")
        if self._graph is not None:
            for source in flat_sources:
                if isinstance(source, Variable) and self._watches(source):
                    self._pass_into_control_flow(source)
        operations = self._records if self._graph is None else self._watched_graph_ops()
        # An unwatched source is a constant to this tape: its gradient is None (as in TensorFlow). A result of
        # a recorded op is watched (eagerly, _record adds it; in a graph, e.g. what a tensor loop leaves in x).
        recorded = set() if self._graph is None else {id(t) for op in operations for t in op.outputs}
        stand_ins = {id(s): self._stand_ins(s, operations) if self._watches(s) or id(s) in recorded else []
                     for s in flat_sources}
        found = backprop(operations, targets, seeds, [t for ins in stand_ins.values() for t in ins])
        results = []
        for source in flat_sources:
            grads = [found[id(t)] for t in stand_ins[id(source)] if id(t) in found]
            total = None
            for grad in grads:
                total = grad if total is None else total + grad
            results.append(unconnected(source, mode) if total is None else total)
        return nest.pack_sequence_as(sources, results)

    def _watched_graph_ops(self) -> List[Any]:
        """The recorded graph ops that depend on a watched tensor or a watched variable's read."""
        watched = set(self._watched)
        path = []
        for op in self._graph_ops:
            if op.op_def is READ_VARIABLE:
                if self._watches(op.attrs["variable"]):
                    path.append(op)
                    watched.add(id(op.outputs[0]))
            elif any(id(t) in watched for t in op.inputs):
                path.append(op)
                watched.update(id(t) for t in op.outputs)
        return path

    def _stand_ins(self, source: Any, operations: List[Any]) -> List[Any]:
        """The tensors whose gradients make up ``source``'s: itself, or a Variable's recorded reads."""
        if not isinstance(source, Variable):
            return [self._captured.get(id(source), source)]
        if self._graph is None:
            return [source]  # eager reads are recorded as identities of the variable itself
        return [op.outputs[0] for op in operations if op.op_def is READ_VARIABLE and op.attrs["variable"] is source]

    def _pass_into_control_flow(self, variable: Variable) -> None:
        """A tensor if/loop that reads ``variable`` inside gets its value as an input (read just before it),
        so its gradient rule sends the variable's gradient out through that input."""
        for op in list(self._graph_ops):
            if not op.subgraphs() or not reads_variable(op, variable):
                continue
            if id(variable) in assigned_variables(op.subgraphs()):
                raise NotImplementedError(
                    f"GradientTape.gradient: Variable '{variable.name}' is assigned inside a tensor-dependent "
                    f"if/loop ({op.name}) that also reads it; gradients with respect to a variable that changes "
                    "inside an if/loop are not supported. Assign it after the if/loop, or compute with a tensor "
                    "copy (w = v.read_value()) inside")
            read = insert_before(op, READ_VARIABLE, {"variable": variable}, f"{variable.name}_read")
            pass_variable_in(op, variable, read)
            self._graph_ops.insert(self._graph_ops.index(op), read.op)
