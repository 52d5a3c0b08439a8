"""Benchmark rows of issue 14 (gradients): an MLP train step (784 -> 128 -> 10, batch 64, SGD) as one
``ag.function`` vs the same step written by hand in numpy vs the eager tape, and its first call.

All of them run in one child process with one BLAS thread (``OPENBLAS_NUM_THREADS=1``, read when numpy is
imported, as row 9 does): the graph's matmuls are numpy's, so both sides use the same BLAS pool anyway, and
one thread keeps the ratio from depending on how busy the machine's other core is.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]  # this checkout's runtime, and timing.py

import runtime as rt  # noqa: E402
from timing import compare, median_once  # noqa: E402

LEARNING_RATE = 0.01


def _row(*args, **kwargs):
    from run import row
    return row(*args, **kwargs)


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 64)
    y = np.eye(10, dtype=np.float32)[labels]  # one-hot
    w1 = (rng.standard_normal((784, 128)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((128, 10)) * 0.05).astype(np.float32)
    return x, y, w1, np.zeros(128, np.float32), w2, np.zeros(10, np.float32)


def make_step(variables):
    """The train step over rt.Variables: softmax cross-entropy, gradients by GradientTape, SGD."""
    w1, b1, w2, b2 = variables
    optimizer = rt.optimizers.SGD(LEARNING_RATE)

    def step(x, y):
        with rt.GradientTape() as tape:
            hidden = rt.maximum(rt.matmul(x, w1) + b1, 0.0)
            logits = rt.matmul(hidden, w2) + b2
            shifted = logits - rt.reduce_max(logits, axis=1, keepdims=True)
            log_probs = shifted - rt.log(rt.reduce_sum(rt.exp(shifted), axis=1, keepdims=True))
            loss = -rt.reduce_mean(rt.reduce_sum(y * log_probs, axis=1))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


def numpy_step(x, y, params):
    """The same step by hand: forward, backward and update, in place."""
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    hidden = np.maximum(pre, 0.0)
    logits = hidden @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = -np.mean(np.sum(y * (shifted - np.log(total)), axis=1))
    d_logits = (exp / total - y) / len(x)
    d_hidden = (d_logits @ w2.T) * (pre > 0)
    w2 -= LEARNING_RATE * (hidden.T @ d_logits)
    b2 -= LEARNING_RATE * d_logits.sum(axis=0)
    w1 -= LEARNING_RATE * (x.T @ d_hidden)
    b1 -= LEARNING_RATE * d_hidden.sum(axis=0)
    return loss


def _measure_mlp_train_step(repeat: int) -> dict:
    import autograph_lite as ag
    x, y, *initial = _data()
    params = [p.copy() for p in initial]
    graph_vars = [rt.Variable(p) for p in initial]
    eager_vars = [rt.Variable(p) for p in initial]
    graph_step, eager_step = ag.function(make_step(graph_vars)), make_step(eager_vars)
    xt, yt = rt.constant(x), rt.constant(y)
    losses = [numpy_step(x, y, params), float(graph_step(xt, yt)), float(eager_step(xt, yt))]
    np.testing.assert_allclose(losses, losses[0], rtol=1e-5)  # the same step: same loss, same update
    for ours in (graph_vars, eager_vars):
        for p, v in zip(params, ours):
            np.testing.assert_allclose(v.numpy(), p, rtol=1e-4, atol=1e-6)
    t = compare({"numpy": lambda: numpy_step(x, y, params), "graph": lambda: graph_step(xt, yt),
                 "eager": lambda: eager_step(xt, yt)}, 20, repeat)
    t["first"] = median_once(lambda: ag.function(make_step([rt.Variable(p) for p in initial]))(xt, yt), repeat)
    return t


def bench_mlp_train_step(repeat: int) -> List[dict]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    output = subprocess.run([sys.executable, os.path.abspath(__file__), "mlp", str(repeat)], env=env,
                            capture_output=True, text=True, check=True).stdout
    t = json.loads(output.strip().splitlines()[-1])
    first = t["first"]
    name = "14 MLP train step 784-128-10, batch 64, SGD"  # jax_rows.py adds its row under this name
    return [_row(name, "numpy fwd+bwd by hand, 1 BLAS thread", t["numpy"] * 1e3, "ms", 1.0),
            _row(name, "ag.function (tape+SGD), 1 BLAS thread", t["graph"] * 1e3, "ms", t["graph"] / t["numpy"],
                 "<= 1.3x numpy", t["graph"] / t["numpy"] <= 1.3),
            _row(name, "eager GradientTape, 1 BLAS thread", t["eager"] * 1e3, "ms", t["eager"] / t["graph"],
                 "report (vs graph)"),
            _row(name, "first call: trace+gradient+compile", first * 1e3, "ms", None, "<= 50 ms", first * 1e3 <= 50)]


BENCHMARKS = [bench_mlp_train_step]

if __name__ == "__main__" and sys.argv[1:2] == ["mlp"]:
    print(json.dumps(_measure_mlp_train_step(int(sys.argv[2]))))
