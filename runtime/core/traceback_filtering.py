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
import threading
import types
from typing import Callable, Optional, TypeVar

from runtime.core import source_locations

_MODES = ("on", "off")
_mode = os.environ.get("AUTOGRAPH_LITE_TRACEBACK_FILTERING", "on").strip().lower()
if _mode not in _MODES:
    _mode = "on"

F = TypeVar("F", bound=Callable)
_nesting = threading.local()


def set_traceback_filtering(mode: str) -> None:
    """``"on"`` (the default): tracebacks leaving the library show only user frames; ``"off"``: all frames."""
    global _mode
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
    """
    @functools.wraps(function)
    def boundary(*args, **kwargs):
        depth = getattr(_nesting, "depth", 0)
        _nesting.depth = depth + 1
        try:
            return function(*args, **kwargs)
        except Exception as error:
            if depth == 0 and _mode == "on":
                error.with_traceback(filter_traceback(error.__traceback__))
            raise  # a bare raise keeps the (filtered) traceback and adds no frame of ours
        finally:
            _nesting.depth = depth

    return boundary  # type: ignore[return-value]
