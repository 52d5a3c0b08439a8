"""``ConcreteFunction``: one traced graph, optimized and compiled once, callable with arrays.

The traced graph stays available as ``unoptimized_graph``; ``graph`` is what runs (after the
``runtime.passes`` passes). Execution goes through one callable (``runtime.backends.executor.make_callable``,
``compiled()``), built when the concrete function is created if its graph has a loop, else at its second
call: the first call of a graph without loops runs in the reference interpreter (``_first_run``).

>>> import runtime as rt
>>> f = rt.Function(lambda x: x * 2)
>>> concrete = f.get_concrete_function(rt.TensorSpec([None], rt.int32))
>>> concrete(rt.constant([1, 2]))
Tensor([2 4], shape=(2,), dtype=int32)
"""
from __future__ import annotations

import math
import threading
import weakref
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from runtime import passes
from runtime.backends import executor, interpreter, threads
from runtime.core import context, nest
from runtime.core.traceback_filtering import api_boundary
from runtime.core.graph import FuncGraph
from runtime.passes.rewrite import copy_into
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.convert import convert_to_tensor
from runtime.tracing.signature import describe_spec, has_tensors, spec_structure
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, TensorSpec


# A first call whose biggest array (an input, or an op's result of static shape) holds at most this many
# elements runs in the interpreter (see _first_run): below it compiling costs more than the compiled code
# saves in one call (the executor's row blocks start at buffer_plan.PARALLEL_MIN_ELEMENTS).
INTERPRET_FIRST_CALL_UP_TO = (1 << 18) - 1
# Set by the test suite (tests/conftest.py): each first call that the interpreter runs is also run compiled,
# and both must agree bit for bit (for graphs without side effects, which could not run twice).
check_first_calls = False
_optimizing = threading.Lock()

# Called after an eager call of a concrete function as ``hook(concrete, input_tensors, output_tensors)``
# (flat lists): how an eager GradientTape records the call (set by the tape module; empty otherwise).
call_hooks: List[Callable[..., None]] = []


def optimize_graph(graph: FuncGraph) -> FuncGraph:
    """The graph after the optimizer passes (``runtime.passes``)."""
    return passes.optimize_graph(graph)


def build_executor(graph: FuncGraph) -> Callable[..., List[np.ndarray]]:
    """``run(*arrays) -> [arrays]`` for ``graph``: the compiled executor."""
    return executor.make_callable(graph)


def _make_packer(structure: Any) -> Callable[[List[np.ndarray]], Any]:
    """How to turn the executor's flat output arrays into the function's (nested) result."""
    if isinstance(structure, SymbolicTensor):
        return lambda arrays: EagerTensor(arrays[0])
    if structure is None:
        return lambda arrays: None
    if isinstance(structure, (tuple, list)) and all(isinstance(t, SymbolicTensor) for t in structure) \
            and not hasattr(type(structure), "_fields"):
        kind = type(structure)
        return lambda arrays: kind([EagerTensor(a) for a in arrays])
    return lambda arrays: nest.pack_sequence_as(structure, [EagerTensor(a) for a in arrays])


def describe_structure(structure: Any) -> str:
    """``float32 Tensor, shape=()`` for a tensor; nested containers shown around their tensors."""
    if isinstance(structure, (SymbolicTensor, TensorSpec)):
        return describe_spec(structure.dtype, structure.shape)
    if isinstance(structure, list):
        return "[" + ", ".join(describe_structure(s) for s in structure) + "]"
    if isinstance(structure, tuple):
        inner = ", ".join(describe_structure(s) for s in structure)
        return f"({inner},)" if len(structure) == 1 else f"({inner})"
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {describe_structure(v)}" for k, v in structure.items()) + "}"
    return repr(structure)


