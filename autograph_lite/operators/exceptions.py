"""``assert test, msg`` for converted code: Python's assert, or a graph ``Assert`` op on tensors.

Like the statement it replaces, the check is skipped entirely under ``python -O`` (``__debug__`` is
False), for tensors too, so that graph and eager runs of the same function agree.

>>> assert_stmt(1 + 1 == 2, lambda: 'math works')
>>> assert_stmt(False, lambda: 'boom')
Traceback (most recent call last):
  ...
AssertionError: boom
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import runtime as rt
from autograph_lite.operators.logical import as_condition
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance, str


def assert_stmt(test: Any, message: Callable[[], Optional[Any]]) -> Any:
    """Check ``test``; ``message()`` (None when the assert has no message) is evaluated only on failure
    in Python, and once while tracing for a symbolic ``test``.

    On a symbolic ``test`` returns the stateful ``Assert`` op, which raises
    ``rt.errors.InvalidArgumentError`` carrying the message when it fails at run time.
    """
    if not __debug__:
        return None
    test = as_condition(test)  # a tensor list: len(test) > 0
    if isinstance(test, SymbolicTensor):
        text = message()
        if text is None:
            text = "Assertion failed"
        elif not isinstance(text, (str, rt.Tensor)):
            text = str(text)  # the Assert op shows strings and tensors
        return rt.debugging.Assert(test, [text])
    if not test:
        text = message()
        raise AssertionError() if text is None else AssertionError(text)
    return None
