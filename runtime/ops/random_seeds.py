"""TensorFlow's seed rules for the stateful random ops: a global seed (``rt.random.set_seed``) and op seeds.

Each random op draws from a *stream*, a numpy generator started from a pair of seeds (global, op):

- neither seed: a fresh nondeterministic stream;
- a global seed only: the op seed is picked deterministically -- eagerly, a counter that ``set_seed``
  resets (so each call is a new op with a new stream); while tracing, the op's position in its graph (so
  two functions of the same shape draw the same values, as in TensorFlow);
- an op seed only: the global seed is TensorFlow's default (87654321);
- both: both.

An op seed starts a reproducible *sequence*, not one value: eagerly, every call of an op with the same seeds,
op type and dtype continues one stream (TensorFlow reuses one kernel with an internal counter), and
``set_seed`` starts it over; a traced op has a stream of its own that continues from one call of the
function to the next (two ops with the same seed in one function draw the same values). The numbers are
numpy's, not TensorFlow's: the rules are the same, the bits are not.

>>> set_seed(5)
>>> first = stream_for("RandomUniform", None, 3).generator.random()
>>> first != stream_for("RandomUniform", None, 3).generator.random()  # the same stream, further on
True
>>> set_seed(5)
>>> first == stream_for("RandomUniform", None, 3).generator.random()
True
>>> set_seed(None)
"""
from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Tuple

import numpy as np

from runtime.core import context

DEFAULT_GLOBAL_SEED = 87654321  # TensorFlow's, used when only an op seed is given
_MAX_SEED = 2 ** 63 - 1


class RandomStream:
    """The state of one random op: ``seed`` (global, op) or None, and the generator it started."""

    __slots__ = ("seed", "_generator", "_lock")

    def __init__(self, seed: Optional[Tuple[int, int]]):
        self.seed = seed
        self._generator: Optional[np.random.Generator] = None
        self._lock = threading.Lock()

    @property
    def generator(self) -> np.random.Generator:
        if self._generator is None:
            with self._lock:
                if self._generator is None:
                    self._generator = np.random.default_rng(None if self.seed is None else list(self.seed))
        return self._generator

    def __repr__(self) -> str:
        return f"RandomStream(seed={self.seed})"


_lock = threading.Lock()
_global_seed: Optional[int] = None
_eager_op_count = 0
_eager_streams: Dict[Any, RandomStream] = {}
_UNSEEDED = RandomStream(None)  # what ops without any seed draw from (one process-wide generator)


def check_seed(seed: Any, op_name: str) -> Optional[int]:
    """``seed`` as an int, or None; a TypeError that names the op for anything else."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or
                             not 0 <= seed <= _MAX_SEED):
        raise TypeError(f"{op_name}: seed must be a non-negative Python int (below 2**63) or None, got {seed!r}")
    return None if seed is None else int(seed)


def set_seed(seed: Optional[int]) -> None:
    """Set the global random seed (``tf.random.set_seed``): the random ops made after it draw reproducible
    sequences, and eager ops with an op seed start their sequences over. None clears it.

    >>> import runtime as rt
    >>> rt.random.set_seed(1)
    >>> a = rt.random.uniform([2], seed=7)
    >>> b = rt.random.uniform([2], seed=7)   # the sequence goes on: new values
    >>> rt.random.set_seed(1)
    >>> rt.random.uniform([2], seed=7).numpy().tolist() == a.numpy().tolist() != b.numpy().tolist()
    True
    """
    global _global_seed, _eager_op_count  # noqa: PLW0603 - TensorFlow's global seed is process-wide (under _lock)
    seed = check_seed(seed, "set_seed")
    with _lock:
        _global_seed = seed
        _eager_op_count = 0
        _eager_streams.clear()


def get_global_seed() -> Optional[int]:
    """The seed ``set_seed`` set, or None."""
    return _global_seed


def seed_pair(op_seed: Optional[int]) -> Optional[Tuple[int, int]]:
    """The (global, op) seeds of a new op under TensorFlow's rules; None when neither is set."""
    global _eager_op_count  # noqa: PLW0603 - counts eager random ops since set_seed, as TensorFlow does (under _lock)
    if _global_seed is None and op_seed is None:
        return None
    global_seed = DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed
    if op_seed is None:
        graph = context.current_graph()
        if graph is not None:
            op_seed = len(graph.operations)  # the op's place in its function: the same for the same program
        else:
            with _lock:
                op_seed = _eager_op_count
                _eager_op_count += 1
    return global_seed, op_seed


def stream_for(op_type: str, dtype: Any, op_seed: Optional[int]) -> RandomStream:
    """The stream a new random op draws from: eagerly, the one every call with these seeds continues (a
    fresh one without seeds); while tracing, a new one for the op."""
    seed = seed_pair(op_seed)
    if seed is None:
        return _UNSEEDED
    if context.current_graph() is not None:
        return RandomStream(seed)
    key = (op_type, None if dtype is None else np.dtype(dtype).name, seed)
    with _lock:
        stream = _eager_streams.get(key)
        if stream is None:
            stream = _eager_streams[key] = RandomStream(seed)
    return stream
