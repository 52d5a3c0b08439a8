"""The user's `try`/`except` and `contextlib.suppress` around or inside a tensor-dependent loop or branch
must not catch, while tracing,

* what the operators raise to build the graph (the signal that a list becomes a tensor list, that the body
  must be traced again): the graph would be built from a trace that never finished;
* an exception the user's code raises in a tensor-dependent branch or body: a graph cannot raise it for
  some values only, and caught, the graph would take the handler's path for every value. It leaves the
  construct as rt.errors.StagedExceptionError (a BaseException) naming the original and the user's line.

Before: `xs.append(i)` under `except Exception:` in a tensor loop left `xs` empty (the graph gave 0 where
Python gives 3); `with suppress(ValueError): if t > 0: raise ValueError` made the graph skip the rest of the
body for every t (-1 where Python gives -2): silently."""
import contextlib

import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from user_errors import full_message, line_of


def append_under_a_broad_except(n):
    xs = []
    i = rt.constant(0)
    while i < n:
        try:
            xs.append(i * 2)
        except Exception:
            pass
        i += 1
    return len(xs), rt.stack(xs)


def append_under_suppress(n):
    xs = []
    for i in range(n):
        with contextlib.suppress(Exception):
            xs.append(i + 1)
    return rt.stack(xs)


def first_assigned_under_a_broad_except(n):
    """`last` first gets a value in the loop: the body is traced again with a placeholder for it."""
    i = rt.constant(0)
    while i < n:
        try:
            last = i * 3
        except Exception:
            last = -1
        i += 1
    return last


def test_list_appends_under_a_broad_except_become_a_tensor_list():
    count, xs = append_under_a_broad_except(rt.constant(3))
    assert count == 3 and xs.numpy().tolist() == [0, 2, 4]
    count, xs = ag.function(append_under_a_broad_except)(rt.constant(3))
    assert int(count) == 3 and xs.numpy().tolist() == [0, 2, 4]


def test_list_appends_under_suppress_in_a_tensor_for():
    assert append_under_suppress(rt.constant(3)).numpy().tolist() == [1, 2, 3]
    assert ag.function(append_under_suppress)(rt.constant(3)).numpy().tolist() == [1, 2, 3]


@pytest.mark.parametrize('n, expected', [(3, 6)])
def test_a_variable_first_assigned_under_a_broad_except(n, expected):
    assert int(first_assigned_under_a_broad_except(rt.constant(n))) == expected
    assert int(ag.function(first_assigned_under_a_broad_except)(rt.constant(n))) == expected


def suppressed_in_a_branch(t):
    y = t
    with contextlib.suppress(ValueError):
        if t > 0:
            raise ValueError('positive')
        y = t * 2
    return y


def caught_around_a_branch(t):
    try:
        y = t * 2
        if t > 0:
            raise ValueError('positive')
    except ValueError:
        y = t * 0
    return y


def check_positive(t):
    if t <= 0:
        raise ValueError('not positive')
    return t


def caught_by_the_caller(t):
    try:
        return check_positive(t) * 10
    except ValueError:
        return t * 0 - 1


def caught_in_a_loop_body(n):
    total = n * 0
    i = n * 0
    while i < n:
        try:
            if i == 2:
                raise KeyError(i)
            total += i
        except Exception:
            total += 100
        i += 1
    return total


def refuse(t):
    raise ValueError('refused')


def raised_by_the_right_side_of_and(t):
    try:
        return rt.cast(t > 0 and refuse(t), rt.int32)
    except ValueError:
        return t * 0 - 1


def raised_by_a_conditional_expression(t):
    try:
        return refuse(t) if t > 3 else t
    except ValueError:
        return t * 0 - 1


def raised_by_a_comprehension(t):
    try:
        return rt.stack([refuse(v) for v in t])
    except ValueError:
        return t * 0 - 1


def values_of(result):
    return result.numpy().tolist() if isinstance(result, rt.Tensor) else result


CAUGHT = [
    (suppressed_in_a_branch, [(-1, -2), (1, 1)], 'ValueError: positive', 'if branch of a tensor-dependent if',
     "raise ValueError('positive')"),
    (caught_around_a_branch, [(-1, -2), (1, 0)], 'ValueError: positive', 'if branch of a tensor-dependent if',
     "raise ValueError('positive')"),
    (caught_by_the_caller, [(3, 30), (-1, -1)], 'ValueError: not positive', 'if branch of a tensor-dependent if',
     "raise ValueError('not positive')"),
    (caught_in_a_loop_body, [(2, 1), (4, 104)], 'KeyError: ', 'if branch of a tensor-dependent if',
     'raise KeyError(i)'),
    (raised_by_the_right_side_of_and, [(-1, 0), (7, -1)], 'ValueError: refused',
     'right side of an `and` whose left side is a symbolic tensor', "raise ValueError('refused')"),
    (raised_by_a_conditional_expression, [(1, 1), (5, -1)], 'ValueError: refused',
     'value of `refuse(t) if t > 3 else t` (its true side)', "raise ValueError('refused')"),
    (raised_by_a_comprehension, [([1, 2], [-1, -1])], 'ValueError: refused',
     'element of a comprehension over a symbolic tensor', "raise ValueError('refused')"),
]


@pytest.mark.parametrize('function, cases, shown, where, line', CAUGHT, ids=[c[0].__name__ for c in CAUGHT])
def test_an_exception_raised_in_a_staged_branch_is_not_caught_as_if_it_happened(function, cases, shown, where,
                                                                                line):
    for value, expected in cases:   # eagerly (Python control flow on eager tensors): Python's semantics
        assert values_of(function(rt.constant(value))) == expected
    with pytest.raises(rt.errors.StagedExceptionError) as caught:
        ag.function(function)(rt.constant(cases[0][0]))
    message = full_message(caught.value)
    assert message.startswith(f'{shown}'), message
    assert f'(raised while tracing the {where})\nA graph cannot raise a Python exception for some values only, ' \
           'so tracing raises it for all of them.' in message, message
    helper = check_positive if 'not positive' in shown else refuse if 'refused' in shown else function
    assert f'{__file__}", line {line_of(helper, line)}' in message, message
    assert type(caught.value.__cause__).__name__ == shown.split(':')[0]
    assert not isinstance(caught.value, Exception)


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, cases', [(c[0], c[1]) for c in CAUGHT if c[0] is not raised_by_a_comprehension],
                         ids=[c[0].__name__ for c in CAUGHT if c[0] is not raised_by_a_comprehension])
def test_on_python_values_the_handlers_run_as_in_python(function, cases, form):
    for value, expected in cases:
        if function is raised_by_the_right_side_of_and:
            continue   # rt.cast of a Python bool: checked eagerly above
        assert in_form(form, ag.to_graph(function), value) == function(value) == expected
