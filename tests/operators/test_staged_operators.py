"""The ag__ operators on symbolic tensors, driven directly (generated-style code, dict-held state):
what gets staged, the state rules, and every state error with its message."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph_lite.operators as ag__
import runtime as rt
from autograph_lite.operators import py_builtins
from runtime.core import context
from staged_programs import (collatz_steps, collatz_steps_generated, first_index_above,
                             first_index_above_generated, trace_and_run)


class State(dict):
    """A function's locals as the operators see them: get_state/set_state over ``names``."""

    def __init__(self, names, **values):
        super().__init__(values)
        self.names = tuple(names)

    def get_state(self):
        return tuple(self[name] if name in self else ag__.Undefined(name) for name in self.names)

    def set_state(self, values):
        self.update(zip(self.names, values))


def run(fn, *args, **kwargs):
    """Trace + run ``fn``; interpreter and executor must agree. Returns the interpreter's results."""
    interpreted, compiled, graph = trace_and_run(fn, *args, **kwargs)
    for a, b in zip(interpreted, compiled):
        np.testing.assert_array_equal(a, b)
    return interpreted if len(interpreted) != 1 else interpreted[0]


def op_types(graph):
    return [op.type for op in graph.operations]


def if_program(x, assign_in_if, assign_in_else, names=("y",), roles=None, **initial):
    state = State(names, **initial)

    def body():
        assign_in_if(state, x)

    def orelse():
        assign_in_else(state, x)

    ag__.if_stmt(x > 0, body, orelse, state.get_state, state.set_state, state.names, len(state.names), roles)
    return state


RETURN_ROLES = {"do_return": "return_flag", "retval_": "return_value"}


# --- if ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [(3, 6), (-2, 2)])
def test_staged_if_both_branches(value, expected):
    def f(x):
        return if_program(x, lambda s, x: s.update(y=x * 2), lambda s, x: s.update(y=-x))["y"]

    assert run(f, rt.constant(value)) == expected
    _, _, graph = trace_and_run(f, rt.constant(value))
    assert op_types(graph).count("If") == 1


def test_staged_if_keeps_earlier_value_in_branch_that_does_not_assign():
    def f(x):
        return if_program(x, lambda s, x: s.update(y=x), lambda s, x: None, y=rt.constant(100))["y"]

    assert run(f, rt.constant(5)) == 5
    assert run(f, rt.constant(-5)) == 100


def test_staged_if_converts_python_numbers_and_keeps_identical_values():
    def f(x):
        s = if_program(x, lambda s, x: s.update(y=1), lambda s, x: s.update(y=2), names=("y", "same"), same=7)
        assert s["same"] == 7 and type(s["same"]) is int  # untouched in both branches: still Python
        return s["y"]

    assert run(f, rt.constant(1.0)) == 1
    assert run(f, rt.constant(-1.0)) == 2


def test_staged_if_none_in_both_branches_is_fine():
    def f(x):
        s = if_program(x, lambda s, x: s.update(y=x), lambda s, x: s.update(y=x + 1), names=("y", "n"), n=None)
        assert s["n"] is None
        return s["y"]

    assert run(f, rt.constant(1)) == 1


def test_staged_if_variable_defined_only_in_if_branch():
    def f(x):
        return if_program(x, lambda s, x: s.update(y=x), lambda s, x: None, y=ag__.Undefined("y"))["y"]

    with pytest.raises(rt.errors.StateError, match="'y' is defined only in the if branch of a tensor-dependent "
                                                   "if .*initialize it before the if"):
        trace_and_run(f, rt.constant(1))


def test_staged_if_variable_defined_only_in_else_branch():
    def f(x):
        return if_program(x, lambda s, x: None, lambda s, x: s.update(y=x), y=ag__.Undefined("y"))["y"]

    with pytest.raises(rt.errors.StateError, match="'y' is defined only in the else branch.*initialize it before"):
        trace_and_run(f, rt.constant(1))


def test_staged_if_dtype_mismatch_names_variable_and_dtypes():
    def f(x):
        return if_program(x, lambda s, x: s.update(y=1), lambda s, x: s.update(y=1.5))["y"]

    with pytest.raises(rt.errors.StateError, match="'y' has dtype float32 in the else branch but dtype int32 "
                                                   "in the if branch"):
        trace_and_run(f, rt.constant(1))


