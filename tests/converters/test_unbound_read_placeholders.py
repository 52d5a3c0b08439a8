"""Where a read of a local that may be unassigned gets ``ag__.defined`` (and the local its
``ag__.Undefined`` placeholder): only where the check changes what happens (converters/unbound_reads.py).

A read in the converted function's own straight-line code of a local that never holds a placeholder (first
assigned in a ``with`` or ``try`` body, read after it) stays as written: Python raises its own
UnboundLocalError there, as for the original. A local an ``if``/loop binds (the control flow converter may
leave its placeholder in it), or a read that runs in a generated function (a branch or loop body, the
lambdas of ``and``/``or``/``a if c else b``, an ``assert`` message, a comprehension), keeps the check.
"""
import contextlib
import sys

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, form_context, in_form
from tests.support.user_errors import raises, raises_as_python

UNBOUND = "cannot access local variable '{}' where it is not associated with a value"
FREE = "cannot access free variable '{}' where it is not associated with a value in enclosing scope"
# Python 3.12 runs a list comprehension inside its function (PEP 709): the function's own UnboundLocalError
COMPREHENSION_ERROR, COMPREHENSION_MESSAGE = ((UnboundLocalError, UNBOUND) if sys.version_info >= (3, 12)
                                              else (NameError, FREE))


def step(w, x, y):
    """The TensorFlow training step: `loss` is first assigned in the tape's `with` body."""
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean((x * w - y) ** 2)
    grad = tape.gradient(loss, w)
    w.assign_sub(0.1 * grad)
    return loss


def parse(text):
    return int(text)   # ValueError for 'x'


def first_assigned_in_a_try(text):
    try:
        value = parse(text)
    except ValueError:
        pass
    return value * 2