class ConcreteFunction:
    """A traced graph for one input signature; call it with tensors matching that signature."""

    def __init__(self, graph: FuncGraph, function_name: str, param_names: Sequence[str],
                 canonical_values: Tuple[Any, ...], key: Tuple[Any, ...], keep_alive: Sequence[Any] = (),
                 jit_compile: Any = None):
        self.unoptimized_graph = graph
        self._optimized: Optional[FuncGraph] = None
        self.name = function_name
        self._compiled: Optional[Callable[..., List[np.ndarray]]] = None
        self._jit_compiled = False   # every call runs XLA's program (see use_jit_compile)
        if jit_compile:   # XLA runs every call; the numpy executor is built only if a failed check reruns a call
            self.use_jit_compile(jit_compile)
        else:
            # A graph without loops runs its first call in the reference interpreter (see _first_run); a loop
            # runs its ops many times, where the compiled executor is 10-100x faster per op: compiled now.
            self._run = self.compiled() if _has_loop(graph) else _first_run(weakref.ref(self))
        self._pack = _make_packer(graph.structured_outputs)   # the optimized graph's has the same structure
        self._param_names = tuple(param_names)
        self._key = key
        self._tensor_params = [i for i, entry in enumerate(key) if has_tensors(entry)]
        self._python_args = {param_names[i]: canonical_values[i] for i in range(len(key))
                             if i not in self._tensor_params}
        self.structured_input_signature = (
            tuple(spec_structure(v, e, n) for v, e, n in zip(canonical_values, key, param_names)), {})
        self._keep_alive = tuple(keep_alive)  # Variables keyed by id must outlive this trace

    def use_jit_compile(self, mode: Any) -> None:
        """Run every call compiled by XLA through JAX (``mode`` True or ``"auto"``: see
        ``runtime.backends.xla.compiled``), lowered from the optimized graph on the first call."""
        from runtime.backends.xla import compiled as xla  # JAX is optional: imported only when asked for
        concrete_ref = weakref.ref(self)
        self._jit_compiled = True

        def lower_and_run(*arrays: np.ndarray) -> List[np.ndarray]:
            concrete = concrete_ref()
            concrete._run = xla.make_callable(concrete.graph, concrete.compiled, mode)
            return concrete._run(*arrays)

        self._run = lower_and_run

    def experimental_get_compiler_ir(self, *args: Any) -> str:
        """The StableHLO text of this graph as XLA compiles it for these tensor arguments."""
        from runtime.backends.xla import compiled as xla
        self._check_arity(args)
        arrays = [checked_array(self.name, name, spec, leaf) for name, spec, leaf in self._argument_leaves(args)]
        program = getattr(self._run, "program", None) or xla.Program(self.graph)
        return program.compiler_ir(arrays)

    # --- what it is ----------------------------------------------------------------------------------
    @property
    def graph(self) -> FuncGraph:
        """The optimized graph: what the compiled executor runs (optimized when first needed)."""
        optimized = self._optimized
        if optimized is None:
            with _optimizing:
                if self._optimized is None:
                    self._optimized = optimize_graph(self.unoptimized_graph)
                optimized = self._optimized
        return optimized

    def compiled(self) -> Callable[..., List[np.ndarray]]:
        """The compiled executor of the optimized graph, ``run(*arrays) -> [arrays]`` (built when first
        needed; every call from then on runs it). ``executor.generated_source(c.compiled())`` shows it."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = build_executor(self.graph)
            if not self._jit_compiled:   # (under jit_compile it only reruns a failed check: calls stay XLA's)
                self._run = compiled
        return compiled

    @property
    def inputs(self) -> List[SymbolicTensor]:
        return self.graph.inputs

    @property
    def outputs(self) -> List[SymbolicTensor]:
        return self.graph.outputs

    @property
    def structured_outputs(self) -> Any:
        return self.graph.structured_outputs

    @property
    def variables(self) -> List[Any]:
        return list(self.graph.variables)

    def pretty_printed_signature(self) -> str:
        """``name(x)`` / ``Args:`` tensor arguments / ``Returns:`` the output types; Python args inline."""
        header = ", ".join(name if i in self._tensor_params else f"{name}={self._python_args[name]!r}"
                           for i, name in enumerate(self._param_names))
        lines = [f"{self.name}({header})"]
        if self._tensor_params:
            lines.append("  Args:")
            specs = self.structured_input_signature[0]
            lines.extend(f"    {self._param_names[i]}: {describe_structure(specs[i])}" for i in self._tensor_params)
        lines += ["  Returns:", f"    {describe_structure(self.structured_outputs)}"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.pretty_printed_signature().splitlines()[0]}>"

    def memory_bytes(self) -> int:
        """Bytes this concrete function keeps alive: its graphs' constants and its buffer pool."""
        return (_constant_bytes(self.graph) + _constant_bytes(self.unoptimized_graph)
                + (self._compiled.pooled_bytes() if self._compiled is not None else 0))

    def op_count(self) -> int:
        """Ops of the optimized graph, subgraphs of If/While included."""
        return _op_count(self.graph)

    # --- calling -------------------------------------------------------------------------------------
    def _check_arity(self, args: Sequence[Any]) -> None:
        if len(args) != len(self._tensor_params):
            names = ", ".join(self._param_names[i] for i in self._tensor_params)
            raise TypeError(f"{self.name}: this concrete function takes {len(self._tensor_params)} tensor "
                            f"argument(s) ({names}), got {len(args)}")

    def _argument_leaves(self, args: Sequence[Any]) -> Iterator[Tuple[str, Any, Any]]:
        """(parameter name, spec, value) for each tensor leaf of ``args``, matched against the traced
        signature's structure (a TypeError naming the argument when a structure differs)."""
        specs = self.structured_input_signature[0]
        for index, value in zip(self._tensor_params, args):
            name = self._param_names[index]
            expected = nest.flatten(specs[index])
            given = nest.flatten(value) if isinstance(value, (list, tuple, dict)) else [value]
            if len(given) != len(expected):
                raise TypeError(f"{self.name}: argument '{name}' must be {describe_structure(specs[index])}, "
                                f"got {value!r}")
            yield from ((name, spec, leaf) for spec, leaf in zip(expected, given))

    def _inline(self, args: Sequence[Any]) -> Any:
        """The call as ops of the graph being traced: a copy of this function's (unoptimized) graph reading
        ``args``, so the caller's optimizer, gradients and saving see through it. Each argument must be
        known to have the shape this function was traced for (its ops were built for that shape)."""
        self._check_arity(args)
        graph = context.current_graph()
        inputs = [_traced_argument(self.name, name, spec, leaf) for name, spec, leaf in self._argument_leaves(args)]
        source = self.unoptimized_graph
        copies = copy_into(source, graph, inputs)
        return nest.map_structure(lambda v: copies.get(id(v), v) if isinstance(v, SymbolicTensor) else v,
                                  source.structured_outputs)

    def _call_flat(self, arrays: List[np.ndarray]) -> Any:
        return self._pack(self._run(*arrays))

    @api_boundary
    def __call__(self, *args: Any) -> Any:
        """Call with the tensor arguments only (Python-valued ones were fixed when tracing).

        Each tensor must match its placeholder's dtype and (known) shape. Called while another function
        is being traced, its graph is copied into that one (see ``_inline``).
        """
        if context._state.graph is not None:
            return self._inline(args)
        self._check_arity(args)
        arrays: List[np.ndarray] = []
        leaves: List[Any] = []
        for name, spec, leaf in self._argument_leaves(args):
            array = checked_array(self.name, name, spec, leaf)
            arrays.append(array)
            leaves.append(leaf if isinstance(leaf, Tensor) else EagerTensor(array))
        result = self._call_flat(arrays)
        if call_hooks:
            outputs = [t for t in nest.flatten(result) if isinstance(t, EagerTensor)]
            for hook in call_hooks:
                hook(self, leaves, outputs)
        return result


