"""The ag__ operators on Python values: exactly Python's semantics (results, laziness, exceptions)."""
import builtins
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph_lite.operators as ag__
from autograph_lite.operators import py_builtins
from staged_programs import (collatz_steps, collatz_steps_generated, first_index_above,
                             first_index_above_generated)


class Truthy:
    """Counts how often Python asks for its truth value."""

    def __init__(self, value):
        self.value, self.calls = value, 0

    def __bool__(self):
        self.calls += 1
        return self.value


def _no_state():
    return ()


def _ignore_state(_):
    return None


# --- if_stmt -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cond, expected", [(1, "if"), (0, "else"), ([], "else"), ([0], "if"),
                                            ("", "else"), (None, "else"), (0.0, "else")])
def test_if_stmt_uses_python_truthiness(cond, expected):
    taken = []
    ag__.if_stmt(cond, lambda: taken.append("if"), lambda: taken.append("else"), _no_state, _ignore_state, (), 0)
    assert taken == [expected]


def test_if_stmt_asks_for_truth_value_once():
    cond = Truthy(True)
    ag__.if_stmt(cond, lambda: None, lambda: None, _no_state, _ignore_state, (), 0)
    assert cond.calls == 1


def test_if_stmt_propagates_bool_errors_like_python():
    class NoBool:
        def __bool__(self):
            raise RuntimeError("no truth value")

    with pytest.raises(RuntimeError, match="no truth value"):
        ag__.if_stmt(NoBool(), lambda: None, lambda: None, _no_state, _ignore_state, (), 0)


# --- while_stmt --------------------------------------------------------------------------------

def test_while_stmt_counts_tests_like_python():
    tests, state = [], {"n": 0}

    def loop_test():
        tests.append(state["n"])
        return state["n"] < 3

    def loop_body():
        state["n"] += 1

    ag__.while_stmt(loop_test, loop_body, _no_state, _ignore_state, ())
    assert tests == [0, 1, 2, 3]
    assert state["n"] == 3


def test_while_stmt_body_exception_propagates():
    def loop_body():
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        ag__.while_stmt(lambda: True, loop_body, _no_state, _ignore_state, ())


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=300))
def test_collatz_generated_equals_python(n):
    assert collatz_steps_generated(n) == collatz_steps(n)


# --- for_stmt ----------------------------------------------------------------------------------

@pytest.mark.parametrize("iterable", [[3, 1, 2], (1,), {"a": 1, "b": 2}, "xyz", range(2, 9, 3), []])
def test_for_stmt_visits_python_iterables_in_order(iterable):
    seen = []
    ag__.for_stmt(iterable, None, seen.append, _no_state, _ignore_state, ())
    assert seen == list(iterable)


def test_for_stmt_with_generator():
    seen = []
    ag__.for_stmt((x * x for x in range(4)), None, seen.append, _no_state, _ignore_state, ())
    assert seen == [0, 1, 4, 9]


def test_for_stmt_extra_test_does_not_advance_iterator_past_break():
    iterator = iter([1, 2, 3, 4, 5])
    seen = []
    ag__.for_stmt(iterator, lambda: len(seen) < 2, seen.append, _no_state, _ignore_state, ())
    assert seen == [1, 2]
    assert next(iterator) == 3  # like Python's for + break: element 3 not consumed


def test_for_stmt_extra_test_checked_before_each_iteration():
    calls = []

    def extra_test():
        calls.append(len(calls))
        return True

    ag__.for_stmt([10, 20], extra_test, lambda _: None, _no_state, _ignore_state, ())
    assert calls == [0, 1, 2]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-5, 9), max_size=8), st.integers(-3, 20))
def test_for_with_break_and_return_generated_equals_python(values, limit):
    assert first_index_above_generated(values, limit) == first_index_above(values, limit)


# --- and_ / or_ / not_ -------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2, "", "a", None, [], [0], 0.0, True, False]), min_size=2, max_size=4))
def test_and_or_return_the_operand_python_returns(values):
    thunks = [lambda v=v: v for v in values]
    expected_and = values[0]
    for v in values[1:]:
        expected_and = expected_and and v
    expected_or = values[0]
    for v in values[1:]:
        expected_or = expected_or or v
    assert ag__.and_(*thunks) is expected_and
    assert ag__.or_(*thunks) is expected_or


def test_and_is_lazy():
    evaluated = []

    def right():
        evaluated.append("right")
        return 1

    assert ag__.and_(lambda: 0, right) == 0
    assert ag__.or_(lambda: 5, right) == 5
    assert evaluated == []
    assert ag__.and_(lambda: 1, right) == 1
    assert ag__.or_(lambda: 0, right) == 1
    assert evaluated == ["right", "right"]


