"""Benchmark rows of issue 26: compute-bound loops, each as an ``ag.function``, as numpy written by hand
and run eagerly, side by side in one child process with one BLAS thread.

- LSTM: 50 unrolled steps, batch 32, hidden 128 (matmuls, split, sigmoid and tanh gates);
- Viterbi: 200 steps x 64 states, a tensor ``for`` over small (64- and 64x64-element) ops, backpointers
  appended to a list, then a tensor backtracking loop;
- k-means: 10,000 points x 8 dims, 16 centers, 10 iterations in a tensor loop (distances by matmul,
  argmin, one_hot, center sums by matmul);
- Mandelbrot: 256 x 256 points, a tensor ``while`` of 64 masked updates (``where``).

The hand-written numpy is what a numpy user writes (``1 / (1 + np.exp(-z))`` for a sigmoid, a Python
``for`` with a list of backpointers); every graph result is checked against it before timing. The thread
rows (``bench_compute_threads``) run the LSTM and k-means with BLAS's default threads, on an idle machine
and with a CPU-bound spinner on every core, next to the same work pinned to one thread.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Dict, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]  # this checkout's runtime, and timing.py

import runtime as rt  # noqa: E402
from timing import compare_wall_and_cpu  # noqa: E402

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _row(*args, **kwargs):
    from run import row
    return row(*args, **kwargs)


# --- LSTM ---------------------------------------------------------------------------------------------

STEPS, BATCH, HIDDEN, FEATURES = 50, 32, 128, 128


def lstm(xs, wx, wh, b):
    h = rt.zeros((BATCH, HIDDEN))
    c = rt.zeros((BATCH, HIDDEN))
    for t in range(STEPS):  # a Python range: unrolled while tracing
        z = rt.matmul(xs[t], wx) + rt.matmul(h, wh) + b
        i, f, g, o = rt.split(z, 4, axis=1)
        c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
        h = rt.sigmoid(o) * rt.tanh(c)
    return h


def numpy_lstm(xs, wx, wh, b):
    def sigmoid(v):
        return 1.0 / (1.0 + np.exp(-v))
    h = np.zeros((BATCH, HIDDEN), np.float32)
    c = np.zeros((BATCH, HIDDEN), np.float32)
    for t in range(STEPS):
        z = xs[t] @ wx + h @ wh + b
        i, f, g, o = np.split(z, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
    return h


def lstm_data():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32),
            (rng.standard_normal((FEATURES, 4 * HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32),
            (rng.standard_normal((HIDDEN, 4 * HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32),
            (rng.standard_normal(4 * HIDDEN) * 0.1).astype(np.float32)]


# --- Viterbi ------------------------------------------------------------------------------------------

VITERBI_STEPS, STATES = 200, 64


def viterbi(log_emissions, log_transitions, log_initial):
    steps = rt.shape(log_emissions)[0]
    score = log_initial + log_emissions[0]
    backpointers = []
    for t in rt.range(1, steps):  # a tensor loop
        candidates = rt.expand_dims(score, 1) + log_transitions
        backpointers.append(rt.argmax(candidates, axis=0, output_type=rt.int32))
        score = rt.reduce_max(candidates, axis=0) + log_emissions[t]
    pointers = rt.stack(backpointers)
    state = rt.argmax(score, output_type=rt.int32)
    path = [state]
    for t in rt.range(steps - 2, -1, -1):
        state = rt.gather(pointers[t], state)
        path.append(state)
    return rt.reverse(rt.stack(path), [0])


def numpy_viterbi(log_emissions, log_transitions, log_initial):
    score = log_initial + log_emissions[0]
    backpointers = []
    for t in range(1, log_emissions.shape[0]):
        candidates = score[:, None] + log_transitions
        backpointers.append(np.argmax(candidates, axis=0).astype(np.int32))
        score = np.max(candidates, axis=0) + log_emissions[t]
    pointers = np.stack(backpointers)
    state = np.int32(np.argmax(score))
    path = [state]
    for t in range(log_emissions.shape[0] - 2, -1, -1):
        state = pointers[t][state]
        path.append(state)
    return np.array(path[::-1], np.int32)


def viterbi_data():
    rng = np.random.default_rng(0)
    return [np.log(rng.dirichlet(np.ones(STATES), VITERBI_STEPS)).astype(np.float32),
            np.log(rng.dirichlet(np.ones(STATES), STATES)).astype(np.float32),
            np.log(np.full(STATES, 1.0 / STATES)).astype(np.float32)]


# --- k-means ------------------------------------------------------------------------------------------

POINTS, DIMS, CENTERS, KMEANS_ITERATIONS = 10_000, 8, 16, 10


def kmeans(points, centers, iterations):
    squared_norms = rt.reduce_sum(points * points, axis=1, keepdims=True)
    for _ in rt.range(iterations):  # a tensor loop
        distances = (squared_norms - 2.0 * rt.matmul(points, rt.transpose(centers))
                     + rt.reduce_sum(centers * centers, axis=1))
        nearest = rt.argmin(distances, axis=1, output_type=rt.int32)
        members = rt.one_hot(nearest, CENTERS)
        counts = rt.reduce_sum(members, axis=0)
        centers = rt.matmul(rt.transpose(members), points) / rt.expand_dims(rt.maximum(counts, 1.0), 1)
    return centers


def numpy_kmeans(points, centers, iterations):
    squared_norms = np.sum(points * points, axis=1, keepdims=True)
    for _ in range(iterations):
        distances = squared_norms - 2.0 * (points @ centers.T) + np.sum(centers * centers, axis=1)
        nearest = np.argmin(distances, axis=1)
        members = np.zeros((points.shape[0], CENTERS), np.float32)
        members[np.arange(points.shape[0]), nearest] = 1.0
        counts = members.sum(axis=0)
        centers = (members.T @ points) / np.maximum(counts, 1.0)[:, None]
    return centers


def kmeans_data():
    rng = np.random.default_rng(0)
    points = (rng.standard_normal((POINTS, DIMS)) + rng.integers(0, 4, (POINTS, 1))).astype(np.float32)
    return [points, points[:CENTERS].copy(), np.int32(KMEANS_ITERATIONS)]


# --- Mandelbrot ---------------------------------------------------------------------------------------

SIDE, MANDELBROT_ITERATIONS = 256, 64


def mandelbrot(c_re, c_im, iterations):
    z_re = rt.zeros_like(c_re)
    z_im = rt.zeros_like(c_im)
    counts = rt.zeros(c_re.shape, rt.int32)
    i = 0
    while i < iterations:  # a tensor loop (iterations is a tensor)
        re2, im2 = z_re * z_re, z_im * z_im
        inside = re2 + im2 <= 4.0
        z_im = rt.where(inside, 2.0 * z_re * z_im + c_im, z_im)
        z_re = rt.where(inside, re2 - im2 + c_re, z_re)
        counts += rt.cast(inside, rt.int32)
        i += 1
    return counts


def numpy_mandelbrot(c_re, c_im, iterations):
    z_re = np.zeros_like(c_re)
    z_im = np.zeros_like(c_im)
    counts = np.zeros(c_re.shape, np.int32)
    for _ in range(iterations):
        re2, im2 = z_re * z_re, z_im * z_im
        inside = re2 + im2 <= 4.0
        z_im = np.where(inside, 2.0 * z_re * z_im + c_im, z_im)
        z_re = np.where(inside, re2 - im2 + c_re, z_re)
        counts += inside
    return counts


def mandelbrot_data():
    re, im = np.meshgrid(np.linspace(-2.0, 0.5, SIDE, dtype=np.float32), np.linspace(-1.2, 1.2, SIDE, dtype=np.float32))
    return [re, im, np.int32(MANDELBROT_ITERATIONS)]


# --- measuring (in a child process: BLAS reads its thread count when numpy is imported) ----------------

WORKLOADS = {  # name -> (graph function, numpy function, data, calls per sample, comparison)
    "lstm": (lstm, numpy_lstm, lstm_data, 5, "close"),
    "viterbi": (viterbi, numpy_viterbi, viterbi_data, 5, "equal"),
    "kmeans": (kmeans, numpy_kmeans, kmeans_data, 5, "close"),
    "mandelbrot": (mandelbrot, numpy_mandelbrot, mandelbrot_data, 3, "equal"),
}


def _check(got, want, comparison: str) -> None:
    if comparison == "equal":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def measure(name: str, repeat: int, candidates: List[str], number: Optional[int] = None) -> Dict[str, float]:
    """Seconds per call (medians) of each of ``candidates`` ("numpy" by hand, "graph", "eager"), side by side,
    wall-clock and (keys "cpu numpy", ...) CPU time of the process, and the graph's first call (convert +
    trace + optimize + compile + run) in ms, wall and CPU. With "numpy" among them the graph's and eager
    results are checked against numpy's first."""
    import autograph_lite as ag
    graph_fn, numpy_fn, data, calls, comparison = WORKLOADS[name]
    arrays = data()
    tensors = [rt.constant(a) for a in arrays]
    start, start_cpu = time.perf_counter(), time.thread_time()
    function = ag.function(graph_fn)
    first = function(*tensors).numpy()
    first_ms, first_cpu_ms = (time.perf_counter() - start) * 1e3, (time.thread_time() - start_cpu) * 1e3
    runs = {"numpy": lambda: numpy_fn(*arrays), "graph": lambda: function(*tensors),
            "eager": lambda: graph_fn(*tensors)}
    with np.errstate(all="ignore"):
        if "numpy" in candidates:
            want = numpy_fn(*arrays)
            _check(first, want, comparison)
            if "eager" in candidates:
                _check(graph_fn(*tensors).numpy(), want, comparison)
        times, cpu = compare_wall_and_cpu({c: runs[c] for c in candidates}, number or calls, repeat)
    times.update({f"cpu {c}": seconds for c, seconds in cpu.items()})
    times["first_ms"], times["first_cpu_ms"] = first_ms, first_cpu_ms
    return times


