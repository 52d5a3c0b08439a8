"""The tracer: runs a Python function on placeholders into a graph, and makes it a ``ConcreteFunction``.

``Function`` (``runtime.tracing.function``) decides *when* to trace (its signature cache); the tracer
decides *how*: the placeholders for a call's key, the Variable-creation policy (first trace only, as in
TensorFlow), the function's outputs as graph tensors.

>>> import runtime as rt
>>> import inspect
>>> def double(x):
...     return x * 2
>>> tracer = Tracer(double, "double", list(inspect.signature(double).parameters.values()))
>>> key, _ = signature.make_key((rt.constant(3),))
>>> tracer.trace(key, (rt.constant(3),))(rt.constant(5))
Tensor(10, shape=(), dtype=int32)
"""
from __future__ import annotations

import inspect
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from runtime.core import context, dtypes, nest
from runtime.core.graph import FuncGraph
from runtime.core.tensor import EagerTensor, Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.tracing import signature
from runtime.tracing.concrete_function import ConcreteFunction

_VARIABLE_ON_LATER_TRACE = (
    "rt.Variable({variable!r}) was created while tracing {function!r} again (for a new signature). A function "
    "may create variables on its first trace only, as in TensorFlow: create it once, outside the function "
    "(at module level or in __init__), or on the first call guarded by `if self.v is None: self.v = rt.Variable(...)`")
_VARIABLE_ON_EVERY_TRACE = (
    "rt.Variable({variable!r}) is created every time {function!r} is traced: its first trace created {created}, "
    "and tracing it again creates a new one. A function may create variables on its first trace only, as in "
    "TensorFlow; guard the creation (`if self.v is None: self.v = rt.Variable(...)`) or create the variable "
    "outside the function")


class Tracer:
    """Traces ``python_function`` (or ``transform(python_function)``, built once: autograph passes its
    converter) for one call key at a time. ``on_key_object_collected(id)`` is called when an object that
    a trace's key holds by identity is collected, so the cache can drop that trace."""

    def __init__(self, python_function: Callable, name: str, parameters: Sequence[inspect.Parameter],
                 transform: Optional[Callable[[Callable], Callable]] = None,
                 on_key_object_collected: Callable[[int], None] = lambda object_id: None):
        self._python_function = python_function
        self._name = name
        self._parameters = list(parameters)
        self._transform = transform
        self._traced_function: Optional[Callable] = None
        self._traced_once = False  # Variables may be created on the first trace only
        self._lock = threading.Lock()
        self._on_key_object_collected = on_key_object_collected

    def _parameter_names(self) -> List[str]:
        return [p.name for p in self._parameters]

    def function_to_trace(self) -> Callable:
        if self._traced_function is None:
            with self._lock:
                if self._traced_function is None:
                    transform = self._transform
                    self._traced_function = (transform(self._python_function) if transform
                                                    else self._python_function)
        return self._traced_function

    def trace(self, key: Tuple[Any, ...], values: Tuple[Any, ...], jit_compile: Any = None) -> ConcreteFunction:
        """Trace once; on the first trace the function may create Variables, as in TensorFlow. ``jit_compile``:
        the ConcreteFunction's (``runtime.tracing.concrete_function.ConcreteFunction.use_jit_compile``).

        If it did, it is traced again with creation refused: the second trace must reuse them (the
        Keras ``build`` pattern, ``if self.w is None: self.w = rt.Variable(...)``), so the graph never
        holds a variable that a call would create afresh in plain Python.
        """
        if self._traced_once:
            return self._trace_with_policy(key, values, context.VariableCreation(
                self._name, False, _VARIABLE_ON_LATER_TRACE.format(function=self._name, variable="{variable}")),
                jit_compile)
        creation = context.VariableCreation(self._name, True)
        concrete = self._trace_with_policy(key, values, creation, jit_compile)
        if creation.created:
            created = ", ".join(repr(v.name) for v in creation.created)
            concrete = self._trace_with_policy(key, values, context.VariableCreation(
                self._name, False, _VARIABLE_ON_EVERY_TRACE.format(function=self._name, created=created,
                                                                   variable="{variable}")), jit_compile)
        self._traced_once = True
        return concrete

    def _trace_with_policy(self, key: Tuple[Any, ...], values: Tuple[Any, ...],
                           creation: context.VariableCreation, jit_compile: Any = None) -> ConcreteFunction:
        graph = FuncGraph(self._name)
        names = self._parameter_names()
        with context.graph_scope(graph), context.variable_creation_scope(creation):
            inputs = [signature.substitute_placeholders(v, e, graph, n) for v, e, n in zip(values, key, names)]
            args, kwargs = self._call_arguments(inputs)
            result = self.function_to_trace()(*args, **kwargs)
            graph.outputs = [_output_tensor(graph, self._name, path, leaf)
                             for path, leaf in zip(nest.leaf_paths(result), nest.flatten(result))]
        graph.structured_outputs = nest.pack_sequence_as(result, graph.outputs)
        builder = signature.KeyBuilder()
        for value in values:
            builder.key(value)
        keep_alive = list(builder.variables)  # ids in the key must stay unique while the trace lives
        for obj in builder.by_identity:
            try:
                weakref.finalize(obj, self._on_key_object_collected, id(obj))
            except TypeError:  # cannot be weakly referenced: hold it, so its id is never reused
                keep_alive.append(obj)
        shown = tuple(signature.display_value(v, e) for v, e in zip(values, key))
        return ConcreteFunction(graph, self._name, names, shown, key, keep_alive, jit_compile)

    def _call_arguments(self, values: List[Any]) -> Tuple[List[Any], Dict[str, Any]]:
        args: List[Any] = []
        kwargs: Dict[str, Any] = {}
        for parameter, value in zip(self._parameters, values):
            if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
                args.append(value)
            elif parameter.kind is parameter.VAR_POSITIONAL:
                args.extend(value)
            elif parameter.kind is parameter.KEYWORD_ONLY:
                kwargs[parameter.name] = value
            else:
                kwargs.update(value)
        return args, kwargs


def _output_tensor(graph: FuncGraph, name: str, path: str, value: Any):
    """An output leaf as a tensor of ``graph``: Python numbers/bools/arrays become constants."""
    if isinstance(value, Tensor) and value.dtype == dtypes.variant:  # a tensor list's or TensorArray's handle
        where = f" (element {path})" if path else ""
        raise TypeError(f"{name}() returns a tensor list{where} (a Python list that a tensor-dependent loop "
                        "appended to) or a TensorArray; return rt.stack(the_list) or rt.concat(the_list, 0) "
                        "instead, a tensor (for a TensorArray: ta.stack() or ta.concat())")
    try:
        tensor = value if isinstance(value, Tensor) else convert_to_tensor(value)
    except TypeError:
        where = f" (element {path})" if path else ""
        raise TypeError(f"{name}() returned {value!r}{where}, a {type(value).__name__}, which cannot be a graph "
                        "output; return tensors, numbers, bools, None or tuples/lists/dicts of them") from None
    if isinstance(tensor, EagerTensor):
        return graph.constant(tensor._value)
    return graph._as_graph_tensor(tensor, "output", "value")
