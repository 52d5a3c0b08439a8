"""Plans for elementwise ufunc chains, proven safe statically: in-place buffers and row-block splits.

``plan_buffer_reuse``: which op may write its result into a dying temporary (``out=``).

Naive numpy allocates a fresh array for every step of ``((x * 2 + 1) - x) * x``. When an op is a numpy
ufunc and one of its inputs is a temporary that (1) was itself freshly allocated by a ufunc op of this
graph, (2) is read for the last time by this op, (3) is not a graph output, (4) is only ever read by
ufunc ops (so no view of it can exist elsewhere), and (5) has exactly the static dtype and shape of the
result, the op can compute into that temporary in place: no allocation, same values.

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, (4096,))
...     g.outputs = [rt.subtract(rt.add(rt.multiply(x, 2.0), 1.0), x)]
>>> sorted(plan_buffer_reuse(g, {id(op) for op in g.operations}).values())
[0, 0]

``plan_parallel_regions``: which runs of such ops may be computed in independent row blocks on
several cores (numpy releases the GIL inside ufunc loops).
"""
from __future__ import annotations

import math
import os
from typing import Dict, List, Optional, Set

import numpy as np

from runtime.core.graph import FuncGraph, Operation

MIN_BUFFER_ELEMENTS = 4096  # below this an allocation is cheaper than the extra ``out=`` argument


def plan_buffer_reuse(graph: FuncGraph, needed: Set[int]) -> Dict[int, int]:
    """id(op) -> index of the input whose buffer the op may write its result into."""
    ops = [op for op in graph.operations if id(op) in needed]
    fresh = {id(op) for op in ops if _fresh_ufunc_result(op)}
    outputs = {id(t) for t in graph.outputs}
    last_reader: Dict[int, Operation] = {}
    only_ufunc_readers: Dict[int, bool] = {}
    for op in ops:
        for t in op.inputs:
            last_reader[id(t)] = op
            only_ufunc_readers[id(t)] = only_ufunc_readers.get(id(t), True) and id(op) in fresh
    plan: Dict[int, int] = {}
    for op in ops:
        if id(op) not in fresh:
            continue
        result = op.outputs[0]
        for index, t in enumerate(op.inputs):
            if (id(t.op) in fresh and last_reader[id(t)] is op and id(t) not in outputs
                    and only_ufunc_readers[id(t)] and t.dtype == result.dtype and t.shape == result.shape):
                plan[id(op)] = index
                break
    return plan


def _fresh_ufunc_result(op: Operation) -> bool:
    """True if ``op`` is one numpy ufunc call returning a new array of its static dtype and shape."""
    kernel = op.op_def.kernel
    if (not isinstance(kernel, np.ufunc) or kernel.signature is not None  # a gufunc (matmul): not elementwise
            or op.attrs or kernel.nout != 1 or kernel.nin != len(op.inputs)):
        return False
    (result,) = op.outputs
    if result.shape is None or None in result.shape or math.prod(result.shape) < MIN_BUFFER_ELEMENTS:
        return False
    return _natural_dtype(kernel, [t.dtype for t in op.inputs]) == result.dtype


def _natural_dtype(ufunc: np.ufunc, dtypes) -> Optional[np.dtype]:
    """The dtype ``ufunc`` returns for these input dtypes (``out=`` must not change it)."""
    try:
        with np.errstate(all="ignore"):
            return ufunc(*[np.ones(1, dtype=d) for d in dtypes]).dtype
    except TypeError:
        return None


# --- splitting elementwise chains across cores ---------------------------------------------------------

PARALLEL_MIN_ELEMENTS = 1 << 18  # below this, handing work to another thread costs more than it saves


def plan_parallel_regions(graph: FuncGraph, needed: Set[int]) -> List[List[Operation]]:
    """Runs of consecutive elementwise ufunc ops that may be computed in row blocks on several threads.

    Every op of a region is a fresh-result ufunc (see ``_fresh_ufunc_result``) producing the same static
    shape S (first dim >= 2, at least ``PARALLEL_MIN_ELEMENTS`` elements), and reads only values of
    shape S (sliced along the first axis) or of size 1 (used whole). Row block [lo:hi) of every result
    then depends only on row block [lo:hi) of its inputs, so blocks are independent: the results are
    exactly those of computing everything at once. Constants never break a run (they are bound once).
    """
    if (os.cpu_count() or 1) < 2:
        return []
    regions: List[List[Operation]] = []
    current: List[Operation] = []
    for op in graph.operations:
        if id(op) not in needed or op.type == "Const":
            continue
        if _splittable(op) and (not current or op.outputs[0].shape == current[0].outputs[0].shape):
            current.append(op)
            continue
        if current:
            regions.append(current)
        current = [op] if _splittable(op) else []
    if current:
        regions.append(current)
    return regions


def _splittable(op: Operation) -> bool:
    if not _fresh_ufunc_result(op):
        return False
    shape = op.outputs[0].shape
    if len(shape) == 0 or shape[0] < 2 or math.prod(shape) < PARALLEL_MIN_ELEMENTS:
        return False
    return all(t.shape == shape or (t.shape is not None and None not in t.shape and math.prod(t.shape) == 1)
               for t in op.inputs)
