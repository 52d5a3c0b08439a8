"""Point exceptions raised inside converted code at the user's own file and line.

The frames of generated code in the traceback are mapped through the origin map; the result is
attached once per exception (and refreshed as it propagates out through more converted frames):
as a note on Python 3.11+ (shown by tracebacks), else appended to a single-string message.

Errors raised later, while a graph runs, are located by the runtime from the op that failed; it
learns here to skip our own frames and to map generated lines back to the user's.
"""
import linecache
import os
import sys

from runtime.core import context, source_locations

from autograph_lite import conversion
from autograph_lite.pyct import origin_info

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import getattr, isinstance, setattr

source_locations.register_library(os.path.dirname(os.path.abspath(__file__)), origin_info.lookup)

_ATTACHED = source_locations.USER_CODE_ATTRIBUTE
_RECURSION_HINT = ('\n  hint: a staged if traces both of its branches, so a function that calls itself under a '
                   'tensor condition recurses until Python gives up. Write the recursion as a loop (while or for), '
                   'which becomes one While op in the graph. A recursion on Python values that the original '
                   'survives can also reach the limit here: while tracing, each converted call runs in its staged '
                   'form, a few Python frames where the original takes one. Raise the limit with '
                   'sys.setrecursionlimit(n) (it is %d).')


def attach_user_location(exc: BaseException) -> None:
    """Add the 'in user code:' section for the converted frames in ``exc``'s traceback."""
    attach_origins(exc, user_frames(exc.__traceback__))


def user_frames(tb) -> list:
    """Origins of the traceback's frames of converted code, outermost first, deduplicated: generated code
    mapped to the user's lines, and plain forms, which run under the user's own file and lines."""
    frames: list = []
    while tb is not None:
        _add_origin(frames, tb.tb_frame.f_code, tb.tb_lineno)
        tb = tb.tb_next
    return frames


def attach_caller_location(exc: BaseException, frame) -> None:
    """Add the 'in user code:' section for the converted frames from ``frame`` outwards: for an error our code
    raises about the call converted code is making (from the plain form, no boundary of ours is above it)."""
    frames: list = []
    while frame is not None:
        _add_origin(frames, frame.f_code, frame.f_lineno)
        frame = frame.f_back
    attach_origins(exc, frames[::-1])


def _add_origin(frames: list, code, line: int) -> None:
    if conversion.runs_in_user_file(code):
        origin = origin_info.Origin(code.co_filename, line, code.co_name,
                                    linecache.getline(code.co_filename, line).strip())
    elif origin_info.is_plumbing(code.co_filename, line):
        origin = None
    else:
        origin = origin_info.lookup(code.co_filename, line)
    if origin is not None and (not frames or frames[-1] != origin):
        frames.append(origin)


def attach_origins(exc: BaseException, frames) -> None:
    """Add (or refresh) the 'in user code:' section listing ``frames`` (user Origins, outermost first)."""
    if not frames:
        return
    text = source_locations.format_user_code(frames)
    if isinstance(exc, RecursionError) and context.in_graph_mode():   # only tracing stages an if
        text += _RECURSION_HINT % sys.getrecursionlimit()
    previous = getattr(exc, _ATTACHED, None)
    if previous == text:
        return
    try:
        setattr(exc, _ATTACHED, text)
    except AttributeError:
        return
    notes = getattr(exc, '__notes__', None)
    if previous is not None and notes and previous.lstrip('\n') in notes:
        notes[notes.index(previous.lstrip('\n'))] = text.lstrip('\n')
    else:
        exc.add_note(text.lstrip('\n'))
