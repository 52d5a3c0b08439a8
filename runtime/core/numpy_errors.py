"""numpy's floating-point warnings off for the length of one compiled call (TensorFlow's semantics).

TensorFlow returns inf and nan for 1/0, log(0) and sqrt(-1), and lets integer arithmetic wrap, without
a word. numpy warns instead (and prints a line of generated code for integer overflow on numpy
scalars). A compiled graph switches the warnings off once at the start of a call and back at the end,
instead of an ``np.errstate`` block around every kernel. ``np.errstate`` costs ~1.3 µs per use, so this
sets numpy's error-state context variable directly (~0.2 µs) when numpy has it, and falls back to
``np.errstate`` otherwise. The state is per thread (a context variable).

>>> import numpy as np
>>> state = ignore_numpy_errors()
>>> np.float32(1) / np.float32(0), np.int8(127) + np.int8(1)
(np.float32(inf), np.int8(-128))
>>> restore_numpy_errors(state)
"""
from __future__ import annotations

from typing import Any

import numpy as np

try:  # numpy >= 2: the error state is one context variable
    from numpy._core._ufunc_config import _extobj_contextvar as _ERROR_STATE

    with np.errstate(all="ignore"):
        _IGNORE_ALL = _ERROR_STATE.get()

    def ignore_numpy_errors() -> Any:
        """Silence numpy's floating-point warnings in this thread; returns what to restore."""
        return _ERROR_STATE.set(_IGNORE_ALL)

    def restore_numpy_errors(state: Any) -> None:
        """Undo the matching ``ignore_numpy_errors``."""
        _ERROR_STATE.reset(state)

    # The same two steps without a Python call each, for generated code:
    # ``state = SET_ERROR_STATE(QUIET_ERROR_STATE)`` ... ``RESET_ERROR_STATE(state)``.
    SET_ERROR_STATE, QUIET_ERROR_STATE, RESET_ERROR_STATE = _ERROR_STATE.set, _IGNORE_ALL, _ERROR_STATE.reset
except (ImportError, AttributeError):  # another numpy: the public (slower) way
    def ignore_numpy_errors() -> Any:
        """Silence numpy's floating-point warnings in this thread; returns what to restore."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore_numpy_errors(state: Any) -> None:
        """Undo the matching ``ignore_numpy_errors``."""
        state.__exit__(None, None, None)

    def SET_ERROR_STATE(_quiet: Any) -> Any:  # noqa: N802 - the same names as the fast path above
        return ignore_numpy_errors()

    QUIET_ERROR_STATE, RESET_ERROR_STATE = None, restore_numpy_errors