def _first_run(concrete_ref: "weakref.ref[ConcreteFunction]") -> Callable[..., List[np.ndarray]]:
    """The first call of a graph without loops. Unless one of its arrays is big it runs in the reference
    interpreter (``runtime.backends.interpreter``) on the traced graph: optimizing and compiling cost
    more than interpreting once (0.46 ms against 0.07 for simple_relu's; an LSTM unrolled 50 steps, 750
    ops on 32x512 values: ~75 ms against ~10 ms of interpreting overhead), and a function traced for
    Python arguments may never be called again.
    The same results bit for bit (tests/runtime/backends/test_first_call_tier.py; with ``check_first_calls`` every first
    call of the test suite compares both), the same errors (the failing node and the user's line), the
    same side effects in the same order. From the second call on (and for big inputs, where the
    executor's memory plan and row blocks pay off at once) the optimized graph runs compiled.
    (The concrete function is held weakly: no reference cycle keeps it alive.)"""

    def compile_and_run(*arrays: np.ndarray) -> List[np.ndarray]:
        return concrete_ref().compiled()(*arrays)

    def first_run(*arrays: np.ndarray) -> List[np.ndarray]:
        concrete = concrete_ref()
        concrete._run = compile_and_run
        if _biggest_array(concrete.unoptimized_graph, arrays) > INTERPRET_FIRST_CALL_UP_TO:
            return compile_and_run(*arrays)
        interpret = interpreter.make_callable(concrete.unoptimized_graph)
        if check_first_calls and not concrete.unoptimized_graph.has_stateful_ops():
            return _checked_first_run(interpret, concrete.compiled(), arrays)
        entered = threads.enter_blas(False)  # BLAS on one thread, as the compiled graph's small products run
        try:
            return interpret(*arrays)
        finally:
            threads.leave_blas(entered)

    return first_run


def _biggest_array(graph: FuncGraph, arrays: Sequence[np.ndarray]) -> int:
    """Elements of the biggest of ``arrays`` and of the static-shape results of ``graph``'s ops (those of
    its If branches too); a result of unknown shape is taken to be no bigger than an input."""
    biggest = max((a.size for a in arrays), default=0)
    for op in graph.operations:
        for t in op.outputs:
            shape = t.shape
            if shape is not None and None not in shape:
                biggest = max(biggest, math.prod(shape))
        if op.attrs:
            for value in op.attrs.values():
                if isinstance(value, FuncGraph):
                    biggest = max(biggest, _biggest_array(value, ()))
    return biggest