@pytest.mark.parametrize("value", [0, 1, [], [1], None, "", "x"])
def test_not_returns_python_bool(value):
    assert ag__.not_(value) is (not value)


# --- if_exp --------------------------------------------------------------------------------------

def test_if_exp_evaluates_only_the_chosen_side():
    assert ag__.if_exp(0, lambda: 1 / 0, lambda: "b", "1 / 0 if 0 else 'b'") == "b"
    assert ag__.if_exp([1], lambda: "a", lambda: 1 / 0, "") == "a"


# --- assert_stmt ---------------------------------------------------------------------------------

def test_assert_stmt_passing_does_not_build_message():
    ag__.assert_stmt(True, lambda: 1 / 0)


def test_assert_stmt_failing_raises_assertion_error_with_message():
    with pytest.raises(AssertionError, match="^x must be positive$"):
        ag__.assert_stmt(0, lambda: "x must be positive")


def test_assert_stmt_without_message_matches_python():
    with pytest.raises(AssertionError) as info:
        ag__.assert_stmt([], lambda: None)
    assert info.value.args == ()


def test_assert_stmt_is_skipped_under_python_O():
    code = textwrap.dedent("""
        import autograph_lite.operators as ag__
        ag__.assert_stmt(False, lambda: 'should not fire')
        print('skipped')
    """)
    result = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "skipped"


# --- Undefined / return values ---------------------------------------------------------------------

def _python_unbound_error():
    def f(flag):
        if flag:
            x = 1
        return x + 1  # noqa: F821 - the point of the test

    with pytest.raises(UnboundLocalError) as info:
        f(False)
    return str(info.value)


@pytest.mark.parametrize("use", [lambda x: x + 1, lambda x: x.attr, lambda x: x[0], lambda x: bool(x),
                                 lambda x: len(x), lambda x: str(x), lambda x: x(), lambda x: -x,
                                 lambda x: 1 < x, lambda x: list(x)])
def test_undefined_raises_like_an_unbound_local(use):
    with pytest.raises(UnboundLocalError) as info:
        use(ag__.Undefined("x"))
    assert str(info.value) == _python_unbound_error()


def test_undefined_repr_is_usable_for_debugging():
    assert repr(ag__.Undefined("total")) == "Undefined('total')"


def test_return_value_of_function_that_fell_off_the_end_is_none():
    assert ag__.return_value(ag__.UndefinedReturnValue()) is None
    assert ag__.return_value(0) == 0


# --- builtins ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(5,), (2, 7), (10, 0, -3), (0,), (-2,)])
def test_range_equals_builtin(args):
    assert py_builtins.range_(*args) == range(*args)


@pytest.mark.parametrize("name, args", [("range_", ("a",)), ("range_", (1, 2, 0)), ("len_", (5,)),
                                        ("int_", ("x1",)), ("float_", ("nan?",)), ("abs_", ("s",))])
def test_builtin_errors_are_the_builtins_errors(name, args):
    builtin = getattr(builtins, name[:-1])
    with pytest.raises(Exception) as expected:
        builtin(*args)
    with pytest.raises(type(expected.value)) as actual:
        getattr(py_builtins, name)(*args)
    assert str(actual.value) == str(expected.value)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-9, 9), max_size=5), st.lists(st.text(max_size=2), max_size=5), st.integers(-3, 3))
def test_sequence_builtins_equal_builtins(numbers, words, start):
    assert py_builtins.len_(numbers) == len(numbers)
    assert list(py_builtins.enumerate_(words, start)) == list(enumerate(words, start))
    assert list(py_builtins.zip_(numbers, words)) == list(zip(numbers, words))
    assert [py_builtins.abs_(n) for n in numbers] == [abs(n) for n in numbers]
    assert [py_builtins.float_(n) for n in numbers] == [float(n) for n in numbers]
    assert py_builtins.int_("ff", 16) == 255
    assert py_builtins.int_() == 0


def test_builtin_overrides_cover_the_tensor_aware_builtins():
    names = {b.__name__ for b in py_builtins.BUILTIN_OVERRIDES}
    assert names == {"range", "len", "enumerate", "zip", "print", "abs", "int", "float", "isinstance", "sum", "any", "all",
                     "max", "min"}
    assert py_builtins.BUILTIN_OVERRIDES[builtins.print] is builtins.print
