"""Where in the user's source each graph op was created, so errors raised while a graph runs point there.

While tracing, every new op remembers the first frame on the stack outside the libraries (runtime
itself, and any library that registered its directory): ``(filename, line, function)``. That costs one
short walk up the stack per op; turning it into text happens only when an error is raised. A library
that runs the user's code in a generated form (autograph_lite) registers a mapper from a generated
line back to the user's original one.

>>> from runtime.core.source_locations import format_user_code, SourceLocation
>>> print(format_user_code([SourceLocation("model.py", 3, "f", "y = rt.gather(x, [5])")]).strip())
in user code:
    File "model.py", line 3, in f
      y = rt.gather(x, [5])
"""
from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import types
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple


class SourceLocation(NamedTuple):
    filename: str
    lineno: int
    function_name: str
    source_line: str


# (code filename, line, code name) of the frame that created an op, resolved only when needed.
CreationSite = Tuple[str, int, str]
LocationMapper = Callable[[str, int], Optional[Sequence]]  # returns (filename, lineno, function, line)

FROM_STACK = object()  # "look on the stack for the creation site" (the default of Graph.create_op)
_USER_CODE_HEADER = "\n  in user code:"
# the runtime package: this file is runtime/core/source_locations.py
_library_prefixes: Tuple[str, ...] = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)
_mappers: List[LocationMapper] = []
# Where a library keeps the 'in user code:' text it attached to an exception (to refresh it, not repeat it).
USER_CODE_ATTRIBUTE = "_ag_user_code"
# Python's own modules and installed packages: a frame there is not the user's line that raised.
_INSTALLED = tuple(os.path.abspath(path) + os.sep for path in {
    sysconfig.get_paths()[name] for name in ("stdlib", "purelib", "platlib")})


def register_library(directory: str, mapper: Optional[LocationMapper] = None) -> None:
    """Skip frames of files under ``directory`` when recording where an op was created; ``mapper``
    (if given) maps a frame of generated code to the user's original line, or returns None.

    Example: ``register_library(os.path.dirname(mylib.__file__), mylib.origin_of)``.
    """
    global _library_prefixes  # noqa: PLW0603 - a new tuple, read without a lock by every op creation
    prefix = os.path.abspath(directory) + os.sep
    if prefix not in _library_prefixes:
        _library_prefixes += (prefix,)
    if mapper is not None and mapper not in _mappers:
        _mappers.append(mapper)


def is_library_frame(filename: str, lineno: int) -> bool:
    """True for a frame of a registered library's files or of code a library generated (a mapper knows it)."""
    return filename.startswith(_library_prefixes) or any(mapper(filename, lineno) is not None for mapper in _mappers)


# Files found to be library code by ``creation_site`` (only those: a set of the library's own files). A set
# lookup is cheaper than ``startswith`` over the prefixes, and a trace walks ~10 library frames per op.
_library_files: set = set()


def creation_site() -> Optional[CreationSite]:
    """The innermost frame of the caller's stack that is not library code (None if there is none)."""
    frame = sys._getframe(1)
    known = _library_files
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename not in known:
            if not filename.startswith(_library_prefixes):
                return filename, frame.f_lineno, frame.f_code.co_name
            known.add(filename)  # (prefixes are only ever added: a library file stays one)
        frame = frame.f_back
    return None


def resolve(site: CreationSite) -> SourceLocation:
    """The user's file, line, function and source text for a recorded creation site."""
    filename, lineno, function_name = site
    for mapper in _mappers:
        mapped = mapper(filename, lineno)
        if mapped is not None:
            return SourceLocation(*mapped)
    return SourceLocation(filename, lineno, function_name, linecache.getline(filename, lineno).strip())


def raise_site(tb: Optional[types.TracebackType]) -> Optional[SourceLocation]:
    """The user's line that raised the exception whose traceback is ``tb``: its innermost frame of the
    user's code (generated code mapped back to the user's line), skipping the libraries and, if the user's
    code is found above them, Python's own modules and installed packages (``json``, numpy).

    >>> try:
    ...     int("x")
    ... except ValueError as error:
    ...     raise_site(error.__traceback__).source_line
    'int("x")'
    """
    found = outside_libraries = None
    while tb is not None:
        filename, lineno = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        mapped = next((where for where in (mapper(filename, lineno) for mapper in _mappers) if where), None)
        if mapped is not None:
            found = SourceLocation(*mapped)
        elif not filename.startswith(_library_prefixes):
            outside_libraries = resolve((filename, lineno, tb.tb_frame.f_code.co_name))
            if not filename.startswith(_INSTALLED):
                found = outside_libraries
        tb = tb.tb_next
    return found or outside_libraries


def format_user_code(locations: Sequence[SourceLocation], heading: str = "in user code") -> str:
    """The 'in user code:' section appended to errors, one entry per location (outermost first).

    A block of frames repeated back to back (recursion) is shown once, then counted, as CPython does.

    >>> here = SourceLocation("m.py", 3, "f", "return f(n - 1)")
    >>> print(format_user_code([here] * 500))
    <BLANKLINE>
      in user code:
        File "m.py", line 3, in f
          return f(n - 1)
        [Previous line repeated 499 more times]
    """
    body = []
    index = 0
    while index < len(locations):
        period, repeats = _repetition_at(locations, index)
        for where in locations[index:index + period]:
            body.append(f'\n    File "{where.filename}", line {where.lineno}, in {where.function_name}'
                        f'\n      {where.source_line}')
        if repeats > 1:
            what = "line" if period == 1 else f"{period} frames"
            body.append(f"\n    [Previous {what} repeated {repeats - 1} more times]")
        index += period * repeats
    return f"\n  {heading}:{''.join(body)}"


def _repetition_at(locations: Sequence[SourceLocation], start: int, longest_period: int = 4) -> Tuple[int, int]:
    """(period, repeats) of the longest-running block of up to ``longest_period`` frames at ``start``;
    (1, 1) if nothing repeats at least three times."""
    best = (1, 1)
    for period in range(1, longest_period + 1):
        block = list(locations[start:start + period])
        repeats = 1
        while list(locations[start + repeats * period:start + (repeats + 1) * period]) == block:
            repeats += 1
        if repeats >= 3 and period * repeats > best[0] * best[1]:
            best = (period, repeats)
    return best


def with_creation_site(error: BaseException, site: Optional[CreationSite]) -> BaseException:
    """``error`` (raised while a graph ran) with the user line that created the failing op appended
    to its message, unless a nested graph already added one."""
    if site is None or len(error.args) != 1 or not isinstance(error.args[0], str):
        return error
    message = error.args[0]
    if _USER_CODE_HEADER not in message:
        error.args = (message + format_user_code([resolve(site)]),)
    return error
