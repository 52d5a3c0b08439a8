"""A graph as one JAX function: each needed op, in program order, becomes its lowering's JAX operations.

The walk mirrors the reference interpreter (``runtime.backends.interpreter``): only the ops an output needs
run, plus every stateful op, in program order. Values are numpy arrays while they are known when compiling
(constants, shapes: what XLA needs statically, e.g. a ``Reshape``'s target) and JAX tracers otherwise; an op
whose inputs are all known runs its own numpy kernel then, so those values are exactly the numpy executor's.

State is functional (``State``): the Variables' values, the random key of the unseeded random ops, and an
error code (0, or 1 + the index of the first run-time check that failed: an assert, a gather index out of
range, an integer division by zero). It is threaded through every op, and through ``If`` (``lax.cond``) and
``While`` (``lax.while_loop``) as part of their operands and carries.
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence

import numpy as np

from runtime.backends.interpreter import needed_operations
from runtime.backends.xla import table
from runtime.backends.xla.range_facts import KnownRanges
from runtime.core.dtypes import variant
from runtime.core.errors import InvalidArgumentError, LoweringError
from runtime.core.graph import FuncGraph, Operation
from runtime.core.registry import run_kernel
from runtime.core.source_locations import with_creation_site
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.core import CONST, PLACEHOLDER


class State(NamedTuple):
    """What a call reads and changes besides its inputs and outputs (a JAX pytree)."""

    variables: tuple   # one value per Variable the program touches (``Context.variables`` order)
    key: Any           # the PRNG key of the unseeded random ops (None when there are none)
    error: Any         # int32: 0, or 1 + the index in ``Context.checks`` of the first failed check


class LazyRange(NamedTuple):
    """A ``Range`` whose length is known only when the graph runs (``for i in rt.range(n)``): never built as an
    array (XLA needs every array's size when compiling), read only by its consumers that need no array: its
    ``Shape`` and single elements (``GatherV2``/``StridedSlice`` of one index: ``start + index * delta``)."""

    start: Any
    delta: Any
    length: Any   # int32 scalar (traced)
    dtype: Any


# The ops whose lowerings read a LazyRange themselves (runtime.backends.xla.array_ops and index_ops).
READS_LAZY_RANGES: set = {IF, WHILE}   # (If and While pass it on to their subgraphs)


def is_static(value: Any) -> bool:
    """Whether ``value`` is known when compiling (a numpy array), not a JAX tracer."""
    return isinstance(value, (np.ndarray, np.generic))


class Context(KnownRanges):
    """One lowering of one program: the JAX modules, the state, and what the run-time checks are."""

    def __init__(self, jax: Any, variables: Sequence[Any]):
        import jax.numpy as jnp
        from jax import lax
        self.jax, self.jnp, self.lax = jax, jnp, lax
        self.variables = list(variables)
        self.variable_index: Dict[int, int] = {id(v): i for i, v in enumerate(self.variables)}
        # The op of each check, in the order the error code numbers them; index -> what failed, for checks our
        # kernels do not make; id(op) -> index. A program shares them among its lowerings (compiled.py).
        self.checks: List[Operation] = []
        self.check_reasons: Dict[int, str] = {}
        self.check_index: Dict[int, int] = {}
        self.checked_here = False   # whether this lowering left a run-time check (its error code is an output)
        self.loop_depth = 0   # how many tensor loops' bodies are being lowered around the current op
        self.branch_depth = 0   # how many branches of tensor ifs are (an op there may not run)
        self.reserved_appends: set = set()   # ids of the appends whose slots a loop's bound reserved (loops.py)
        self.write_ranges: Optional[Any] = None   # a WriteRanges while a loop's body is probed (loops.py)
        self.loop_trips: Optional[Dict[int, Any]] = None   # id(While) -> its trip count, while probing (loops.py)
        self.reserved_loops: set = set()   # (id(While), position): lists a loop around it reserved slots for
        self._ranges: Dict[int, tuple] = {}   # id(traced int value) -> (it, lowest, highest): range_facts.py
        self.facts: Optional[Any] = None   # the program's value_ranges.Analysis (compiled.py)
        self.state: Optional[State] = None

    # --- what op lowerings use -------------------------------------------------------------------------
    def static(self, value: Any, op: Operation, what: str) -> np.ndarray:
        """``value`` as a numpy array, or a LoweringError: XLA needs ``what`` of ``op`` when compiling."""
        if is_static(value):
            return np.asarray(value)
        raise self.error(op, f"its {what} is computed when the graph runs, but XLA needs it when compiling "
                             "(shapes and sizes are fixed in a compiled program); compute it from Python values "
                             "or static shapes, or run this function with jit_compile=None or 'auto'")

    def error(self, op: Operation, why: str) -> LoweringError:
        error = LoweringError(f"{op.name} ({op.type}) cannot be compiled with jit_compile=True: {why}")
        return with_creation_site(error, op.creation_site)

    def error_from_kernel(self, op: Operation, arrays: Sequence[np.ndarray]) -> Any:
        """Raise, when compiling, the error ``op``'s kernel raises on ``arrays`` (sizes that are wrong for every
        run: the numpy executor would raise it on each call too)."""
        try:
            run_kernel(op.op_def, arrays, op.attrs, op.name)
        except InvalidArgumentError as error:
            if self.loop_depth or self.branch_depth:   # it may never run: the numpy executor would not raise then
                raise self.error(op, f"its sizes fail whenever it runs ({str(error).splitlines()[0]}), but it is in "
                                     "a tensor loop or branch that may not run, and XLA compiles it anyway; run this "
                                     "function with jit_compile=None or 'auto'") from None
            raise with_creation_site(error, op.creation_site) from None
        raise self.error(op, "its sizes are invalid")

    def check(self, ok: Any, op: Operation, why: Optional[str] = None) -> None:
        """Record a run-time check of ``op``: when ``ok`` (a bool scalar) is false and no earlier check
        failed, the error code names this op. After the call, a failed check is raised with the numpy
        executor's own error (``runtime.backends.xla.compiled``); ``why`` says what failed when the numpy
        executor makes no such check (a limit of the compiled program, not of the user's)."""
        if is_static(ok) and bool(ok):
            return
        if not table.may_check(op.op_def):
            raise AssertionError(f"the lowering of {op.type} adds a run-time check: list it in table.CHECKED")
        self.checked_here = True
        index = self.check_index.get(id(op))
        if index is None:
            index = self.check_index[id(op)] = len(self.checks)
            self.checks.append(op)
        if why is not None:
            self.check_reasons[index] = why
        lax, error = self.lax, self.state.error
        ok = ok if getattr(ok, "dtype", None) == np.bool_ else self.jnp.asarray(ok, dtype=bool)
        first_failure = lax.bitwise_and(lax.eq(error, np.int32(0)), lax.bitwise_not(ok))
        self.state = self.state._replace(error=lax.select(first_failure, np.int32(index + 1), error))

    def print(self, op: Operation, values: Sequence[Any]) -> None:
        """``op`` (a PrintV2) prints ``values`` when the program runs, in program order, with its own kernel,
        unless a check failed before it (the numpy executor would have stopped there)."""
        def emit(error, *arrays):
            if int(error) == 0:
                run_kernel(op.op_def, [np.asarray(a) for a in arrays], op.attrs, op.name)
        self.jax.debug.callback(emit, self.state.error, *values, ordered=True)

    is_static = staticmethod(is_static)

    def next_key(self) -> Any:
        """A fresh PRNG key for an unseeded random op (the state's key advances)."""
        key, subkey = self.jax.random.split(self.state.key)
        self.state = self.state._replace(key=key)
        return subkey

    def variable_slot(self, op: Operation) -> int:
        return self.variable_index[id(op.attrs["variable"])]

    # (lax primitives: lax.dynamic_index_in_dim and its kin are jitted functions, each a nested program to trace
    # and lower, with a select for negative indices; the positions here are in range)
    def element_at(self, array: Any, index: Any, axis: int = 0) -> Any:
        """``array``'s element ``index`` (a traced int scalar in ``[0, size)``) along ``axis``: a dynamic slice."""
        starts = [index if d == axis else np.zeros((), index.dtype) for d in range(array.ndim)]
        sizes = [1 if d == axis else size for d, size in enumerate(array.shape)]
        return self.lax.squeeze(self.lax.dynamic_slice(array, starts, sizes, allow_negative_indices=False), (axis,))

    def with_element_at(self, array: Any, element: Any, index: Any) -> Any:
        """``array`` with ``element`` (of its dtype) at ``index`` (a traced int scalar in range) of its first axis."""
        index = self.jnp.asarray(index)
        starts = [index] + [np.zeros((), index.dtype)] * (array.ndim - 1)
        update = self.lax.expand_dims(element, (0,)) if not is_static(element) else np.asarray(element)[None]
        return self.lax.dynamic_update_slice(array, update, starts, allow_negative_indices=False)

    def array(self, value: Any, dtype: Any) -> Any:
        """``value`` as a JAX array of ``dtype`` (static values become constants)."""
        if not is_static(value) and getattr(value, "dtype", None) == dtype:
            return value   # (already one: jnp.asarray would still trace a conversion call)
        return self.jnp.asarray(value, dtype=dtype)

    # --- graphs ----------------------------------------------------------------------------------------
    def lower_graph(self, graph: FuncGraph, inputs: Sequence[Any]) -> List[Any]:
        """``graph``'s outputs, computed from ``inputs`` (its placeholders' values) into ``self.state``."""
        env: Dict[int, Any] = {id(t): v for t, v in zip(graph.inputs, inputs)}
        if self.facts is not None:
            self.declare_facts(graph.inputs, inputs)
        for op in needed_operations(graph):
            op_def = op.op_def
            if op_def is PLACEHOLDER:
                if id(op.outputs[0]) not in env:
                    raise self.error(op, f"placeholder of graph {graph.name} is needed but not fed")
                continue
            if op_def is CONST:
                env[id(op.outputs[0])] = _lower_const(self, op)
                continue
            results = self.lower_op(op, [env[id(t)] for t in op.inputs])
            for tensor, value in zip(op.outputs, results):
                env[id(tensor)] = value
            if self.facts is not None:
                self.declare_facts(op.outputs, results)
        return [env[id(t)] for t in graph.outputs]

    def program_results(self, graph: FuncGraph, values: Sequence[Any]) -> List[Any]:
        """``values``, the top graph's outputs, as the JAX arrays the program returns (of the outputs' dtypes)."""
        for value, tensor in zip(values, graph.outputs):
            if type(value) is LazyRange:   # e.g. ``return rt.range(n)``: an array of a run-time length
                raise self.error(tensor.op, "a range whose length is known only when the graph runs is returned, "
                                            "and XLA needs every array's size when compiling; give it a length "
                                            "known when compiling (a Python int), or run this function with "
                                            "jit_compile=None")
        return [self.array(value, tensor.dtype) for value, tensor in zip(values, graph.outputs)]

    def lower_op(self, op: Operation, inputs: List[Any]) -> Sequence[Any]:
        op_def = op.op_def
        if not op.is_stateful and op_def.kernel is not None and all(is_static(v) for v in inputs):
            try:  # known when compiling: the numpy kernel computes it, exactly as the numpy executor would
                result = run_kernel(op_def, [np.asarray(v) for v in inputs], op.attrs, op.name)
                return tuple(np.asarray(r) for r in result) if isinstance(result, tuple) else (np.asarray(result),)
            except InvalidArgumentError:
                pass  # lowered below: its check raises this error if the op really runs
        if op_def not in READS_LAZY_RANGES and any(type(v) is LazyRange for v in inputs):
            raise self.error(op, "it reads a range whose length is known only when the graph runs (XLA needs every "
                                 "array's size when compiling); a loop over it (for i in rt.range(n)), its shape "
                                 "and its single elements compile; other uses need a Python length (rt.range(5)), "
                                 "or run this function with jit_compile=None or 'auto'")
        lowering = lowering_of(op_def)
        if lowering is None:
            raise self.error(op, table.NOT_LOWERED.get(op_def, "it has no JAX lowering"))
        try:
            result = lowering(self, op, *inputs)
        except (LoweringError, InvalidArgumentError):   # (the kernel's own error: error_from_kernel)
            raise
        except (TypeError, ValueError, IndexError) as error:  # JAX refused what the lowering built: say which op
            self._raise_kernels_error_on_these_shapes(op, inputs)
            raise self.error(op, f"{type(error).__name__}: {error}") from None
        results = result if type(result) is tuple else (result,)   # (a LazyRange is one value)
        results = tuple(self._with_dtype(value, tensor) for value, tensor in zip(results, op.outputs))
        if self._ranges:
            self.propagate(op_def, inputs, results)
        return results

    def _raise_kernels_error_on_these_shapes(self, op: Operation, inputs: List[Any]) -> None:
        """Raise the numpy executor's own error if ``op``'s kernel refuses its inputs' shapes (known when compiling,
        maybe not when tracing: ``x + y`` of a [3] and a [4] vector traced as [None]): it does on every call of
        these shapes. A no-op where the kernel accepts them or some input is not an array (a list, a range)."""
        arrays = []
        for value in inputs:
            if is_static(value):
                arrays.append(np.asarray(value))
            elif isinstance(value, self.jax.Array) and np.dtype(value.dtype) != np.dtype(object):
                arrays.append(np.zeros(value.shape, value.dtype))
            else:
                return
        if op.op_def.kernel is None or self.loop_depth or self.branch_depth:   # (it may never run)
            return
        try:
            run_kernel(op.op_def, arrays, op.attrs, op.name)
        except InvalidArgumentError as error:
            raise with_creation_site(error, op.creation_site) from None
        except Exception:  # noqa: BLE001 - another failure is not the kernel's verdict on these shapes
            return

    def _with_dtype(self, value: Any, tensor: Any) -> Any:
        # A lowering may leave a value in a wider or weaker dtype than the op declares; the graph's dtype wins.
        if tensor.dtype == variant or type(value) is LazyRange or value.dtype == tensor.dtype:
            return value
        return value.astype(tensor.dtype) if is_static(value) else self.jnp.asarray(value, dtype=tensor.dtype)


def lowering_of(op_def) -> Optional[table.Lowering]:
    lowering = table.LOWERINGS.get(op_def)
    if lowering is not None:
        return lowering
    ufunc = op_def.elementwise_ufunc
    if ufunc is not None and ufunc.__name__ in table.UFUNC_NAMES:
        return _ufunc_lowering(ufunc.__name__, op_def.zero_divisor_error)
    return None


def _ufunc_lowering(name: str, zero_divisor_error: bool) -> table.Lowering:
    def lower(ctx: Context, op: Operation, *inputs: Any) -> Any:
        if zero_divisor_error and op.inputs[1].dtype.kind in "iu":   # the kernel raises on a division by zero
            ctx.check(np.all(inputs[1] != 0) if is_static(inputs[1]) else ctx.jnp.all(inputs[1] != 0), op)
        return getattr(ctx.jnp, name)(*inputs)
    return lower


UNIFORM_CONSTANT_SIZE = 1024


@table.lowers(CONST)
def _lower_const(ctx: Context, op: Operation) -> Any:
    """The constant as a numpy array (known when compiling), except a big one whose elements are all equal (a
    folded ``zeros_like``): a broadcast scalar, not a literal XLA would carry and compile element by element."""
    value = np.asarray(op.attrs["value"])
    if value.size >= UNIFORM_CONSTANT_SIZE and value.dtype.kind in "biuf":
        first = value.flat[0]
        if (value == first).all():
            return ctx.jnp.full(value.shape, first, value.dtype)
    return value


table.NOT_LOWERED[PLACEHOLDER] = "not an op that runs: each placeholder is an argument of the JAX function"


# --- control flow ----------------------------------------------------------------------------------------
def as_operand(ctx: Context, value: Any, tensor: Any, op: Operation) -> Any:
    """``value`` as what a branch returns or a loop carries (a JAX array of the tensor's dtype, or a list)."""
    if type(value) is LazyRange:
        raise ctx.error(op, "a range whose length is known only when the graph runs is carried by this loop or "
                            "returned by this branch, and XLA needs every array's size when compiling")
    if tensor.dtype == variant:
        return value
    return ctx.array(value, tensor.dtype)


@table.lowers(IF)
def _lower_if(ctx: Context, op: Operation, cond: Any, *inputs: Any) -> tuple:
    then_branch, else_branch = op.attrs["then_branch"], op.attrs["else_branch"]
    if is_static(cond):  # known when compiling: only the branch taken is compiled
        return tuple(ctx.lower_graph(then_branch if bool(cond) else else_branch, inputs))

    # The branches' ops may not run: an error their shapes give when compiling is not raised for them (see
    # Context.error_from_kernel), and those of a branch JAX refuses are a LoweringError
    ctx.branch_depth += 1
    try:
        return _lower_branches(ctx, op, cond, inputs, then_branch, else_branch)
    finally:
        ctx.branch_depth -= 1


def _lower_branches(ctx: Context, op: Operation, cond: Any, inputs: Sequence[Any], then_branch: FuncGraph,
                    else_branch: FuncGraph) -> tuple:
    if _small_and_pure(then_branch) and _small_and_pure(else_branch):
        # A few ops without side effects or checks: both branches run and a select picks (lax.cond costs more
        # than they do on a CPU, and XLA fuses a select with its neighbours).
        pairs = [(as_operand(ctx, t, tensor, op), as_operand(ctx, e, tensor, op)) for t, e, tensor in
                 zip(ctx.lower_graph(then_branch, inputs), ctx.lower_graph(else_branch, inputs), op.outputs)]
        if all(t.shape == e.shape for t, e in pairs):
            return tuple(ctx.jnp.where(cond, t, e) for t, e in pairs)

    def branch(graph: FuncGraph):
        def run(state: State):
            ctx.state = state
            outputs = ctx.lower_graph(graph, inputs)
            return [as_operand(ctx, v, t, op) for v, t in zip(outputs, op.outputs)], ctx.state
        return run

    try:
        outputs, ctx.state = ctx.lax.cond(cond, branch(then_branch), branch(else_branch), ctx.state)
    except TypeError as error:
        raise ctx.error(op, "its two branches give values of different shapes or structures, and XLA needs one "
                            "shape per output: pad or reshape them to agree, or run this function with "
                            f"jit_compile=None or 'auto' ({type_mismatch(error)})") from None
    return tuple(outputs)


def type_mismatch(error: Exception) -> str:
    """The line of JAX's error for branches or a loop carry whose types differ that says which differ."""
    return next((line.strip() for line in str(error).splitlines() if " has type " in line), str(error))


SMALL_BRANCH_OPS = 8


def _small_and_pure(graph: FuncGraph) -> bool:
    """At most SMALL_BRANCH_OPS ops, none stateful, none with a run-time check, no loops or lists: a branch
    that may run when its condition is false without anyone seeing it."""
    operations = graph.operations
    if len(operations) > SMALL_BRANCH_OPS + len(graph.inputs):
        return False
    for op in operations:
        if (op.is_stateful or table.may_check(op.op_def) or op.op_def is WHILE or op.op_def is IF
                or any(t.dtype == variant for t in op.outputs)):
            return False
    return True