def test_staged_if_none_in_one_branch_is_an_error():
    def f(x):
        return if_program(x, lambda s, x: s.update(y=x), lambda s, x: None, y=None)["y"]

    with pytest.raises(rt.errors.StateError, match="'y' is None in the else branch but a tensor of dtype int32"):
        trace_and_run(f, rt.constant(1))


def test_return_in_one_branch_only_then_fall_off_the_end_is_an_error():
    def f(x):
        s = if_program(x, lambda s, x: s.update(do_return=True, retval_=x), lambda s, x: None,
                       names=("do_return", "retval_"), roles=RETURN_ROLES, do_return=False, retval_=ag__.UndefinedReturnValue())
        return ag__.return_value(s["retval_"])

    with pytest.raises(rt.errors.StateError, match="return inside a tensor-dependent if or loop must return a "
                                                   "value on every path"):
        trace_and_run(f, rt.constant(1))


@pytest.mark.parametrize("return_in_if", [True, False])
def test_return_in_one_branch_completed_by_code_after(return_in_if):
    def f(x):
        names = ("do_return", "retval_")
        returning = lambda s, x: s.update(do_return=True, retval_=x * 10)  # noqa: E731
        s = if_program(x, returning if return_in_if else (lambda s, x: None),
                       (lambda s, x: None) if return_in_if else returning,
                       names=names, roles=RETURN_ROLES, do_return=False, retval_=ag__.UndefinedReturnValue())

        def guard_body():
            s.update(do_return=True, retval_=x * 0 - 1)

        ag__.if_stmt(ag__.not_(s["do_return"]), guard_body, lambda: None, s.get_state, s.set_state, names, 2,
                     {"do_return": "return_guard", "retval_": "return_value"})
        return ag__.return_value(s["retval_"])

    assert run(f, rt.constant(4)) == (40 if return_in_if else -1)
    assert run(f, rt.constant(-4)) == (-1 if return_in_if else -40)


# --- while ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 27, 97])
def test_staged_collatz_matches_python(n):
    assert run(collatz_steps_generated, rt.constant(n)) == collatz_steps(n)


def test_staged_while_is_one_while_op():
    _, _, graph = trace_and_run(collatz_steps_generated, rt.constant(6))
    assert op_types(graph).count("While") == 1


def while_program(test, body, names, roles=None, **initial):
    state = State(names, **initial)
    ag__.while_stmt(lambda: test(state), lambda: body(state), state.get_state, state.set_state, state.names, roles)
    return state


def test_staged_while_loop_var_changing_dtype():
    def f(x):
        return while_program(lambda s: s["i"] < x, lambda s: s.update(i=rt.cast(s["i"], rt.float32) + 1.0),
                             ("i",), i=0)["i"]

    with pytest.raises(rt.errors.StateError, match="'i' has dtype int32 before a tensor-dependent loop but dtype "
                                                   "float32 after an iteration"):
        trace_and_run(f, rt.constant(3))


def test_staged_while_variable_undefined_before_loop():
    def body(s):
        s.update(i=s["i"] + 1, last=s["i"])

    def f(x):
        return while_program(lambda s: s["i"] < x, body, ("i", "last"), i=0, last=ag__.Undefined("last"))["last"]

    interpreted, compiled, _ = trace_and_run(f, rt.constant(3))
    assert interpreted == compiled == [2]
    with pytest.raises(rt.errors.InvalidArgumentError, match="'last' is read after a tensor-dependent loop that ran "
                                                             "zero times"):
        trace_and_run(f, rt.constant(0))


def test_staged_while_none_loop_var_must_stay_none():
    def body(s):
        s.update(i=s["i"] + 1, flag=s["i"])

    def f(x):
        return while_program(lambda s: s["i"] < x, body, ("i", "flag"), i=0, flag=None)["i"]

    with pytest.raises(rt.errors.StateError, match="'flag' is None before a tensor-dependent loop but a tensor"):
        trace_and_run(f, rt.constant(3))