def _in_child(names: List[str], repeat: int, env: Dict[str, str], candidates: List[str], spinners: int = 0,
              number: Optional[int] = None) -> dict:
    """``measure`` for each workload in a child process with ``env``, with ``spinners`` CPU-bound processes.
    Each child measures what it is given alone: a numpy call on BLAS's default threads leaves those threads
    spinning, which would slow the graph timed next to it."""
    from workloads import _SPIN
    spinning = [subprocess.Popen([sys.executable, "-c", _SPIN, str(core % (os.cpu_count() or 1))])
                for core in range(spinners)]
    try:
        if spinners:
            time.sleep(0.2)
        output = subprocess.run([sys.executable, os.path.abspath(__file__),
                                 json.dumps([names, repeat, candidates, number])],
                                env=dict(os.environ, **env), capture_output=True, text=True, check=True).stdout
    finally:
        for process in spinning:
            process.kill()
            process.wait()
    return json.loads(output.strip().splitlines()[-1])


TARGETS = {"lstm": 1.2, "viterbi": 1.0, "kmeans": 1.05, "mandelbrot": 1.0}
LABELS = {"lstm": "16 LSTM 50 unrolled steps, batch 32, hidden 128",
          "viterbi": "16 Viterbi 200 steps x 64 states (tensor for)",
          "kmeans": "16 k-means 10k x 8, 16 centers, 10 iterations",
          "mandelbrot": "16 Mandelbrot 256x256, 64 masked iterations"}


