"""Where the overhead rows' difference goes: JAX's own call costs more when other Python runs between two calls.

    python benchmarks/xla_call_gap.py [repeat] [row ...]      (rows: mlp newton; 15 repetitions by default)

Candidates, in one process, each timed ``number`` calls at a time in rounds of a rotated order (``timing``), on the
rows' data of ``xla_rows.py``:

- ``by hand``: the hand-written ``jax.jit`` program on numpy arrays, its result converted to numpy (the target's
  reference: JAX called in a loop doing nothing else);
- ``ours``: the ``jit_compile=True`` function on our tensors;
- ``our Python alone``: ours with JAX's call stubbed out (the same Python, a fixed result);
- ``our Python, then by hand``: that, then the hand-written call: what ours does, in two pieces;
- ``5 us busy, then by hand``: a 5 µs loop reading the clock, then the hand-written call.

Printed: medians of wall-clock, process CPU and main-thread CPU microseconds per call, then each candidate's
difference from ``by hand``, round by round (``timing.paired_median``). When "our Python, then by hand" costs what
ours does, ours adds nothing but its Python and what any Python between two calls costs JAX's next call.
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Callable, Dict, List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

from timing import paired_median  # noqa: E402

ROWS = {"mlp": 300, "newton": 1000}   # row -> calls per sample


def _busy(microseconds: float) -> None:
    end = time.perf_counter() + microseconds * 1e-6
    while time.perf_counter() < end:
        pass


def candidates(row: str) -> Dict[str, Callable[[], object]]:
    import jax
    import jax.numpy as jnp
    import autograph_lite as ag
    import runtime as rt
    import xla_rows
    function, data, *_ = xla_rows.workloads()[row]
    arrays = data()
    tensors = [rt.constant(a) for a in arrays]
    hand = jax.jit(xla_rows.jax_programs(jax, jnp)[row])
    ours = ag.function(function, jit_compile=True)
    stubbed = ag.function(function, jit_compile=True)
    stubbed(*tensors)
    result = np.asarray(hand(*arrays))
    stubbed.get_concrete_function(*tensors)._run = lambda *_: [result]   # JAX's call out, the rest of ours kept

    def by_hand():
        return np.asarray(hand(*arrays))
    return {"by hand": by_hand, "ours": lambda: ours(*tensors), "our Python alone": lambda: stubbed(*tensors),
            "our Python, then by hand": lambda: (stubbed(*tensors), by_hand()),
            "5 us busy, then by hand": lambda: (_busy(5.0), by_hand())}


def measure(row: str, repeat: int) -> Dict[str, Dict[str, List[float]]]:
    """Microseconds per call of each candidate: ``{clock: {candidate: [one per round]}}``."""
    calls, number = candidates(row), ROWS[row]
    for call in calls.values():
        for _ in range(50):
            call()
    names = list(calls)
    samples: Dict[str, Dict[str, List[float]]] = {c: {n: [] for n in names} for c in ("wall", "cpu", "main thread")}
    for round_index in range(repeat):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            call = calls[name]
            wall, cpu, thread = time.perf_counter(), time.process_time(), time.thread_time()
            for _ in range(number):
                call()
            samples["main thread"][name].append((time.thread_time() - thread) / number * 1e6)
            samples["cpu"][name].append((time.process_time() - cpu) / number * 1e6)
            samples["wall"][name].append((time.perf_counter() - wall) / number * 1e6)
    return samples


def main(repeat: int, rows: List[str]) -> None:
    print(f"load average (1 min) {os.getloadavg()[0]:.1f}; us per call, medians of {repeat} rounds")
    for row in rows:
        samples = measure(row, repeat)
        for name in samples["wall"]:
            times = "  ".join(f"{clock} {statistics.median(samples[clock][name]):7.1f}" for clock in samples)
            extra = "  ".join(f"{clock} {paired_median(samples[clock], name, 'by hand'):+6.1f}" for clock in samples)
            print(f"{row:7s} {name:26s} {times}   over by hand: {extra}")


if __name__ == "__main__":
    chosen = sys.argv[2:] or list(ROWS)
    unknown = sorted(set(chosen) - set(ROWS))
    if unknown:
        sys.exit(f"unknown rows {unknown}; the rows are {' '.join(ROWS)}")
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15, chosen)
