"""How many times a tensor loop nested in an exactly counted one runs, iteration by iteration of the outer loop.

An inner loop over a range of the outer loop's counter (``for j in rt.range(i)``) runs a different number of
times in each outer iteration: its trip count's bound (``loop_bounds.trip_count`` with the counter's range) sizes
the buffers, but the exact total (0 + 1 + 2 + 3) is what says a list's length after the loops. When the outer
loop's counter takes values known when compiling (``loop_bounds.index_values``), the inner loop's inputs are
computed from it by the numpy kernels of the ops between them (the same kernels the numpy executor runs), once
per outer iteration, and its trip count read from them.

>>> import runtime as rt
>>> @rt.function
... def f():
...     return rt.while_loop(lambda i: i < 4, lambda i: (i + 1,), [rt.constant(0)])
>>> loop = [op for op in f.get_concrete_function().graph.operations if op.type == "While"][0]
>>> counter_values(loop, [np.int32(0)]).tolist()
[0, 1, 2, 3]
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from runtime.backends.xla.loop_bounds import TripCount, counter_ranges, index_values, trip_count
from runtime.core.graph import CONST, Operation
from runtime.core.registry import run_kernel
from runtime.ops.control_flow_ops import IF, WHILE


def counter_values(op: Operation, inputs: Sequence[Any]) -> Optional[np.ndarray]:
    """The values the counter of the ``While`` ``op`` takes, one per iteration, when the loop runs exactly its
    trip count and they are known when compiling; else None."""
    body = op.attrs["body"]
    for k in counter_ranges(op, inputs):
        values = index_values(op, inputs, body.inputs[k])
        if values is not None:
            return values
    return None


def inner_trips(op: Operation, inputs: Sequence[Any], inner: Operation) -> Optional[List[TripCount]]:
    """The trip count of ``inner`` (a ``While`` of ``op``'s body) in each iteration of ``op``, if every one is
    known when compiling (None otherwise: ``op``'s counter or the inner loop's bounds are not)."""
    body, count = op.attrs["body"], op.attrs["num_loop_vars"]
    if inner.graph is not body:
        return None
    values = counter_values(op, inputs)
    position = next((k for k in counter_ranges(op, inputs) if index_values(op, inputs, body.inputs[k]) is not None),
                    None)
    if values is None or position is None:
        return None
    known = {id(p): np.asarray(inputs[j]) for j, p in enumerate(body.inputs)
             if j >= count and isinstance(inputs[j], (np.ndarray, np.generic))}
    counter = body.inputs[position]
    found = []
    for value in values:
        env: Dict[int, Any] = dict(known)
        env[id(counter)] = np.asarray(value, counter.dtype)
        trips = trip_count(inner, [_evaluated(t, env, 0) for t in inner.inputs])
        if trips is None or not trips.exact:
            return None
        found.append(trips)
    return found


def _evaluated(tensor: Any, env: Dict[int, Any], depth: int) -> Optional[np.ndarray]:
    """``tensor``'s value from ``env`` (placeholders' values) by the numpy kernels of the ops that compute it
    (stateless ones with a kernel, not loops or branches), or None if it is not computed from them alone."""
    if id(tensor) in env:
        return env[id(tensor)]
    op = tensor.op
    value = None
    if op.op_def is CONST:
        value = np.asarray(op.attrs["value"])
    elif depth < 16 and op.inputs and not op.is_stateful and op.op_def.kernel is not None and \
            op.op_def not in (WHILE, IF):
        arrays = [_evaluated(t, env, depth + 1) for t in op.inputs]
        if all(a is not None for a in arrays):
            try:
                result = run_kernel(op.op_def, arrays, op.attrs, op.name)
            except Exception:   # (an error here is the op's own when it runs: not a count known now)
                result = None
            if result is not None:
                value = np.asarray(result[tensor.index] if isinstance(result, tuple) else result)
    env[id(tensor)] = value
    return value
