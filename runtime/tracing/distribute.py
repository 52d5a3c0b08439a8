"""``rt.distribute.data_parallel``: one training step run over several devices, batch split, parameters replicated.

Devices, sharding and the collectives come from JAX and XLA (``jit_compile``), never from a scheduler of our
own: the step's graph is compiled once for a mesh of ``devices``; the first axis of each tensor argument that
divides evenly is split over them, Variables and every other value are replicated, and XLA inserts the
all-reduce that a mean over the batch needs. On several hosts, call ``jax.distributed.initialize()`` first and
every process runs the same program (docs/XLA.md).

>>> import autograph_lite as ag, runtime as rt                      # doctest: +SKIP
>>> w = rt.Variable(rt.zeros([4, 1]))                               # doctest: +SKIP
>>> @ag.function                                                     # doctest: +SKIP
... def step(x, y):
...     with rt.GradientTape() as tape:
...         loss = rt.reduce_mean(rt.square(rt.matmul(x, w) - y))
...     w.assign_sub(0.1 * tape.gradient(loss, w))
...     return loss
>>> parallel_step = rt.distribute.data_parallel(step)               # doctest: +SKIP
>>> parallel_step(x_batch, y_batch)                                 # doctest: +SKIP
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from runtime.backends.xla import DataParallel
from runtime.tracing.function import Function


def data_parallel(step: Callable, devices: Optional[Sequence[Any]] = None) -> Function:
    """``step`` (a Python function, or an ``rt.function``/``ag.function``, whose settings and autograph
    conversion it keeps) compiled by XLA for ``devices`` (default: all of ``jax.devices()``), the batch axis of
    its tensor arguments split over them and everything else replicated. Needs the jax extra.

    Results equal one device's up to the order of float sums (an all-reduce adds the shards' partial sums).
    """
    placement = DataParallel(devices)
    if isinstance(step, Function):
        return Function(step.python_function, step.input_signature, step._reduce_retracing,
                        trace_with=step._trace_with, jit_compile=placement)
    return Function(step, jit_compile=placement)
