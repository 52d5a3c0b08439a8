"""Variables: mutable state shared by eager code and every traced function that uses it.

A ``Variable`` is a ``Tensor`` whose value is its current array, so eager ops use it directly. In a
graph it is read by a stateful ``ReadVariableOp`` and written by ``AssignVariableOp`` /
``AssignAddVariableOp`` / ``AssignSubVariableOp`` (attr ``variable``: the Variable itself, by
identity). Stateful ops run on every call, in program order, so reads see earlier writes.

>>> v = Variable(1.0, name="counter")
>>> v.assign_add(2.0)
<Variable 'counter' shape=() dtype=float32, numpy=3.0>
"""
from __future__ import annotations

import threading
from typing import Any, Optional

import numpy as np

from runtime.core import context
from runtime.core.errors import InvalidArgumentError, in_users_words
from runtime.ops.convert import convert_to_tensor
from runtime.core.graph import PLACEHOLDER
from runtime.core.attrs import AttrKind
from runtime.core.registry import (apply_op, eager_op_hooks, not_differentiable, register_gradient, register_op,
                                   run_kernel)
from runtime.core.tensor_shape import known
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, _symbolic_misuse, shape_compatible


def _variable_spec(specs, attrs):
    variable = attrs["variable"]
    return [(variable.dtype, variable.shape)]


def _read_kernel(*, variable):
    return variable._array


def _same_shape(variable, new_value: np.ndarray, method: str) -> np.ndarray:
    # A value whose shape the graph left unknown ([None] signatures) is checked when it is written, as a known one is
    # when traced (Variable._converted): it must not change the variable's shape
    if new_value.shape != variable.shape:
        raise InvalidArgumentError(f"Variable '{variable.name}'.{method}(): the value has shape {new_value.shape} but "
                                   f"the variable has shape {variable.shape}; a variable's shape cannot change")
    return new_value


def _assign_kernel(value, *, variable):
    new_value = _same_shape(variable, np.array(value, dtype=variable.dtype, copy=True), "assign")  # never aliased
    with variable._lock:   # (see Variable._array: a read materializing the value must not undo this write)
        variable._array = new_value
    return new_value


def _assign_add_kernel(delta, *, variable):
    with variable._lock:  # read-modify-write: keep concurrent increments from losing updates
        new_value = _same_shape(variable, np.asarray(variable._array + delta, dtype=variable.dtype), "assign_add")
        variable._array = new_value
    return new_value


def _assign_sub_kernel(delta, *, variable):
    with variable._lock:
        new_value = _same_shape(variable, np.asarray(variable._array - delta, dtype=variable.dtype), "assign_sub")
        variable._array = new_value
    return new_value


# The Variable is looked up when a node is checked: the class is defined below its ops.
_VARIABLE_ATTRS = {"variable": AttrKind("a Variable", lambda v: isinstance(v, Variable))}
READ_VARIABLE = register_op("ReadVariableOp", (), _variable_spec, _read_kernel, stateful=True,
                            doc="The current value of attr 'variable'.", attrs=_VARIABLE_ATTRS)
ASSIGN_VARIABLE = register_op("AssignVariableOp", ("value",), _variable_spec, _assign_kernel, stateful=True,
                              doc="Sets attr 'variable' to 'value'; outputs the new value.", attrs=_VARIABLE_ATTRS)
ASSIGN_ADD_VARIABLE = register_op("AssignAddVariableOp", ("value",), _variable_spec, _assign_add_kernel,
                                  stateful=True, doc="Adds 'value' to attr 'variable'; outputs the new value.",
                                  attrs=_VARIABLE_ATTRS)
ASSIGN_SUB_VARIABLE = register_op("AssignSubVariableOp", ("value",), _variable_spec, _assign_sub_kernel,
                                  stateful=True, doc="Subtracts 'value' from attr 'variable'; outputs the new value.",
                                  attrs=_VARIABLE_ATTRS)

# A read has no inputs: its gradient is the gradient with respect to the Variable, which GradientTape
# collects from every read it recorded. Writes pass no gradient to the value written (as in TensorFlow).
register_gradient(READ_VARIABLE)(lambda op, grads, ops: [])
for _write in (ASSIGN_VARIABLE, ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE):
    not_differentiable(_write, "a variable write: gradients do not flow through assignments")


def _numpy_text(array: np.ndarray) -> str:
    return str(array[()]) if array.ndim == 0 else np.array_repr(array)   # a scalar in its own precision