def test_while_whose_test_becomes_symbolic_through_a_user_variable_is_an_error():
    def body(s):
        s.update(i=s["i"] + 1, total=s["total"] + s["x"])

    def f(x):
        # total starts as a Python int, so the first test is Python; after one iteration it is a tensor.
        return while_program(lambda s: s["total"] < 10, body, ("i", "total"), i=0, total=0, x=x)["i"]

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="'total' became a symbolic tensor"):
        run(f, rt.constant(3))


def test_while_whose_test_becomes_symbolic_through_a_break_flag_is_staged_from_there():
    def body(s):
        s.update(i=s["i"] + 1)
        s.update(break_=s["i"] * s["x"] >= 10)   # a tensor-dependent break: the flag becomes a tensor

    def f(x):
        return while_program(lambda s: ag__.not_(s["break_"]), body, ("break_", "i"), {"break_": "break_flag"},
                             i=0, break_=False, x=x)["i"]

    for step in [1, 3, 4, 20]:
        expected = 0
        while True:
            expected += 1
            if expected * step >= 10:
                break
        assert run(f, rt.constant(step)) == expected


# --- for -------------------------------------------------------------------------------------------

def for_program(iterable, body, names, extra_test=None, **initial):
    state = State(names, **initial)
    ag__.for_stmt(iterable, extra_test and (lambda: extra_test(state)), lambda item: body(state, item),
                  state.get_state, state.set_state, state.names)
    return state


def test_staged_for_over_tensor_rows():
    def f(m):
        return for_program(m, lambda s, row: s.update(acc=s["acc"] + row * row), ("acc",),
                           acc=rt.zeros((3,), rt.float32))["acc"]

    rows = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(run(f, rt.constant(rows)), (rows * rows).sum(axis=0))


@pytest.mark.parametrize("rows", [np.zeros((0, 2)), np.arange(6.0).reshape(3, 2)])
def test_staged_for_over_rows_of_unknown_count(rows):
    def f(m):
        return for_program(m, lambda s, row: s.update(total=s["total"] + rt.reduce_max(row)), ("total",),
                           total=0.0)["total"]

    assert run(f, rt.constant(rows, rt.float32), unknown_dims=True) == np.float32(rows.max(axis=1).sum())


def test_staged_for_loop_var_changing_a_dim_is_relaxed_but_not_its_rank():
    def f(m):
        return for_program(m, lambda s, row: s.update(acc=rt.concat([s["acc"], row], 0)), ("acc",),
                           acc=rt.zeros((2,), rt.float32))["acc"]

    rows = np.arange(6, dtype=np.float32).reshape(3, 2)
    interpreted, executed, graph = trace_and_run(f, rt.constant(rows))  # (2,) grows: relaxed to (None,)
    np.testing.assert_array_equal(interpreted[0], np.concatenate([np.zeros(2, np.float32), rows.ravel()]))
    np.testing.assert_array_equal(executed[0], interpreted[0])

    def to_matrix(m):
        return for_program(m, lambda s, row: s.update(acc=rt.reshape(s["acc"], [1, -1])), ("acc",),
                           acc=rt.zeros((2,), rt.float32))["acc"]

    with pytest.raises(rt.errors.StateError, match="'acc' starts with shape .* must keep its rank"):
        trace_and_run(to_matrix, rt.constant(rows))


@pytest.mark.parametrize("args", [(5,), (2, 9), (9, 2, -2), (3, 3), (0, 10, 3), (10, 0, 4)])
def test_staged_for_over_range_of_tensor_equals_python(args):
    def f(*bounds):
        r = py_builtins.range_(*bounds)
        s = for_program(r, lambda s, i: s.update(total=s["total"] * 2 + i, i=i), ("total", "i"),
                        total=0, i=-100)
        return s["total"], s["i"]

    expected = for_program(range(*args), lambda s, i: s.update(total=s["total"] * 2 + i, i=i), ("total", "i"),
                           total=0, i=-100)
    total, last = run(f, *[rt.constant(a) for a in args])
    assert (int(total), int(last)) == (expected["total"], expected["i"])


def test_staged_for_target_after_loop_holds_last_element():
    def f(n):
        s = for_program(py_builtins.range_(n), lambda s, i: s.update(i=i), ("i",), i=ag__.Undefined("i"))
        return s["i"]

    assert run(f, rt.constant(4)) == 3


