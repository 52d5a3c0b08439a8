"""A local that some paths leave unassigned, read later: the converted function raises Python's own
error (UnboundLocalError, or NameError from a nested scope) with Python's message at the user's line,
on Python values and while tracing (inside ag.function), instead of carrying on with an Undefined.
Only reads that may find no value are checked (converters/unbound_reads.py)."""
import sys
import traceback

import pytest

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, form_context, in_form
from tests.support.user_errors import full_message, line_of, raises


def identity(value):
    return value


def read_in_assignment(b):
    if b:
        x = 1
    y = x
    return 2


def read_in_call(b):
    if b:
        x = 1
    identity(x)
    return 3


def read_in_condition(b):
    if b:
        x = 1
    if x > 0:
        return 1
    return 0


def augmented(b):
    if b:
        x = 1
    x += 1
    return 4


def read_in_branch_body(b, c):
    if b:
        x = 1
    if c:
        y = x + 1
    return 5


def defined_in_an_earlier_iteration(start):
    total = 0
    for i in range(3):
        if i > start:
            total = total + last
        last = i
    return total


def while_condition(b):
    if b:
        x = 0
    while x < 3:
        x = x + 1
    return x


def while_body_reads_before_assigning(n):
    i = 0
    while i < n:
        i = i + step
        step = 1
    return i


def comprehension(b):
    if b:
        x = 1
    return [x + v for v in range(2)]


# Python 3.12 runs a list comprehension inside its function (PEP 709): an unassigned local it reads is the
# function's UnboundLocalError there, where 3.11's comprehension function found a free variable (NameError).
INLINED_COMPREHENSIONS = sys.version_info >= (3, 12)
COMPREHENSION_ERROR = UnboundLocalError if INLINED_COMPREHENSIONS else NameError


def f_string(b):
    if b:
        x = 1
    return f'x={x}'


def attribute_base(b):
    if b:
        x = 1.5
    return x.real


def subscript_base(b):
    if b:
        x = [1, 2]
    return x[0]


def store_into_subscript(b):
    if b:
        x = [1, 2]
    x[0] = 7
    return 6


def skipped_by_exception(text):
    try:
        value = int(text)
    except ValueError:
        pass
    return value


def only_annotated():
    x: int
    return x


def nested_function_reads_it(b):
    if b:
        x = 1

    def inner():
        return x
    return inner()


def lambda_reads_it(b):
    if b:
        x = 1
    get = lambda: x
    return get()


def walrus_in_one_branch(b):
    if b and (n := 3):
        pass
    return n


def list_method_base(b):
    if b:
        xs = [1]
    xs.append(2)
    return xs


def read_in_else_after_loop(n):
    for i in range(n):
        found = i
    else:
        result = found
    return result


CASES = [
    (read_in_assignment, (False,), 'x', UnboundLocalError, '    y = x'),
    (read_in_call, (False,), 'x', UnboundLocalError, 'identity(x)'),
    (read_in_condition, (False,), 'x', UnboundLocalError, 'if x > 0'),
    (augmented, (False,), 'x', UnboundLocalError, 'x += 1'),
    (read_in_branch_body, (False, True), 'x', UnboundLocalError, 'y = x + 1'),
    (defined_in_an_earlier_iteration, (-1,), 'last', UnboundLocalError, 'total + last'),
    (while_condition, (False,), 'x', UnboundLocalError, 'while x < 3'),
    (while_body_reads_before_assigning, (3,), 'step', UnboundLocalError, 'i + step'),
    (comprehension, (False,), 'x', COMPREHENSION_ERROR, '[x + v'),
    (f_string, (False,), 'x', UnboundLocalError, "f'x={x}'"),
    (attribute_base, (False,), 'x', UnboundLocalError, 'x.real'),
    (subscript_base, (False,), 'x', UnboundLocalError, 'x[0]'),
    (store_into_subscript, (False,), 'x', UnboundLocalError, 'x[0] = 7'),
    (skipped_by_exception, ('seven',), 'value', UnboundLocalError, 'return value'),
    (only_annotated, (), 'x', UnboundLocalError, 'return x'),
    (nested_function_reads_it, (False,), 'x', NameError, 'return x'),
    (lambda_reads_it, (False,), 'x', NameError, 'lambda: x'),
    (walrus_in_one_branch, (False,), 'n', UnboundLocalError, 'return n'),
    (list_method_base, (False,), 'xs', UnboundLocalError, 'xs.append(2)'),
    (read_in_else_after_loop, (0,), 'found', UnboundLocalError, 'result = found'),
]
IDS = [case[0].__name__ for case in CASES]