def augmented_after_a_with(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    value += 1
    return value


# --- the reads that need their check -----------------------------------------------------------

def bound_by_an_if(text, flag):
    if flag:
        value = parse(text)
    return value


def bound_by_a_loop(texts):
    for value in texts:
        pass
    return value


def bound_by_an_if_test(text, flag):
    if flag and (value := parse(text)):   # the control flow converter carries value: it may be unassigned
        pass
    return value


def read_in_a_later_branch(text, flag):
    with contextlib.suppress(ValueError):
        value = parse(text)
    if flag:
        return value + 1
    return 0


def read_after_a_conditional_return(text, flag):
    with contextlib.suppress(ValueError):
        value = parse(text)
        if flag:
            return -1
    return value


def read_by_or(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    return value or 7


def read_by_a_conditional_expression(text, flag):
    with contextlib.suppress(ValueError):
        value = parse(text)
    return value if flag else 0


def read_in_a_while_test(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    steps = 0
    while value > steps:
        steps += 1
    return steps


def read_in_an_assert_message(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    assert text == 'ok', value
    return 0


def read_by_a_comprehension(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    return [value + i for i in range(2)]


def read_by_a_lambda(text):
    with contextlib.suppress(ValueError):
        value = parse(text)
    return (lambda: value)()


def read_before_a_loop_binds_it(text, texts):
    with contextlib.suppress(ValueError):
        value = parse(text)
    first = value
    for value in texts:
        pass
    return first


QUIET = [first_assigned_in_a_try, augmented_after_a_with]
CHECKED = [bound_by_an_if, bound_by_a_loop, bound_by_an_if_test, read_in_a_later_branch, read_after_a_conditional_return, read_by_or,
           read_by_a_conditional_expression, read_in_a_while_test, read_in_an_assert_message,
           read_by_a_comprehension, read_by_a_lambda, read_before_a_loop_binds_it]

# function, arguments where Python raises, the error, its message, the line it points at
RAISING = [
    (first_assigned_in_a_try, ('x',), UnboundLocalError, UNBOUND.format('value'), 'return value * 2'),
    (augmented_after_a_with, ('x',), UnboundLocalError, UNBOUND.format('value'), 'value += 1'),
    (bound_by_an_if, ('1', False), UnboundLocalError, UNBOUND.format('value'), 'return value'),
    (bound_by_a_loop, ([],), UnboundLocalError, UNBOUND.format('value'), 'return value'),
    (bound_by_an_if_test, ('1', False), UnboundLocalError, UNBOUND.format('value'), 'return value'),
    (read_in_a_later_branch, ('x', True), UnboundLocalError, UNBOUND.format('value'), 'return value + 1'),
    (read_after_a_conditional_return, ('x', False), UnboundLocalError, UNBOUND.format('value'), 'return value'),
    (read_by_or, ('x',), UnboundLocalError, UNBOUND.format('value'), 'return value or 7'),
    (read_by_a_conditional_expression, ('x', True), UnboundLocalError, UNBOUND.format('value'),
     'return value if flag'),
    (read_in_a_while_test, ('x',), UnboundLocalError, UNBOUND.format('value'), 'while value > steps'),
    (read_in_an_assert_message, ('x',), UnboundLocalError, UNBOUND.format('value'), "assert text == 'ok'"),
    (read_by_a_comprehension, ('x',), COMPREHENSION_ERROR, COMPREHENSION_MESSAGE.format('value'),
     'return [value + i'),
    (read_by_a_lambda, ('x',), NameError, FREE.format('value'), 'return (lambda: value)()'),
    (read_before_a_loop_binds_it, ('x', [1]), UnboundLocalError, UNBOUND.format('value'), 'first = value'),
]

# function, arguments where it returns, what it returns
VALUES = [
    (first_assigned_in_a_try, ('4',), 8), (augmented_after_a_with, ('4',), 5),
    (bound_by_an_if, ('3', True), 3), (bound_by_a_loop, ([4, 5],), 5), (bound_by_an_if_test, ('0', True), 0),
    (read_in_a_later_branch, ('3', True), 4), (read_in_a_later_branch, ('x', False), 0),
    (read_after_a_conditional_return, ('3', False), 3), (read_after_a_conditional_return, ('3', True), -1),
    (read_by_or, ('0',), 7), (read_by_a_conditional_expression, ('x', False), 0),
    (read_in_a_while_test, ('3',), 3), (read_in_an_assert_message, ('ok',), 0),
    (read_by_a_comprehension, ('3',), [3, 4]), (read_by_a_lambda, ('3',), 3),
    (read_before_a_loop_binds_it, ('3', []), 3),
]


def test_the_training_step_reads_as_written():
    code = ag.to_code(step)
    assert 'Undefined' not in code and 'ag__.defined' not in code, code
    assert code == (
        'def step(w, x, y):\n'
        '    """The TensorFlow training step: `loss` is first assigned in the tape\'s `with` body."""\n'
        '    with ag__.converted_call(rt.GradientTape, (), None) as tape:\n'
        '        loss = ag__.converted_call(rt.reduce_mean, ((x * w - y) ** 2,), None)\n'
        '    grad = ag__.converted_call(tape.gradient, (loss, w), None)\n'
        '    ag__.converted_call(w.assign_sub, (0.1 * grad,), None)\n'
        '    return loss\n'), code


@pytest.mark.parametrize('form', FORMS)
def test_the_training_step_trains_as_the_original(form):
    x, y = rt.constant([1.0, 2.0]), rt.constant([2.0, 4.0])
    expected_w = rt.Variable(1.0)
    expected = [float(step(expected_w, x, y)) for _ in range(3)]
    w = rt.Variable(1.0)
    converted = ag.to_graph(step)
    assert [float(in_form(form, converted, w, x, y)) for _ in range(3)] == expected
    assert float(w) == float(expected_w)
    traced_w = rt.Variable(1.0)
    traced = ag.function(step)
    assert [float(traced(traced_w, x, y)) for _ in range(3)] == expected
    assert float(traced_w) == float(expected_w)
    assert traced.experimental_get_tracing_count() == 1


@pytest.mark.parametrize('function', QUIET, ids=lambda f: f.__name__)
def test_reads_python_checks_itself_are_left_as_written(function):
    code = ag.to_code(function)
    assert 'Undefined' not in code and 'ag__.defined' not in code, code


@pytest.mark.parametrize('function', CHECKED, ids=lambda f: f.__name__)
def test_reads_that_may_see_a_placeholder_or_run_in_a_generated_function_are_checked(function):
    code = ag.to_code(function)
    assert "value = ag__.Undefined('value')" in code, code
    assert 'ag__.defined(value)' in code or 'ag__.defined_free(value)' in code, code


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args, error, message, line', RAISING, ids=[c[0].__name__ for c in RAISING])
def test_converted_raises_exactly_what_python_raises(function, args, error, message, line, form):
    with pytest.raises(error) as original:
        function(*args)
    assert type(original.value) is error and str(original.value) == message
    with form_context(form):
        raises_as_python(original.value, ag.to_graph(function), args, form, line)


@pytest.mark.parametrize('function, args, error, message, line', RAISING, ids=[c[0].__name__ for c in RAISING])
def test_while_tracing_too(function, args, error, message, line):
    raises(error, ag.function(function), args, message, at=line)


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args, expected', VALUES, ids=[f'{c[0].__name__}{c[1]}' for c in VALUES])
def test_assigned_values_are_what_python_returns(function, args, expected, form):
    assert function(*args) == expected
    assert in_form(form, ag.to_graph(function), *args) == expected
    result = ag.function(function)(*args)
    assert (result.numpy().tolist() if isinstance(result, rt.Tensor) else result) == expected


def test_the_step_value_matches_numpy():
    w = rt.Variable(1.0)
    x, y = np.array([1.0, 2.0], np.float32), np.array([2.0, 4.0], np.float32)
    loss = ag.function(step)(w, rt.constant(x), rt.constant(y))
    assert float(loss) == pytest.approx(float(np.mean((x * 1.0 - y) ** 2)))
    assert float(w) == pytest.approx(1.0 - 0.1 * float(np.mean(2 * (x - y) * x)))
