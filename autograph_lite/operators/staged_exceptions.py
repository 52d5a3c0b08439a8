"""An exception the user's code raises while a tensor-dependent branch or loop body is traced.

A graph cannot raise a Python exception for some values only: tracing the branch raises it for every value.
Passed on as it is, an ``except`` or ``contextlib.suppress`` around the ``if``/loop (in the same function or
a caller) would take it for the exception happening and the graph would be built from the handler's path,
for every value: a silently wrong result. So it leaves the construct as ``rt.errors.StagedExceptionError``
(a BaseException: ``except Exception`` does not catch it), with the original as its cause. When it leaves
the last trace, the boundary of the entry point (``Function.__call__``, ``api_boundary``) raises the
original in its place, with the staged error's ``note`` (runtime/core/traceback_filtering.py ``unstaged``).

Passed on unchanged: what the library raises (its own errors, and Python's raised in its code, like an
op's TypeError for mixed dtypes: they are about the program, not about a value, and their messages say what
to fix), Python's NameError and UnboundLocalError (converted code raises them where Python would),
RecursionError (error_locations.py adds its hint), and the operators' retrace signals (BaseExceptions).

>>> def branch():
...     raise KeyError('missing')
>>> try:
...     traced(branch, 'if branch of a tensor-dependent if')
... except rt.errors.StagedExceptionError as error:
...     print(str(error).splitlines()[0])
KeyError: 'missing' (raised while tracing the if branch of a tensor-dependent if at <doctest ...>:2)
"""
from __future__ import annotations

import os
from typing import Any, Callable

import runtime as rt
from runtime.core import source_locations

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance, type

_LIBRARIES = ('runtime.', 'autograph_lite.')
_LIBRARY_DIRS = tuple(os.path.dirname(os.path.abspath(path)) + os.sep for path in (
    rt.__file__, os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep + '__init__.py'))
_PASSED_ON = (NameError, RecursionError)


def _raised_by_the_library(error: BaseException) -> bool:
    """True if the library raised ``error`` (its class is ours, or its innermost frame is in our code)."""
    if type(error).__module__.startswith(_LIBRARIES):
        return True
    frame = error.__traceback__
    if frame is None:
        return False
    while frame.tb_next is not None:
        frame = frame.tb_next
    return frame.tb_frame.f_code.co_filename.startswith(_LIBRARY_DIRS)


def traced(function: Callable[..., Any], where: str, *args: Any) -> Any:
    """``function(*args)``, the user's code traced as the ``where`` (e.g. 'body of a tensor-dependent while
    loop'); what it raises leaves as a StagedExceptionError (see the module docstring)."""
    try:
        return function(*args)
    except Exception as error:
        if isinstance(error, _PASSED_ON) or _raised_by_the_library(error):
            raise
        shown = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        site = source_locations.raise_site(error.__traceback__)
        raised = f"raised while tracing the {where}" + (f" at {site.filename}:{site.lineno}" if site else "")
        check = ("To check values when the graph runs, use `assert` or rt.debugging.assert_* (graph Assert ops); to "
                 "raise, make the condition a Python value.")
        note = (f"{raised}. A graph cannot raise a Python exception for some values only, so tracing raises it for "
                f"all of them (inside the trace, as rt.errors.StagedExceptionError, which no except around the "
                f"construct catches). {check}")
        raise rt.errors.StagedExceptionError(
            f"{shown} ({raised})\n"
            "A graph cannot raise a Python exception for some values only, so tracing raises it for all of them. "
            f"It is raised as this error, not as {type(error).__name__}, so that an except or "
            "contextlib.suppress around the construct cannot take it for an exception at run time and build the "
            f"graph from its handler (it leaves the last trace as {type(error).__name__}). {check}",
            error, note).with_traceback(error.__traceback__) from error
