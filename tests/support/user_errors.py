"""Assertions about errors as the user sees them: the message with its notes, the user's own file and
line, and no location inside the library."""
import inspect
import os
import traceback

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite.calls import converted_from

LIBRARY_DIRS = tuple(os.path.dirname(package.__file__) for package in (ag, rt))


def full_message(error):
    """The message and its notes ("in user code:" is a note on Python 3.11+)."""
    return "\n".join([str(error), *getattr(error, "__notes__", [])])


def line_of(function, text):
    """The file line number of the first line of ``function`` containing ``text``."""
    lines, first = inspect.getsourcelines(getattr(function, "python_function", function))
    for offset, line in enumerate(lines):
        if text in line:
            return first + offset
    raise AssertionError(f"{text!r} not in {function}")


def raises(error_type, function, args, *fragments, at=None):
    """``function(*args)`` raises exactly ``error_type`` with every fragment, pointing at the user's line
    containing ``at`` and at no file of the library itself; returns the full message."""
    with pytest.raises(error_type) as info:
        function(*args)
    assert type(info.value) is error_type, type(info.value)
    message = full_message(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    if at is not None:
        source_file = inspect.getsourcefile(getattr(function, "python_function", function))
        assert f'File "{source_file}", line {line_of(function, at)}' in message, message
    for library_dir in LIBRARY_DIRS:
        assert library_dir not in message, message
    return message


def raises_as_python(original, function, args, form, line):
    """``function(*args)`` (converted) raises exactly the exception ``original`` the original raised: the same
    type and message and no note (issue 23); in the plain form its traceback lists the user's line containing
    ``line``, as the original's does (the staged form's frames are generated code, left out of tracebacks)."""
    with pytest.raises(type(original)) as info:
        function(*args)
    assert (type(info.value), str(info.value), getattr(info.value, "__notes__", None)) == (
        type(original), str(original), getattr(original, "__notes__", None))
    if form == "plain form":
        python_function = converted_from(function) or function
        expected = (inspect.getsourcefile(python_function), line_of(python_function, line))
        frames = [(frame.filename, frame.lineno) for frame in traceback.extract_tb(info.value.__traceback__)]
        assert expected in frames, (expected, frames)
    return info.value
