"""Benchmark rows of issue 13: graphs shaped a little differently from the first benchmarks.

Each row is compared with hand-written numpy (or the unconverted Python function) in the same run:
an elementwise chain with a division, the same chain with a CPU-bound process on the other core,
chained matmuls on one BLAS thread, peak memory of an unrolled matmul chain, a tensor loop whose body
has an ``if``, converted code on Python values, and the cost of a trace as the cache grows.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from typing import List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]  # this checkout's runtime, and timing.py

import runtime as rt  # noqa: E402
from timing import compare  # noqa: E402


def _row(*args, **kwargs):
    from run import row
    return row(*args, **kwargs)


# --- 7, 8. the 7-op chain with a division ----------------------------------------------------------------

def chain7(v):
    return ((v * 2.0 + 1.0) * v - 3.0) / (v + 1.0) * 0.5


def numpy_chain7(v):
    return ((v * 2.0 + 1.0) * v - 3.0) / (v + 1.0) * 0.5


def _chain_times(repeat: int):
    x_array = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    x = rt.constant(x_array)
    graph_chain = rt.Function(chain7)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(graph_chain(x).numpy(), numpy_chain7(x_array))
        return compare({"numpy": lambda: numpy_chain7(x_array), "graph": lambda: graph_chain(x)}, 20, repeat * 2)


def bench_chain_with_division(repeat: int) -> List[dict]:
    times = _chain_times(repeat)
    numpy_t, graph_t = times["numpy"], times["graph"]
    name = "7 chain of 7 elementwise ops with a division, 1e6 f32"
    return [_row(name, "hand-written numpy", numpy_t * 1e3, "ms", 1.0),
            _row(name, "graph (rt.Function)", graph_t * 1e3, "ms", graph_t / numpy_t, "<= 0.8x numpy",
                 graph_t / numpy_t <= 0.8)]


_SPIN = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True:\n    pass\n"


def bench_chain_with_busy_core(repeat: int) -> List[dict]:
    name = "8 the same chain, a CPU-bound process on core 1"
    if not hasattr(os, "sched_setaffinity") or (os.cpu_count() or 1) < 2:
        return [_row(name, "skipped (needs 2 cores and sched_setaffinity)", float("nan"), "ms")]
    spinner = subprocess.Popen([sys.executable, "-c", _SPIN, "1"])
    try:
        time.sleep(0.2)  # let it start spinning
        times = _chain_times(repeat)
    finally:
        spinner.kill()
        spinner.wait()
    numpy_t, graph_t = times["numpy"], times["graph"]
    return [_row(name, "hand-written numpy (one thread)", numpy_t * 1e3, "ms", 1.0),
            _row(name, "graph (rt.Function)", graph_t * 1e3, "ms", graph_t / numpy_t, "<= 1.1x numpy",
                 graph_t / numpy_t <= 1.1)]


# --- 9. chained matmuls on one BLAS thread (run in a child process: the variable is read at import) ------

def matmul_chain(x):
    r = x
    for _ in range(20):
        r = rt.matmul(x, r)
    return r


def numpy_matmul_chain(x):
    r = x
    for _ in range(20):
        r = x @ r
    return r


def _measure_matmul_chain(repeat: int) -> dict:
    x_array = (np.random.default_rng(0).standard_normal((512, 512)) / 24).astype(np.float32)
    x = rt.constant(x_array)
    graph_chain = rt.Function(matmul_chain)
    np.testing.assert_allclose(graph_chain(x).numpy(), numpy_matmul_chain(x_array), rtol=1e-4)
    return compare({"numpy": lambda: numpy_matmul_chain(x_array), "graph": lambda: graph_chain(x)}, 3, repeat * 2)


def bench_matmul_chain(repeat: int) -> List[dict]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    output = subprocess.run([sys.executable, os.path.abspath(__file__), "matmul", str(repeat)], env=env,
                            capture_output=True, text=True, check=True).stdout
    times = json.loads(output.strip().splitlines()[-1])
    numpy_t, graph_t = times["numpy"], times["graph"]
    name = "9 20 chained 512x512 f32 matmuls, 1 BLAS thread"
    return [_row(name, "hand-written numpy", numpy_t * 1e3, "ms", 1.0),
            _row(name, "graph (rt.Function)", graph_t * 1e3, "ms", graph_t / numpy_t, "<= 1.02x numpy",
                 graph_t / numpy_t <= 1.02)]


# --- 10. peak memory of an unrolled matmul chain -----------------------------------------------------------

def long_matmul_chain(x):
    r = x
    for _ in range(100):
        r = rt.matmul(x, r)
    return r


def _peak_matrices(fn, matrix_bytes: int) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / matrix_bytes


def bench_peak_memory(repeat: int) -> List[dict]:
    x_array = np.eye(256, dtype=np.float32)
    x = rt.constant(x_array)
    graph_chain = rt.Function(long_matmul_chain)
    concrete = graph_chain.get_concrete_function(x)
    concrete.compiled()   # traced and compiled outside the measurement (a first call would compile now)
    first = _peak_matrices(lambda: concrete(x), x_array.nbytes)  # allocates the pooled buffers
    steady = _peak_matrices(lambda: concrete(x), x_array.nbytes)
    reference = _peak_matrices(lambda: numpy_matmul_chain(x_array), x_array.nbytes)
    name = "10 peak memory, 100 unrolled 256x256 matmuls"
    # in matrices of 256 KB; a few hundred bytes of bookkeeping (tuples, views) come on top
    return [_row(name, "hand-written numpy loop", reference, "mats", 1.0),
            _row(name, "graph, first call (buffers allocated)", first, "mats", first / reference, "<= 3 matrices",
                 int(first + 0.01) <= 3),
            _row(name, "graph, later calls", steady, "mats", steady / reference, "<= 3 matrices",
                 int(steady + 0.01) <= 3)]


# --- 11. tensor loop with an if in its body ---------------------------------------------------------------

def parity_sum(n):
    i = rt.zeros_like(n)
    s = rt.zeros_like(n)
    while i < n:
        if i % 2 == 0:
            s += i
        i += 1
    return s


def python_parity_sum(n):
    i = np.int64(0)
    s = np.int64(0)
    while i < n:
        if i % 2 == 0:
            s += i
        i += 1
    return s


def bench_loop_with_if(repeat: int) -> List[dict]:
    from run import converter
    ag, reason = converter()
    name = "11 tensor while with `if i % 2 == 0`, per iteration"
    if ag is None:
        return [_row(name, f"skipped ({reason})", float("nan"), "us")]
    n_value = 100_000
    n = rt.constant(n_value, rt.int64)
    graph_loop = ag.function(parity_sum)
    assert int(graph_loop(n)) == python_parity_sum(np.int64(n_value))
    times = compare({"python": lambda: python_parity_sum(np.int64(n_value)), "graph": lambda: graph_loop(n)},
                    1, repeat)
    python_t, graph_t = times["python"] / n_value, times["graph"] / n_value
    return [_row(name, "plain Python on numpy scalars", python_t * 1e6, "us", 1.0),
            _row(name, "graph (ag.function)", graph_t * 1e6, "us", graph_t / python_t, "<= 0.3 us",
                 graph_t * 1e6 <= 0.3)]


# --- 12. converted code on Python values ------------------------------------------------------------------

def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_multiple(items, k):
    found = -1
    for item in items:
        if item % k == 0 and item > 0:
            found = item
            break
    return found


def bench_converted_python(repeat: int) -> List[dict]:
    from run import converter
    ag, reason = converter()
    name = "12 converted code on Python values vs original"
    if ag is None:
        return [_row(name, f"skipped ({reason})", float("nan"), "us")]
    items = list(range(1, 300)) + [600]
    cases = [("collatz(27)", collatz_steps, (27,)), ("300-item for with break", first_multiple, (items, 600))]
    rows = []
    for label, fn, args in cases:
        converted = ag.to_graph(fn)
        assert converted(*args) == fn(*args)
        times = compare({"original": lambda: fn(*args), "converted": lambda: converted(*args)}, 200, repeat)
        ratio = times["converted"] / times["original"]
        rows.append(_row(name, f"{label}: original", times["original"] * 1e6, "us", 1.0))
        rows.append(_row(name, f"{label}: converted", times["converted"] * 1e6, "us", ratio, "<= 5x", ratio <= 5))
    return rows


# --- 13. trace cost as the cache grows --------------------------------------------------------------------

def bench_trace_cost_growth(repeat: int) -> List[dict]:
    import warnings
    f = rt.Function(lambda x, n: x * n + 1)
    x = rt.constant(1.0)
    durations = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.RetraceWarning)  # the retrace warning is expected here
        for n in range(2000):
            start = time.perf_counter()
            f(x, n)
            durations.append(time.perf_counter() - start)
    assert f.experimental_get_tracing_count() == 2000
    first, last = statistics.median(durations[:200]), statistics.median(durations[-200:])
    name = "13 2000 calls with distinct Python ints: per trace"
    return [_row(name, "first 200 traces", first * 1e3, "ms", 1.0),
            _row(name, "last 200 traces", last * 1e3, "ms", last / first, "<= 1.2x first", last / first <= 1.2)]


BENCHMARKS = [bench_chain_with_division, bench_chain_with_busy_core, bench_matmul_chain, bench_peak_memory,
              bench_loop_with_if, bench_converted_python, bench_trace_cost_growth]

if __name__ == "__main__" and sys.argv[1:2] == ["matmul"]:
    print(json.dumps(_measure_matmul_chain(int(sys.argv[2]))))