def _creation_while_tracing(name: str) -> context.VariableCreation:
    """The policy allowing this creation while tracing, or the error saying why it is refused."""
    creation = context.variable_creation()
    if creation is None:
        raise ValueError(
            f"rt.Variable({name!r}) was created while tracing a graph. Variables hold state across calls, so "
            "create them once, outside the function (e.g. at module level or in __init__), and only read or "
            "assign them inside it.")
    if not creation.allowed:
        raise ValueError(creation.refusal.format(variable=name))
    return creation


def _lifted_initial_value(initial_value: Any, name: str) -> Any:
    """The initial value of a Variable created while tracing, computed now, outside the graph.

    A callable runs eagerly; a graph tensor is evaluated now from the ops that made it (TensorFlow lifts
    such initializers out of the function the same way) unless it depends on the function's inputs.
    """
    if callable(initial_value) and not isinstance(initial_value, Tensor):
        with context.graph_scope(None):
            initial_value = initial_value()
    if isinstance(initial_value, SymbolicTensor):
        return EagerTensor(_evaluate_now(initial_value, name, {}))
    return initial_value


def _evaluate_now(tensor: SymbolicTensor, name: str, done: dict) -> np.ndarray:
    op = tensor.op
    if op not in done:
        if op.op_def is PLACEHOLDER or op.subgraphs():
            why = "the function's inputs" if op.op_def is PLACEHOLDER else f"a {op.type} (control flow)"
            raise ValueError(
                f"the initial value of rt.Variable({name!r}) depends on {why}, so it cannot be computed once when "
                f"the variable is created; initialize it from values known before the call (Python values, "
                f"shapes, rt.random draws), or create it outside the function and assign it inside")
        inputs = [_evaluate_now(t, name, done) for t in op.inputs]
        result = run_kernel(op.op_def, inputs, op.attrs, op.name)
        done[op] = result if isinstance(result, tuple) else (result,)
    return np.asarray(done[op][tensor.index])


