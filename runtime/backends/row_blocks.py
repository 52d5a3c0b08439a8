"""Running an elementwise region in row blocks: the calling thread and the workers share one queue.

The rows are cut into blocks of about ``BLOCK_ELEMENTS`` elements, more blocks than cores. Blocks are
handed out by a shared counter: the calling thread takes blocks like every worker does, so a worker
the OS does not schedule (the other core is busy) costs nothing — the caller simply takes all the
blocks — and the call never waits for a worker that has not started. Regions are only planned from
``PARALLEL_MIN_ELEMENTS`` on (see ``buffer_plan``). When the machine has no spare core right now (as
many runnable threads as cores, see ``threads.spare_cores``), or ``rt.config.set_threads(1)`` allows one
thread, the caller computes every block itself; it never asks more than ``get_threads() - 1`` workers. numpy
releases the GIL inside ufunc loops, so blocks on different threads run at the same time. Workers
silence numpy's floating-point warnings as the calling thread does (the error state is per thread).

Values that live only inside the region are computed into *block buffers*: arrays of one block's rows,
one set per thread (kept and reused by every later block and call on that thread), passed to the region
function before the whole arrays. A block's values then stay in the core's cache from one op to the
next, and a call touches its inputs, its results and a few block buffers instead of whole temporaries.

>>> import numpy as np
>>> x, out = np.arange(10.0), np.empty(10)
>>> def rows_of_region(lo, hi, block0, x, out):
...     block0_rows = block0[:hi - lo]
...     np.multiply(x[lo:hi], 2.0, out=block0_rows)
...     np.add(block0_rows, 1.0, out=out[lo:hi])
>>> run_in_row_blocks(rows_of_region, 10, 3, [((3,), np.dtype(float))], x, out); out.tolist()
[1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0, 19.0]
"""
from __future__ import annotations

import concurrent.futures
import itertools
import threading
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from runtime.backends.threads import cores, get_threads
from runtime.backends.threads import spare_cores as _spare_cores
from runtime.core.numpy_errors import ignore_numpy_errors, restore_numpy_errors

BLOCK_ELEMENTS = 1 << 17  # 131072 elements: 8 blocks for 1e6 (measured: 32K blocks cost more GIL handoffs)

_workers = None  # threads that take blocks alongside the caller, created on first use
_workers_lock = threading.Lock()


def block_rows(shape) -> int:
    """Rows per block for a region of static ``shape``."""
    row_elements = 1
    for dim in shape[1:]:
        row_elements *= dim
    return max(1, BLOCK_ELEMENTS // max(1, row_elements))


class _Blocks:
    """One region call: the shared counter of blocks, and who finished which."""

    def __init__(self, rows_of_region: Callable, rows: int, step: int, block_buffers: Sequence, arrays: tuple):
        self.rows_of_region, self.rows, self.step, self.arrays = rows_of_region, rows, step, arrays
        self.block_buffers = block_buffers
        self.count = -(-rows // step)
        self.next_block = itertools.count()  # next() is atomic under the GIL: each block is taken once
        self.done = 0
        self.errors: List[BaseException] = []
        self.lock = threading.Lock()
        self.finished = threading.Event()

    def take(self) -> None:
        """Compute blocks until none is left (called by the caller and by each worker)."""
        errors_state = ignore_numpy_errors()
        try:
            arrays = (*thread_block_buffers(self.block_buffers), *self.arrays)
            for index in self.next_block:
                if index >= self.count:
                    return
                lo = index * self.step
                try:
                    self.rows_of_region(lo, min(lo + self.step, self.rows), *arrays)
                except BaseException as error:  # noqa: BLE001 - handed to the caller, which re-raises it
                    self.errors.append(error)
                with self.lock:
                    self.done += 1
                    if self.done == self.count:
                        self.finished.set()
        finally:
            restore_numpy_errors(errors_state)


def run_in_row_blocks(rows_of_region: Callable, rows: int, step: int, block_buffers: Sequence,
                      *arrays: np.ndarray) -> None:
    """Call ``rows_of_region(lo, hi, *buffers, *arrays)`` for every block of ``step`` rows, where ``buffers``
    are this thread's block buffers of the (shape, dtype) pairs ``block_buffers`` (see the module doc)."""
    count = -(-rows // step)
    budget = get_threads()  # rt.config.set_threads: the caller and budget - 1 workers at most
    if count == 1 or budget < 2 or not _spare_cores():  # every block on this thread
        arrays = (*thread_block_buffers(block_buffers), *arrays)
        for lo in range(0, rows, step):
            rows_of_region(lo, min(lo + step, rows), *arrays)
        return
    blocks = _Blocks(rows_of_region, rows, step, block_buffers, arrays)
    pool = _worker_pool()
    for _ in range(min(pool._max_workers, budget - 1, count - 1)):
        pool.submit(blocks.take)
    blocks.take()
    blocks.finished.wait()
    if blocks.errors:
        raise blocks.errors[0]


class _BlockBuffers(threading.local):
    by_dtype: Dict[np.dtype, List[np.ndarray]]

    def __init__(self):
        self.by_dtype = {}  # dtype -> this thread's flat buffers of that dtype (views of them are handed out)


_block_buffers = _BlockBuffers()


def thread_block_buffers(specs: Sequence[Tuple[Tuple[int, ...], np.dtype]]) -> List[np.ndarray]:
    """This thread's buffers for the (shape, dtype) ``specs``, one distinct array per entry: views of
    flat buffers kept per thread and dtype (grown when a bigger block comes), so every later region on
    this thread reuses them and a thread keeps at most one region's worth per dtype. A region function
    is never re-entered on one thread: it only calls numpy.

    >>> a, b = thread_block_buffers([((4, 2), np.dtype(np.float32))] * 2)
    >>> a.shape, np.shares_memory(a, b), np.shares_memory(a, thread_block_buffers([((8,), np.dtype(np.float32))])[0])
    ((4, 2), False, True)
    """
    kept = _block_buffers.by_dtype
    taken: Dict[np.dtype, int] = {}
    buffers = []
    for shape, dtype in specs:
        flat = kept.setdefault(dtype, [])
        index = taken[dtype] = taken.get(dtype, -1) + 1
        size = 1
        for dim in shape:
            size *= dim
        if index == len(flat):
            flat.append(np.empty(size, dtype))
        elif flat[index].size < size:
            flat[index] = np.empty(size, dtype)
        buffers.append(flat[index][:size].reshape(shape))
    return buffers


def _worker_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _workers  # noqa: PLW0603 - one pool per process, made on first use (double-checked under the lock)
    if _workers is None:
        with _workers_lock:
            if _workers is None:
                _workers = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, cores() - 1),
                                                                 thread_name_prefix="runtime-rows")
    return _workers
