"""``assert_converted_equivalent``: on Python values, the converted function behaves exactly like the original.

Each run gets its own deep copy of the arguments and records everything a caller can observe: the return
value, the exception (type and message), what was printed (stdout and stderr), what the call did to its
arguments, and the warnings it raised. The original runs once, the converted function once in each of its
forms (``autograph_lite.testing.forms``). On a difference the failure shows both sides and, when it can be
found, the generated line where the two runs part (found by running both again with a line tracer).
"""
from __future__ import annotations

import contextlib
import copy
import io
import linecache
import sys
import traceback
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type

from autograph_lite import api
from autograph_lite.pyct import origin_info
from autograph_lite.testing import forms, subjects
from autograph_lite.testing.values import difference

# Warnings that say something about the conversion itself (not the function's behaviour) are not compared.
IGNORED_WARNINGS: Tuple[Type[Warning], ...] = (api.UnconvertedWarning,)


class ConversionMismatch(AssertionError):
    """A converted function behaved differently from its original (or a graph from eager execution)."""


@dataclass
class Outcome:
    """What one call did, as a caller sees it."""

    returned: Any = None
    raised: Optional[BaseException] = None
    stdout: str = ''
    stderr: str = ''
    arguments: Tuple[Tuple[Any, ...], Dict[str, Any]] = ((), {})
    warnings: List[Tuple[Type[Warning], str]] = field(default_factory=list)

    def describe(self) -> str:
        if self.raised is not None:
            return f'raised {type(self.raised).__name__}: {self.raised}'
        return f'returned {self.returned!r}'


_IMMUTABLE = frozenset({int, float, bool, str, bytes, complex, type(None)})


def _copied_arguments(function_name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]):
    if all(type(arg) in _IMMUTABLE for arg in args) and all(type(v) in _IMMUTABLE for v in kwargs.values()):
        return args, dict(kwargs)   # nothing a call could change
    try:
        return copy.deepcopy((args, kwargs))
    except Exception as error:
        raise TypeError(
            f'assert_converted_equivalent({function_name}, ...) deep-copies the arguments so that each run gets '
            f'its own and what a run does to them can be compared; they cannot be deep-copied: '
            f'{type(error).__name__}: {error}. Give the argument\'s class a __deepcopy__, or pass a value that '
            f'copies') from None


