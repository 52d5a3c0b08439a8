"""Benchmark row of issue 14: the gradient through a tensor ``while`` (an RNN-like loop
``h = tanh(h @ W)``, 1,000 and 10,000 iterations), as one ``ag.function`` vs the same forward and backward
loops written by hand in numpy: time per iteration, the 10k/1k time ratio (linear: ~10) and peak memory
(tracemalloc) in units of one iteration's ``h`` (one accumulator per needed value: ~1 array per iteration,
since the loop's ``h`` and ``tanh``'s output are the same arrays).
"""
from __future__ import annotations

import os
import sys
import tracemalloc
from typing import List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]  # this checkout's runtime, and timing.py

import runtime as rt  # noqa: E402
from timing import compare  # noqa: E402

BATCH, HIDDEN = 16, 64


def _row(*args, **kwargs):
    from run import row
    return row(*args, **kwargs)


def make_rnn_gradient():
    """``ag.function``: the loop and its gradient (GradientTape) in one graph; ``steps`` is a tensor."""
    import autograph_lite as ag

    @ag.function
    def rnn_gradient(h, weights, steps):
        with rt.GradientTape() as tape:
            tape.watch([h, weights])
            state = h
            i = rt.constant(0)
            while i < steps:
                state = rt.tanh(rt.matmul(state, weights))
                i += 1
            loss = rt.reduce_sum(state)
        return tape.gradient(loss, [h, weights])
    return rnn_gradient


def numpy_rnn_gradient(h, weights, steps):
    """The same by hand: the forward loop keeps each step's output, the backward loop walks them in reverse."""
    states = [h]
    for _ in range(steps):
        states.append(np.tanh(states[-1] @ weights))
    grad_h = np.ones_like(h)
    grad_w = np.zeros_like(weights)
    for t in range(steps, 0, -1):
        grad_pre = grad_h * (1.0 - states[t] * states[t])
        grad_w += states[t - 1].T @ grad_pre
        grad_h = grad_pre @ weights.T
    return grad_h, grad_w


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def bench_while_gradient(repeat: int) -> List[dict]:
    rng = np.random.default_rng(0)
    h = (rng.standard_normal((BATCH, HIDDEN)) * 0.5).astype(np.float32)
    weights = (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    graph = make_rnn_gradient()
    ht, wt = rt.constant(h), rt.constant(weights)
    for steps in (3, 1000):  # the same gradients
        ours = [np.asarray(g) for g in graph(ht, wt, rt.constant(steps))]
        for got, want in zip(ours, numpy_rnn_gradient(h, weights, steps)):
            np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-5)
    name = "14 gradient through a tensor while (RNN 16x64, tanh)"
    small, big = rt.constant(1000), rt.constant(10000)
    t = compare({"numpy 1k": lambda: numpy_rnn_gradient(h, weights, 1000), "graph 1k": lambda: graph(ht, wt, small),
                 "numpy 10k": lambda: numpy_rnn_gradient(h, weights, 10000),
                 "graph 10k": lambda: graph(ht, wt, big)}, 1, max(3, repeat))  # interleaved: the same load
    rows = []
    for label, steps in (("1k", 1000), ("10k", 10000)):
        rows += [_row(name, f"numpy forward+backward, {steps} iterations", t[f"numpy {label}"] * 1e3, "ms", 1.0),
                 _row(name, f"ag.function + GradientTape, {steps} iterations", t[f"graph {label}"] * 1e3, "ms",
                      t[f"graph {label}"] / t[f"numpy {label}"], "report")]
    linear = t["graph 10k"] / t["graph 1k"]
    rows += [_row(name, "numpy time 10k / 1k iterations", t["numpy 10k"] / t["numpy 1k"], "x"),
             _row(name, "graph time 10k / 1k iterations", linear, "x", None, "linear: 8-12x", 8 <= linear <= 12)]
    step_bytes = h.nbytes
    n = rt.constant(1000)
    graph_peak = _peak_bytes(lambda: graph(ht, wt, n)) / (1000 * step_bytes)
    numpy_peak = _peak_bytes(lambda: numpy_rnn_gradient(h, weights, 1000)) / (1000 * step_bytes)
    rows += [_row(name, "numpy peak memory / (1000 x one h)", numpy_peak, "x", 1.0),
             _row(name, "graph peak memory / (1000 x one h)", graph_peak, "x", graph_peak / numpy_peak,
                  "<= 1.5 (one h per iteration)", graph_peak <= 1.5)]
    return rows


