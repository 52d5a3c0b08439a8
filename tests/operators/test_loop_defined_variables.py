"""TensorFlow's loop rules: variables a tensor loop assigns first (checked when the graph runs, after a loop
that ran zero times), reading one too early, ag.set_loop_options, and `del` in both branches of a tensor if.
Graph == eager == exact values; converted == original on Python values; errors with exact types, messages
and the user's line."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from user_errors import raises
from both_modes import eager


def check(function, args, expected):
    graph_result, eager_result = function(*args), eager(function, *args)
    want = expected if isinstance(expected, tuple) else (expected,)
    graph_values = graph_result if isinstance(graph_result, tuple) else (graph_result,)
    eager_values = eager_result if isinstance(eager_result, tuple) else (eager_result,)
    for graph_value, eager_value, expected_value in zip(graph_values, eager_values, want):
        assert isinstance(graph_value, rt.Tensor)
        np.testing.assert_array_equal(graph_value.numpy(), expected_value)
        np.testing.assert_array_equal(np.asarray(eager_value), expected_value)
    assert len(graph_values) == len(eager_values) == len(want)


def same_as_python(function, *args):
    try:
        expected = ('value', function(*args))
    except Exception as error:  # noqa: BLE001 - what the user observes
        expected = ('raised', type(error), str(error))
    try:
        actual = ('value', ag.to_graph(function)(*args))
    except Exception as error:  # noqa: BLE001
        actual = ('raised', type(error), str(error))
    assert actual == expected
    return actual


# --- variables first assigned inside a tensor loop ---------------------------------------------------

def loop_initializing_invariant_variable(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = 2
    return a


staged_invariant = ag.function(loop_initializing_invariant_variable)


def test_tensorflow_reference_loop_initializing_a_variable():
    check(staged_invariant, (rt.constant(2),), 2)
    check(staged_invariant, (rt.constant(1),), 1)
    assert staged_invariant.experimental_get_tracing_count() == 1
    raises(rt.errors.InvalidArgumentError, staged_invariant, (rt.constant(0),),
           "'a' is read after a tensor-dependent loop that ran zero times: the loop must iterate at least once to "
           "define 'a' (or initialize 'a' before the loop)", at="for i in range(n):")
    assert same_as_python(loop_initializing_invariant_variable, 2) == ('value', 2)
    same_as_python(loop_initializing_invariant_variable, 0)


def for_creates_var(values):
    for i in values:
        pass
    return i


staged_for_creates_var = ag.function(for_creates_var)


def test_loop_target_after_a_zero_trip_loop_is_a_run_time_error_not_a_zero():
    check(staged_for_creates_var, (rt.constant([1., 2.]),), 2.0)
    raises(rt.errors.InvalidArgumentError, staged_for_creates_var, (rt.constant([], rt.float32),),
           "'i' is read after a tensor-dependent loop that ran zero times", "to define 'i'", at="for i in values:")
    assert same_as_python(for_creates_var, []) == (
        'raised', UnboundLocalError, "cannot access local variable 'i' where it is not associated with a value")


@ag.function
def while_creates_var(n):
    i = 0
    while i < n:
        i = i + 1
        j = i * 2
    return i, j


@ag.function
def unused_after(n):
    for i in range(n):
        k = i * 2
    return n + 1


def test_only_a_read_of_the_value_checks_it():
    check(while_creates_var, (rt.constant(3),), (3, 6))
    raises(rt.errors.InvalidArgumentError, while_creates_var, (rt.constant(0),),
           "'j' is read after a tensor-dependent loop that ran zero times", at="while i < n:")
    assert unused_after(rt.constant(0)).numpy() == 1   # k and i are never read: no error


@ag.function
def structure_and_nesting(n):
    for i in range(n):
        pair = (i, i * 10)
        for j in range(n):
            inner = i + j
    return pair[0], pair[1], inner


def test_structures_and_nested_loops():
    check(structure_and_nesting, (rt.constant(3),), (2, 20, 4))
    with pytest.raises(rt.errors.InvalidArgumentError, match="'(pair|inner)' is read after a tensor-dependent loop that "
                                                             "ran zero times"):
        structure_and_nesting(rt.constant(0))


@ag.function
def read_before_assigned(n):
    for i in range(n):
        a = a + 1  # noqa: F821 - the point
    return a


@ag.function
def read_before_assigned_in_a_branch(n):
    for i in range(n):
        if i > 0:
            c = c * 2  # noqa: F821 - only later iterations read it, but both branches are traced
        else:
            c = 1
    return c


def read_on_later_iterations_then_assigned(n):
    for i in rt.range(n):
        if i > 0:
            c = c * 2  # noqa: F821 - Python never reads it unassigned: the first iteration skips this
        c = i + 1
    return c


def initialized_before_the_loop(n):
    c = 0
    for i in range(n):
        if i > 0:
            c = c * 2
        c = i + 1 + c
    return c


@ag.function
def assigned_a_string(n):
    for i in range(n):
        label = "seen"
    return label


def test_reading_before_the_loop_assigns_is_an_error_while_tracing():
    raises(rt.errors.StateError, read_before_assigned, (rt.constant(3),),
           "'a' is read inside a tensor-dependent loop before the loop assigns it: it must be defined before the "
           "loop", "Initialize 'a' before the loop", at="a = a + 1")
    raises(rt.errors.StateError, read_before_assigned_in_a_branch, (rt.constant(3),),
           "'c' is read inside a tensor-dependent loop before the loop assigns it",
           "'c' needs a value when the loop starts even if only later iterations read it",
           "Initialize 'c' before the loop", at="c = c * 2")
    raises(rt.errors.StateError, ag.function(read_on_later_iterations_then_assigned), (rt.constant(3),),
           "'c' is read inside a tensor-dependent loop before the loop assigns it", at="c = c * 2")
    # Initialized before the loop, as the message says, it traces and matches Python.
    assert initialized_before_the_loop(3) == 11
    assert ag.function(initialized_before_the_loop)(rt.constant(3)).numpy() == 11
    raises(rt.errors.StateError, assigned_a_string, (rt.constant(3),),
           "'label' is first assigned inside a tensor-dependent loop, to a Python str",
           "only tensors, numbers and structures of them can be loop variables", at="for i in range(n):")


def test_saved_and_loaded_keeps_the_run_time_check(tmp_path):
    staged_invariant(rt.constant(3))
    rt.save(staged_invariant, str(tmp_path / "saved"))
    loaded = rt.load(str(tmp_path / "saved"))
    assert loaded(rt.constant(5)).numpy() == 2
    with pytest.raises(rt.errors.InvalidArgumentError, match="'a' is read after a tensor-dependent loop that ran "
                                                             "zero times"):
        loaded(rt.constant(0))


# --- ag.set_loop_options -------------------------------------------------------------------------------

@ag.function
def grow_declared(n):
    x = rt.zeros([0])
    for i in range(n):
        ag.set_loop_options(shape_invariants=[(x, [None])], maximum_iterations=5)
        x = rt.concat([x, [1.0]], 0)
    return x


def test_set_loop_options_shape_invariants_and_maximum_iterations():
    check(grow_declared, (rt.constant(3),), [1., 1., 1.])
    np.testing.assert_array_equal(grow_declared(rt.constant(9)).numpy(), [1.] * 5)
    # As in TensorFlow, a loop that runs in Python (here: eagerly) ignores its options.
    np.testing.assert_array_equal(np.asarray(eager(grow_declared, rt.constant(9))), [1.] * 9)
    graph = grow_declared.get_concrete_function(rt.constant(3)).graph
    assert graph.outputs[0].shape == (None,)
    assert [op.type for op in graph.operations].count('While') == 1


@ag.function
def invariant_violated(n):
    x = rt.zeros([2])
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(x, [2])])
        x = rt.concat([x, [1.0]], 0)
        i += 1
    return x


@ag.function
def invariant_on_a_new_value(n):
    x = rt.zeros([2])
    i = 0
    while i < n:
        x = x + 1
        ag.set_loop_options(shape_invariants=[(x, [2])])
        i += 1
    return x


def test_set_loop_options_errors():
    raises(rt.errors.StateError, invariant_violated, (rt.constant(3),),
           "'x' has the shape invariant (2,) but the body makes its shape (3,)", "declare None for the dims that "
           "change", at="while i < n:")
    raises(ValueError, invariant_on_a_new_value, (rt.constant(3),),
           "in shape_invariants is not a variable of this tensor-dependent loop as the iteration starts",
           "call set_loop_options at the top of the loop body", at="ag.set_loop_options(")


def python_loop_with_options(n):
    total = 0
    for i in range(n):
        ag.set_loop_options(maximum_iterations=2)
        total += i
    return total


def test_set_loop_options_in_a_python_loop_does_nothing():
    assert same_as_python(python_loop_with_options, 5) == ('value', 10)
    assert ag.function(python_loop_with_options)(5).numpy() == 10


@ag.function
def python_loop_inside_a_tensor_loop(n):
    total = rt.constant(0)
    for i in range(n):
        for k in range(3):
            ag.set_loop_options(maximum_iterations=1)   # the Python loop's: no effect
            total += k
    return total


def test_set_loop_options_applies_to_the_loop_that_calls_it():
    check(python_loop_inside_a_tensor_loop, (rt.constant(2),), 6)


def options_under_a_tensor_if(n):
    i, total = 0, 0.0
    while i < n:
        if n > 3:
            ag.set_loop_options(maximum_iterations=2)
        total += 1.0
        i += 1
    return total


def test_set_loop_options_under_a_tensor_if_in_the_body_is_the_loops():
    # The if's retracing once took the loop's retrace signal for its own and retraced forever.
    staged = ag.function(options_under_a_tensor_if)
    assert staged(rt.constant(10)).numpy() == 2.0 and staged(rt.constant(1)).numpy() == 1.0
    assert staged.experimental_get_tracing_count() == 1


# --- del in both branches --------------------------------------------------------------------------------

def deleted_on_every_path(c):
    x = 1
    if c:
        del x
    else:
        del x
    return x


def deleted_on_one_path(c):
    x = 1
    if c:
        del x
    return x


def test_del_in_both_branches_then_read_is_pythons_error_at_the_users_line():
    raises(UnboundLocalError, ag.function(deleted_on_every_path), (rt.constant(True),),
           "cannot access local variable 'x' where it is not associated with a value", at="return x")
    assert same_as_python(deleted_on_every_path, True)[1] is UnboundLocalError
    raises(rt.errors.StateError, ag.function(deleted_on_one_path), (rt.constant(True),),
           "'x'", at="if c:")
    assert same_as_python(deleted_on_one_path, False) == ('value', 1)


def test_onnx_export_names_the_run_time_check_it_cannot_express(tmp_path):
    pytest.importorskip("onnx")
    from runtime.backends.onnx import ExportError

    concrete = staged_invariant.get_concrete_function(rt.TensorSpec([], rt.int32))
    with pytest.raises(ExportError, match="EnsureDefined"):
        rt.export.to_onnx(concrete, str(tmp_path / "model.onnx"))


def state_machine_on_a_string(n):
    state = 'idle'
    count = 0
    for i in range(n):
        match state:
            case 'idle':
                state = 'run'
            case 'run':
                count += 1
    return count


def test_a_python_value_a_tensor_loop_changes_is_named_with_both_values():
    # The message read "'state' is a Python str before a tensor-dependent loop but a Python str after an
    # iteration": the kinds alone, the same on both sides.
    assert state_machine_on_a_string(3) == 2
    raises(rt.errors.StateError, ag.function(state_machine_on_a_string), (rt.constant(3),),
           "'state' is a Python str that a tensor-dependent loop changes ('idle' before it, 'run' after an "
           "iteration); a graph loop carries only tensors, numbers and structures of them, so a Python value it "
           "changes would keep the value of one trace. Use a tensor instead (e.g. an int32 code for each state)",
           at="for i in range(n):")
