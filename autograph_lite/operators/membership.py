"""``x in c`` / ``x not in c`` for converted code: Python's operator, except that membership in a symbolic
tensor is a bool vector (``reduce_any(equal)``) rather than an attempt to
iterate it.

>>> in_(2, [1, 2]), not_in('a', 'xyz')
(True, True)
"""
from __future__ import annotations

from typing import Any

import runtime as rt
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance


def in_(value: Any, container: Any) -> Any:
    """``value in container``; for a symbolic vector, whether some element equals the scalar ``value``
    (``rt.reduce_any(rt.equal(container, value))``).

    >>> in_(3, range(3))
    False
    """
    if not isinstance(container, SymbolicTensor):
        return value in container
    value = rt.convert_to_tensor(value, container.dtype)
    if container.ndim != 1 or value.ndim != 0:
        raise TypeError(
            f"'in' on tensors compares a scalar with the elements of a vector, got a value of shape {value.shape} "
            f"and a tensor of shape {container.shape}: as in Python, comparing whole rows has no single truth "
            "value. Reduce explicitly, e.g. rt.reduce_any(rt.reduce_all(rt.equal(t, row), axis=1))")
    equal = rt.equal(container, value)
    return rt.reduce_any(equal)


def not_in(value: Any, container: Any) -> Any:
    """``value not in container``; the logical negation of ``in_`` for a symbolic tensor.

    >>> not_in(3, [3])
    False
    """
    if not isinstance(container, SymbolicTensor):
        return value not in container
    return rt.logical_not(in_(value, container))