def test_staged_for_with_break_flag_in_extra_test():
    def body(s, i):
        s.update(total=s["total"] + i)

        def set_break():
            s.update(break_=True)

        ag__.if_stmt(s["total"] > 10, set_break, lambda: None, s.get_state, s.set_state, s.names, len(s.names))

    def f(n):
        s = for_program(py_builtins.range_(n), body, ("total", "break_"), extra_test=lambda s: ag__.not_(s["break_"]),
                        total=0, break_=False)
        return s["total"]

    for n in [0, 3, 5, 6, 10]:
        total = 0
        for i in range(n):
            total += i
            if total > 10:
                break
        assert run(f, rt.constant(n)) == total


def test_staged_enumerate_and_zip():
    def f(a, b):
        def body(s, item):
            index, (x, y) = item
            s.update(total=s["total"] + index * x * y)

        return for_program(py_builtins.enumerate_(py_builtins.zip_(a, b), 1), body, ("total",), total=0)["total"]

    a, b = [1, 2, 3, 4], [5, 6, 7]
    assert run(f, rt.constant(a), rt.constant(b), unknown_dims=True) == sum(
        i * x * y for i, (x, y) in enumerate(zip(a, b), 1))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-5, 9), max_size=6), st.integers(-3, 20))
def test_for_with_break_and_return_graph_equals_python(values, limit):
    # Static length: the Python range loop is unrolled and each iteration after a tensor-dependent
    # return is guarded by an If.
    assert run(first_index_above_generated, rt.constant(values, rt.int32), rt.constant(limit)) == \
        first_index_above(values, limit)


def test_python_loop_with_tensor_dependent_break_guards_remaining_iterations():
    _, _, graph = trace_and_run(first_index_above_generated, rt.constant([1, 2, 3], rt.int32), rt.constant(2))
    assert op_types(graph).count("If") == 4  # one return-if per unrolled iteration + the final `return -1`
    assert "While" not in op_types(graph)


# --- builtins on symbolic tensors --------------------------------------------------------------------

def test_len_of_symbolic_tensor():
    def f(x):
        assert py_builtins.len_(x) == 4
        return x

    run(f, rt.constant([1, 2, 3, 4]))
    interpreted, executed, graph = trace_and_run(lambda x: py_builtins.len_(x), rt.constant([[1], [2], [3]]),
                                                 unknown_dims=True)  # unknown while tracing: a run-time tensor
    assert interpreted == executed == [3] and "Shape" in op_types(graph)
    with pytest.raises(TypeError, match="len\\(\\) of a scalar tensor"):
        trace_and_run(lambda x: py_builtins.len_(x), rt.constant(1))


def test_abs_int_float_of_symbolic_tensor():
    def f(x):
        return py_builtins.abs_(x), py_builtins.int_(x), py_builtins.float_(py_builtins.int_(x))

    a, i, fl = run(f, rt.constant(-2.7))
    assert (float(a), int(i), float(fl)) == (np.float32(2.7), -2, -2.0)
    assert i.dtype == np.int32 and fl.dtype == np.float32


def test_range_of_float_tensor_is_a_clear_error():
    with pytest.raises(TypeError, match="range\\(\\) of a tensor needs an integer dtype, got float32"):
        trace_and_run(lambda x: py_builtins.range_(x), rt.constant(2.0))


def test_staged_range_cannot_be_iterated_in_python():
    def f(n):
        return list(py_builtins.range_(n))

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="for loop in a converted function"):
        trace_and_run(f, rt.constant(3))


def test_eager_tensors_use_python_semantics():
    assert context.current_graph() is None
    seen = []
    ag__.for_stmt(rt.constant([[1, 2], [3, 4]]), None, lambda row: seen.append(row.numpy().tolist()),
                  tuple, lambda _: None, ())
    assert seen == [[1, 2], [3, 4]]
    assert ag__.if_exp(rt.constant(0), lambda: "a", lambda: "b") == "b"
    assert py_builtins.range_(rt.constant(3)) == range(3)
    assert ag__.not_(rt.constant(False)) is True
