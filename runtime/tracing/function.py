"""``Function``: a Python function traced into one graph per input signature, then run as graphs.

Calling a ``Function`` computes the call's key (see ``runtime.tracing.signature``), looks it up, and runs the
cached ``ConcreteFunction``; a new key traces the Python function once with placeholders. Python
side effects such as ``print`` therefore happen only while tracing; ``rt.print`` runs on every call.

>>> import runtime as rt
>>> @function
... def double(x):
...     return x * 2
>>> double(rt.constant(3)), double(rt.constant(4)), double.experimental_get_tracing_count()
(Tensor(6, shape=(), dtype=int32), Tensor(8, shape=(), dtype=int32), 1)
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import types
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from runtime.core import context, nest
from runtime.core.errors import USER_FACING, RetraceWarning
from runtime.core.traceback_filtering import api_boundary, filter_leaving_traceback, inline_api_boundary, unstaged

from runtime.backends.xla import checked_jit_compile
from runtime.tracing import signature
from runtime.core.registry import eager_op_hooks
from runtime.tracing.tape import recording_eagerly
from runtime.tracing.concrete_function import ConcreteFunction, checked_array, describe_structure
from runtime.tracing.signature import TENSOR, accepts, describe_key, make_key
from runtime.tracing.tensor_calls import MISSING, TensorCalls
from runtime.core.tensor import TensorSpec
from runtime.tracing.trace_bound import TraceBound
from runtime.tracing.trace_index import TraceIndex
from runtime.tracing.tracer import Tracer

_RETRACE_WINDOW, _RETRACE_LIMIT = 10, 5  # warn when 5 of the last 10 calls traced
_WARN_AGAIN_AT = 100  # ...and again (with the cache's size) at 100, 1000, ... graphs
_run_eagerly = [False]  # one global switch, like tf.config.run_functions_eagerly
# Called as observer(function, concrete) after each new trace, e.g. by autograph_lite.testing's trace counter.
trace_observers: List[Callable[["Function", ConcreteFunction], None]] = []



def run_functions_eagerly(flag: bool) -> None:
    """Make every ``Function`` call its Python function directly (op by op) instead of graphs.

    >>> run_functions_eagerly(True); functions_run_eagerly()
    True
    >>> run_functions_eagerly(False)
    """
    _run_eagerly[0] = bool(flag)


def functions_run_eagerly() -> bool:
    """Whether ``run_functions_eagerly(True)`` is in effect."""
    return _run_eagerly[0]


class Function:
    """A polymorphic, graph-backed callable (see the module docstring).

    ``input_signature``: list of ``TensorSpec`` fixing the arguments (one trace; None dims accept any
    size). ``reduce_retracing``: after a second shape for the same dtype and rank, trace once with the
    differing dims unknown and reuse that graph. ``trace_with(python_function)`` gives the function
    actually traced (autograph passes its converter). ``max_traces``: keep at most this many graphs, evicting
    the least recently used (``runtime.tracing.trace_bound``); None keeps every graph.
    """

    def __init__(self, python_function: Callable, input_signature: Optional[Sequence[TensorSpec]] = None,
                 reduce_retracing: bool = False, *, trace_with: Optional[Callable[[Callable], Callable]] = None,
                 jit_compile: Any = None, max_traces: Optional[int] = None):
        if not callable(python_function):
            raise TypeError(f"rt.Function needs a callable, got {type(python_function).__name__} "
                            f"{python_function!r}")
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._name = getattr(python_function, "__name__", type(python_function).__name__)
        self._parameters = _parameters_of(python_function)
        self._signature_error: Optional[TypeError] = None
        if input_signature is not None:
            # Only the parameters the signature covers are bound and traced; the rest keep their defaults.
            # A method decorated in its class body is only ever called bound (``__get__``, without
            # ``self``), so a mismatch is reported when this very Function is called, not here.
            try:
                self._parameters = signature.signature_parameters(
                    self._name, self._parameters, len(_checked_input_signature(self._name, input_signature)))
            except TypeError as error:
                self._signature_error = error
        self._arity = len(self._parameters) if all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in self._parameters) else -1
        self._input_signature = _checked_input_signature(self._name, input_signature)
        self._signature_key = None if input_signature is None else tuple(
            signature.KeyBuilder().key(spec) for spec in self._input_signature)
        self._reduce_retracing = reduce_retracing
        self._trace_with = trace_with
        self._jit_compile = checked_jit_compile(self._name, jit_compile)
        self._tracer = Tracer(python_function, self._name, self._parameters, trace_with,
                              on_key_object_collected=functools.partial(_forget_identity, weakref.ref(self)))
        self._cache: Dict[Any, ConcreteFunction] = {}  # key -> concrete function able to run it
        self._traces = TraceIndex()  # (trace key, concrete), in trace order, found by shape-free form
        self._tracing_count = 0
        self._in_progress: Dict[Any, threading.Lock] = {}  # key -> held by the thread tracing it
        self._lock = threading.RLock()
        self._calls = 0
        self._trace_call_numbers: List[int] = []
        self._warned = False
        self._warn_again_at = _WARN_AGAIN_AT  # warn again when the number of graphs reaches this
        self._bound: Dict[int, "Function"] = {}
        self._trace_bound = None if max_traces is None else TraceBound(self._name, max_traces)
        # The fast path of all-tensor calls (none when graphs are evicted: it would keep them)
        self._tensor_calls = TensorCalls(self._arity) if max_traces is None and self._arity > 0 else None

    # --- calling -------------------------------------------------------------------------------------
    @inline_api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            if _run_eagerly[0]:
                return self.python_function(*args, **kwargs)
            if eager_op_hooks and recording_eagerly():
                # An eager GradientTape records ops as they run: run this call op by op so it sees them, in the
                # form a trace would run (converted code: `x[i] = v` on a tensor works there, not in the original).
                return self._tracer.function_to_trace()(*args, **kwargs)
            if context._state.graph is not None:  # called while tracing another function: trace inline
                return self._tracer.function_to_trace()(*args, **kwargs)
            self._calls += 1
            if self._input_signature is not None:
                return self._call_with_signature(args, kwargs)
            tensor_calls = self._tensor_calls
            if tensor_calls is not None and not kwargs:   # eager tensors alone, of a known signature: run it
                result = tensor_calls.run(args)
                if result is not MISSING:
                    return result
            values = self._canonicalize(args, kwargs)
            key, arrays = make_key(values)
            concrete = self._cache.get(key)
            if concrete is None:
                concrete = self._concrete_for(key, values)
            elif self._trace_bound is not None:
                self._trace_bound.used(concrete)
            if tensor_calls is not None:
                tensor_calls.learn(values, concrete)
            return concrete._call_flat(arrays)
        except USER_FACING as error:
            filter_leaving_traceback(error)
            original = unstaged(error)
            if original is None:
                raise
        # A StagedExceptionError left the last trace: the user's exception leaves in its place (as in api_boundary).
        context_of_original = original.__context__
        try:
            raise original
        except BaseException:
            original.__context__ = context_of_original
            filter_leaving_traceback(original)
            raise

    def _call_with_signature(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        if self._signature_error is not None:
            raise self._signature_error
        values = self._canonicalize(args, kwargs)
        specs = self._input_signature
        if len(values) != len(specs):
            raise TypeError(f"{self._name}() takes {len(specs)} argument(s) as declared by its input_signature, "
                            f"got {len(values)}")
        arrays: List[np.ndarray] = []
        for name, spec, value in zip(self._parameter_names(), specs, values):
            leaves = nest.flatten(spec)
            given = nest.flatten(value) if isinstance(spec, (list, tuple, dict)) else [value]
            if isinstance(spec, (list, tuple, dict)) and not nest.same_structure(spec, value):
                raise TypeError(f"{self._name}(): argument '{name}' must be {describe_structure(spec)} "
                                f"(input_signature), got {value!r}")
            for leaf_spec, leaf in zip(leaves, given):
                arrays.append(checked_array(f"{self._name}()", name, leaf_spec, leaf))
        concrete = self._cache.get(self._signature_key)
        if concrete is None:
            concrete = self._concrete_for(self._signature_key, specs)
        return concrete._call_flat(arrays)

    def _canonicalize(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[Any, ...]:
        """One value per parameter, defaults applied (``*args`` as a tuple, ``**kwargs`` as a dict)."""
        if not kwargs and len(args) == self._arity:
            return args
        return signature.bind_arguments(self._name, self._signature(), args, kwargs)

    def _signature(self) -> inspect.Signature:
        return inspect.Signature(self._parameters)

    def _parameter_names(self) -> List[str]:
        return [p.name for p in self._parameters]

    # --- the cache -----------------------------------------------------------------------------------
    def _concrete_for(self, key: Tuple[Any, ...], values: Tuple[Any, ...]) -> ConcreteFunction:
        """The concrete function for ``key``: reused if one accepts it, else traced (once per key)."""
        while True:
            with self._lock:
                concrete = self._cache.get(key)
                if concrete is not None:
                    return concrete
                traced = self._traces.accepting(key)
                if traced is not None:
                    self._cache[key] = traced
                    return traced
                waiting_for = self._in_progress.get(key)
                if waiting_for is None:
                    # Held while this thread traces: others wait by acquiring it. (A Lock, not an Event:
                    # an Event costs ~2 us to make, a tenth of a small trace's Function overhead.)
                    done = self._in_progress[key] = threading.Lock()
                    done.acquire()
                    break
            with waiting_for:  # another thread is tracing this key: wait until it is done, then look again
                pass
        try:
            trace_key = self._traces.relaxed(key) if self._reduce_retracing else key
            concrete = self._tracer.trace(trace_key, values, self._jit_compile)
            with self._lock:
                self._cache[key] = self._cache[trace_key] = concrete
                self._traces.add(trace_key, concrete)
                if self._trace_bound is not None:
                    self._evict(self._trace_bound.added(concrete))
                self._tracing_count += 1
                self._note_trace(key)
            for observer in trace_observers:
                observer(self, concrete)
        finally:
            with self._lock:
                del self._in_progress[key]
            done.release()
        return concrete

    def _forget(self, object_id: int) -> None:
        """Drop the traces keyed by an unhashable argument object that no longer exists."""
        entry = (signature.IDENTITY, object_id)
        with self._lock:
            for key in [k for k in self._cache if signature.contains(k, entry)]:
                del self._cache[key]
            self._traces.remove_where(lambda k: signature.contains(k, entry))

    def _evict(self, evicted: List[ConcreteFunction]) -> None:
        """Forget ``evicted`` graphs (max_traces): their signatures trace again when next called."""
        if evicted:
            gone = {id(concrete) for concrete in evicted}
            for key in [k for k, c in self._cache.items() if id(c) in gone]:
                del self._cache[key]
            self._traces.discard(evicted)

    def _note_trace(self, key: Tuple[Any, ...]) -> None:
        """Warn (once) when tracing happens on most calls: the graphs are not being reused."""
        self._trace_call_numbers.append(self._calls)
        recent = self._trace_call_numbers[-_RETRACE_LIMIT:]
        if len(self._traces) >= self._warn_again_at:  # the cache keeps growing: say how big it is now
            self._warn_again_at *= 10
            self._warned = False
        if self._warned or len(recent) < _RETRACE_LIMIT or self._calls - recent[0] >= _RETRACE_WINDOW:
            return
        self._warned = True
        previous = self._traces[-2][0] if len(self._traces) > 1 else None
        graphs = self.concrete_functions
        kept = ("kept for the life of the function" if self._trace_bound is None
                else f"at most {self._trace_bound.limit} kept (max_traces)")
        warnings.warn(
            f"{self._name}() was traced {_RETRACE_LIMIT} times in its last {_RETRACE_WINDOW} calls; tracing is slow "
            f"(it reruns the Python function and builds a new graph). The last retrace happened because "
            f"{self._why_retraced(previous, key)}. It now holds {len(graphs)} graphs "
            f"({sum(c.op_count() for c in graphs)} ops, {_format_bytes(sum(c.memory_bytes() for c in graphs))} of "
            f"constants and buffers), {kept}. To avoid retracing: pass tensors instead of Python values (e.g. "
            "rt.constant(n)), declare input_signature=[rt.TensorSpec(shape=[None], ...)] so one graph accepts every "
            "size, or use reduce_retracing=True (max_traces=n bounds the graphs kept).",
            RetraceWarning, stacklevel=_stacklevel_outside_library())

    def _why_retraced(self, previous: Optional[Tuple[Any, ...]], key: Tuple[Any, ...]) -> str:
        if previous is None:
            return "of a new input signature"
        changes = []
        for name, old, new in zip(self._parameter_names(), previous, key):
            if old != new:
                kind = "tensor" if signature.has_tensors(new) else "Python value"
                changes.append(f"argument '{name}' ({kind}) changed from {describe_key(old)} to {describe_key(new)}")
        return "; ".join(changes) or "of a new input signature"

    # --- introspection -------------------------------------------------------------------------------
    @api_boundary
    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The concrete function for these arguments (tensors, ``TensorSpec``s or Python values); traces
        if needed. With an ``input_signature`` and no arguments, the signature's one concrete function."""
        if self._input_signature is not None:
            if self._signature_error is not None:
                raise self._signature_error
            specs = tuple(self._input_signature)
            if args or kwargs:
                values = self._canonicalize(args, kwargs)
                for name, spec, value in zip(self._parameter_names(), specs, values):
                    if isinstance(value, TensorSpec) and not (value.dtype == spec.dtype and accepts(
                            (TENSOR, spec.dtype, spec.shape), (TENSOR, value.dtype, value.shape))):
                        raise ValueError(f"{self._name}(): argument '{name}' {value} does not match the "
                                         f"input_signature's {spec}")
            key = self._signature_key
            return self._cache.get(key) or self._concrete_for(key, specs)
        values = self._canonicalize(args, kwargs)
        key, _ = make_key(values)
        return self._cache.get(key) or self._concrete_for(key, values)

    def experimental_get_compiler_ir(self, *args: Any, **kwargs: Any) -> str:
        """The StableHLO text XLA compiles for this call (tensors of concrete shapes): what ``jit_compile=True``
        runs. Traces if needed; works whatever this function's ``jit_compile`` is."""
        concrete = self.get_concrete_function(*args, **kwargs)
        values = self._canonicalize(args, kwargs)
        return concrete.experimental_get_compiler_ir(*[values[i] for i in concrete._tensor_params])

    def experimental_get_tracing_count(self) -> int:
        """How many graphs this function has traced."""
        return self._tracing_count

    @property
    def concrete_functions(self) -> List[ConcreteFunction]:
        return [concrete for _, concrete in self._traces]

    def pretty_printed_concrete_signatures(self) -> str:
        """Every traced signature with its argument and return types, in trace order."""
        return "\n\n".join(c.pretty_printed_signature() for c in self.concrete_functions)

    @property
    def input_signature(self) -> Optional[Tuple[TensorSpec, ...]]:
        return self._input_signature

    def __repr__(self) -> str:
        return f"<runtime.Function {self._name} ({len(self._traces)} traced signature(s))>"

    # --- methods -------------------------------------------------------------------------------------
    def __get__(self, instance: Any, owner: Any = None) -> "Function":
        """``obj.method``: a Function bound to ``obj`` (one per instance, with its own traces)."""
        if instance is None:
            return self
        bound = self._bound.get(id(instance))
        if bound is None:
            with self._lock:
                bound = self._bound.get(id(instance))
                if bound is None:
                    bound = Function(types.MethodType(self.python_function, instance), self._input_signature,
                                     self._reduce_retracing, trace_with=self._trace_with,
                                     jit_compile=self._jit_compile,
                                     max_traces=None if self._trace_bound is None else self._trace_bound.limit)
                    self._bound[id(instance)] = bound
                    _forget_when_collected(instance, self._bound)
        return bound


