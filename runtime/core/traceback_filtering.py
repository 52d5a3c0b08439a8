"""Tracebacks that start in user code: frames of the libraries (and of generated code) are dropped from
an error's traceback when it leaves a public entry point, as JAX does with ``jax_traceback_filtering``.

The error message already says where in the user's code it happened ("in user code:"); the library
frames between the user's call and the raise are noise to anyone but a library developer, who can keep
them with ``set_traceback_filtering("off")`` or ``AUTOGRAPH_LITE_TRACEBACK_FILTERING=off``.

>>> set_traceback_filtering("off"); traceback_filtering()
'off'
>>> set_traceback_filtering("on"); traceback_filtering()
'on'
"""
from __future__ import annotations

import functools
import os
import sys
import types
from typing import Callable, Optional, TypeVar

from runtime.core import context, source_locations
from runtime.core.errors import USER_FACING, StagedExceptionError

_MODES = ("on", "off")
_mode = os.environ.get("AUTOGRAPH_LITE_TRACEBACK_FILTERING", "on").strip().lower()
if _mode not in _MODES:
    _mode = "on"

F = TypeVar("F", bound=Callable)


def set_traceback_filtering(mode: str) -> None:
    """``"on"`` (the default): tracebacks leaving the library show only user frames; ``"off"``: all frames."""
    global _mode  # noqa: PLW0603 - a process-wide setting, as in TensorFlow
    if mode not in _MODES:
        raise ValueError(f"traceback filtering mode must be one of {_MODES}, got {mode!r}")
    _mode = mode


def traceback_filtering() -> str:
    """The current mode, ``"on"`` or ``"off"``."""
    return _mode


def filter_traceback(tb: Optional[types.TracebackType]) -> Optional[types.TracebackType]:
    """``tb`` without the frames of library files and generated code (the user's frames, in order)."""
    kept = []
    while tb is not None:
        if not source_locations.is_library_frame(tb.tb_frame.f_code.co_filename, tb.tb_lineno):
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for entry in reversed(kept):
        filtered = types.TracebackType(filtered, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return filtered


def api_boundary(function: F) -> F:
    """Decorate a public entry point: errors leaving it carry a filtered traceback (when filtering is on).

    Only the outermost boundary on the stack filters: inner ones (a function called while another is
    traced) leave the frames that locate the error in the user's code for the outer ones to read.
    Whether a boundary is the outermost is found from the stack when an error passes, so a call that
    raises nothing pays only for the wrapper's frame (see ``inline_api_boundary`` for hot entry points).
    A StagedExceptionError leaving the last trace leaves as the user's original exception (``unstaged``).
    """
    @functools.wraps(function)
    def boundary(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except USER_FACING as error:
            filter_leaving_traceback(error)
            original = unstaged(error)
            if original is None:
                raise  # a bare raise keeps the (filtered) traceback and adds no frame of ours
        context_of_original = original.__context__
        try:
            raise original  # raised here, so that this frame is the one the filter drops
        except BaseException:
            original.__context__ = context_of_original  # not the exception the caller is handling, if any
            filter_leaving_traceback(original)
            raise

    return boundary  # type: ignore[return-value]


def inline_api_boundary(method: F) -> F:
    """Mark an entry point that is its own boundary: its body catches ``Exception``, calls
    ``filter_leaving_traceback(error)`` and re-raises. No wrapper frame, for calls made millions of times.

    Example (it also raises the original of a StagedExceptionError leaving the last trace, as
    ``api_boundary`` does)::

        @inline_api_boundary
        def __call__(self, *args):
            try:
                return self._run(*args)
            except Exception as error:
                filter_leaving_traceback(error)
                raise
    """
    _boundary_codes.add(method.__code__)
    return method


def filter_leaving_traceback(error: BaseException) -> None:
    """Filter ``error``'s traceback if filtering is on and the boundary calling this is the outermost one."""
    if _mode == "on" and not _inside_another_boundary():
        error.with_traceback(filter_traceback(error.__traceback__))


def unstaged(error: BaseException) -> Optional[BaseException]:
    """What a boundary raises in place of ``error``: None (``error`` itself) unless ``error`` is a
    StagedExceptionError leaving the last trace (no graph is being built on this thread any more); then
    its original exception, which only the code being traced must not catch, with the staged error's
    traceback and notes ("in user code:") and a note saying it was raised while tracing, and why.

    Inside an enclosing trace (a function called while another is traced) it stays a StagedExceptionError,
    so that the enclosing function's ``except`` around the call cannot catch it either.

    >>> unstaged(ValueError("not staged")) is None
    True
    """
    if type(error) is not StagedExceptionError or error.original is None or context.in_graph_mode():
        return None
    original = error.original
    added = [error.note] if error.note else []
    stale = getattr(original, source_locations.USER_CODE_ATTRIBUTE, None)  # attached by a callee: partial
    fresh = getattr(error, source_locations.USER_CODE_ATTRIBUTE, None)
    if fresh is not None:
        setattr(original, source_locations.USER_CODE_ATTRIBUTE, fresh)
    notes = [note for note in getattr(original, "__notes__", ()) if stale is None or note != stale.lstrip("\n")]
    original.__notes__ = notes + [note for note in added + getattr(error, "__notes__", []) if note not in notes]
    return original.with_traceback(error.__traceback__)


def _inside_another_boundary() -> bool:
    """True if a boundary's frame is above the boundary that asks (via ``filter_leaving_traceback``)."""
    frame = sys._getframe(3)  # 0: here, 1: filter_leaving_traceback, 2: the boundary, 3: its caller
    while frame is not None:
        if frame.f_code in _boundary_codes:
            return True
        frame = frame.f_back
    return False


_boundary_codes = {api_boundary(lambda: None).__code__}  # every api_boundary wrapper shares this code
