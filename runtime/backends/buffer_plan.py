"""The memory plan of a compiled graph: when each value dies, and which buffer each big result is written into.

Naive numpy allocates a fresh array for every step of ``((x * 2 + 1) - x) / (x + 1)``, and code that keeps
every intermediate in a local until it returns holds them all at once. ``plan_memory`` walks the needed
top-level ops in program order (liveness: the last op reading each value) and decides:

- **Pooled temporaries.** A result that (1) an op can write into a given buffer (an elementwise ufunc
  whose natural dtype is the result's, a ``Cast``, a ``SelectV2``, a ``MatMul``, or an elementwise op with
  an ``into_kernel`` such as ``Sigmoid``), (2) has a fully known
  static shape of at least ``MIN_BUFFER_ELEMENTS`` elements, (3) is not a graph output and (4) is read
  only by ops that return new arrays (so no view of it can escape), goes into a *slot*: a buffer kept
  with the compiled function and reused by every call. A slot is free again after the last reader of
  its value; an elementwise ufunc may write into the slot of an input dying at that op (exact overlap is
  safe for ufuncs), other ops only into a slot none of their inputs uses.
- **Dropped values.** Any other big (or unknown-size) intermediate is deleted right after its last use,
  so peak memory is the live set, not the sum of all intermediates.
- **Row-block regions.** Runs of elementwise ops on one big shape, computed in independent row blocks
  (numpy releases the GIL inside ufunc loops; blocks also stay in cache), see ``row_blocks``.
- **Block buffers.** A value born and dead inside one region never exists whole: each row block computes
  it into a *block buffer* (one block's rows, per thread, reused by every block and call), planned like
  the slots but per region. The chain ``((x * 2 + 1) * x - 3) / (x + 1) * 0.5`` on 1e6 floats then
  touches x, its result and two 512 KB block buffers, where numpy touches three 4 MB arrays.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, (4096,))
...     g.outputs = [rt.divide(rt.subtract(rt.add(rt.multiply(x, 2.0), 1.0), x), x)]
>>> plan = plan_memory(g, [op for op in g.operations if op.op_def is not CONST][1:])
>>> plan.slots, sorted(plan.slot_of.values())
([((4096,), dtype('float32'))], [0, 0, 0])
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from runtime.core.graph import FuncGraph, Operation
from runtime.ops.cast_op import CAST
from runtime.ops.combine_ops import SELECT
from runtime.ops.core import CONST, PLACEHOLDER
from runtime.ops.math_ops import MATMUL
from runtime.ops.variables import ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE, ASSIGN_VARIABLE

MIN_BUFFER_ELEMENTS = 4096  # below this an allocation is cheaper than managing a buffer
# Smaller regions run on the calling thread only (measured: see docs/performance-history.md).
PARALLEL_MIN_ELEMENTS = 1 << 18

# Readers that return a new array and keep no reference to their inputs (a variable write stores a new
# array computed from the value: the value's buffer may be reused after it).
_KEEP_NO_INPUT = (MATMUL, SELECT, ASSIGN_VARIABLE, ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE)

# How an op writes its result into a given buffer ``out`` (the executor emits these forms).
UFUNC, CAST_INTO, SELECT_INTO, MATMUL_INTO, KERNEL_INTO = "ufunc", "cast", "select", "matmul", "kernel"


@dataclass
class MemoryPlan:
    """``slots``: (shape, dtype) of each pooled buffer; ``slot_of``: id(tensor) -> its slot;
    ``write_kind``: id(op) -> how it writes into its result's slot (or fresh buffer in a region);
    ``drop_after``: position in ``ops`` -> tensors to delete after that op; ``regions``: row-block runs;
    ``block_buffers``: per region, the (shape, dtype) of each of its block buffers (the value's whole shape:
    a block is some of its rows); ``block_buffer_of``: id(tensor) -> its block buffer in its region."""

    slots: List[Tuple[Tuple[int, ...], np.dtype]] = field(default_factory=list)
    slot_of: Dict[int, int] = field(default_factory=dict)
    write_kind: Dict[int, str] = field(default_factory=dict)
    drop_after: Dict[int, List] = field(default_factory=dict)
    regions: List[List[Operation]] = field(default_factory=list)
    block_buffers: List[List[Tuple[Tuple[int, ...], np.dtype]]] = field(default_factory=list)
    block_buffer_of: Dict[int, int] = field(default_factory=dict)


def write_kind(op: Operation) -> Optional[str]:
    """How ``op`` can compute straight into a buffer of its static result shape and dtype, or None."""
    if len(op.outputs) != 1:
        return None
    result = op.outputs[0]
    if result.shape is None or None in result.shape or any(t.shape is None for t in op.inputs):
        return None
    if math.prod(result.shape) < MIN_BUFFER_ELEMENTS:
        return None  # small results are never pooled nor split: plain expressions are cheaper
    op_def = op.op_def
    if op_def is CAST:
        return CAST_INTO
    if op_def is SELECT:
        return SELECT_INTO
    if op_def is MATMUL:
        return MATMUL_INTO if len(result.shape) >= 2 else None
    if op_def.into_kernel is not None:  # elementwise, no single ufunc (Sigmoid, Softplus): its own out= form
        return KERNEL_INTO if all(t.shape == result.shape for t in op.inputs) else None
    ufunc = op_def.elementwise_ufunc
    if ufunc is None or op.attrs or ufunc.nout != 1 or ufunc.nin != len(op.inputs):
        return None
    if op_def.zero_divisor_error and result.dtype.kind in "iu" and not _nonzero_constant(op.inputs[1]):
        return None  # the kernel's zero check must run
    return UFUNC if _natural_dtype(ufunc, tuple(t.dtype for t in op.inputs)) == result.dtype else None


def _nonzero_constant(tensor) -> bool:
    return tensor.op.op_def is CONST and bool(np.all(tensor.op.attrs["value"]))


@functools.lru_cache(maxsize=None)
def _natural_dtype(ufunc: np.ufunc, dtypes: Tuple[np.dtype, ...]) -> Optional[np.dtype]:
    """The dtype ``ufunc`` returns for these input dtypes (``out=`` must not change it)."""
    try:
        with np.errstate(all="ignore"):
            return ufunc(*[np.ones(1, dtype=d) for d in dtypes]).dtype
    except TypeError:
        return None


def _big(tensor, minimum: int = MIN_BUFFER_ELEMENTS) -> bool:
    shape = tensor.shape
    return shape is None or None in shape or math.prod(shape) >= minimum


def plan_memory(graph: FuncGraph, ops: Sequence[Operation]) -> MemoryPlan:
    """The memory plan for the needed top-level ``ops`` of ``graph`` (program order); see the module doc."""
    plan = MemoryPlan()
    outputs = {id(t) for t in graph.outputs}
    kinds = {id(op): write_kind(op) for op in ops}
    last_use: Dict[int, int] = {}
    fresh_readers: Dict[int, bool] = {}  # id(tensor) -> every reader returns a new array
    for position, op in enumerate(ops):
        returns_new = (op.op_def.elementwise_ufunc is not None or op.op_def in _KEEP_NO_INPUT
                       or op.op_def.into_kernel is not None
                       or (op.op_def is CAST and op.inputs[0].dtype != op.outputs[0].dtype))
        # (those kernels always return a new array and keep no reference to their inputs; a Cast to the
        # same dtype returns its input)
        for t in op.inputs:
            last_use[id(t)] = position
            fresh_readers[id(t)] = fresh_readers.get(id(t), True) and returns_new
    plan.regions = _row_block_regions(ops, kinds)
    _plan_block_buffers(plan, ops, kinds, outputs, last_use)
    free: Dict[Tuple, List[int]] = {}  # (shape, dtype) -> free slot numbers
    for position, op in enumerate(ops):
        kind = kinds[id(op)]
        if kind is not None:
            plan.write_kind[id(op)] = kind
            result = op.outputs[0]
            if id(result) in plan.block_buffer_of:
                pass  # lives only inside its region: a block buffer (above)
            elif id(result) not in outputs and fresh_readers.get(id(result), False):
                plan.slot_of[id(result)] = _take_buffer(plan.slots, plan.slot_of, free, op, kind, last_use,
                                                        position)
        dying = [t for t in op.inputs if last_use.get(id(t)) == position]
        dying += [t for t in op.outputs if id(t) not in last_use and id(t) not in outputs]
        for t in dict.fromkeys(dying):  # each tensor once, in order
            slot = plan.slot_of.get(id(t))
            if slot is not None:
                if slot != plan.slot_of.get(id(op.outputs[0]) if op.outputs else None):
                    free.setdefault(plan.slots[slot], []).append(slot)
            elif (t.op.op_def not in (CONST, PLACEHOLDER) and _big(t) and id(t) not in outputs
                  and id(t) not in plan.block_buffer_of):
                plan.drop_after.setdefault(position, []).append(t)
    return plan


def _take_buffer(specs: List[Tuple], buffer_of: Dict[int, int], free: Dict[Tuple, List[int]], op: Operation,
                 kind: str, last_use: Dict[int, int], position: int) -> int:
    """A buffer for ``op``'s result: an input's dying at this op (an elementwise ufunc may write over its
    input: exact overlap is safe), else a free one of its shape and dtype, else a new one."""
    result = op.outputs[0]
    spec = (tuple(result.shape), result.dtype)
    if kind == UFUNC:  # in place over an input that dies here
        for t in op.inputs:
            buffer = buffer_of.get(id(t))
            if buffer is not None and last_use[id(t)] == position and specs[buffer] == spec:
                return buffer
    available = free.get(spec)
    if available:
        return available.pop()
    specs.append(spec)
    return len(specs) - 1


def _plan_block_buffers(plan: MemoryPlan, ops: Sequence[Operation], kinds: Dict[int, Optional[str]], outputs,
                        last_use: Dict[int, int]) -> None:
    """Give each value born and dead inside one region a block buffer of that region. A value read after
    its region, or returned, is written into a whole array instead (a pooled slot where it may be)."""
    position_of = {id(op): position for position, op in enumerate(ops)}
    for region in plan.regions:
        specs: List[Tuple] = []
        free: Dict[Tuple, List[int]] = {}
        end = position_of[id(region[-1])]
        for op in region:
            position = position_of[id(op)]
            result = op.outputs[0]
            if id(result) not in outputs and last_use.get(id(result), position) <= end:
                plan.block_buffer_of[id(result)] = _take_buffer(specs, plan.block_buffer_of, free, op,
                                                                kinds[id(op)], last_use, position)
            for t in dict.fromkeys(op.inputs):
                buffer = plan.block_buffer_of.get(id(t))
                if (buffer is not None and last_use[id(t)] == position
                        and buffer != plan.block_buffer_of.get(id(result))):
                    free.setdefault(specs[buffer], []).append(buffer)
            buffer = plan.block_buffer_of.get(id(result))
            if buffer is not None and id(result) not in last_use:  # never read: free at once
                free.setdefault(specs[buffer], []).append(buffer)
        plan.block_buffers.append(specs)


# --- splitting elementwise chains into row blocks ------------------------------------------------------

def _row_block_regions(ops: Sequence[Operation], kinds: Dict[int, Optional[str]]) -> List[List[Operation]]:
    """Runs of consecutive elementwise ops that may be computed in independent row blocks.

    Every op of a region writes into a buffer (ufunc, cast or select), produces the same static shape S
    (first dim >= 2, at least ``PARALLEL_MIN_ELEMENTS`` elements), and reads only values of shape S
    (sliced along the first axis) or of size 1 (used whole). Row block [lo:hi) of every result then
    depends only on row block [lo:hi) of its inputs, so blocks are independent: the results are exactly
    those of computing everything at once. Constants never break a run (they are bound once).
    """
    regions: List[List[Operation]] = []
    current: List[Operation] = []
    for op in ops:
        if op.op_def is CONST:
            continue
        splittable = _splittable(op, kinds[id(op)])
        if splittable and (not current or op.outputs[0].shape == current[0].outputs[0].shape):
            current.append(op)
            continue
        if current:
            regions.append(current)
        current = [op] if splittable else []
    if current:
        regions.append(current)
    return regions


def _splittable(op: Operation, kind: Optional[str]) -> bool:
    if kind not in (UFUNC, CAST_INTO, SELECT_INTO, KERNEL_INTO):
        return False
    shape = op.outputs[0].shape
    if len(shape) == 0 or shape[0] < 2 or math.prod(shape) < PARALLEL_MIN_ELEMENTS:
        return False
    return all(t.shape == shape or math.prod(t.shape) == 1 for t in op.inputs)
