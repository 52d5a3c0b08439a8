"""Timing helpers: medians of repeated runs, and a description of the machine they ran on."""
from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from typing import Callable, Dict, List, Tuple

import numpy as np


def median_seconds(fn: Callable[[], object], number: int, repeat: int) -> float:
    """Median over ``repeat`` runs of the time of ``number`` calls of ``fn``, per call, in seconds."""
    fn()  # warm up: caches, first-call compilation, page faults
    samples: List[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def compare(candidates: Dict[str, Callable[[], object]], number: int, repeat: int) -> Dict[str, float]:
    """Median seconds per call of each candidate, measured round-robin (side by side).

    Interleaving the candidates within every repetition exposes them all to the same machine load,
    so their ratios stay meaningful on a busy machine.
    """
    return compare_wall_and_cpu(candidates, number, repeat)[0]


def compare_wall_and_cpu(candidates: Dict[str, Callable[[], object]], number: int,
                         repeat: int) -> Tuple[Dict[str, float], Dict[str, float]]:
    """``compare``'s medians of wall-clock seconds per call, and of the process's CPU seconds per call over
    the same samples (every thread of the process: BLAS's and row-block workers' too).

    On a machine shared with other jobs the wall clock also counts the time spent waiting for a core; the
    CPU time does not, so its ratios stay close to a quiet machine's (cache and memory-bus contention
    still count in both).
    """
    wall, cpu = samples_wall_and_cpu(candidates, number, repeat)
    return ({name: statistics.median(values) for name, values in wall.items()},
            {name: statistics.median(values) for name, values in cpu.items()})


def samples_wall_and_cpu(candidates: Dict[str, Callable[[], object]], number: int,
                         repeat: int) -> Tuple[Dict[str, List[float]], Dict[str, List[float]]]:
    """The samples behind ``compare_wall_and_cpu``: for each candidate, ``repeat`` wall-clock and CPU seconds
    per call, the i-th samples of all candidates taken in the same round (so ``paired_median`` can compare
    them round by round). The order rotates from round to round: no candidate always runs right after the same
    other one, whose leftovers (evicted caches, threads still finishing or spinning) it would otherwise pay
    every time.
    """
    for fn in candidates.values():
        fn()  # warm up
    names = list(candidates)
    wall: Dict[str, List[float]] = {name: [] for name in names}
    cpu: Dict[str, List[float]] = {name: [] for name in names}
    for round_index in range(repeat):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            fn = candidates[name]
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(number):
                fn()
            cpu[name].append((time.process_time() - start_cpu) / number)
            wall[name].append((time.perf_counter() - start) / number)
    return wall, cpu


def paired_median(samples: Dict[str, List[float]], name: str, base: str, ratio: bool = False) -> float:
    """The median over rounds of ``name``'s sample minus (or, with ``ratio``, divided by) ``base``'s sample of
    the same round. On a busy machine the load moves both samples of a round together, so this varies less
    from run to run than the difference (or ratio) of the two medians.

    >>> paired_median({"a": [3.0, 9.0, 4.0], "b": [1.0, 8.0, 1.0]}, "a", "b")
    2.0
    """
    pairs = zip(samples[name], samples[base])
    return statistics.median([a / b if ratio else a - b for a, b in pairs])


def median_once(make_and_run: Callable[[], object], repeat: int) -> float:
    """Median time of single calls that each start from scratch (for first-call latency)."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        make_and_run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def machine() -> Dict[str, str]:
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "nproc": str(os.cpu_count()), "python": sys.version.split()[0],
            "numpy": np.__version__, "platform": platform.platform()}
