"""End to end: and/or/not, conditional expressions, asserts and tensor-aware builtins in ag.function."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_staged_control_flow import check, op_types

trace_log = []


def noted(value, label):
    """Records (at trace time, or each eager call) that an operand was evaluated."""
    trace_log.append(label)
    return value


# --- and / or / not -----------------------------------------------------------------------------------

@ag.function
def in_open_interval(x, low, high):
    return x > low and x < high


@ag.function
def outside(x, low, high):
    return x <= low or x >= high


@ag.function
def not_positive(x):
    return not x > 0


@pytest.mark.parametrize("x, expected", [(0, False), (3, True), (9, False)])
def test_staged_and_or_not(x, expected):
    args = (rt.constant(x), rt.constant(1), rt.constant(5))
    check(in_open_interval, args, expected)
    check(outside, args, not expected)
    check(not_positive, (rt.constant(x),), not x > 0)


@ag.function(input_signature=[rt.TensorSpec([None], rt.int32), rt.TensorSpec([], rt.int32)])
def safe_first_is_big(values, n):
    # The right side indexes values[0]: at run time it must only run when n > 0.
    return n > 0 and values[0] > 10


def test_and_right_side_runs_only_when_needed():
    check(safe_first_is_big, (rt.constant(np.zeros(0, np.int32)), rt.constant(0)), False)
    check(safe_first_is_big, (rt.constant([11]), rt.constant(1)), True)
    # Staged lazily: the right side lives in a branch graph, not in the function's graph.
    assert "If" in op_types(safe_first_is_big, rt.constant([11]), rt.constant(1))


@ag.function
def lazy_python_operands(x, flag):
    return flag and noted(x > 0, "right")


def test_python_left_side_short_circuits_at_trace_time():
    trace_log.clear()
    lazy_python_operands(rt.constant(1), False)
    assert trace_log == []
    lazy_python_operands(rt.constant(1), True)
    assert trace_log == ["right"]


@ag.function
def right_side_traced_once(x):
    return x > 0 and noted(x < 10, "right")


def test_symbolic_left_side_traces_right_side_once_inside_the_condition():
    trace_log.clear()
    check(right_side_traced_once, (rt.constant(5),), True)
    check(right_side_traced_once, (rt.constant(-5),), False)
    assert trace_log.count("right") == 1 + 1  # one trace + the eager call where x > 0 (the -5 one skips it)


@ag.function
def chained(a, b, c):
    return a > 0 and b > 0 and c > 0, a > 0 or b > 0 or c > 0


@pytest.mark.parametrize("a, b, c", [(1, 1, 1), (1, -1, 1), (-1, -1, -1), (-1, -1, 1)])
def test_chained_and_or(a, b, c):
    check(chained, (rt.constant(a), rt.constant(b), rt.constant(c)), (a > 0 and b > 0 and c > 0,
                                                                      a > 0 or b > 0 or c > 0))


# --- conditional expressions --------------------------------------------------------------------------------

@ag.function
def abs_value(x):
    return -x if x < 0 else x


@ag.function
def nested_ternary(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


@pytest.mark.parametrize("x", [-3, 0, 4])
def test_ternaries(x):
    check(abs_value, (rt.constant(x),), abs(x))
    check(nested_ternary, (rt.constant(x),), (x > 0) - (x < 0))
    assert abs_value.experimental_get_tracing_count() == 1


# --- assert ---------------------------------------------------------------------------------------------

@ag.function
def checked_sqrt(x):
    assert x >= 0, "x must be non-negative"
    return rt.sqrt(x)


def test_assert_passing_in_graph():
    check(checked_sqrt, (rt.constant(9.0),), np.float32(3.0))


def test_assert_failing_at_graph_run_time_raises_invalid_argument_with_message():
    checked_sqrt(rt.constant(4.0))  # trace with a passing value first: the failure is at run time
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be non-negative"):
        checked_sqrt(rt.constant(-1.0))
    assert checked_sqrt.experimental_get_tracing_count() == 1
    assert "Assert" in op_types(checked_sqrt, rt.constant(1.0))


def test_assert_eagerly_is_python_assert():
    ag.run_functions_eagerly(True)
    try:
        with pytest.raises(AssertionError, match="x must be non-negative"):
            checked_sqrt(rt.constant(-1.0))
    finally:
        ag.run_functions_eagerly(False)


@ag.function
def python_assert(x, n):
    assert n > 0, "n must be positive, got " + str(n)
    return x * n


def test_assert_on_python_value_fails_while_tracing():
    check(python_assert, (rt.constant(2), 3), 6)
    with pytest.raises(AssertionError, match="n must be positive, got 0"):
        python_assert(rt.constant(2), 0)


# --- tensor-aware builtins ---------------------------------------------------------------------------------

@ag.function
def builtins_on_tensors(x):
    n = len(x)
    total = 0.0
    for v in x:
        total += abs(v)
    return n, total, int(total), float(n)


def test_len_abs_int_float_on_tensors():
    check(builtins_on_tensors, (rt.constant([-1.5, 2.0, -3.0]),), (3, np.float32(6.5), 6, np.float32(3.0)))


@ag.function
def type_checks(x, y):
    if isinstance(x, rt.Tensor) and not isinstance(y, rt.Tensor):
        return x * y
    return x


def test_isinstance_of_tensors():
    check(type_checks, (rt.constant(4), 2), 8)


@ag.function
def print_is_python_print(x):
    print("tracing with", x.dtype.name)
    return x + 1


def test_python_print_runs_only_while_tracing(capsys):
    for value in (1, 2, 3):
        print_is_python_print(rt.constant(value))
    assert capsys.readouterr().out == "tracing with int32\n"


def checked_below_ten(x):
    rt.print("checked", x)
    return x < 10


@ag.function
def logged_and(x):
    return x > 0 and checked_below_ten(x)


@ag.function
def logged_or(x):
    return x > 0 or checked_below_ten(x)


def test_right_side_side_effects_run_only_when_needed_at_graph_run_time(capsys):
    assert bool(logged_and(rt.constant(-1)).numpy()) is False
    assert capsys.readouterr().out == ""
    assert bool(logged_and(rt.constant(5)).numpy()) is True
    assert capsys.readouterr().out == "checked 5\n"
    assert bool(logged_or(rt.constant(5)).numpy()) is True
    assert capsys.readouterr().out == ""
    assert bool(logged_or(rt.constant(-20)).numpy()) is True
    assert capsys.readouterr().out == "checked -20\n"
    assert logged_and.experimental_get_tracing_count() == 1


@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def first_or_zero(values):
    return values[0] if rt.size(values) > 0 else 0.0


def test_ternary_runs_only_the_chosen_side():
    check(first_or_zero, (rt.constant(np.zeros(0, np.float32)),), np.float32(0.0))
    check(first_or_zero, (rt.constant([2.5, 1.0]),), np.float32(2.5))


@ag.function
def assert_with_value_message(x, limit):
    assert x < limit, limit
    return x


def test_assert_message_may_be_a_python_value():
    assert assert_with_value_message(rt.constant(1), 3).numpy() == 1
    with pytest.raises(rt.errors.InvalidArgumentError, match="3"):
        assert_with_value_message(rt.constant(5), 3)
