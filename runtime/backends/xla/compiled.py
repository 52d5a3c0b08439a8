"""The executor of ``jit_compile=True``: a graph lowered to one JAX function, compiled with ``jax.jit``.

``make_callable(graph, numpy_executor, mode)`` returns ``run(*arrays) -> [arrays]``, a drop-in replacement for
the numpy executor's callable. Each call:

- reads the Variables the graph touches as device arrays, runs the compiled program, and writes back the ones it
  assigned as device arrays (functional state: a jitted training step works). A Variable keeps the device array
  between calls and makes a numpy array of it only when eager code, the numpy executor or saving reads it; an
  eager write replaces both, and the next call copies the new value to the device (``Variable.device_value``);
- gives unseeded random ops a fresh key (drawn on the host, so every call draws new values; seeded ops give the
  same values on every call, as in the numpy executor, though not the same values);
- raises a failed run-time check (an assert, an index out of range) with the numpy executor's own error: the
  call is rerun there from the same state (its prints silenced: they already printed), so the message, the
  node, the user's line and the Variables' values are exactly the numpy executor's.

JAX compiles once per input shape (a graph traced with ``None`` dims compiles for each shape it meets). With
``mode="auto"`` a graph that cannot be lowered (a ``LoweringError``) runs on the numpy executor, with a warning.
"""
from __future__ import annotations

import contextlib
import io
import logging
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import numpy as np

from runtime.backends.xla import array_ops, index_ops, list_ops, loops, ops  # noqa: F401  (they declare the lowerings)
from runtime.backends.xla import DataParallel, import_jax
from runtime.backends.xla.lowering import Context, State
from runtime.backends.xla import value_ranges
from runtime.backends.xla.table import may_check
from runtime.core.errors import InvalidArgumentError, LoweringError
from runtime.core.graph import FuncGraph, Operation
from runtime.core.source_locations import with_creation_site
from runtime.ops.random_ops import CATEGORICAL, NORMAL, UNIFORM
from runtime.ops.reduction_ops import MEAN
from runtime.ops.variables import (
    ASSIGN_ADD_VARIABLE,
    ASSIGN_SUB_VARIABLE,
    ASSIGN_VARIABLE,
)

logger = logging.getLogger("runtime")
_RANDOM = (UNIFORM, NORMAL, CATEGORICAL)
_WRITES = (ASSIGN_VARIABLE, ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE)


def all_operations(graph: FuncGraph) -> Iterator[Operation]:
    """Every op of ``graph`` and of its If/While subgraphs."""
    for op in graph.operations:
        yield op
        for subgraph in op.subgraphs():
            yield from all_operations(subgraph)


