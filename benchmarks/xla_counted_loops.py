"""Issue 25's question about counted loops: does compiling a tensor loop whose trip count is known when compiling
as ``lax.scan`` (or ``lax.scan`` unrolled, 8 iterations per step or all of them) pay against ``lax.while_loop``?
``jit_compile=True`` ("auto", ``runtime/backends/xla/loops.py``) unrolls the loops whose bodies are elementwise
over big arrays, and compiles the others as ``lax.while_loop``. Per cached call and on the first call
(trace + lower + XLA's compile), medians of side-by-side repetitions, in one child process with one thread
(BLAS and XLA pinned) and one with default threads.

Rows: the k-means and Mandelbrot loops of ``compute_loops.py`` with their iteration counts as Python ints (a
counted ``rt.range``), its Viterbi (two counted loops over a static shape), the LSTM train step of
``xla_rows.py`` (a counted forward loop; its gradient's backward loop counts down from a run-time value and stays
a ``while_loop`` in every form), and a scalar recurrence of 200 steps (the loop's own cost dominates).

Run: ``python benchmarks/xla_counted_loops.py [repeat] [word ...]`` (only the rows whose names hold a word:
``Mandelbrot``, ``Viterbi``, ...; all by default).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Callable, Dict, List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import runtime as rt  # noqa: E402
from timing import compare_wall_and_cpu  # noqa: E402

FORMS = {"while_loop": ("while", 1), "scan": ("scan", 1), "scan, unroll 8": ("scan", 8),
         "scan, unrolled": ("scan", True), "jit_compile=True (auto)": ("auto", 1)}
RECURRENCE_STEPS = 200


def kmeans_counted(points, centers):
    import compute_loops
    return compute_loops.kmeans(points, centers, compute_loops.KMEANS_ITERATIONS)


def mandelbrot_counted(c_re, c_im):
    from compute_loops import MANDELBROT_ITERATIONS
    z_re = rt.zeros_like(c_re)
    z_im = rt.zeros_like(c_im)
    counts = rt.zeros(c_re.shape, rt.int32)
    for _ in rt.range(MANDELBROT_ITERATIONS):   # a Python int: a counted tensor loop
        re2, im2 = z_re * z_re, z_im * z_im
        inside = re2 + im2 <= 4.0
        z_im = rt.where(inside, 2.0 * z_re * z_im + c_im, z_im)
        z_re = rt.where(inside, re2 - im2 + c_re, z_re)
        counts += rt.cast(inside, rt.int32)
    return counts


def recurrence(x, r):
    for _ in rt.range(RECURRENCE_STEPS):   # a logistic map: scalar work, the loop's own cost dominates
        x = r * x * (1.0 - x)
    return x


def workloads() -> Dict[str, tuple]:
    import compute_loops
    return {  # name -> (function, data, calls per sample)
        "k-means 10k x 8, 16 centers, 10 counted iterations": (
            kmeans_counted, lambda: compute_loops.kmeans_data()[:2], 5),
        "Mandelbrot 256^2, 64 counted iterations": (
            mandelbrot_counted, lambda: compute_loops.mandelbrot_data()[:2], 5),
        "Viterbi 200 steps, 64 states": (compute_loops.viterbi, compute_loops.viterbi_data, 5),
        f"scalar logistic map, {RECURRENCE_STEPS} counted steps": (
            recurrence, lambda: [np.float32(0.3), np.float32(3.7)], 200),
    }


def _compiled(function: Callable, form: tuple, args: List) -> tuple:
    """``function`` compiled with counted loops in ``form``; (the function, its first call's seconds, result)."""
    import autograph_lite as ag
    from runtime.backends.xla import loops
    compiled = ag.function(function, jit_compile=True)
    default = loops.COUNTED_LOOP_FORM, loops.COUNTED_LOOP_UNROLL
    loops.COUNTED_LOOP_FORM, loops.COUNTED_LOOP_UNROLL = form
    try:   # the form is read when the graph is lowered: at the first call
        start = time.perf_counter()
        result = compiled(*args)
        seconds = time.perf_counter() - start
    finally:
        loops.COUNTED_LOOP_FORM, loops.COUNTED_LOOP_UNROLL = default
    return compiled, seconds, result


def _same(results: List) -> None:
    first = np.asarray(results[0])
    for other in results[1:]:
        if first.dtype.kind in "iu":
            assert np.mean(np.asarray(other) != first) < 1e-3, "the forms disagree"
        else:
            np.testing.assert_allclose(np.asarray(other), first, rtol=1e-4, atol=1e-5)


def measure(repeat: int, chosen: List[str]) -> Dict[str, Dict[str, float]]:
    import jax
    import autograph_lite as ag
    jax.jit(lambda v: v + 1)(np.float32(1)).block_until_ready()   # JAX's backend started before any first call
    import runtime.backends.xla.compiled  # noqa: F401
    results: Dict[str, Dict[str, float]] = {}
    for name, (function, data, number) in workloads().items():
        if chosen and not any(word in name for word in chosen):
            continue
        args = [rt.constant(a) for a in data()]
        ag.function(function).get_concrete_function(*args)   # the conversion, cached: no form's first call pays it
        compiled = {form: _compiled(function, FORMS[form], args) for form in FORMS}
        _same([value.numpy() for _, _, value in compiled.values()])
        times = {f"first {form}": seconds for form, (_, seconds, _) in compiled.items()}
        wall, cpu = compare_wall_and_cpu({form: (lambda f=f: f(*args)) for form, (f, _, _) in compiled.items()},
                                         number, repeat)
        times.update(wall)
        times.update({f"cpu {form}": value for form, value in cpu.items()})
        results[name] = times
    if not chosen or any(word in "LSTM train" for word in chosen):
        results.update(_lstm_train(repeat))
    return results


def _lstm_train(repeat: int) -> Dict[str, Dict[str, float]]:
    import autograph_lite as ag
    from xla_rows import lstm_train_data, make_lstm_train_step
    x, y, initial = lstm_train_data()
    xt, yt = rt.constant(x), rt.constant(y)
    ag.function(make_lstm_train_step([rt.Variable(p) for p in initial])).get_concrete_function(xt, yt)  # converted
    steps, times, losses = {}, {}, []
    for form in FORMS:   # each step its own Variables, from the same values
        step, seconds, loss = _compiled(make_lstm_train_step([rt.Variable(p) for p in initial]), FORMS[form],
                                        [xt, yt])
        steps[form], times[f"first {form}"] = step, seconds
        losses.append(float(loss))
    _same(losses)
    wall, cpu = compare_wall_and_cpu({form: (lambda s=s: s(xt, yt)) for form, s in steps.items()}, 2, repeat)
    times.update(wall)
    times.update({f"cpu {form}": value for form, value in cpu.items()})
    return {"LSTM train step, 50 counted steps, batch 32, hidden 128": times}


def _row(*args, **kwargs):
    from run import row
    return row(*args, **kwargs)


def bench_counted_loops(repeat: int, chosen: List[str] = ()) -> List[dict]:
    from xla_rows import ONE_THREAD
    rows = []
    for threads, env in (("1 thread", ONE_THREAD), ("default threads", {})):
        output = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(repeat), *chosen],
                                env=dict(os.environ, **env), capture_output=True, text=True, check=True).stdout
        for name, times in json.loads(output.strip().splitlines()[-1]).items():
            unit, scale = ("us", 1e6) if times["while_loop"] < 1e-3 else ("ms", 1e3)
            for form in FORMS:
                rows.append(_row(f"25 {name}", f"{threads}: {form}", times[form] * scale, unit,
                                 times[form] / times["while_loop"], "report (vs while)"))
                if threads == "1 thread":
                    rows.append(_row(f"25 {name}", f"{threads}: {form}, CPU time", times[f"cpu {form}"] * scale, unit,
                                     times[f"cpu {form}"] / times["cpu while_loop"], "report (vs while)"))
                rows.append(_row(f"25 {name}", f"{threads}: first call, {form}", times[f"first {form}"] * 1e3, "ms",
                                 times[f"first {form}"] / times["first while_loop"], "report (vs while)"))
    return rows


if __name__ == "__main__" and len(sys.argv) >= 3 and sys.argv[1] == "--child":
    print(json.dumps(measure(int(sys.argv[2]), sys.argv[3:])))
elif __name__ == "__main__":
    from run import format_table
    print(format_table(bench_counted_loops(int(sys.argv[1]) if len(sys.argv) > 1 else 7, sys.argv[2:])))
