"""How many threads a compiled call may use: one budget for our row-block workers and BLAS's threads.

A compiled call runs its elementwise regions in row blocks on the calling thread plus workers
(``row_blocks``), and its matrix products in numpy's BLAS, which keeps a thread pool of its own. The
two never know about each other, and on a busy machine a BLAS pool spinning on a core another process
holds collapses (an LSTM step's 32x128x512 matmul: 86 µs on one thread, 27-46 ms on two with the other
core busy). So every compiled call follows one budget, ``get_threads()`` (``rt.config.set_threads(n)``;
default: the machine's cores):

- row blocks use the calling thread and at most ``budget - 1`` workers, and only while a core is spare
  (``spare_cores``: fewer runnable threads on the machine than cores);
- a graph with a BLAS op (a matmul, an einsum) runs BLAS on one thread, unless one of its products is
  big (``BLAS_PARALLEL_MIN``: below it a second thread only costs) and a core is spare: then on
  ``min(budget, BLAS's own setting)`` threads. Products too small for BLAS to thread at all
  (``BLAS_ALONE_MAX``) do not touch the setting (~5 µs a call). Workers never call BLAS and BLAS runs between
  regions, so
  at most ``budget`` of our threads compute at once.

BLAS's threads are set through ``threadpoolctl`` (the optional extra ``autograph-lite[threads]``), for
the duration of the call only: the thread count the user's own numpy code sees is restored when the
last running compiled call returns. Without threadpoolctl, BLAS keeps its own setting (pin it with
``OPENBLAS_NUM_THREADS=1`` before numpy is imported) and the budget governs the row-block workers.

>>> set_threads(1); get_threads()
1
>>> set_threads(None); get_threads() == cores()
True
"""
from __future__ import annotations

import os
import threading
import time
from typing import Callable, List, Optional, Tuple

BLAS_PARALLEL_MIN = 256 ** 3  # multiply-adds of one product below which BLAS runs on one thread
# OpenBLAS runs a product of at most 64^3 multiply-adds on one thread by itself (SMP_THRESHOLD_MIN x
# GEMM_MULTITHREAD_THRESHOLD): a graph whose products are all that small leaves BLAS's setting alone.
BLAS_ALONE_MAX = 64 ** 3
RECHECK_SECONDS = 0.005  # how long a reading of the machine's runnable threads is trusted

_budget: List[Optional[int]] = [None]  # None: the machine's cores
_last_check = [float("-inf"), False]  # [when, spare core?]


def cores() -> int:
    """The machine's cores (``os.cpu_count()``)."""
    return os.cpu_count() or 1


def set_threads(count: Optional[int]) -> None:
    """Let each compiled call use at most ``count`` threads at once (row-block workers and BLAS
    together); ``None`` restores the default, the machine's cores. Like TensorFlow's
    ``tf.config.threading.set_intra_op_parallelism_threads``, it applies to every later call.

    >>> import runtime as rt
    >>> rt.config.set_threads(1)   # one thread: no workers, BLAS on one thread
    >>> rt.config.get_threads()
    1
    >>> rt.config.set_threads(None)
    """
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"set_threads: count must be an int >= 1 or None (the machine's cores), got "
                            f"{type(count).__name__} {count!r}")
        if count < 1:
            raise ValueError(f"set_threads: count must be >= 1 (or None for the machine's {cores()} cores), "
                             f"got {count}")
    _budget[0] = count


def get_threads() -> int:
    """The number of threads a compiled call may use at once (see ``set_threads``).

    >>> import runtime as rt
    >>> rt.config.get_threads() >= 1
    True
    """
    count = _budget[0]
    return cores() if count is None else count


def spare_cores() -> bool:
    """True if another core is free now: fewer runnable threads on the machine (ourselves included) than
    cores. A worker on a busy core gets a time slice only every few milliseconds, and the caller waits
    for the block it holds: measured with a CPU-bound process on the other core, 1.5x the one-thread
    time with a worker. The count is the kernel's current number of runnable threads (the load
    average, a one-minute mean, did not see a spinner started a second before); it is read at most
    every ``RECHECK_SECONDS``."""
    now = time.monotonic()
    if now - _last_check[0] >= RECHECK_SECONDS:
        count = cores()
        _last_check[:] = [now, count >= 2 and _runnable_threads() < count]
    return _last_check[1]


def _runnable_threads() -> float:
    """Threads running or ready to run right now (Linux ``/proc/loadavg``), else the load average."""
    try:
        with open("/proc/loadavg") as loadavg:
            return int(loadavg.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0] + 1  # the caller is running too
    except OSError:  # no load average on this platform
        return 1


# --- BLAS's threads, for the duration of a compiled call ------------------------------------------------

class _BlasThreads:
    """numpy's BLAS libraries as threadpoolctl finds them, and the compiled calls running right now."""

    def __init__(self):
        self.lock = threading.Lock()
        self.libraries: Optional[List[Tuple[Callable[[], int], Callable[[int], object]]]] = None  # (get, set)
        self.running = 0  # compiled calls inside enter/leave
        self.saved: List[int] = []  # each library's thread count before the first of them entered
        self.current: List[int] = []  # what we set it to

    def find(self) -> list:
        if self.libraries is None:
            self.libraries = _blas_libraries()
        return self.libraries


def _blas_libraries() -> List[Tuple[Callable[[], int], Callable[[int], object]]]:
    """(get, set) thread-count functions of every BLAS library loaded (numpy's), or [] without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # optional: BLAS then keeps its own setting
        return []
    try:
        libraries = ThreadpoolController().select(user_api="blas").lib_controllers
    except Exception:  # noqa: BLE001 - it could not inspect this process: BLAS keeps its own setting
        return []
    found = []
    for library in libraries:
        getter, setter = library.get_num_threads, library.set_num_threads
        symbol = getattr(library, "_get_symbol", None)  # the C functions themselves: ~1 µs instead of ~4
        if symbol is not None and getattr(library, "threading_layer", None) != "openmp":
            raw_get, raw_set = symbol("openblas_get_num_threads"), symbol("openblas_set_num_threads")
            if raw_get is not None and raw_set is not None:
                getter, setter = raw_get, raw_set
        if getter() is not None:
            found.append((getter, setter))
    return found


_blas = _BlasThreads()


def enter_blas(big: bool) -> bool:
    """Set BLAS's threads for a compiled call starting now (``big``: the graph has a product of at least
    ``BLAS_PARALLEL_MIN`` multiply-adds); returns whether ``leave_blas`` must be called."""
    libraries = _blas.find()
    if not libraries:
        return False
    wanted = get_threads() if big and spare_cores() else 1
    with _blas.lock:
        if _blas.running == 0:
            _blas.saved = [get() for get, _ in libraries]
            _blas.current = list(_blas.saved)
        _blas.running += 1
        for index, (_, set_count) in enumerate(libraries):
            count = max(1, min(wanted, _blas.saved[index]))  # never more than the user's own setting
            if _blas.current[index] != count:
                set_count(count)
                _blas.current[index] = count
    return True


def leave_blas(entered: bool) -> None:
    """The end of a compiled call that ``enter_blas`` started: the last one restores the user's setting."""
    if not entered:
        return
    libraries = _blas.find()
    with _blas.lock:
        _blas.running -= 1
        if _blas.running == 0:
            for index, (_, set_count) in enumerate(libraries):
                if _blas.current[index] != _blas.saved[index]:
                    set_count(_blas.saved[index])
                    _blas.current[index] = _blas.saved[index]
