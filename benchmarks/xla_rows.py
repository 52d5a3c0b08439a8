"""Benchmark rows of issue 25: ``jit_compile=True`` next to the same program written by hand for ``jax.jit``
and next to our numpy executor, in one child process per thread setting (one thread: BLAS and XLA's CPU
runtime pinned; default threads), medians of side-by-side repetitions.

Compute-bound rows (target: ours within 1.15x of hand-written ``jax.jit``): the k-means, masked Mandelbrot
loop, unrolled LSTM and Viterbi (two tensor loops appending to lists) of ``compute_loops.py``, the MLP train step
of ``training.py`` and an LSTM train step whose time steps are a tensor loop (its gradient a backward loop;
Variables read and written back by ours; parameters in and out of the hand-written steps, which use
``lax.scan`` and ``jax.value_and_grad``). Overhead rows (target: a cached call
costs at most JAX's own call + 10 us): a 3-layer MLP at batch 1 and a scalar Newton loop. First calls
(target: at most our trace + JAX's own trace-and-compile of the hand-written program, + 20%).

The hand-written JAX gets its inputs already on the device (as a JAX user keeps them); ours gets numpy-backed
tensors (what our API holds), so its rows include the copy in. So each row also times the hand-written program
on ours' data path, and the targets are judged against that one: the overhead rows' "numpy in/out" (numpy
arrays in, the result converted to numpy), the train steps' "numpy batch" (the batch comes from numpy on every
call, as from a data loader, the loss comes back as numpy; the parameters stay on the device, as our Variables
do). Each repetition times every candidate once, in an order rotated from one repetition to the next, and the
targets are judged on ours against that program round by round (the median of the per-round ratios, or of the
per-round differences for the overhead rows): the machine's load moves both samples of a round together. Run
alone: ``python benchmarks/xla_rows.py [repeat] [row ...]`` (rows: kmeans mandelbrot lstm viterbi mlp
newton train lstm_train; all by default); it is also part of ``python benchmarks/run.py``.
"""
from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Sequence

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import runtime as rt  # noqa: E402
from timing import paired_median, samples_wall_and_cpu  # noqa: E402

# XLA's CPU programs run their matmuls and convolutions on one thread with --xla_cpu_multi_thread_eigen=false
# (a jitted 512x512 matmul then takes 1.0 CPU-second per wall-clock second). XLA has no flag for a thread count:
# the "intra_op_parallelism_threads=1" these rows also passed until now (a word without "--") was ignored silently
# (an unknown "--flag" stops the process; that word changed neither the CPU time nor the process's 17 threads).
# JAX's CPU client keeps its worker threads either way: a call's program runs on one of them (async dispatch).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
COMPUTE_TARGET, OVERHEAD_US, FIRST_CALL_SLACK = 1.15, 10.0, 1.2