def _python_error(function, args):
    with pytest.raises(Exception) as original:
        function(*args)
    return original.value


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args, name, error, line', CASES, ids=IDS)
def test_converted_raises_what_python_raises(function, args, name, error, line, form):
    original = _python_error(function, args)
    assert type(original) is error and f"'{name}'" in str(original)
    with form_context(form):   # the staged form runs on Python values too (e.g. in a loop traced unrolled)
        with pytest.raises(error) as info:
            ag.to_graph(function)(*args)
    # Exactly the original's exception (no note added on Python values) ...
    assert (type(info.value), str(info.value), getattr(info.value, '__notes__', None)) == (
        type(original), str(original), getattr(original, '__notes__', None))
    if form == 'plain form':   # ... whose traceback names the user's line, as the original's does
        assert (__file__, line_of(function, line)) in [
            (frame.filename, frame.lineno) for frame in traceback.extract_tb(info.value.__traceback__)]


@pytest.mark.parametrize('function, args, name, error, line', CASES, ids=IDS)
def test_traced_on_python_values_raises_the_same(function, args, name, error, line):
    original = _python_error(function, args)
    raises(error, ag.function(function), args, str(original), at=line)


DEFINED_ARGS = [(read_in_assignment, (True,)), (read_in_call, (True,)), (read_in_condition, (True,)),
                (augmented, (True,)), (read_in_branch_body, (True, True)), (defined_in_an_earlier_iteration, (0,)),
                (while_condition, (True,)), (while_body_reads_before_assigning, (0,)), (comprehension, (True,)),
                (f_string, (True,)), (attribute_base, (True,)), (subscript_base, (True,)),
                (store_into_subscript, (True,)), (skipped_by_exception, ('7',)), (nested_function_reads_it, (True,)),
                (lambda_reads_it, (True,)), (walrus_in_one_branch, (True,)), (list_method_base, (True,)),
                (read_in_else_after_loop, (2,))]


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args', DEFINED_ARGS, ids=[c[0].__name__ for c in DEFINED_ARGS])
def test_assigned_values_pass_through(function, args, form):
    assert in_form(form, ag.to_graph(function), *args) == function(*args)


def test_definitely_assigned_reads_are_not_checked():
    code = ag.to_code(defined_in_an_earlier_iteration)
    assert 'total = total + ag__.defined(last)' in code
    assert "last = ag__.Undefined('last')" in code and "total = ag__.Undefined" not in code
    assert code.count('ag__.defined') == 1
    assert 'y = ag__.defined(x)' in ag.to_code(read_in_assignment)
    assert 'ag__.defined(x)\n    x += 1' in ag.to_code(augmented)
    assert ('ag__.defined(x)' if INLINED_COMPREHENSIONS else 'ag__.defined_free(x)') in ag.to_code(comprehension)


def both_branches(b):
    if b:
        x = 1
    else:
        x = 2
    y = x + 1
    return y


def early_exit(b):
    if b:
        x = 1
    else:
        return 0
    return x


def assigned_in_loop_then_broken(values):
    for v in values:
        if v > 2:
            found = v
            break
    else:
        found = -1
    return found


@pytest.mark.parametrize('function', [both_branches, early_exit, assigned_in_loop_then_broken])
def test_names_every_path_assigns_are_read_as_written(function):
    code = ag.to_code(function)
    assert 'ag__.defined' not in code, code


def test_jumps_end_their_path():
    assert ag.to_graph(early_exit)(True) == 1 and ag.to_graph(early_exit)(False) == 0
    assert ag.to_graph(assigned_in_loop_then_broken)([1, 5]) == 5
    assert ag.to_graph(assigned_in_loop_then_broken)([1]) == -1


def test_tensor_if_defining_in_one_branch_still_errors_clearly():
    traced = ag.function(read_in_assignment)
    with pytest.raises(Exception) as info:
        traced(rt.constant(False))
    message = full_message(info.value)
    assert "'x'" in message and 'if branch' in message, message


def nested_with_annotations(b):
    if b:
        scale = 2

    def apply(value: int, factor: 'int' = 1) -> int:
        return value * scale * factor
    return apply(3)


def test_nested_function_with_annotated_arguments():
    assert ag.to_graph(nested_with_annotations)(True) == nested_with_annotations(True) == 6
    raises(NameError, ag.to_graph(nested_with_annotations), (False,), "free variable 'scale'")
