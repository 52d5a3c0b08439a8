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
    for fn in candidates.values():
        fn()  # warm up
    wall: Dict[str, List[float]] = {name: [] for name in candidates}
    cpu: Dict[str, List[float]] = {name: [] for name in candidates}
    for _ in range(repeat):
        for name, fn in candidates.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(number):
                fn()
            cpu[name].append((time.process_time() - start_cpu) / number)
            wall[name].append((time.perf_counter() - start) / number)
    return ({name: statistics.median(values) for name, values in wall.items()},
            {name: statistics.median(values) for name, values in cpu.items()})


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
