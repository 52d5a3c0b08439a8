"""The user's `try`/`except` and `contextlib.suppress` around or inside a tensor-dependent loop or branch
must not catch, while tracing,

* what the operators raise to build the graph (the signal that a list becomes a tensor list, that the body
  must be traced again): the graph would be built from a trace that never finished;
* an exception the user's code raises in a tensor-dependent branch or body: a graph cannot raise it for
  some values only, and caught, the graph would take the handler's path for every value. It leaves the
  construct as rt.errors.StagedExceptionError (a BaseException) naming the original and the user's line.
  When it leaves the last trace (the ag.function call), the original leaves in its place, with a note, as
  TensorFlow raises it: `pytest.raises(ValueError)` and a program's `except Exception` catch it there.

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


NOTE = ("raised while tracing the {where} at {file}:{line}. A graph cannot raise a Python exception for some values "
        "only, so tracing raises it for all of them (inside the trace, as rt.errors.StagedExceptionError, which no "
        "except around the construct catches). To check values when the graph runs, use `assert` or "
        "rt.debugging.assert_* (graph Assert ops); to raise, make the condition a Python value.")


@pytest.mark.parametrize('function, cases, shown, where, line', CAUGHT, ids=[c[0].__name__ for c in CAUGHT])
def test_an_exception_raised_in_a_staged_branch_is_not_caught_as_if_it_happened(function, cases, shown, where,
                                                                                line):
    for value, expected in cases:   # eagerly (Python control flow on eager tensors): Python's semantics
        assert values_of(function(rt.constant(value))) == expected
    name, _, text = shown.partition(': ')
    # The handler did not run while tracing (the graph would return its value); the original leaves the call.
    with pytest.raises(BaseException) as caught:
        ag.function(function)(rt.constant(cases[0][0]))
    error = caught.value
    assert type(error).__name__ == name and isinstance(error, Exception), type(error)
    assert str(error).startswith(text), str(error)
    assert error.__cause__ is None and error.__context__ is None
    helper = check_positive if 'not positive' in shown else refuse if 'refused' in shown else function
    assert error.__notes__[0] == NOTE.format(where=where, file=__file__, line=line_of(helper, line))
    assert f'{__file__}", line {line_of(helper, line)}' in error.__notes__[1], error.__notes__
    assert len(error.__notes__) == 2, error.__notes__


@pytest.mark.parametrize('function, cases, shown, where, line', CAUGHT, ids=[c[0].__name__ for c in CAUGHT])
def test_inside_a_trace_it_is_a_staged_exception_error(function, cases, shown, where, line):
    """While the enclosing function is still traced, the original is the cause of a StagedExceptionError."""
    seen = []

    def outer(t):   # not converted (rt.function): its handler runs while tracing
        try:
            return ag.to_graph(function)(t)
        except BaseException as error:   # sees what the caller's `except` would see, inside the trace
            seen.append(error)
            raise

    with pytest.raises(Exception):
        rt.function(outer)(rt.constant(cases[0][0]))
    staged, = seen
    assert type(staged) is rt.errors.StagedExceptionError and not isinstance(staged, Exception)
    assert str(staged).startswith(shown) and f'(raised while tracing the {where} at {__file__}:' in str(staged)
    assert 'A graph cannot raise a Python exception for some values only, so tracing raises it for all of ' \
           'them.' in str(staged), str(staged)
    assert type(staged.__cause__).__name__ == shown.split(':')[0] and staged.original is staged.__cause__


def test_the_boundary_raises_the_original_with_its_type_message_and_note():
    with pytest.raises(ValueError, match='^not positive\nraised while tracing') as caught:
        ag.function(caught_by_the_caller)(rt.constant(-1))
    assert type(caught.value) is ValueError and caught.value.args == ('not positive',)
    message = full_message(caught.value)
    line = line_of(check_positive, "raise ValueError('not positive')")
    assert message.startswith(f'not positive\nraised while tracing the if branch of a tensor-dependent if at '
                              f'{__file__}:{line}. A graph cannot raise'), message
    assert 'use `assert` or rt.debugging.assert_*' in message
    assert message.endswith(f'  in user code:\n'
                            f'    File "{__file__}", line {line_of(caught_by_the_caller, "return check_positive")}, '
                            f'in caught_by_the_caller\n      return check_positive(t) * 10\n'
                            f'    File "{__file__}", line {line_of(check_positive, "if t <= 0")}, in check_positive\n'
                            f'      if t <= 0:\n'
                            f'    File "{__file__}", line {line}, in check_positive\n'
                            f"      raise ValueError('not positive')"), message
    assert 'autograph_lite' not in ''.join(__import__('traceback').format_tb(caught.value.__traceback__))


def test_a_program_s_except_exception_catches_it_at_top_level():
    function = ag.function(caught_around_a_branch)
    try:
        function(rt.constant(1))
    except Exception as error:   # a server's or a training loop's handler
        caught = error
    assert type(caught) is ValueError and str(caught) == 'positive'


def raises_a_chained_error(t):
    if t > 0:
        try:
            {}['key']
        except KeyError as error:
            raise ValueError('no key') from error
    return t


def test_the_original_keeps_its_cause_and_context_whatever_the_caller_handles():
    try:
        raise RuntimeError('being handled by the caller')
    except RuntimeError:
        with pytest.raises(ValueError, match='no key') as caught:
            ag.function(raises_a_chained_error)(rt.constant(1))
    assert type(caught.value.__cause__) is KeyError and caught.value.__context__ is caught.value.__cause__
    with pytest.raises(ValueError, match='positive') as caught:
        ag.function(caught_around_a_branch)(rt.constant(1))   # called in no handler: no context
    assert caught.value.__context__ is None


def calls_a_function_that_raises(t):
    try:
        return inner_function(t) * 10
    except ValueError:   # inside the trace: must not catch the ValueError staged in inner_function's if
        return t * 0 - 1


inner_function = ag.function(check_positive)


def test_a_nested_function_s_exception_is_not_caught_by_the_enclosing_function():
    # Called eagerly, inner_function is the outermost trace: its ValueError reaches the handler (as in TF).
    assert int(calls_a_function_that_raises(rt.constant(2))) == -1
    outer = ag.function(calls_a_function_that_raises)
    with pytest.raises(ValueError, match='^not positive\nraised while tracing') as caught:
        outer(rt.constant(2))
    assert caught.value.__notes__[0].startswith('raised while tracing the if branch of a tensor-dependent if at '
                                                f'{__file__}:{line_of(check_positive, "raise ValueError")}.')
    assert outer.experimental_get_tracing_count() == 0


def unconverted_caller(t):
    try:
        return ag.to_graph(check_positive)(t)
    except ValueError:   # rt.function does not convert this function: its handler runs while tracing
        return t * 0 - 1


@pytest.mark.parametrize('entry', ['call', 'get_concrete_function'])
def test_converted_code_called_while_an_unconverted_function_is_traced(entry):
    function = rt.function(unconverted_caller)
    with pytest.raises(ValueError, match='^not positive\nraised while tracing'):
        if entry == 'call':
            function(rt.constant(3))
        else:
            function.get_concrete_function(rt.TensorSpec([], rt.int32))
    with pytest.raises(ValueError, match='^not positive\nraised while tracing'):
        ag.function(check_positive).get_concrete_function(rt.TensorSpec([], rt.int32))


def test_ag_to_graph_called_eagerly_raises_as_python_does():
    with pytest.raises(ValueError, match='^not positive$') as caught:
        ag.to_graph(check_positive)(rt.constant(-1))
    assert getattr(caught.value, '__notes__', None) is None   # on eager values: exactly the original's
    assert int(ag.to_graph(check_positive)(rt.constant(4))) == 4


class OneTest:
    """A loop test that may run once: Python runs it again only if the loop body runs."""

    def __init__(self):
        self.runs = 0

    def __call__(self, i):
        self.runs += 1
        if self.runs > 1:
            raise ValueError('the test ran twice')
        return i + 1


def raised_in_a_walrus_test(n, test):
    i = n * 0
    try:
        while (i := test(i)) < n:   # a rotated While: the test also runs at the end of the body
            pass
    except ValueError:
        i = n * 0 - 1
    return i


def test_an_exception_raised_in_a_rotated_while_test_is_not_caught_as_if_it_happened():
    assert int(raised_in_a_walrus_test(rt.constant(0), OneTest())) == 1   # eagerly: Python's semantics
    assert int(raised_in_a_walrus_test(rt.constant(5), OneTest())) == -1
    # Before: the test at the end of the traced body raised past the loop into the handler: -1 for every n.
    with pytest.raises(ValueError, match='^the test ran twice\nraised while tracing the condition') as caught:
        ag.function(raised_in_a_walrus_test)(rt.constant(0), OneTest())
    assert caught.value.__notes__[0].startswith(
        f'raised while tracing the condition of a tensor-dependent while loop at {__file__}:'
        f'{line_of(OneTest.__call__, "raise ValueError")}.')


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, cases', [(c[0], c[1]) for c in CAUGHT if c[0] is not raised_by_a_comprehension],
                         ids=[c[0].__name__ for c in CAUGHT if c[0] is not raised_by_a_comprehension])
def test_on_python_values_the_handlers_run_as_in_python(function, cases, form):
    for value, expected in cases:
        if function is raised_by_the_right_side_of_and:
            continue   # rt.cast of a Python bool: checked eagerly above
        assert in_form(form, ag.to_graph(function), value) == function(value) == expected
