"""Errors: unsupported constructs (ConversionError with construct, file, line, fix) and exceptions
raised inside converted code pointing at the user's own file and line."""
import contextlib
import sys
import traceback

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite.operators.forms import staged_form_always


def line_of(function, text):
    lines, first = __import__('inspect').getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def user_location(exc):
    """What a user sees: the note on 3.11+, the message before."""
    return ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def generator(n):
    for i in range(n):
        yield i


def test_generator_function_is_rejected():
    with pytest.raises(ag.ConversionError) as info:
        ag.to_graph(generator)
    message = str(info.value)
    assert "generator function 'generator' cannot be converted: it uses yield" in message
    assert f'File "{__file__}", line {line_of(generator, "yield i")}, in generator' in message
    assert 'mark it with @ag.do_not_convert' in message


def delegating(n):
    yield from range(n)


def test_yield_from_is_named():
    with pytest.raises(ag.ConversionError, match="'delegating' cannot be converted: it uses yield from"):
        ag.to_code(delegating)


async def coroutine(x):
    return x


def test_async_function_is_rejected():
    with pytest.raises(ag.ConversionError,
                       match=r"async function 'coroutine' cannot be converted\n  File .*test_converters_errors.py"
                             r"(.|\n)*Convert a regular \(non-async\) function instead"):
        ag.to_graph(coroutine)


def break_in_finally(xs):
    for x in xs:
        try:
            pass
        finally:
            break
    return xs


def test_break_out_of_finally_is_rejected():
    # (a `return` in `finally` is converted with Python's meaning: tests/converters/test_return_in_finally.py)
    with pytest.raises(ag.ConversionError) as info:
        ag.to_graph(break_in_finally)
    assert "'break' inside a 'finally' block cannot be converted" in str(info.value)
    assert f'line {line_of(break_in_finally, "finally:") + 1}, in break_in_finally' in str(info.value)
    assert "Move the 'break' after the try statement." in str(info.value)


def jumps_through_try_and_with(items, path):
    for item in items:
        try:
            if item == 'skip':
                continue
            if item == 'stop':
                break
            value = int(item)
        except ValueError:
            return 'bad ' + item
    with open(path) as f:
        return f.read() + str(value)


def test_return_break_continue_inside_try_and_with_behave_like_python(tmp_path):
    path = tmp_path / 'data.txt'
    path.write_text('data:')
    converted = ag.to_graph(jumps_through_try_and_with)
    for items in (['1', 'skip', '2'], ['3', 'stop', 'x'], ['4', 'x']):
        assert converted(items, path) == jumps_through_try_and_with(items, path)


def divide(a, b):
    if a > 0:
        q = a // b
    else:
        q = 0
    return q


@pytest.mark.parametrize('staged', [False, True], ids=['plain form', 'staged form'])
def test_exception_in_user_code_on_python_values_is_the_originals(staged):
    with pytest.raises(ZeroDivisionError) as original:
        divide(1, 0)
    with pytest.raises(ZeroDivisionError) as info:
        with staged_form_always() if staged else contextlib.nullcontext():
            ag.to_graph(divide)(1, 0)
    # No note: traceback.format_exception_only (and a doctest of the exception) is the original's.
    assert traceback.format_exception_only(info.value) == traceback.format_exception_only(original.value)
    assert getattr(info.value, '__notes__', None) is None
    if not staged:   # the plain form's frame is the user's own file and line, as in the original's traceback
        failing = f'  File "{__file__}", line {line_of(divide, "q = a // b")}, in divide\n    q = a // b\n'
        assert user_location(info.value).endswith(failing + 'ZeroDivisionError: integer division or modulo by zero\n')


def test_exception_while_tracing_names_the_user_file_and_line():
    def traced(x):
        return divide(1, 0) + x
    with pytest.raises(ZeroDivisionError) as info:
        ag.function(traced)(rt.constant(1))
    text = user_location(info.value)
    expected = (f'  in user code:\n'
                f'    File "{__file__}", line {line_of(traced, "return divide(1, 0) + x")}, in traced\n'
                f'      return divide(1, 0) + x\n'
                f'    File "{__file__}", line {line_of(divide, "if a > 0:")}, in divide\n      if a > 0:\n'
                f'    File "{__file__}", line {line_of(divide, "q = a // b")}, in divide\n      q = a // b')
    assert expected in text, text


def outer_caller(a):
    b = a - 1
    return divide(a, b)


def test_nested_converted_calls_list_every_user_frame_once():
    with pytest.raises(ZeroDivisionError) as info:
        ag.to_graph(outer_caller)(1)
    frames = [(frame.lineno, frame.name) for frame in traceback.extract_tb(info.value.__traceback__)]
    assert frames[-2:] == [(line_of(outer_caller, "return divide(a, b)"), 'outer_caller'),
                           (line_of(divide, "q = a // b"), 'divide')]
    with pytest.raises(ZeroDivisionError) as info:
        ag.function(outer_caller)(1)   # while tracing: the note lists each user frame once
    text = user_location(info.value)
    assert f'line {line_of(outer_caller, "return divide(a, b)")}, in outer_caller' in text
    assert f'line {line_of(divide, "q = a // b")}, in divide' in text
    assert text.count('in user code:') == 1


def undefined_after_branch(x):
    if x > 0:
        y = x
    return y + 1


def test_variable_defined_in_one_branch_behaves_like_python_on_python_values():
    converted = ag.to_graph(undefined_after_branch)
    assert converted(2) == 3
    with pytest.raises(UnboundLocalError, match="'y'"):
        converted(-1)


def test_variable_defined_in_one_tensor_branch_names_variable_and_line():
    staged = ag.function(undefined_after_branch)
    with pytest.raises(rt.errors.StateError) as info:
        staged(rt.constant(2))
    text = user_location(info.value)
    assert "'y'" in str(info.value)
    assert f'line {line_of(undefined_after_branch, "if x > 0:")}, in undefined_after_branch' in text


def test_generated_code_shows_in_tracebacks_under_a_readable_name():
    ag.set_traceback_filtering("off")  # on (the default), generated frames are left out of tracebacks
    try:
        with pytest.raises(ZeroDivisionError) as info, staged_form_always():   # (the plain form is the user's file)
            ag.to_graph(divide)(1, 0)
    finally:
        ag.set_traceback_filtering("on")
    text = user_location(info.value)
    assert '<autograph_lite #' in text and 'converted divide from test_converters_errors.py:' in text



MATCH_SOURCE = """\
def uses_match(command):
    match command:
        case 0:
            return 1
        case [first, *rest]:
            return 2
        case _:
            return 0
"""


@pytest.mark.skipif(sys.version_info < (3, 10), reason='match needs Python 3.10')
def test_a_structural_pattern_on_a_symbolic_tensor_names_the_users_file_and_line(tmp_path):
    path = tmp_path / 'matching.py'
    path.write_text(MATCH_SOURCE)
    namespace = {}
    exec(compile(MATCH_SOURCE, str(path), 'exec'), namespace)
    converted = ag.to_graph(namespace['uses_match'])
    assert [converted(v) for v in (0, [1], 'x')] == [namespace['uses_match'](v) for v in (0, [1], 'x')] == [1, 2, 0]
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        ag.function(namespace['uses_match'])(rt.constant(3))
    message = '\n'.join([str(info.value), *info.value.__notes__])
    assert 'a sequence pattern cannot match a symbolic tensor' in message
    assert f'File "{path}", line 5, in uses_match' in message
