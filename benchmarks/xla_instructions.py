"""Instructions per cached call of ``jit_compile=True`` against the same program written by hand for ``jax.jit``,
counted by valgrind's callgrind: deterministic where the clock of a shared machine is not (issue 25's overhead rows).

    python benchmarks/xla_instructions.py [calls] [row ...]      (rows: mlp newton; 1000 calls by default)

Each candidate runs in its own process under ``valgrind --tool=callgrind``, which counts nothing until the warm-up
calls are done (``--instr-atstart=no``, switched on and off around the timed calls with ``callgrind_control``) and
counts each thread apart. The main thread's instructions per call are what a call costs its caller; the other
threads' are JAX's worker threads, mostly spinning while they wait for work (how much depends on how valgrind
schedules them, so they are shown, not compared). Candidates, on the rows' data of ``xla_rows.py``:

- ``ours``: the ``jit_compile=True`` function called with our tensors;
- ``ours, jitted directly``: the JAX function ours compiled, called on the same numpy arrays (JAX's share of ours);
- ``by hand, numpy in/out``: the hand-written program on the same numpy arrays, its result converted to numpy.

JAX shares (does not copy) an argument whose data is aligned to 64 bytes, and where numpy allocates an array is
chance: every candidate gets copies of the data at 16 bytes past a 64-byte boundary (so all are copied), else the
counts would differ by up to ~8,000 instructions between processes for that reason alone. What remains varies by
~1,500 instructions per call from one process to the next (where the heap puts things). What switching the counting
on and off costs (and the loop around the calls) is counted once, calling a function that does nothing, and
taken off. ~1-3 minutes per candidate. Needs valgrind
(``apt-get install valgrind``); says so and stops without it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

CANDIDATES = {"ours": "ours", "ours_jitted": "ours, jitted directly", "hand": "by hand, numpy in/out"}
ROWS = ("mlp", "newton")


def _copied_by_jax(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` whose data starts 16 bytes past a 64-byte boundary (see the module docstring)."""
    if array.ndim == 0:
        return array
    buffer = np.empty(array.nbytes + 128, np.uint8)
    start = (-buffer.ctypes.data) % 64 + 16
    copy = buffer[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def _candidate(row: str, name: str) -> Callable[[], object]:
    if name == "nothing":   # what switching the counting on and off costs, taken off every candidate's count
        return lambda: None
    import jax
    import jax.numpy as jnp
    import autograph_lite as ag
    import runtime as rt
    import xla_rows
    function, data, *_ = xla_rows.workloads()[row]
    arrays = [_copied_by_jax(np.asarray(a)) for a in data()]
    tensors = [rt.constant(a) for a in arrays]
    ours = ag.function(function, jit_compile=True)
    if name == "ours":
        return lambda: ours(*tensors)
    if name == "ours_jitted":
        ours(*tensors)
        jitted = ours.get_concrete_function(*tensors)._run.program.jitted
        return lambda: np.asarray(jitted(*arrays))
    hand = jax.jit(xla_rows.jax_programs(jax, jnp)[row])
    return lambda: np.asarray(hand(*arrays))


def _instrumentation(state: str) -> None:
    """Switch callgrind's counting on or off in this process. Callgrind does it when this process next runs code:
    it polls, sleeping in between (a busy loop would be counted, as long as the machine's load makes it last)."""
    switch = subprocess.Popen(["callgrind_control", "-i", state, str(os.getpid())], stdout=subprocess.DEVNULL)
    while switch.poll() is None:
        time.sleep(0.001)


def _child(row: str, name: str, calls: int) -> None:
    call = _candidate(row, name)
    for _ in range(50):   # compiles, then warms the caches of both sides
        call()
    _instrumentation("on")
    for _ in range(calls):
        call()
    _instrumentation("off")


def _count(row: str, name: str, calls: int) -> Dict[str, float]:
    """Instructions per call: of the main thread, and of the other threads together."""
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
                        f"--callgrind-out-file={out}", sys.executable, os.path.abspath(__file__), "--child", row,
                        name, str(calls)], check=True, capture_output=True, env=dict(os.environ, PYTHONHASHSEED="0"))
        per_thread = {}
        for file in os.listdir(directory):
            thread = re.search(r"-(\d+)$", file)
            if thread:
                with open(os.path.join(directory, file)) as profile:
                    totals = re.search(r"^totals: (\d+)", profile.read(), re.M)
                per_thread[int(thread.group(1))] = int(totals.group(1)) if totals else 0
    main = per_thread.get(1, 0)
    return {"main": main / calls, "others": (sum(per_thread.values()) - main) / calls}


def main(calls: int, rows: List[str]) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("xla_instructions.py needs valgrind (callgrind): apt-get install valgrind")
    print(f"instructions per call, {calls} calls, main thread (other threads: JAX's workers)")
    switching = _count(ROWS[0], "nothing", calls)["main"]
    for row in rows:
        counts = {name: _count(row, name, calls) for name in CANDIDATES}
        for count in counts.values():
            count["main"] -= switching
        for name, label in CANDIDATES.items():
            print(f"{row:7s} {label:24s} {counts[name]['main']:10,.0f}   (other threads {counts[name]['others']:,.0f})")
        print(f"{row:7s} {'ours - by hand':24s} {counts['ours']['main'] - counts['hand']['main']:+10,.0f}   "
              f"(of which ours around JAX's call {counts['ours']['main'] - counts['ours_jitted']['main']:+,.0f})")


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "--child":
    _child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
elif __name__ == "__main__":
    chosen = sys.argv[2:] or list(ROWS)
    unknown = sorted(set(chosen) - set(ROWS))
    if unknown:
        sys.exit(f"unknown rows {unknown}; the rows are {' '.join(ROWS)}")
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, chosen)
