"""Optional report row of issue 14: our MLP train step (``ag.function``) next to the same step under
``jax.jit`` (``jax.grad`` + SGD), when jax is installed (``pip install -e '.[jax]'``); skipped otherwise.
Report only: no target.
"""
from __future__ import annotations

import os
import sys
from typing import List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import runtime as rt  # noqa: E402
from timing import compare  # noqa: E402
from training import LEARNING_RATE, _data, _row, make_step  # noqa: E402

NAME = "14 MLP train step 784-128-10, batch 64, SGD"


def jax_step_function(jax, jnp):
    """The same step in JAX: softmax cross-entropy, jax.grad, SGD; jitted, parameters in and out."""
    def loss_of(params, x, y):
        w1, b1, w2, b2 = params
        hidden = jnp.maximum(x @ w1 + b1, 0.0)
        logits = hidden @ w2 + b2
        shifted = logits - jnp.max(logits, axis=1, keepdims=True)
        log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
        return -jnp.mean(jnp.sum(y * log_probs, axis=1))

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_of)(params, x, y)
        return loss, [p - LEARNING_RATE * g for p, g in zip(params, grads)]
    return step


def bench_mlp_step_vs_jax(repeat: int) -> List[dict]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return [_row(NAME, "jax.jit: skipped (jax not installed)", float("nan"), "ms")]
    import autograph_lite as ag
    x, y, *initial = _data()
    graph_step = ag.function(make_step([rt.Variable(p) for p in initial]))
    xt, yt = rt.constant(x), rt.constant(y)
    jax_step = jax_step_function(jax, jnp)
    state = {"params": [jnp.asarray(p) for p in initial]}
    jx, jy = jnp.asarray(x), jnp.asarray(y)

    def run_jax():
        loss, state["params"] = jax_step(state["params"], jx, jy)
        loss.block_until_ready()

    first_jax_loss = float(jax_step([jnp.asarray(p) for p in initial], jx, jy)[0])
    np.testing.assert_allclose(float(graph_step(xt, yt)), first_jax_loss, rtol=1e-5)  # the same step
    t = compare({"graph": lambda: graph_step(xt, yt), "jax": run_jax}, 20, repeat)
    return [_row(NAME, f"jax {jax.__version__} jax.jit (report)", t["jax"] * 1e3, "ms", t["graph"] / t["jax"],
                 "report (ours/jax)")]


BENCHMARKS = [bench_mlp_step_vs_jax]
