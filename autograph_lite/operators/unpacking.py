"""Tuple unpacking of tensors: ``a, b, c = t`` unpacks the rows of ``t`` when its first dimension is known.

The converter (converters/unpacking.py) writes ``a, b, c = ag__.unpack(t)``; Python then does the
unpacking itself, so the counts, the starred target and the errors are Python's own.

>>> unpack([1, 2])
[1, 2]
"""
from __future__ import annotations

from typing import Any

import runtime as rt
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance, len, range, tuple


def unpack(value: Any) -> Any:
    """``value`` as Python should unpack it: a symbolic tensor becomes the tuple of its rows (its first
    dimension must be known while tracing); anything else is returned as it is.

    >>> unpack('ab')
    'ab'
    """
    if not isinstance(value, SymbolicTensor):
        return value
    shape = value.shape
    if shape is not None and len(shape) == 0:
        raise TypeError(f"cannot unpack a scalar tensor ({value!r}): it has no rows")
    if shape is None or shape[0] is None:
        raise rt.errors.OperatorNotAllowedInGraphError(
            f"cannot unpack the tensor {value.name} (shape {shape}) while tracing: its first dimension is "
            "unknown, so the number of values is not known. Give the argument a fixed first dimension "
            "(e.g. rt.TensorSpec([3, ...])) or index the rows (a = t[0])")
    return tuple(value[index] for index in range(shape[0]))