def run_recording(function: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any],
                  context: Any = None) -> Outcome:
    """Call ``function(*args, **kwargs)`` (inside ``context``) and record its ``Outcome``; ``args`` and
    ``kwargs`` are the call's own (they are recorded after the call, with what it did to them)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    outcome = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), \
                (context or contextlib.nullcontext()):
            try:
                outcome.returned = function(*args, **kwargs)
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # noqa: B902 -- the exception is the outcome being compared
                outcome.raised = error
    outcome.stdout, outcome.stderr = stdout.getvalue(), stderr.getvalue()
    outcome.arguments = (args, kwargs)
    outcome.warnings = [(w.category, str(w.message)) for w in caught if not issubclass(w.category, IGNORED_WARNINGS)]
    return outcome


def outcome_differences(expected: Outcome, got: Outcome) -> List[str]:
    """What differs between two outcomes, one line each (empty: they are the same)."""
    found = []
    if (expected.raised is None) != (got.raised is None):
        found.append(f'outcome: {expected.describe()} != {got.describe()}')
    elif expected.raised is not None:
        if type(expected.raised) is not type(got.raised):
            found.append(f'exception type: {type(expected.raised).__name__} != {type(got.raised).__name__}')
        elif str(expected.raised) != str(got.raised):
            found.append(f'exception message: {str(expected.raised)!r} != {str(got.raised)!r}')
    else:
        found += [f'return value{"" if d.startswith("[") else ": "}{d}'
                  for d in [difference(expected.returned, got.returned)] if d]
    if expected.stdout != got.stdout:
        found.append(f'printed output: {expected.stdout!r} != {got.stdout!r}')
    if expected.stderr != got.stderr:
        found.append(f'stderr: {expected.stderr!r} != {got.stderr!r}')
    found += [f'arguments after the call{"" if d.startswith("[") else ": "}{d}'
              for d in [difference(expected.arguments, got.arguments, '')] if d]
    if expected.warnings != got.warnings:
        found.append(f'warnings: {_warnings_text(expected.warnings)} != {_warnings_text(got.warnings)}')
    return found


def _warnings_text(caught: Sequence[Tuple[Type[Warning], str]]) -> str:
    return '[' + ', '.join(f'{category.__name__}({message!r})' for category, message in caught) + ']'


class _LineRecorder:
    """A ``sys.settrace`` function recording the user lines a call runs: lines of the user's files as they
    are, lines of generated code as the user line they came from (with the generated line beside it)."""

    def __init__(self, user_files: Sequence[str]):
        self.user_files = set(user_files)
        # (user file, user line) -> the (generated file, generated line)s that ran it, in the order first run
        self.first_run: Dict[Tuple[str, int], List[Tuple[str, int]]] = {}

    def __call__(self, frame: types.FrameType, event: str, arg: Any):
        filename = frame.f_code.co_filename
        if filename in self.user_files or origin_info.is_generated(filename):
            return self._line
        return None

    def _line(self, frame: types.FrameType, event: str, arg: Any):
        if event == 'line':
            filename, line = frame.f_code.co_filename, frame.f_lineno
            if origin_info.is_generated(filename):
                origin = origin_info.lookup(filename, line)
                # The converter's own set-up lines map to the user's `def` line, which a call of the original
                # never runs (its first line is the first statement): those are not the user's lines.
                if origin is not None and not origin_info.is_plumbing(filename, line) and \
                        origin != origin_info.lookup(filename, frame.f_code.co_firstlineno):
                    generated = self.first_run.setdefault((origin.filename, origin.lineno), [])
                    if (filename, line) not in generated:
                        generated.append((filename, line))
            else:
                self.first_run.setdefault((filename, line), [])
        return self._line


def _lines_run(function: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any], context: Any,
               user_files: Sequence[str]) -> Dict[Tuple[str, int], List[Tuple[str, int]]]:
    recorder = _LineRecorder(user_files)
    previous = sys.gettrace()
    sys.settrace(recorder)
    try:
        run_recording(function, args, kwargs, context)
    finally:
        sys.settrace(previous)
    return recorder.first_run


def _source_line(filename: str, line: int) -> str:
    return linecache.getline(filename, line).strip()


def where_they_part(original: Callable, converted: Callable, context: Any, args: Tuple[Any, ...],
                    kwargs: Dict[str, Any], label: str) -> str:
    """The first user line one run ran and the other did not, with the generated line that ran it."""
    user_files = [original.__code__.co_filename] if hasattr(original, '__code__') else []
    expected = _lines_run(original, *copy.deepcopy((args, kwargs)), None, user_files)
    got = _lines_run(converted, *copy.deepcopy((args, kwargs)), context, user_files)
    for (filename, line), generated in got.items():
        if (filename, line) not in expected:
            text = f'  where they part: the {label} ran line {line} of {filename} ' \
                   f'({_source_line(filename, line)!r}), ' \
                   'which the original never ran'
            if generated:
                # The construct's operator call says most (a `def get_state` of it says little).
                shown = next((g for g in generated if 'ag__.' in _source_line(*g)), generated[0])
                text += f'\n    generated code: {shown[0]}, line {shown[1]}: {_source_line(*shown)}'
            return text
    for (filename, line) in expected:
        if (filename, line) not in got:
            return (f'  where they part: the original ran line {line} of {filename} '
                    f'({_source_line(filename, line)!r}), which the {label} never ran')
    return '  where they part: both ran the same lines (they differ in values, not in the path taken)'


def _traceback_text(error: BaseException) -> str:
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    return ''.join('      ' + line for line in ''.join(lines).splitlines(True))


def assert_converted_equivalent(function: Callable, *args: Any, **kwargs: Any) -> Any:
    """Assert that ``ag.to_graph(function)`` behaves exactly like ``function`` on these (Python) arguments, in
    both its plain form and its staged form; return what the original returned.

    Compared: the return value (same types, same structure, equal values), the exception raised (type and
    message), printed output (stdout and stderr), the arguments after the call (each run gets a deep copy, so
    list, dict and object mutations are compared) and warnings (except ``ag.UnconvertedWarning``). Globals the
    function changes are not compared. A difference raises ``ConversionMismatch`` (an ``AssertionError``)
    showing both sides and the generated line where they part, when it can be found.

    >>> import autograph_lite as ag
    >>> def clip_all(values, limit):
    ...     for i in range(len(values)):
    ...         if values[i] > limit:
    ...             print('clipped', i)
    ...             values[i] = limit
    ...     return len(values)
    >>> ag.testing.assert_converted_equivalent(clip_all, [1, 5, 9], 4)
    3
    """
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    original = forms.python_function_of(function)
    subjects.note(original)
    name = getattr(original, '__qualname__', repr(original))
    converted = api.to_graph(original)
    expected = run_recording(original, *_copied_arguments(name, args, kwargs))
    for form in forms.FORMS:
        got = run_recording(converted, *_copied_arguments(name, args, kwargs), forms.form_context(form))
        found = outcome_differences(expected, got)
        if found:
            raise ConversionMismatch(_report(original, converted, form, args, kwargs, expected, got, found))
    if expected.raised is not None:
        # The same exception both ways is equivalence; the caller gets the original's exception.
        raise expected.raised
    return expected.returned


def _report(original: Callable, converted: Callable, form: str, args: Tuple[Any, ...], kwargs: Dict[str, Any],
            expected: Outcome, got: Outcome, found: List[str]) -> str:
    shown = ', '.join([repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()])
    lines = [f'{getattr(original, "__qualname__", original)}({shown}): the converted function ({form}) '
             'does not behave like the original:']
    lines += [f'  {item}' for item in found]
    lines.append(f'  original:    {expected.describe()}')
    lines.append(f'  {form + ":":<12} {got.describe()}')
    for side, outcome in (('original', expected), (form, got)):
        if outcome.raised is not None and type(expected.raised) is not type(got.raised):
            lines.append(f'  traceback of the {side}:\n{_traceback_text(outcome.raised)}')
    try:
        lines.append(where_they_part(original, converted, forms.form_context(form), args, kwargs, form))
    except Exception as error:  # the search is a courtesy: never hide the mismatch behind its failure
        lines.append(f'  where they part: not found ({type(error).__name__}: {error})')
    return '\n'.join(lines)