def bench_compute_loops(repeat: int) -> List[dict]:
    results = _in_child(list(WORKLOADS), repeat, ONE_THREAD, ["numpy", "graph", "eager"])
    rows = []
    for name, times in results.items():
        label, target = LABELS[name], TARGETS[name]
        numpy_t, graph_t, eager_t = times["numpy"], times["graph"], times["eager"]
        rows += [_row(label, "hand-written numpy, 1 BLAS thread", numpy_t * 1e3, "ms", 1.0),
                 _row(label, "graph (ag.function), 1 BLAS thread", graph_t * 1e3, "ms", graph_t / numpy_t,
                      f"<= {target:g}x numpy", graph_t / numpy_t <= target),
                 _row(label, "eager, 1 BLAS thread", eager_t * 1e3, "ms", eager_t / numpy_t)]
        # The same samples in CPU time of the process: what the work costs when other jobs share the cores
        cpu_numpy, cpu_graph = times["cpu numpy"], times["cpu graph"]
        rows += [_row(label, "CPU time: hand-written numpy", cpu_numpy * 1e3, "ms", 1.0),
                 _row(label, "CPU time: graph", cpu_graph * 1e3, "ms", cpu_graph / cpu_numpy,
                      f"<= {target:g}x numpy", cpu_graph / cpu_numpy <= target)]
        if name == "lstm":  # CPU time too: on a busy machine the wall time is mostly waiting for a core
            rows += [_row(label, "first call (convert+trace+compile+run)", times["first_ms"], "ms", None,
                          "<= 100 ms", times["first_ms"] <= 100),
                     _row(label, "first call, CPU time of the thread", times["first_cpu_ms"], "ms", None)]
    return rows