_PACKAGES_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LIBRARY_DIRS = tuple(os.path.join(_PACKAGES_ROOT, package) + os.sep for package in ("runtime", "autograph_lite"))


def _stacklevel_outside_library() -> int:
    """The ``stacklevel`` of ``warnings.warn`` (called by the caller of this) that names the user's line."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
        frame, level = frame.f_back, level + 1
    return level


def _format_bytes(count: int) -> str:
    for unit in ("bytes", "KB", "MB"):
        if count < 1024 or unit == "MB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    return ""


def _forget_identity(function_ref: "weakref.ref[Function]", object_id: int) -> None:
    function = function_ref()
    if function is not None:
        function._forget(object_id)


def _forget_when_collected(instance: Any, bound: Dict[int, Function]) -> None:
    """Drop the bound Function when its instance dies (instances are held weakly, keyed by id)."""
    key = id(instance)
    try:
        weakref.finalize(instance, bound.pop, key, None)
    except TypeError:
        pass  # not weak-referenceable (e.g. __slots__ without __weakref__): kept for the Function's life


def _parameters_of(python_function: Callable) -> List[inspect.Parameter]:
    try:
        if type(python_function) is types.FunctionType and not _signature_elsewhere(python_function):
            return _function_parameters(python_function)
        return list(inspect.signature(python_function).parameters.values())
    except (TypeError, ValueError):  # some builtins have no signature: accept any positional arguments
        return [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]


def _signature_elsewhere(function: types.FunctionType) -> bool:
    """Whether ``inspect.signature`` would not read ``function``'s own code: it follows ``__wrapped__`` and
    honours ``__signature__``, ``_partialmethod`` and ``__text_signature__``."""
    return (hasattr(function, "__wrapped__") or hasattr(function, "__signature__")
            or hasattr(function, "_partialmethod") or hasattr(function, "__text_signature__"))


def _function_parameters(function: types.FunctionType) -> List[inspect.Parameter]:
    """``inspect.signature(function).parameters`` of a plain function, read from its code as inspect reads it
    (names, kinds, defaults, annotations), without inspect's general path (unwrapping, ``__signature__``,
    partial methods, ``get_annotations``), which ran once per Function on a cold cache (~6 us of a small
    function's ~270 us first trace).

    >>> def f(a, /, b=1, *rest, c, d=2, **options: int): ...
    >>> _function_parameters(f) == list(inspect.signature(f).parameters.values())
    True
    """
    code = function.__code__
    names, positional, keyword_only = code.co_varnames, code.co_argcount, code.co_kwonlyargcount
    annotations = getattr(function, "__annotations__", None)
    if annotations is None:
        annotations = {}
    elif not isinstance(annotations, dict):
        raise ValueError(f"{function!r}.__annotations__ is neither a dict nor None")  # as inspect does
    defaults = function.__defaults__ or ()
    kwdefaults = function.__kwdefaults__ or {}
    empty = inspect.Parameter.empty
    parameters = []
    # Sliced exactly as inspect slices (which matters only for a __defaults__ assigned longer than the code's
    # positional parameters).
    without_default = positional - len(defaults)
    named = [(name, empty) for name in names[:positional][:without_default]]
    named += [(name, defaults[offset]) for offset, name in enumerate(names[:positional][without_default:])]
    for index, (name, default) in enumerate(named):
        kind = inspect.Parameter.POSITIONAL_ONLY if index < code.co_posonlyargcount else \
            inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters.append(inspect.Parameter(name, kind, default=default, annotation=annotations.get(name, empty)))
    if code.co_flags & inspect.CO_VARARGS:
        name = names[positional + keyword_only]
        parameters.append(inspect.Parameter(name, inspect.Parameter.VAR_POSITIONAL,
                                            annotation=annotations.get(name, empty)))
    for name in names[positional:positional + keyword_only]:
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=kwdefaults.get(name, empty),
                                            annotation=annotations.get(name, empty)))
    if code.co_flags & inspect.CO_VARKEYWORDS:
        name = names[positional + keyword_only + (1 if code.co_flags & inspect.CO_VARARGS else 0)]
        parameters.append(inspect.Parameter(name, inspect.Parameter.VAR_KEYWORD,
                                            annotation=annotations.get(name, empty)))
    return parameters


def _checked_input_signature(name: str, input_signature: Any) -> Optional[Tuple[Any, ...]]:
    if input_signature is None:
        return None
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(f"{name}: input_signature must be a list of rt.TensorSpec, got {input_signature!r}")
    for spec in nest.flatten(list(input_signature)):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"{name}: input_signature must contain only rt.TensorSpec, got {spec!r}; "
                            "write e.g. rt.TensorSpec(shape=[None], dtype=rt.float32)")
    return tuple(input_signature)


def function(func: Optional[Callable] = None, *, input_signature: Optional[Sequence[TensorSpec]] = None,
             reduce_retracing: bool = False, jit_compile: Any = None, max_traces: Optional[int] = None) -> Any:
    """``rt.function`` as a decorator, with or without arguments.

    ``max_traces=n`` keeps at most ``n`` graphs, evicting the least recently used (a server calling with ever
    new Python values would otherwise keep every graph); a retrace warning is an ``rt.RetraceWarning``.

    ``jit_compile=True`` compiles each traced graph with XLA through JAX (``pip install 'autograph-lite[jax]'``;
    see docs/XLA.md); ``"auto"`` does too but runs a graph XLA cannot compile on the numpy executor, with a
    warning; None (the default) keeps the numpy executor.

    >>> @function(reduce_retracing=True)
    ... def square(x):
    ...     return x * x
    >>> import runtime as rt
    >>> square(rt.constant(3))
    Tensor(9, shape=(), dtype=int32)
    """
    if func is None:
        return lambda f: Function(f, input_signature, reduce_retracing, jit_compile=jit_compile, max_traces=max_traces)
    return Function(func, input_signature, reduce_retracing, jit_compile=jit_compile, max_traces=max_traces)