# --- the hand-written JAX programs ----------------------------------------------------------------------
def jax_programs(jax, jnp) -> Dict[str, Callable]:
    from jax import lax
    from compute_loops import BATCH, CENTERS, HIDDEN, STEPS

    def lstm(xs, wx, wh, b):
        h = jnp.zeros((BATCH, HIDDEN), jnp.float32)
        c = jnp.zeros((BATCH, HIDDEN), jnp.float32)
        for t in range(STEPS):
            z = xs[t] @ wx + h @ wh + b
            i, f, g, o = jnp.split(z, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return h

    def kmeans(points, centers, iterations):
        squared_norms = jnp.sum(points * points, axis=1, keepdims=True)

        def body(_, centers):
            distances = squared_norms - 2.0 * (points @ centers.T) + jnp.sum(centers * centers, axis=1)
            members = jax.nn.one_hot(jnp.argmin(distances, axis=1), CENTERS, dtype=jnp.float32)
            counts = jnp.sum(members, axis=0)
            return (members.T @ points) / jnp.maximum(counts, 1.0)[:, None]
        return lax.fori_loop(0, iterations, body, centers)

    def mandelbrot(c_re, c_im, iterations):
        def body(_, state):
            z_re, z_im, counts = state
            re2, im2 = z_re * z_re, z_im * z_im
            inside = re2 + im2 <= 4.0
            return (jnp.where(inside, re2 - im2 + c_re, z_re), jnp.where(inside, 2.0 * z_re * z_im + c_im, z_im),
                    counts + inside.astype(jnp.int32))
        zeros = jnp.zeros_like(c_re)
        return lax.fori_loop(0, iterations, body, (zeros, zeros, jnp.zeros(c_re.shape, jnp.int32)))[2]

    def mlp(x, w1, b1, w2, b2, w3, b3):
        hidden = jnp.maximum(x @ w1 + b1, 0.0)
        hidden = jnp.maximum(hidden @ w2 + b2, 0.0)
        return hidden @ w3 + b3

    def newton(a):
        def cond(state):
            x, i = state
            return (jnp.abs(x * x - a) > 1e-6) & (i < 50)
        return lax.while_loop(cond, lambda s: ((s[0] + a / s[0]) * 0.5, s[1] + 1), (a, jnp.int32(0)))[0]

    def viterbi(log_emissions, log_transitions, log_initial):
        def forward(score, emission):
            candidates = score[:, None] + log_transitions
            return jnp.max(candidates, axis=0) + emission, jnp.argmax(candidates, axis=0).astype(jnp.int32)
        score, pointers = lax.scan(forward, log_initial + log_emissions[0], log_emissions[1:])
        last = jnp.argmax(score).astype(jnp.int32)

        def backward(state, row):
            return row[state], row[state]
        _, path = lax.scan(backward, last, pointers, reverse=True)
        return jnp.concatenate([path, last[None]])

    return {"lstm": lstm, "kmeans": kmeans, "mandelbrot": mandelbrot, "mlp": mlp, "newton": newton,
            "viterbi": viterbi}


# --- our programs ---------------------------------------------------------------------------------------
def mlp(x, w1, b1, w2, b2, w3, b3):
    hidden = rt.maximum(rt.matmul(x, w1) + b1, 0.0)
    hidden = rt.maximum(rt.matmul(hidden, w2) + b2, 0.0)
    return rt.matmul(hidden, w3) + b3


def newton(a):
    x = a
    i = 0
    while rt.abs(x * x - a) > 1e-6 and i < 50:
        x = (x + a / x) * 0.5
        i += 1
    return x


def mlp_data():
    rng = np.random.default_rng(0)
    sizes = [(1, 64), (64, 64), (64,), (64, 64), (64,), (64, 10), (10,)]
    x, w1, b1, w2, b2, w3, b3 = (rng.standard_normal(s).astype(np.float32) * 0.1 for s in sizes)
    return [x, w1, b1, w2, b2, w3, b3]


def newton_data():
    return [np.float32(2.0)]


def workloads():
    import compute_loops
    return {  # name -> (our function, data, calls per sample, kind)
        "kmeans": (compute_loops.kmeans, compute_loops.kmeans_data, 5, "compute"),
        "mandelbrot": (compute_loops.mandelbrot, compute_loops.mandelbrot_data, 5, "compute"),
        "lstm": (compute_loops.lstm, compute_loops.lstm_data, 5, "compute"),
        "viterbi": (compute_loops.viterbi, compute_loops.viterbi_data, 5, "compute"),
        "mlp": (mlp, mlp_data, 500, "overhead"),
        "newton": (newton, newton_data, 500, "overhead"),
    }


def _check(got: np.ndarray, want: np.ndarray) -> None:
    if got.dtype.kind in "iu":  # escape counts: a point on the boundary may escape one iteration apart
        assert np.mean(got != want) < 1e-3 and np.abs(got - want).max() <= 1, (got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _warm_up(jax) -> None:
    """Start JAX's CPU backend and import our lowering before any first call is timed (neither is per program)."""
    import runtime.backends.xla.compiled  # noqa: F401
    jax.jit(lambda v: v + 1)(np.float32(1)).block_until_ready()


def _first_seconds(call: Callable[[], object]) -> float:
    # Each first call starts from a collected heap: else a full garbage collection of what the rows before left
    # (100-200 ms with ~120k objects) falls into whichever call crosses the collector's threshold (Viterbi's)
    gc.collect()
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(name: str, repeat: int) -> Dict[str, float]:
    """Seconds per call (medians): ours compiled by XLA, hand-written jax.jit, our numpy executor; and the
    first calls: ours (trace + lower + compile + run), our trace alone, JAX's trace + compile + run."""
    import jax
    import jax.numpy as jnp
    import autograph_lite as ag
    _warm_up(jax)
    function, data, number, _ = workloads()[name]
    arrays = data()
    tensors = [rt.constant(a) for a in arrays]
    hand = jax.jit(jax_programs(jax, jnp)[name])
    on_device = [jax.device_put(a) for a in arrays]

    # First calls, JAX's first: whichever compiles first also warms XLA's compiler for the other. Our trace (with
    # the conversion, cached from then on) is timed on its own, then our whole first call with it cached.
    times = {"first_jax": _first_seconds(lambda: hand(*on_device).block_until_ready())}
    # (jit_compile=True: the trace and the optimized graph, without the numpy executor jit_compile never builds)
    traced = ag.function(function, jit_compile=True)
    times["trace"] = _first_seconds(lambda: traced.get_concrete_function(*tensors).graph)   # + optimize
    ours = ag.function(function, jit_compile=True)
    times["first_ours"] = _first_seconds(lambda: ours(*tensors))
    numpy_executor = ag.function(function)
    want = np.asarray(hand(*on_device))
    _check(ours(*tensors).numpy(), want)
    _check(numpy_executor(*tensors).numpy(), want)
    return _timed(times, {"xla": lambda: ours(*tensors), "jax": lambda: hand(*on_device).block_until_ready(),
                          "jax_numpy": lambda: np.asarray(hand(*arrays)),
                          "numpy": lambda: numpy_executor(*tensors)}, number, repeat)


def _timed(times: Dict[str, float], candidates: Dict[str, Callable], number: int, repeat: int) -> Dict[str, float]:
    """``times`` with the medians of wall-clock seconds per call of each candidate (round-robin), and of the
    process's CPU seconds per call (``cpu_<name>``): with one thread, CPU time leaves out the waits for a core
    that other work on a shared machine adds to the wall clock. Also ours against the hand-written program on
    the same data path, round by round (``paired_*``: ``timing.paired_median``), the estimates the targets
    are judged on: the difference for the overhead rows, the ratio for the others."""
    wall, cpu = samples_wall_and_cpu(candidates, number, repeat)
    times.update({name: statistics.median(values) for name, values in wall.items()})
    times.update({f"cpu_{name}": statistics.median(values) for name, values in cpu.items()})
    for kind, samples in (("", wall), ("cpu_", cpu)):
        times[f"paired_{kind}extra"] = paired_median(samples, "xla", "jax_numpy")
        times[f"paired_{kind}ratio"] = paired_median(samples, "xla", "jax_numpy", ratio=True)
    return times


# --- training steps: Variables read and written back by ours, parameters in and out of the hand-written ones --
LSTM_STEPS, LSTM_BATCH, LSTM_FEATURES, LSTM_HIDDEN, LSTM_LEARNING_RATE = 50, 32, 128, 128, 0.05


def lstm_train_data():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((LSTM_STEPS, LSTM_BATCH, LSTM_FEATURES)).astype(np.float32)
    ys = rng.standard_normal((LSTM_BATCH, 1)).astype(np.float32)
    return xs, ys, [(rng.standard_normal((LSTM_FEATURES, 4 * LSTM_HIDDEN)) / np.sqrt(LSTM_FEATURES)).astype(np.float32),
                    (rng.standard_normal((LSTM_HIDDEN, 4 * LSTM_HIDDEN)) / np.sqrt(LSTM_HIDDEN)).astype(np.float32),
                    np.zeros(4 * LSTM_HIDDEN, np.float32),
                    (rng.standard_normal((LSTM_HIDDEN, 1)) / np.sqrt(LSTM_HIDDEN)).astype(np.float32)]


def make_lstm_train_step(variables):
    """An LSTM over the time steps as a tensor loop (for x_t in xs), its gradient by GradientTape, SGD."""
    wx, wh, b, wo = variables
    optimizer = rt.optimizers.SGD(LSTM_LEARNING_RATE)

    def step(xs, ys):
        with rt.GradientTape() as tape:
            h = rt.zeros((LSTM_BATCH, LSTM_HIDDEN))
            c = rt.zeros((LSTM_BATCH, LSTM_HIDDEN))
            for x_t in xs:   # a tensor loop (the gradient's backward loop pops what it keeps)
                z = rt.matmul(x_t, wx) + rt.matmul(h, wh) + b
                i, f, g, o = rt.split(z, 4, axis=1)
                c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
                h = rt.sigmoid(o) * rt.tanh(c)
            loss = rt.reduce_mean(rt.square(rt.matmul(h, wo) - ys))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


def jax_lstm_train_step(jax, jnp):
    """The same step as a JAX user writes it: lax.scan over the time steps, jax.value_and_grad, SGD; jitted."""
    def loss_of(params, xs, ys):
        wx, wh, b, wo = params

        def cell(carry, x_t):
            h, c = carry
            z = x_t @ wx + h @ wh + b
            i, f, g, o = jnp.split(z, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            return (jax.nn.sigmoid(o) * jnp.tanh(c), c), None
        zeros = jnp.zeros((LSTM_BATCH, LSTM_HIDDEN), jnp.float32)
        (h, _), _ = jax.lax.scan(cell, (zeros, zeros), xs)
        return jnp.mean(jnp.square(h @ wo - ys))

    @jax.jit
    def step(params, xs, ys):
        loss, grads = jax.value_and_grad(loss_of)(params, xs, ys)
        return loss, [p - LSTM_LEARNING_RATE * g for p, g in zip(params, grads)]
    return step


def measure_train_step(name: str, repeat: int) -> Dict[str, float]:
    """A training step: ours compiled, ours on the numpy executor (each with its own Variables) and the
    hand-written JAX step; medians per call, and the first calls as in ``measure``."""
    import jax
    import jax.numpy as jnp
    import autograph_lite as ag
    _warm_up(jax)
    if name == "train":
        from jax_rows import jax_step_function
        from training import _data, make_step
        x, y, *initial = _data()
        make_ours, hand, number = make_step, jax_step_function(jax, jnp), 20
    else:
        x, y, initial = lstm_train_data()
        make_ours, hand, number = make_lstm_train_step, jax_lstm_train_step(jax, jnp), 2
    xt, yt = rt.constant(x), rt.constant(y)
    state = {"params": [jnp.asarray(p) for p in initial]}
    jx, jy = jnp.asarray(x), jnp.asarray(y)

    def run_jax():
        loss, state["params"] = hand(state["params"], jx, jy)
        return loss.block_until_ready()

    def run_jax_numpy_batch():   # ours' data path: the batch from numpy on every call, the loss back to numpy
        loss, state["params"] = hand(state["params"], x, y)
        return np.asarray(loss)
    times = {"first_jax": _first_seconds(run_jax)}
    traced = ag.function(make_ours([rt.Variable(p) for p in initial]), jit_compile=True)   # (as in measure)
    times["trace"] = _first_seconds(lambda: traced.get_concrete_function(xt, yt).graph)   # + gradient, optimize
    ours = ag.function(make_ours([rt.Variable(p) for p in initial]), jit_compile=True)
    numpy_step = ag.function(make_ours([rt.Variable(p) for p in initial]))
    losses = []
    times["first_ours"] = _first_seconds(lambda: losses.append(float(ours(xt, yt))))
    np.testing.assert_allclose(losses[0], float(numpy_step(xt, yt)), rtol=1e-5)   # the same first step
    return _timed(times, {"xla": lambda: ours(xt, yt), "jax": run_jax, "jax_numpy": run_jax_numpy_batch,
                          "numpy": lambda: numpy_step(xt, yt)}, number, repeat)


def _in_child(repeat: int, env: Dict[str, str], names: Sequence[str]) -> dict:
    output = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(repeat), *names],
                            env=dict(os.environ, **env), capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


LABELS = {"kmeans": "25 k-means 10k x 8, 16 centers, 10 iterations", "mandelbrot": "25 Mandelbrot 256^2, 64 masked "
          "iterations", "lstm": "25 LSTM 50 unrolled steps, batch 32, hidden 128",
          "viterbi": "25 Viterbi 200 steps, 64 states (lists appended in tensor loops)", "train": "25 MLP train step "
          "784-128-10, batch 64, SGD", "lstm_train": "25 LSTM train step, a tensor loop of 50 steps, batch 32, "
          "hidden 128, SGD", "mlp": "25 3-layer MLP 64-64-64-10, batch 1", "newton": "25 scalar Newton "
          "loop (sqrt 2, ~5 iterations)"}


def _row(*args, **kwargs):
    from run import row
    return row(*args, **kwargs)


TRAIN_STEPS = ("train", "lstm_train")
ROWS = ("kmeans", "mandelbrot", "lstm", "viterbi", "mlp", "newton") + TRAIN_STEPS


def bench_xla(repeat: int, names: Sequence[str] = ROWS) -> List[dict]:
    try:
        import jax  # noqa: F401
    except ImportError:
        return [_row("25 jit_compile=True", "skipped (jax not installed)", float("nan"), "ms")]
    rows = []
    load_before = os.getloadavg()[0]   # the machine's other work: the rows' wall-clock times include its share
    for threads, env in (("1 thread", ONE_THREAD), ("default threads", {})):
        results = _in_child(repeat, env, names)
        for name, times in results.items():
            label, kind = LABELS[name], "overhead" if name in ("mlp", "newton") else "compute"
            xla_t, jax_t, numpy_t = times["xla"], times["jax"], times["numpy"]
            unit, scale = ("ms", 1e3) if kind == "compute" else ("us", 1e6)
            rows.append(_row(label, f"{threads}: jax.jit by hand", jax_t * scale, unit, 1.0))
            same_path = "numpy batch" if name in TRAIN_STEPS else "numpy in/out"
            rows.append(_row(label, f"{threads}: jax.jit by hand, {same_path}", times["jax_numpy"] * scale,
                             unit, times["jax_numpy"] / jax_t, "report (vs jax)"))   # ours' data path (docstring)
            # Judged round by round against the hand-written program on the same data path (see _timed)
            if kind == "compute":
                ratio = times["paired_ratio"]
                rows.append(_row(label, f"{threads}: jit_compile=True (ratio: round by round)", xla_t * scale, unit,
                                 ratio, f"<= {COMPUTE_TARGET}x jax {same_path}", ratio <= COMPUTE_TARGET))
                if threads == "1 thread":   # the same samples' CPU time (see _timed)
                    cpu_ratio = times["paired_cpu_ratio"]
                    rows.append(_row(label, f"{threads}: jit_compile=True, CPU time", times["cpu_xla"] * scale, unit,
                                     cpu_ratio, f"<= {COMPUTE_TARGET}x jax {same_path} CPU",
                                     cpu_ratio <= COMPUTE_TARGET))
            else:
                extra = times["paired_extra"] * 1e6   # ours over JAX's own call on the same numpy data
                rows.append(_row(label, f"{threads}: jit_compile=True", xla_t * scale, unit, xla_t / jax_t,
                                 "report (vs jax)"))
                rows.append(_row(label, f"{threads}: jit_compile=True over jax numpy in/out, round by round", extra,
                                 "us", None, f"<= {OVERHEAD_US:g} us", extra <= OVERHEAD_US))
                if threads == "1 thread":
                    extra_cpu = times["paired_cpu_extra"] * 1e6
                    rows.append(_row(label, f"{threads}: jax.jit by hand, numpy in/out, CPU time",
                                     times["cpu_jax_numpy"] * scale, unit, times["cpu_jax_numpy"] / times["cpu_jax"],
                                     "report (vs jax CPU)"))
                    rows.append(_row(label, f"{threads}: jit_compile=True, CPU time", times["cpu_xla"] * scale, unit,
                                     times["cpu_xla"] / times["cpu_jax"], "report (vs jax CPU)"))
                    rows.append(_row(label, f"{threads}: jit_compile=True over jax numpy in/out, CPU, round by round",
                                     extra_cpu, "us", None, f"<= {OVERHEAD_US:g} us", extra_cpu <= OVERHEAD_US))
            rows.append(_row(label, f"{threads}: numpy executor", numpy_t * scale, unit, numpy_t / jax_t,
                             "report (vs jax)"))
            if "trace" in times:
                budget = (times["trace"] + times["first_jax"]) * FIRST_CALL_SLACK
                rows.append(_row(label, f"{threads}: first call, jit_compile=True", times["first_ours"] * 1e3, "ms",
                                 times["first_ours"] / (times["trace"] + times["first_jax"]),
                                 "<= 1.2x (trace + jax first)", times["first_ours"] <= budget))
    rows.append(_row("25 machine load", "load average (1 min), start / end", load_before, "", os.getloadavg()[0]
                     / max(load_before, 1e-9), "report"))
    return rows


BENCHMARKS = [bench_xla]

if __name__ == "__main__" and len(sys.argv) >= 3 and sys.argv[1] == "--child":
    chosen_repeat = int(sys.argv[2])
    result = {name: measure_train_step(name, chosen_repeat) if name in TRAIN_STEPS else measure(name, chosen_repeat)
              for name in sys.argv[3:]}
    print(json.dumps(result))
elif __name__ == "__main__":
    from run import format_table
    chosen = sys.argv[2:] or ROWS
    unknown = sorted(set(chosen) - set(ROWS))
    if unknown:
        sys.exit(f"unknown rows {unknown}; the rows are {' '.join(ROWS)}")
    print(format_table(bench_xla(int(sys.argv[1]) if len(sys.argv) > 1 else 7, chosen)))
