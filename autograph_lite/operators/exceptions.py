"""``assert test, msg`` for converted code: Python's assert, or a graph ``Assert`` op on tensors; and the
exception a ``return`` inside ``finally`` discards (``caught_by_finally``, ``reraise_caught``).

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
from autograph_lite.operators.staging import Retrace
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import BaseException, isinstance, str


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


_CONVERSIONS_OWN = (Retrace, rt.errors.StagedExceptionError, rt.errors.StateError,
                    rt.errors.OperatorNotAllowedInGraphError, rt.errors.InaccessibleTensorError)


def caught_by_finally(error: BaseException) -> BaseException:
    """``error``, raised in the ``try`` (or a handler, or the ``else``) of a ``try`` whose ``finally`` may
    ``return``: the converted statement holds it while the ``finally`` runs, and raises it again unless the
    ``finally`` returned (``reraise_caught``), as Python does. What conversion itself raises passes on at once,
    since the original function would not have raised it and discarding it would silently return from a
    trace that stopped half-way: a retrace of a tensor-dependent construct; an exception raised while tracing
    a tensor-dependent branch or loop body (``rt.errors.StagedExceptionError``: tracing raises it for every
    value, so a ``return`` in ``finally`` cannot discard it for the values that would not raise); and the
    errors that say something cannot be staged (``StateError``, ``OperatorNotAllowedInGraphError``,
    ``InaccessibleTensorError``).

    >>> caught_by_finally(ValueError('discarded if the finally returns'))
    ValueError('discarded if the finally returns')
    """
    if isinstance(error, _CONVERSIONS_OWN):
        raise error
    return error


def reraise_caught(caught: Optional[BaseException]) -> None:
    """At the end of a ``finally`` that did not return: raise the exception ``caught_by_finally`` held (None:
    there was none).

    >>> reraise_caught(None)
    >>> reraise_caught(KeyError('k'))
    Traceback (most recent call last):
      ...
    KeyError: 'k'
    """
    if caught is not None:
        raise caught