def make_scaled_rnn_gradient():
    """The RNN with a loop-invariant op in its body (``weights * 0.5`` every iteration): the backward loop
    recomputes it once before it runs instead of accumulating a copy per iteration (while_gradients)."""
    import autograph_lite as ag

    @ag.function
    def scaled_rnn_gradient(h, weights, steps):
        with rt.GradientTape() as tape:
            tape.watch([h, weights])
            state = h
            i = rt.constant(0)
            while i < steps:
                state = rt.tanh(rt.matmul(state, weights * 0.5))
                i += 1
            loss = rt.reduce_sum(state)
        return tape.gradient(loss, [h, weights])
    return scaled_rnn_gradient


def bench_invariant_in_loop(repeat: int) -> List[dict]:
    rng = np.random.default_rng(0)
    h = (rng.standard_normal((BATCH, HIDDEN)) * 0.5).astype(np.float32)
    weights = (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    graph = make_scaled_rnn_gradient()
    ht, wt, n = rt.constant(h), rt.constant(weights), rt.constant(1000)
    grad_h, grad_w = (np.asarray(g) for g in graph(ht, wt, n))
    want_h, want_w = numpy_rnn_gradient(h, weights * 0.5, 1000)
    np.testing.assert_allclose(grad_h, want_h, rtol=2e-3, atol=2e-5)
    np.testing.assert_allclose(grad_w, want_w * 0.5, rtol=2e-3, atol=2e-5)
    name = "14 gradient through a while with a loop-invariant op (weights * 0.5 in the body)"
    t = compare({"numpy": lambda: numpy_rnn_gradient(h, weights * 0.5, 1000), "graph": lambda: graph(ht, wt, n)},
                1, max(3, repeat))
    graph_peak = _peak_bytes(lambda: graph(ht, wt, n)) / (1000 * h.nbytes)
    numpy_peak = _peak_bytes(lambda: numpy_rnn_gradient(h, weights * 0.5, 1000)) / (1000 * h.nbytes)
    return [_row(name, "numpy forward+backward, 1000 iterations", t["numpy"] * 1e3, "ms", 1.0),
            _row(name, "ag.function + GradientTape, 1000 iterations", t["graph"] * 1e3, "ms",
                 t["graph"] / t["numpy"], "report"),
            _row(name, "graph peak memory / (1000 x one h)", graph_peak, "x", graph_peak / numpy_peak,
                 "<= 1.5 (the invariant is not kept per iteration)", graph_peak <= 1.5)]


def make_data_rnn_step():
    """The README's RNN: it slices its data in the loop (xs[t:t + 1]) and appends states to a list; only W is
    differentiated, so the backward loop computes no gradient for xs (a zeros tensor of its full shape per
    iteration would make it quadratic in the length)."""
    import autograph_lite as ag

    @ag.function
    def data_rnn_step(xs, weights, h):
        with rt.GradientTape() as tape:
            tape.watch(weights)
            outs = []
            for t in rt.range(rt.shape(xs)[0]):
                h = rt.tanh(rt.matmul(xs[t:t + 1], weights) + h)
                outs.append(h)
            loss = rt.reduce_sum(rt.stack(outs) ** 2)
        return loss, tape.gradient(loss, weights)
    return data_rnn_step


def numpy_data_rnn_step(xs, weights, h):
    states = [h]
    for t in range(len(xs)):
        states.append(np.tanh(xs[t:t + 1] @ weights + states[-1]))
    loss = sum(float(np.sum(s * s)) for s in states[1:])
    grad_w, grad_h = np.zeros_like(weights), np.zeros_like(h)
    for t in range(len(xs), 0, -1):
        grad_pre = (grad_h + 2 * states[t]) * (1.0 - states[t] * states[t])
        grad_w += xs[t - 1:t].T @ grad_pre
        grad_h = grad_pre
    return loss, grad_w


def bench_data_rnn(repeat: int) -> List[dict]:
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1000, 32)).astype(np.float32)
    weights = (rng.standard_normal((32, HIDDEN)) / 6).astype(np.float32)
    h = np.zeros((1, HIDDEN), np.float32)
    graph = make_data_rnn_step()
    args = [rt.constant(xs), rt.constant(weights), rt.constant(h)]
    loss, grad_w = graph(*args)
    want_loss, want_w = numpy_data_rnn_step(xs, weights, h)
    np.testing.assert_allclose(float(loss), want_loss, rtol=1e-4)
    np.testing.assert_allclose(np.asarray(grad_w), want_w, rtol=2e-3, atol=2e-4)
    name = "14 RNN over data slices, states in a list, gradient wrt W (1000 steps, 32 -> 64)"
    t = compare({"numpy": lambda: numpy_data_rnn_step(xs, weights, h), "graph": lambda: graph(*args)}, 1,
                max(3, repeat))
    return [_row(name, "numpy forward+backward", t["numpy"] * 1e3, "ms", 1.0),
            _row(name, "ag.function + GradientTape", t["graph"] * 1e3, "ms", t["graph"] / t["numpy"], "report")]


BENCHMARKS = [bench_while_gradient, bench_invariant_in_loop, bench_data_rnn]
