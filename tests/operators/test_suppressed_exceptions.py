"""A `with` body can stop early and execution go on after the statement (a context manager whose __exit__
returns True: contextlib.suppress, or one of the user's), and a `try` body can stop at any statement.
Converted code must then see what Python sees: a name the body had not assigned yet raises
UnboundLocalError, and a name assigned before keeps the value it had when the exception came, also when
that value was assigned by an `if` or a loop that converted code turns into body functions.

Before the fix the staged form returned the converter's Undefined placeholder where Python raises
(`first_assigned_in_a_staged_if`), and the value from before an `if` where Python returns the `if`'s
(`if_before_the_with`, `if_inside_the_with`, `if_inside_the_try`): silently wrong results."""
import contextlib

import pytest

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, form_context, in_form
from tests.support.user_errors import raises, raises_as_python

UNBOUND = "cannot access local variable '{}' where it is not associated with a value"


class Suppress:
    """The user's own suppressor: swallows ValueError, counts what it swallowed."""

    def __init__(self):
        self.swallowed = 0

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is not None and issubclass(kind, ValueError):
            self.swallowed += 1
            return True
        return False


def parse(text):
    return int(text)   # ValueError for 'x'


def first_assigned_in_a_with(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    return value


def first_assigned_in_a_custom_with(text):
    with Suppress():
        value = parse(text)
    return value


def first_assigned_in_a_staged_if(text, flag):
    if flag:
        with contextlib.suppress(ValueError):
            value = parse(text)
    else:
        value = 0
    return value


def read_in_a_later_if(text, flag):
    with Suppress():
        value = parse(text)
    if flag:
        return value + 1
    return -1


def read_in_a_loop(texts):
    total = 0
    for text in texts:
        with contextlib.suppress(ValueError):
            value = parse(text)
        total += value
    return total


def read_by_a_lambda(text):
    with Suppress():
        value = parse(text)
    get = lambda: value
    return get()


class FailsToEnter:
    def __enter__(self):
        raise ValueError('cannot enter')

    def __exit__(self, *exc_info):
        return False


def later_item_fails(flag):
    """The first item's context manager suppresses what the second raises: `opened` is never bound."""
    with contextlib.suppress(ValueError), FailsToEnter() as opened:
        pass
    return opened


def later_item_keeps_the_value_before(flag):
    opened = 0
    if flag:
        opened = 1
    with contextlib.suppress(ValueError), FailsToEnter() as opened:
        pass
    return opened


RAISING = [
    (later_item_fails, (True,), UnboundLocalError, 'opened', 'return opened'),
    (first_assigned_in_a_with, ('x',), UnboundLocalError, 'value', 'return value'),
    (first_assigned_in_a_custom_with, ('x',), UnboundLocalError, 'value', 'return value'),
    (first_assigned_in_a_staged_if, ('x', True), UnboundLocalError, 'value', 'return value'),
    (read_in_a_later_if, ('x', True), UnboundLocalError, 'value', 'return value + 1'),
    (read_in_a_loop, (['x'],), UnboundLocalError, 'value', 'total += value'),
    (read_by_a_lambda, ('x',), NameError, 'value', 'lambda: value'),
]


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args, error, name, line', RAISING, ids=[c[0].__name__ for c in RAISING])
def test_a_name_the_suppressed_body_did_not_assign_raises_what_python_raises(function, args, error, name, line,
                                                                             form):
    with pytest.raises(error) as original:
        function(*args)
    assert f"'{name}'" in str(original.value)
    with form_context(form):
        raises_as_python(original.value, ag.to_graph(function), args, form, line)


@pytest.mark.parametrize('function, args, error, name, line', RAISING, ids=[c[0].__name__ for c in RAISING])
def test_while_tracing_on_python_values_too(function, args, error, name, line):
    raises(error, ag.function(function), args, UNBOUND.format(name) if error is UnboundLocalError else name,
           at=line)


def if_before_the_with(flag):
    value = 0
    if flag:
        value = 1
    with contextlib.suppress(ValueError):
        value = parse('x')
    return value


def if_inside_the_with(flag, fail):
    value = 0
    with Suppress():
        if flag:
            value = 1
        if fail:
            raise ValueError(fail)
        value = 2
    return value


def if_inside_the_try(flag):
    value = 0
    try:
        if flag:
            value = 1
        value = parse('x')
    except ValueError:
        pass
    return value


def loop_inside_the_try(n):
    value = 0
    try:
        for i in range(n):
            value = i
        value = parse('x')
    except ValueError:
        pass
    return value


def handler_raises_into_the_finally(flag):
    """An exception in a handler (or an else) goes to the finally, which reads the value the if gave."""
    seen = []
    value = 0
    try:
        try:
            raise KeyError('first')
        except KeyError:
            if flag:
                value = 1
            value = parse('x')
        finally:
            seen.append(value)
    except ValueError:
        pass
    return seen


def else_raises_into_the_finally(flag):
    seen = []
    value = 0
    try:
        try:
            pass
        except KeyError:
            pass
        else:
            if flag:
                value = 1
            value = parse('x')
        finally:
            seen.append(value)
    except ValueError:
        pass
    return seen


def previous_iteration_kept(texts):
    """An iteration whose parse fails keeps the value of the one before."""
    seen = []
    for text in texts:
        with contextlib.suppress(ValueError):
            value = parse(text)
        seen.append(value)
    return seen


def assigned_before_the_with(text):
    value = -1
    with Suppress() as suppressor:
        value = parse(text)
    return value, suppressor.swallowed


VALUES = [
    (later_item_keeps_the_value_before, (True,), 1), (later_item_keeps_the_value_before, (False,), 0),
    (if_before_the_with, (True,), 1), (if_before_the_with, (False,), 0),
    (if_inside_the_with, (True, 'stop'), 1), (if_inside_the_with, (False, 'stop'), 0),
    (if_inside_the_with, (True, ''), 2),
    (if_inside_the_try, (True,), 1), (if_inside_the_try, (False,), 0),
    (loop_inside_the_try, (3,), 2), (loop_inside_the_try, (0,), 0),
    (handler_raises_into_the_finally, (True,), [1]), (handler_raises_into_the_finally, (False,), [0]),
    (else_raises_into_the_finally, (True,), [1]), (else_raises_into_the_finally, (False,), [0]),
    (previous_iteration_kept, (['1', 'x', '3', 'x'],), [1, 1, 3, 3]),
    (assigned_before_the_with, ('x',), (-1, 1)), (assigned_before_the_with, ('5',), (5, 0)),
    (first_assigned_in_a_with, ('4',), 4), (first_assigned_in_a_staged_if, ('4', True), 4),
    (first_assigned_in_a_staged_if, ('x', False), 0), (read_in_a_loop, (['1', '2'],), 3),
]


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args, expected', VALUES, ids=[f'{c[0].__name__}{c[1]}' for c in VALUES])
def test_values_assigned_before_the_exception_are_what_python_sees(function, args, expected, form):
    assert function(*args) == expected
    assert in_form(form, ag.to_graph(function), *args) == expected


def test_no_check_for_a_name_assigned_before_the_with():
    code = ag.to_code(assigned_before_the_with)
    assert 'ag__.defined' not in code and 'Undefined' not in code, code


def test_no_check_where_python_raises_for_the_converted_code_itself():
    # `value` never holds a placeholder: `return value` raises Python's own UnboundLocalError (RAISING).
    code = ag.to_code(first_assigned_in_a_with)
    assert 'ag__.defined' not in code and 'Undefined' not in code, code
    # Read in a loop body (a generated function): an unassigned `value` would be an empty free variable.
    code = ag.to_code(read_in_a_loop)
    assert "value = ag__.Undefined('value')" in code and 'ag__.defined(value)' in code, code


def tape_in_a_tensor_loop(x, n):
    """The GradientTape idiom: `y` is first assigned in the with and read after it, in each iteration."""
    i = rt.constant(0)
    while i < n:
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        x = x - 0.1 * tape.gradient(y, x)
        i += 1
    return x


def test_a_name_the_tensor_loop_assigns_first_in_a_with_is_not_carried():
    """Carrying `y` (in case a suppressed exception kept last iteration's value) would buy nothing in a
    graph loop, whose body is traced once for all iterations: a retrace and a loop variable for nothing."""
    code = ag.to_code(tape_in_a_tensor_loop)
    assert 'return (i, x)' in code and 'ag__.defined(y)' in code, code
    traced = ag.function(tape_in_a_tensor_loop)
    got = traced(rt.constant(1.0), rt.constant(3))
    assert got.numpy() == pytest.approx(1.0 * 0.8 ** 3)
    graph = traced.get_concrete_function(rt.constant(1.0), rt.constant(3)).graph
    (loop,) = [op for op in graph.operations if op.type == 'While']
    assert len(loop.inputs) == 3   # i, x and the captured n


def fail(t):
    raise ValueError('not now')


def tensor_if_suppressed_in_one_branch(t):
    if t > 0:
        with contextlib.suppress(ValueError):
            x = fail(t)
    else:
        x = -t
    return x


def tensor_if_keeps_the_value_before(t):
    x = t
    if t > 0:
        with contextlib.suppress(ValueError):
            x = t * 2
            fail(t)
            x = t * 3
    return x


def tensor_loop_keeps_the_value_before(n):
    i = rt.constant(0)
    y = rt.constant(0)
    while i < n:
        with Suppress():
            y = y + 1
            fail(i)
            y = y + 100
        i += 1
    return y


def suppressed_while_tracing(t):
    with Suppress():
        x = fail(t)
    return x


def test_on_tensors_the_graph_gives_what_eager_code_gives():
    for function, value, expected in [(tensor_if_keeps_the_value_before, 3, 6),
                                      (tensor_if_keeps_the_value_before, -3, -3),
                                      (tensor_loop_keeps_the_value_before, 4, 4)]:
        assert function(rt.constant(value)).numpy() == expected
        assert ag.function(function)(rt.constant(value)).numpy() == expected
    raises(UnboundLocalError, ag.function(suppressed_while_tracing), (rt.constant(1),), UNBOUND.format('x'),
           at='return x')


def test_a_tensor_if_whose_branch_is_suppressed_while_tracing_is_a_clear_error():
    raises(rt.errors.StateError, ag.function(tensor_if_suppressed_in_one_branch), (rt.constant(-1),),
           "'x' is defined only in the else branch of a tensor-dependent if")