class Program:
    """One graph as a jitted JAX function, with what a call needs around it (see the module docstring)."""

    def __init__(self, graph: FuncGraph, placement: Optional[DataParallel] = None):
        self.jax = import_jax()
        list_ops.register_pytree()
        self.placement = None if placement is None else placement.shardings(self.jax)
        self.graph = graph
        self.variables: List[Any] = []
        written: List[int] = []
        self.unseeded_random = False
        random_seeds: List[Any] = []
        wide = any(t.dtype.itemsize == 8 for t in graph.inputs + graph.outputs)
        for op in all_operations(graph):
            variable = op.attrs.get("variable")
            if variable is not None:
                if not any(v is variable for v in self.variables):
                    self.variables.append(variable)
                index = next(i for i, v in enumerate(self.variables) if v is variable)
                if op.op_def in _WRITES and index not in written:
                    written.append(index)
            if op.op_def in _RANDOM:  # every random op draws new values on each call (TensorFlow's rule)
                self.unseeded_random = True
                random_seeds.append(op.attrs["seed"].seed)
            wide = wide or any(t.dtype.itemsize == 8 for t in op.outputs if t.dtype.kind in "fiub") or (
                op.op_def is MEAN and op.inputs[0].dtype.kind in "iu")   # integer means sum in int64
        self.written = tuple(sorted(written))
        self.checked = any(may_check(op.op_def) for op in all_operations(graph))
        self.wide = wide or any(v.dtype.itemsize == 8 for v in self.variables)
        # Numbered once for every lowering: JAX lowers the program again for each new input shape, each lowering
        # keeps the checks its shapes leave, and an error code must name its own op whichever lowering ran
        self.checks: List[Operation] = []
        self.check_reasons: Dict[int, str] = {}
        self._check_index: Dict[int, int] = {}
        # Where the Variables' device values live: JAX's default device (None), or replicated on the mesh
        self._variable_placement = None if self.placement is None else self.placement[1]
        self._put = self.jax.device_put
        # The per-call keys: reproducible from the ops' seeds when every random op has them (set_seed or op seeds)
        seeded = random_seeds and all(seed is not None for seed in random_seeds)
        self._generator = np.random.default_rng([part for seed in random_seeds for part in seed] if seeded else None)
        self._lock = threading.Lock()
        # The locks of the Variables this program assigns, in one order every program takes them in (by id: both
        # hold the Variables, so the ids are stable), so two programs never wait for each other's.
        self._variable_locks = [v._lock for v in sorted((self.variables[i] for i in self.written), key=id)]
        self._acquire_locks = [lock.acquire for lock in self._variable_locks]
        self._release_locks = [lock.release for lock in reversed(self._variable_locks)]
        self.plain = not (self.variables or self.unseeded_random or self.checked or self.wide or self.placement)
        # A plain program of one output returns that array alone: JAX's call is ~2 us cheaper than with a list
        self.single = self.plain and len(graph.outputs) == 1
        # What a stateful call reads and writes, resolved once (a call's own Python is the overhead per call)
        self._written_variables = tuple(self.variables[i] for i in self.written)
        self._plain_arguments = self.placement is None and not self.unseeded_random
        self.rerun: Optional[Callable[[], Callable[..., List[np.ndarray]]]] = None   # the numpy executor, lazily
        self.falls_back = False   # jit_compile='auto': a call the compiled program cannot run runs on the numpy one
        self.jitted = self.jax.jit(self._program)

    # --- the traced JAX function ----------------------------------------------------------------------------
    def _program(self, *flat: Any):
        """``flat``: the graph's inputs, then the Variables' values, then the random key (if the graph draws)."""
        jnp = self.jax.numpy
        count, variables = len(self.graph.inputs), len(self.variables)
        ctx = Context(self.jax, self.variables)
        ctx.checks, ctx.check_reasons, ctx.check_index = self.checks, self.check_reasons, self._check_index
        key = flat[count + variables] if self.unseeded_random else None
        ctx.state = State(tuple(flat[count:count + variables]), key, jnp.int32(0))
        ctx.facts = value_ranges.analyze(self.graph, flat[:count])   # (index checks it proves needless: none)
        results = ctx.program_results(self.graph, ctx.lower_graph(self.graph, list(flat[:count])))
        if self.plain:
            return results[0] if self.single else results
        written = tuple(ctx.state.variables[i] for i in self.written)
        # The error code only when a check is left (ops that may check often need none: a constant range's step,
        # an index a loop counter's range bounds): an output fewer
        return (results, written, ctx.state.error) if ctx.checked_here else (results, written)

    # --- a call -----------------------------------------------------------------------------------------------
    def arguments(self, arrays: Sequence[np.ndarray]) -> List[Any]:
        """The jitted function's arguments for a call with ``arrays`` (see ``_program``)."""
        if self._plain_arguments:   # the common case: the arrays, then the Variables' device values
            put = self._put
            return [*arrays, *[variable.device_value(None, put) for variable in self.variables]]
        flat = list(arrays)
        if self.placement is not None:  # XLA compiles for where the data is: batches split, the rest replicated
            split, replicated, count = self.placement
            put = self.jax.device_put
            flat = [put(a, split if a.ndim and a.shape[0] % count == 0 else replicated) for a in flat]
        placement, put = self._variable_placement, self._put
        flat.extend(v.device_value(placement, put) for v in self.variables)
        if self.unseeded_random:
            key = self._generator.integers(0, 2 ** 32, size=2, dtype=np.uint32)
            flat.append(key if self.placement is None else self.jax.device_put(key, self.placement[1]))
        return flat

    def x64(self) -> Any:
        """The context a call runs in: 64-bit types switched on for graphs that use them (JAX's default is
        32 bits; switching it on for the whole process would change other JAX code's defaults)."""
        if self.wide and not self.jax.config.jax_enable_x64:
            return self.jax.enable_x64(True)
        return contextlib.nullcontext()

    @property
    def program(self) -> "Program":
        return self   # what a concrete function's run callable exposes, with or without the 'auto' wrapper

    def __call__(self, *arrays: np.ndarray) -> List[np.ndarray]:
        if self.plain:  # no state, no checks, 32-bit: the jitted function is the whole call
            if self.single:
                return [np.asarray(self.jitted(*arrays))]
            return [np.asarray(value) for value in self.jitted(*arrays)]
        # A call reads the Variables, runs, then writes them back: two calls at once, of this program or of
        # another assigning the same Variables, would both read the old values and one's update would be lost.
        # So a call holds the locks of the Variables it assigns (the numpy executor's assign_add takes them too;
        # they are reentrant: a failed check's rerun on the numpy executor takes them again), and this program's
        # own lock (its key generator and device copies are not thread-safe).
        acquires, releases, held = self._acquire_locks, self._release_locks, 0
        with self._lock:
            try:   # (acquired and released by hand, through bound methods: an ExitStack costs ~1 us per lock)
                for acquire in acquires:
                    acquire()
                    held += 1
                return self._call_stateful(arrays)
            finally:
                for release in releases[len(releases) - held:]:   # those taken, the last first
                    release()

    def _call_stateful(self, arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
        if self.wide:
            with self.x64():   # (the Variables' values go to the device here: a float64 one must stay float64)
                results = self.jitted(*self.arguments(arrays))
        else:
            results = self.jitted(*self.arguments(arrays))
        if len(results) == 3:   # the program checks something (see _program)
            outputs, written, error = results
            code = int(error)
            if code:
                return self._failed_check(code, arrays, self.rerun)
        else:
            outputs, written = results
        placement = self._variable_placement
        if placement is None:
            for variable, value in zip(self._written_variables, written):
                # kept on the device (numpy again only when something else reads it: see Variable._state)
                variable.set_device_value(value, None)
        else:
            for variable, value in zip(self._written_variables, written):
                # replicated, whatever sharding XLA gave the result (a no-op when it is)
                variable.set_device_value(self._put(value, placement), placement)
        return [np.asarray(value) for value in outputs]

    def _failed_check(self, code: int, arrays: Sequence[np.ndarray], rerun: Optional[Callable]) -> List[np.ndarray]:
        """Raise the error of failed check ``code``: the numpy executor's, or, when the same call passes there (a
        limit of the compiled program, e.g. a TensorArray written past the slots its loop's bound reserved), one
        saying so; with ``jit_compile='auto'`` the call's results are then the numpy executor's, with a warning."""
        op = self.checks[code - 1]
        reason = self.check_reasons.get(code - 1)
        if rerun is not None:
            # The same call on the numpy executor, from the same state: it raises the exact error (and leaves the
            # Variables as it leaves them). Its prints are silenced: the compiled call printed them already.
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                outputs = rerun()(*arrays)
            if reason is not None and self.falls_back:
                logger.warning("jit_compile='auto': %s: %s in the XLA-compiled call; this call ran on the numpy "
                               "executor instead", op.name, reason)
                return outputs
        if reason is not None:
            error = InvalidArgumentError(f"{op.name}: {reason} in the XLA-compiled call (the same call on the numpy "
                                         "executor passed); run this function with jit_compile=None")
        else:
            error = InvalidArgumentError(
                f"{op.name}: a run-time check of this {op.type} failed in the XLA-compiled call, but the same call "
                "on the numpy executor passed (its random draws differ); run with jit_compile=None to see the values")
        raise with_creation_site(error, op.creation_site)

    def compiler_ir(self, arrays: Sequence[np.ndarray]) -> str:
        """The StableHLO text of the program compiled for ``arrays``' shapes."""
        with self.x64():
            return self.jitted.lower(*self.arguments(arrays)).as_text()


def make_callable(graph: FuncGraph, numpy_executor: Callable[[], Callable[..., List[np.ndarray]]],
                  mode: Any = True) -> Callable[..., List[np.ndarray]]:
    """``run(*arrays) -> [arrays]`` running ``graph`` compiled by XLA (see the module docstring).

    ``numpy_executor()`` gives the numpy executor's callable of the same graph: failed checks are rerun there,
    and with ``mode="auto"`` a graph that cannot be lowered runs there (with a warning naming why).
    """
    program = Program(graph, mode if isinstance(mode, DataParallel) else None)
    program.rerun = numpy_executor
    if mode != "auto":
        return _plain_call(program) if program.plain else program
    program.falls_back = True
    fallback: List[Optional[Callable]] = [None]

    def run(*arrays: np.ndarray) -> List[np.ndarray]:
        if fallback[0] is not None:
            return fallback[0](*arrays)
        try:
            return program(*arrays)
        except LoweringError as error:
            logger.warning("jit_compile='auto': %s; running graph %s on the numpy executor instead", error,
                           graph.name)
            fallback[0] = numpy_executor()
            return fallback[0](*arrays)

    run.program = program  # type: ignore[attr-defined]
    return run


def _plain_call(program: Program) -> Callable[..., List[np.ndarray]]:
    """A plain program's call (no state, no checks, 32-bit) as a closure over its jitted function: what
    ``Program.__call__`` does for it, without the method's dispatch and attribute lookups on every call."""
    jitted, asarray = program.jitted, np.asarray
    if program.single:
        def run(*arrays: np.ndarray) -> List[np.ndarray]:
            return [asarray(jitted(*arrays))]
    else:
        def run(*arrays: np.ndarray) -> List[np.ndarray]:
            return [asarray(value) for value in jitted(*arrays)]
    run.program = program  # type: ignore[attr-defined]
    return run