class Variable(Tensor):
    """A named, mutable tensor. Create it outside traced functions (or on a function's first trace
    only, see ``runtime.core.context.VariableCreation``); read and assign it anywhere.

    >>> v = Variable([1, 2])
    >>> (v + 1).numpy()
    array([2, 3], dtype=int32)
    """

    # _state: (numpy array or None, device array or None, where the device array lives). At least one of the
    # two arrays is set; when both are, they hold the same value. Eager code and the numpy executor read and write
    # the numpy array (``_array``); a ``jit_compile`` call reads the device array and writes back a new one
    # (``device_value``/``set_device_value``), so a training step's weights stay on the device between calls and
    # become numpy again only when something else reads them.
    __slots__ = ("_state", "name", "trainable", "_lock", "__weakref__")

    def __init__(self, initial_value: Any, dtype: Any = None, name: Optional[str] = None,
                 trainable: bool = True):
        name = name or "Variable"
        creation = None
        if context.in_graph_mode():
            creation = _creation_while_tracing(name)
            initial_value = _lifted_initial_value(initial_value, name)
        if callable(initial_value):
            initial_value = initial_value()
        tensor = convert_to_tensor(np.asarray(initial_value) if isinstance(initial_value, Tensor)
                                   else initial_value, dtype)
        self._state = (np.array(tensor._value, copy=True), None, None)
        self.name = name
        self.trainable = trainable
        self._lock = threading.RLock()   # (reentrant: a compiled call holds it while a rerun assigns, jit_compile)
        if creation is not None:
            creation.created.append(self)

    # --- its value: a numpy array, a device array, or both -----------------------------------------------
    @property
    def _array(self) -> np.ndarray:
        """The value as a numpy array (made from the device array when a compiled call wrote it last)."""
        host = self._state[0]
        return self._host_from_device() if host is None else host

    @_array.setter
    def _array(self, array: np.ndarray) -> None:
        # Writers hold the lock (the assign kernels take it): _host_from_device replaces a state only if no
        # write came in between, so a read never brings back the value a concurrent write replaced.
        self._state = (array, None, None)

    def _host_from_device(self) -> np.ndarray:
        state = self._state
        if state[0] is not None:
            return state[0]
        host = np.asarray(state[1])   # read-only, sharing the device buffer on CPU (device arrays never change)
        self._keep(lambda current: current is state, (host, state[1], state[2]))
        return host

    def _keep(self, unchanged: Any, state: tuple) -> None:
        """Make ``state`` (the same value in another form) the current one if ``unchanged(current state)``: no
        write came in since it was read. Only if the lock is free: a compiled call holds the locks of the
        Variables it writes while it reads others, and waiting here could deadlock with a call holding this one
        and waiting for those (the value is right either way; it is just not kept)."""
        if self._lock.acquire(blocking=False):
            try:
                if unchanged(self._state):
                    self._state = state
            finally:
                self._lock.release()

    def device_value(self, placement: Any, put: Any) -> Any:
        """The value as a device array placed by ``placement`` (None: JAX's default device), made with
        ``put(numpy_array, placement)`` and kept when it is not there yet (``jit_compile``'s read)."""
        state = self._state
        if state[1] is not None and (state[2] is placement or state[2] == placement):
            return state[1]
        host = self._array
        device = put(host, placement)
        self._keep(lambda current: current[0] is host, (host, device, placement))
        return device

    def set_device_value(self, device: Any, placement: Any) -> None:
        """Set the value to ``device``, a device array placed by ``placement`` (``jit_compile``'s write-back;
        the caller holds this Variable's lock)."""
        self._state = (None, device, placement)

    # --- what makes it a tensor ----------------------------------------------------------------------
    @property
    def _value(self) -> np.ndarray:
        return self._array

    @property
    def dtype(self) -> np.dtype:
        state = self._state   # (either array: asking for the dtype or shape does not copy a device array back)
        return (state[1] if state[0] is None else state[0]).dtype

    @property
    def shape(self):
        state = self._state
        return known((state[1] if state[0] is None else state[0]).shape)

    def get_shape(self):
        """``self.shape``, as TensorFlow's ``get_shape()``."""
        return self.shape

    def _graph_tensor(self, graph):
        """Read the variable inside ``graph`` (a stateful op), tracking it in the enclosing FuncGraphs."""
        outer = graph
        while outer is not None:
            if hasattr(outer, "track_variable"):
                outer.track_variable(self)
            outer = getattr(outer, "outer_graph", None)
        return graph.create_op(READ_VARIABLE, [], {"variable": self}).outputs[0]

    # --- reading -------------------------------------------------------------------------------------
    def read_value(self) -> Tensor:
        """The current value: an eager tensor, or a ``ReadVariableOp`` output while tracing."""
        graph = context.current_graph()
        if graph is None:
            if eager_op_hooks:  # a GradientTape is recording: let it see the read
                return apply_op(READ_VARIABLE, [], {"variable": self})
            return EagerTensor(self._array)
        return self._graph_tensor(graph)

    def value(self) -> Tensor:
        return self.read_value()

    def numpy(self):
        if context.in_graph_mode():
            raise _symbolic_misuse(self.read_value(), "Calling .numpy() on (a read of) Variable "
                                   f"'{self.name}', which is", "Return the value from the function instead.")
        array = self._array.copy()
        return array[()] if array.ndim == 0 else array

    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __bool__(self): return bool(self.read_value())
    def __int__(self): return int(self.read_value())
    def __float__(self): return float(self.read_value())
    def __index__(self): return self.read_value().__index__()
    def __len__(self): return len(self.read_value())
    def __iter__(self): return iter(self.read_value())

    def __repr__(self) -> str:
        return (f"<Variable '{self.name}' shape={self._array.shape} dtype={self._array.dtype.name}, "
                f"numpy={_numpy_text(self._array)}>")

    __str__ = __repr__

    # --- writing -------------------------------------------------------------------------------------
    def assign(self, value: Any):
        """Set the value (same dtype and shape). Eagerly returns the Variable; traced, the new value."""
        return self._write(ASSIGN_VARIABLE, value, "assign")

    def assign_add(self, delta: Any):
        """Add ``delta`` to the value in place (``v += delta``)."""
        return self._write(ASSIGN_ADD_VARIABLE, delta, "assign_add")

    def assign_sub(self, delta: Any):
        """Subtract ``delta`` from the value in place (``v -= delta``)."""
        return self._write(ASSIGN_SUB_VARIABLE, delta, "assign_sub")

    def _write(self, op_def, value: Any, method: str):
        tensor = self._converted(value, method)
        graph = context.current_graph()
        if graph is None:
            op_def.kernel(tensor._value, variable=self)
            return self
        return apply_op(op_def, [tensor], {"variable": self})

    def _converted(self, value: Any, method: str) -> Tensor:
        if isinstance(value, Tensor) and value.dtype != self.dtype:
            raise TypeError(in_users_words(
                f"Variable '{self.name}'.{method}(): the value has dtype {value.dtype.name} but the variable is "
                f"{self.dtype.name}; convert it with rt.cast(value, rt.{self.dtype.name})"))
        try:
            tensor = convert_to_tensor(value, self.dtype)
        except TypeError as error:
            raise TypeError(f"Variable '{self.name}'.{method}(): {error}") from None
        if not shape_compatible(self.shape, tensor.shape):
            raise ValueError(f"Variable '{self.name}'.{method}(): the value has shape {tensor.shape} but the "
                             f"variable has shape {self.shape}; a variable's shape cannot change")
        return tensor

