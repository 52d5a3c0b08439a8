"""Issue 23: a `return` inside `finally` is converted with Python's meaning, as TensorFlow's AutoGraph converts it
(it was a ConversionError): it replaces the `try`'s own return and discards the exception in flight; a `finally`
that does not return raises that exception again. Both forms: the plain form on Python values (its own
statements), the staged form on Python values and, traced, on tensors (graph == eager, exact trace counts).
Exceptions leave exactly as the original raises them."""
import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from user_errors import raises, raises_as_python
from both_modes import eager


def discards_the_exception(x):
    try:
        x = x * 10
        raise ValueError("discarded")
    finally:
        return x + 1


def replaces_the_trys_return(x):
    try:
        return x
    finally:
        return x * 2


def returns_on_some_paths(x, log):
    try:
        if x > 5:
            raise KeyError(x)
        return x - 1
    finally:
        log.append('cleanup')
        if x > 10:
            return -x
        log.append('after the return')


def with_handlers_and_else(x):
    try:
        if x < 0:
            raise ValueError(x)
    except ValueError:
        x = 100
        raise TypeError("from the handler")
    else:
        x = x + 1
    finally:
        if x >= 100:
            return 'handled ' + str(x)
    return 'fell through ' + str(x)


def in_a_loop(xs):
    total = 0
    for x in xs:
        try:
            total += 10 // x
        finally:
            if x == 0:
                return ('stopped', total)
    return ('done', total)


def nested_finally(x):
    try:
        try:
            return x
        finally:
            raise RuntimeError("inner finally")
    finally:
        if x > 0:
            return 'outer ' + str(x)


CASES = [
    (discards_the_exception, (3,)),
    (replaces_the_trys_return, (4,)),
    (with_handlers_and_else, (-1,)),
    (with_handlers_and_else, (1,)),
    (in_a_loop, ([1, 2, 5],)),
    (in_a_loop, ([5, 0, 2],)),
    (nested_finally, (2,)),
    (nested_finally, (-2,)),
]


def outcome(function, *args):
    try:
        return ('value', function(*args))
    except Exception as error:  # noqa: BLE001 - what the caller observes
        return ('raised', type(error), str(error))


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, args', CASES)
def test_converted_on_python_values_is_python(form, function, args):
    expected = outcome(function, *args)
    assert outcome(lambda *a: in_form(form, ag.to_graph(function), *a), *args) == expected


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('x', [3, 7, 12])
def test_the_finally_runs_to_its_return_or_its_end_and_reraises_when_it_did_not_return(form, x):
    expected_log, converted_log = [], []
    expected = outcome(returns_on_some_paths, x, expected_log)
    assert outcome(lambda: in_form(form, ag.to_graph(returns_on_some_paths), x, converted_log)) == expected
    assert converted_log == expected_log
    assert expected == {3: ('value', 2), 7: ('raised', KeyError, '7'), 12: ('value', -12)}[x]
    if x == 7:   # the exception leaves exactly as the original raises it
        try:
            returns_on_some_paths(x, [])
        except KeyError as error:
            original = error
        raises_as_python(original, ag.to_graph(returns_on_some_paths), (x, []), form, "raise KeyError(x)")


def on_tensors(x):
    try:
        y = x * 2
        if x > 100:    # a Python check on a tensor would be traced; this one is a graph if
            y = y + 1
        raise ValueError("always raised, always discarded")
    finally:
        return y + 1


def tensor_return_in_finally_without_exception(x):
    try:
        y = x * 2
    finally:
        if x > 0:
            return y
    return -y


def test_traced_on_tensors_as_eagerly():
    staged = ag.function(on_tensors)
    for value, expected in [(3, 7), (200, 402)]:
        assert staged(rt.constant(value)).numpy() == expected == eager(staged, rt.constant(value)).numpy()
    assert staged.experimental_get_tracing_count() == 1
    conditional = ag.function(tensor_return_in_finally_without_exception)
    for value, expected in [(3, 6), (-2, 4)]:
        assert conditional(rt.constant(value)).numpy() == expected
        assert eager(conditional, rt.constant(value)).numpy() == expected
    assert conditional.experimental_get_tracing_count() == 1


def discards_only_for_some_values(x):
    try:
        raise ValueError("x was not positive")
    finally:
        if x > 0:      # a tensor condition: the graph cannot discard the exception for some values only
            return x


def raised_in_a_tensor_branch(x):
    try:
        if x > 0:
            raise ValueError("raised while tracing the branch")
        y = x
    finally:
        return x + 1


def test_what_the_graph_cannot_discard_for_some_values_only_is_an_error():
    raises(ValueError, ag.function(discards_only_for_some_values), (rt.constant(1),),
           "x was not positive", "A graph cannot raise a Python exception for some values only",
           at='raise ValueError("x was not positive")')
    # Raised for every value while tracing the branch (y = x is never traced): not discarded, as any
    # exception raised in a tensor-dependent branch (docs/LIMITS.md, "Exceptions in tensor-dependent code")
    raises(ValueError, ag.function(raised_in_a_tensor_branch), (rt.constant(-1),),
           "raised while tracing the branch", "A graph cannot raise a Python exception for some values only",
           at='raise ValueError("raised while tracing the branch")')


def unstageable_loop_in_the_try(n):
    total = rt.constant(0)
    try:
        state = 'idle'
        for i in rt.range(n):
            state = 'run'          # a Python string a tensor loop changes: a StateError while tracing
            total += i
    finally:
        return total + len(state)


def test_an_error_that_says_the_try_cannot_be_staged_is_not_discarded():
    # Discarded, the trace would stop half-way and return `total` from before the loop and the 'idle' state
    # (4), where the original returns 6: the finally's return cannot hide what conversion itself raises.
    assert unstageable_loop_in_the_try(rt.constant(3)).numpy() == 6
    raises(rt.errors.StateError, ag.function(unstageable_loop_in_the_try), (rt.constant(3),),
           "'state' is a Python str that a tensor-dependent loop changes ('idle' before it, 'run' after an iteration)", at="for i in rt.range(n):")