def bench_compute_threads(repeat: int) -> List[dict]:
    """The LSTM and k-means graphs with BLAS's default threads, idle and with a spinner on every core, next
    to the same graphs pinned to one BLAS thread under the same load (each in a process of its own), and
    numpy by hand on the default threads (one call per sample: on a busy machine it collapses)."""
    cores = os.cpu_count() or 1
    names = ["lstm", "kmeans"]
    rows = []
    for load, spinners in (("idle", 0), (f"{cores} spinners", cores)):
        pinned = _in_child(names, repeat, ONE_THREAD, ["graph"], spinners)
        default = _in_child(names, repeat, {}, ["graph"], spinners)
        numpy_default = _in_child(names, 2, {}, ["numpy"], spinners, number=1)
        for name in names:
            label = f"17 {name}, BLAS's default threads"
            ratio = default[name]["graph"] / pinned[name]["graph"]
            rows += [_row(label, f"{load}: graph, 1 BLAS thread", pinned[name]["graph"] * 1e3, "ms", 1.0),
                     _row(label, f"{load}: graph, default threads", default[name]["graph"] * 1e3, "ms", ratio,
                          "<= 1.2x pinned" if spinners else "report", ratio <= 1.2 if spinners else None),
                     _row(label, f"{load}: numpy by hand, default threads", numpy_default[name]["numpy"] * 1e3,
                          "ms", numpy_default[name]["numpy"] / pinned[name]["graph"], "report (vs graph pinned)"),
                     _row(label, f"{load}: graph first call, default threads", default[name]["first_ms"], "ms",
                          None, "<= 100 ms" if name == "lstm" else "",
                          default[name]["first_ms"] <= 100 if name == "lstm" else None),
                     _row(label, f"{load}: graph first call, CPU time", default[name]["first_cpu_ms"], "ms")]
    return rows


def bench_chain_threads(repeat: int) -> List[dict]:
    """Row 7's chain (1e6 float32, 7 ops with a division) with rt.config.set_threads(1), and with 2 threads on
    an idle machine and with a CPU-bound spinner on every core."""
    from workloads import _SPIN, _chain_times
    name = "18 chain of 7 ops with a division, set_threads"
    cores = os.cpu_count() or 1
    rows = []
    try:
        for label, threads, spinners in (("1 thread", 1, 0), (f"{cores} threads, idle", cores, 0),
                                         (f"{cores} threads, {cores} spinners", cores, cores)):
            rt.config.set_threads(threads)
            spinning = [subprocess.Popen([sys.executable, "-c", _SPIN, str(core)]) for core in range(spinners)]
            try:
                if spinners:
                    time.sleep(0.2)
                times = _chain_times(repeat)
            finally:
                for process in spinning:
                    process.kill()
                    process.wait()
            ratio = times["graph"] / times["numpy"]
            rows += [_row(name, f"{label}: hand-written numpy", times["numpy"] * 1e3, "ms", 1.0),
                     _row(name, f"{label}: graph (rt.Function)", times["graph"] * 1e3, "ms", ratio,
                          "<= 1.1x numpy" if spinners else "report", ratio <= 1.1 if spinners else None)]
    finally:
        rt.config.set_threads(None)
    return rows


def small_ops_loop(x, a, b, n):
    i = 0
    while i < n:  # a tensor loop of 8 elementwise ops on 64 floats
        x = rt.maximum(x * a + b, 0.0) - rt.minimum(x * b - a, 0.0) * 0.5
        i += 1
    return x


def numpy_small_ops_loop(x, a, b, n):
    for _ in range(n):
        x = np.maximum(x * a + b, 0.0) - np.minimum(x * b - a, 0.0) * 0.5
    return x


def bench_small_ops(repeat: int) -> List[dict]:
    """The cost of one op on 64 elements inside a tensor loop: 8 elementwise ops per iteration, 2,000 iterations,
    per op, next to the same Python loop over numpy, in wall-clock and in CPU time."""
    import autograph_lite as ag
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(64).astype(np.float32) * 0.1 for _ in range(3)]
    iterations, ops = 2000, 8
    tensors = [rt.constant(a) for a in arrays] + [rt.constant(iterations)]
    function = ag.function(small_ops_loop)
    np.testing.assert_array_equal(function(*tensors).numpy(), numpy_small_ops_loop(*arrays, iterations))
    wall, cpu = compare_wall_and_cpu({"numpy": lambda: numpy_small_ops_loop(*arrays, iterations),
                                      "graph": lambda: function(*tensors)}, 1, repeat)
    name = "19 an op on 64 f32 in a tensor loop"
    rows = []
    for clock, times in (("", wall), ("CPU time: ", cpu)):
        per_op = {which: t / (iterations * ops) * 1e6 for which, t in times.items()}
        rows += [_row(name, f"{clock}numpy by hand (Python for), per op", per_op["numpy"], "us", 1.0),
                 _row(name, f"{clock}graph (ag.function, tensor while), per op", per_op["graph"], "us",
                      per_op["graph"] / per_op["numpy"], "<= 2 us", per_op["graph"] <= 2.0)]
    return rows


BENCHMARKS = [bench_compute_loops, bench_compute_threads, bench_chain_threads, bench_small_ops]

if __name__ == "__main__" and len(sys.argv) == 2:
    chosen, repetitions, which, calls_per_sample = json.loads(sys.argv[1])
    print(json.dumps({name: measure(name, repetitions, which, calls_per_sample) for name in chosen}))