def _has_loop(graph: FuncGraph) -> bool:
    # Loops rather than nested any(generator)s: this runs for every trace (a third of the cost of
    # creating simple_relu's ConcreteFunction was the generators).
    for op in graph.operations:
        if op.op_def is WHILE:
            return True
        if op.attrs:
            for value in op.attrs.values():
                if isinstance(value, FuncGraph) and _has_loop(value):
                    return True
    return False


def _checked_first_run(interpret: Callable[..., List[np.ndarray]], compiled: Callable[..., List[np.ndarray]],
                       arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
    """``interpret(*arrays)``, after checking that ``compiled`` gives the same arrays bit for bit (dtype,
    shape and bytes: NaNs and signed zeros too) or raises the same error (only for graphs without side
    effects: both run)."""
    try:
        expected = compiled(*arrays)
    except Exception as error:  # noqa: BLE001 - whatever it is, the interpreter must raise the same
        try:
            interpret(*arrays)
        except Exception as other:  # noqa: BLE001
            if type(other) is not type(error) or str(other) != str(error):
                raise AssertionError(f"first call: the interpreter raised {type(other).__name__}: {other}\n"
                                     f"the compiled executor {type(error).__name__}: {error}") from other
            raise
        raise AssertionError(f"first call: the interpreter ran, the compiled executor raised "
                             f"{type(error).__name__}: {error}") from error
    got = interpret(*arrays)
    for index, (a, b) in enumerate(zip(got, expected)):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape or (a.dtype != object and a.tobytes() != b.tobytes()):
            raise AssertionError(f"first call: output {index} of the interpreter, {a!r}, differs from the "
                                 f"compiled executor's, {b!r}")
    return got


def _constant_bytes(graph: FuncGraph) -> int:
    total = 0
    for op in graph.operations:
        value = op.attrs.get("value")
        total += value.nbytes if isinstance(value, np.ndarray) else 0
        total += sum(_constant_bytes(g) for g in op.subgraphs())
    return total


def _op_count(graph: FuncGraph) -> int:
    return sum(1 + sum(_op_count(g) for g in op.subgraphs()) for op in graph.operations)


def _traced_argument(function: str, name: str, spec: TensorSpec, value: Any) -> Tensor:
    """``value`` as a tensor for an inlined call: ``spec``'s dtype, and every dim ``spec`` fixes known."""
    tensor = _checked_tensor(function, name, spec, value)
    known = tensor.shape
    if spec.shape is not None and (known is None or any(s is not None and k is None
                                                       for s, k in zip(spec.shape, known))):
        fixed = [-1 if d is None else d for d in spec.shape]
        raise ValueError(f"{function}: argument '{name}' expected {describe_spec(spec.dtype, spec.shape)}, got "
                         f"{describe_spec(tensor.dtype, tensor.shape)} while tracing: this concrete function's graph "
                         f"was built for that shape, and here some of those dims are known only when the graph runs. "
                         f"Call the Function itself (it traces for the shape it gets), or fix the shape first: "
                         f"rt.reshape({name}, {fixed})")
    return tensor


def checked_array(function: str, name: str, spec: TensorSpec, value: Any) -> np.ndarray:
    """The argument ``name`` of ``function`` (``value``) as the array its graph reads, checked against ``spec``.

    >>> checked_array("f", "x", TensorSpec([2]), [1.0, 2.0])
    array([1., 2.], dtype=float32)
    """
    return np.asarray(_checked_tensor(function, name, spec, value))


def _checked_tensor(function: str, name: str, spec: TensorSpec, value: Any) -> Tensor:
    """``value`` as a tensor of ``spec``'s dtype and a shape ``spec`` accepts; a TypeError or ValueError naming
    the argument otherwise."""
    tensor = value if isinstance(value, Tensor) else convert_to_tensor(value, spec.dtype)
    if tensor.dtype != spec.dtype:
        raise TypeError(f"{function}: argument '{name}' expected {describe_spec(spec.dtype, spec.shape)}, "
                        f"got {describe_spec(tensor.dtype, tensor.shape)}; convert it with "
                        f"rt.cast({name}, rt.{spec.dtype.name})")
    if not spec.is_compatible_with(tensor):
        raise ValueError(f"{function}: argument '{name}' expected {describe_spec(spec.dtype, spec.shape)}, "
                         f"got {describe_spec(tensor.dtype, tensor.shape)} (None dims accept any size; the rank "
                         "and other dims must match)")
    return tensor
