"""Every state error of staged control flow, end to end: exact type, the variable, the fix, the dtypes,
and the user's own file and line (the "in user code" note the api attaches)."""

import types

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from user_errors import line_of, raises


@ag.function
def defined_only_in_if(x):
    if x > 0:
        y = x * 2
    return y


@ag.function
def defined_only_in_else(x):
    if x > 0:
        pass
    else:
        y = -x
    return y


def test_variable_defined_only_in_if_branch():
    raises(rt.errors.StateError, defined_only_in_if, (rt.constant(1),),
           "'y' is defined only in the if branch of a tensor-dependent if", "initialize it before the if",
           at="if x > 0:")


def test_variable_defined_only_in_else_branch():
    raises(rt.errors.StateError, defined_only_in_else, (rt.constant(1),),
           "'y' is defined only in the else branch", "initialize it before the if", at="if x > 0:")


def test_same_code_on_python_values_behaves_like_python():
    assert ag.to_graph(defined_only_in_if.python_function)(3) == 6


def test_returning_an_undefined_variable_on_python_values_raises_like_python():
    with pytest.raises(UnboundLocalError):
        ag.to_graph(defined_only_in_if.python_function)(-3)


@ag.function
def local_to_branch(x):
    if x > 0:
        tmp = x * 2
        x = tmp + 1
    return x


def test_variable_used_only_inside_its_branch_is_fine():
    assert local_to_branch(rt.constant(2)).numpy() == 5
    assert local_to_branch(rt.constant(-2)).numpy() == -2


@ag.function
def branch_dtypes_differ(x):
    if x > 0:
        y = 1
    else:
        y = 2.5
    return y


def test_branches_disagree_on_dtype():
    raises(rt.errors.StateError, branch_dtypes_differ, (rt.constant(1),),
           "'y' has dtype float32 in the else branch but dtype int32 in the if branch", "rt.cast", at="if x > 0:")


@ag.function
def returns_differ(x):
    if x > 0:
        return 1
    else:
        return 2.5


def test_return_values_disagree_on_dtype():
    raises(rt.errors.StateError, returns_differ, (rt.constant(1),),
           "the return value has dtype float32 in the else branch but dtype int32 in the if branch")


@ag.function
def returns_on_one_path(x):
    if x > 0:
        return x


def test_return_in_one_branch_only():
    raises(rt.errors.StateError, returns_on_one_path, (rt.constant(1),),
           "a return inside a tensor-dependent if or loop must return a value on every path")


@ag.function
def returns_after_if(x):
    if x > 0:
        return x * 10
    return -x


def test_return_in_one_branch_completed_after_the_if_is_fine():
    assert returns_after_if(rt.constant(2)).numpy() == 20
    assert returns_after_if(rt.constant(-3)).numpy() == 3


@ag.function
def none_in_one_branch(x):
    y = None
    if x > 0:
        y = x
    return y


def test_none_in_one_branch():
    raises(rt.errors.StateError, none_in_one_branch, (rt.constant(1),),
           "'y' is None in the else branch but a tensor of dtype int32 and shape () in the if branch")


@ag.function
def loop_var_undefined_before(n):
    i = 0
    while i < n:
        last = i
        i += 1
    return last


def test_loop_variable_undefined_before_loop_fails_at_run_time_after_zero_iterations():
    assert loop_var_undefined_before(rt.constant(3)).numpy() == 2
    raises(rt.errors.InvalidArgumentError, loop_var_undefined_before, (rt.constant(0),),
           "'last' is read after a tensor-dependent loop that ran zero times: the loop must iterate at least once "
           "to define 'last' (or initialize 'last' before the loop)", at="while i < n:")
    assert loop_var_undefined_before.experimental_get_tracing_count() == 1


@ag.function
def loop_var_changes_dtype(n):
    x = 0
    i = 0
    while i < n:
        x = rt.cast(x, rt.float32) + 0.5
        i += 1
    return x


def test_loop_variable_changes_dtype():
    message = raises(rt.errors.StateError, loop_var_changes_dtype, (rt.constant(3),), "'x'", "int32", "float32",
                     at="while i < n:")
    assert "keep its dtype" in message


@ag.function
def loop_var_changes_shape(n):
    x = rt.zeros([1])
    i = 0
    while i < n:
        x = rt.concat([x, x], 0)
        i += 1
    return x


def test_loop_variable_changing_a_dim_is_relaxed_to_unknown():
    assert loop_var_changes_shape(rt.constant(3)).numpy().tolist() == [0.0] * 8
    assert loop_var_changes_shape(rt.constant(0)).numpy().tolist() == [0.0]
    assert loop_var_changes_shape.experimental_get_tracing_count() == 1
    graph = loop_var_changes_shape.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    assert [[t.shape for t in op.outputs] for op in graph.operations if op.type == "While"] == [[(), (None,)]]


@ag.function
def loop_var_changes_rank(n):
    x = rt.zeros([1])
    i = 0
    while i < n:
        x = rt.reshape(x, [1, -1])
        i += 1
    return x


def test_loop_variable_changing_rank_names_it_and_the_loop():
    raises(rt.errors.StateError, loop_var_changes_rank, (rt.constant(3),), "'x'", "shape (1,)", "(1, 1)",
           "must keep its rank", at="while i < n:")


@ag.function
def loop_var_changes_structure(n):
    pair = (0, 0)
    i = 0
    while i < n:
        pair = (i, i, i)
        i += 1
    return pair


def test_loop_variable_changes_structure():
    raises(rt.errors.StateError, loop_var_changes_structure, (rt.constant(3),), "'pair'", "structure")


@ag.function
def none_loop_var(n):
    found = None
    i = 0
    while i < n:
        found = i
        i += 1
    return found


def test_none_loop_variable_becomes_tensor():
    raises(rt.errors.StateError, none_loop_var, (rt.constant(3),),
           "'found' is None before a tensor-dependent loop but a tensor of dtype int32",
           "initialize it before the loop")


@ag.function
def ambiguous_condition(x):
    if x > 0:
        x = x + 1
    return x


def test_condition_with_many_elements():
    raises(ValueError, ambiguous_condition, (rt.constant([1, 2]),), "ambiguous", "rt.reduce_any",
           at="if x > 0:")


@ag.do_not_convert
def unconverted_relu(x):
    if x > 0:
        return x
    return 0


@ag.function
def calls_unconverted(x):
    return unconverted_relu(x)


def test_symbolic_tensor_in_unconverted_python_control_flow():
    raises(rt.errors.OperatorNotAllowedInGraphError, calls_unconverted, (rt.constant(1),), "Python bool")


@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def length_of_unknown(x):
    return len(x)


def test_len_of_unknown_dimension_is_not_an_error_but_a_run_time_length():
    assert int(length_of_unknown(rt.constant([1.0]))) == 1
    assert int(length_of_unknown(rt.constant([1.0, 2.0, 3.0]))) == 3
    assert length_of_unknown.experimental_get_tracing_count() == 1


@ag.function
def length_of_scalar(x):
    return len(x)


def test_len_of_a_scalar_tensor():
    raises(TypeError, length_of_scalar, (rt.constant(1.0),), "len() of a scalar tensor", at="return len(x)")


def test_supported_constructs_never_use_a_symbolic_tensor_as_python_bool():
    from test_staged_control_flow import collatz_steps, count_matches, sum_of_odds_below

    for function, args in [(collatz_steps, (rt.constant(7),)), (sum_of_odds_below, (rt.constant(5),)),
                           (count_matches, (rt.constant([1, 2]), rt.constant(2)))]:
        result = function(*args)
        assert isinstance(result, rt.Tensor) and np.asarray(result).shape == ()


@ag.function
def returns_only_inside_loop(values):
    for v in values:
        if v > 0:
            return v


def test_return_inside_loop_without_return_after_it():
    raises(rt.errors.StateError, returns_only_inside_loop, (rt.constant([1, 2]),),
           "must return a value on every path", "Add a return")


@ag.function
def return_dtype_changes_in_loop(values):
    for v in values:
        if v > 0:
            return v
    return 0.5


def test_return_inside_loop_and_after_it_with_other_dtype():
    raises(rt.errors.StateError, return_dtype_changes_in_loop, (rt.constant([1, 2]),),
           "the return value has dtype", "float32", "int32")


@ag.function
def defined_where_not_returned(x):
    if x > 0:
        y = x * 2
    else:
        return -5
    return y + 1


@ag.function
def returned_in_if_defined_in_else(x):
    if x < 0:
        return -5
    else:
        y = x * 2
    return y + 1


@pytest.mark.parametrize("x, expected", [(3, 7), (-3, -5), (0, 1)])
def test_variable_undefined_only_on_a_path_that_returned_is_fine(x, expected):
    assert defined_where_not_returned(rt.constant(x)).numpy() == (7 if x > 0 else -5)
    assert returned_in_if_defined_in_else(rt.constant(x)).numpy() == expected


@ag.function
def countdown_in_the_test(n):
    steps = 0
    while (n := n - 1) > 0:
        steps += 1
    return steps


def test_a_walrus_in_a_while_test_runs_on_python_values_and_in_a_graph():
    # (A graph loop whose test assigns runs it before the loop and at the end of each iteration.)
    original = countdown_in_the_test.python_function
    assert [ag.to_graph(original)(n) for n in (5, 1, 0)] == [original(n) for n in (5, 1, 0)] == [4, 0, 0]
    assert [int(countdown_in_the_test(rt.constant(n))) for n in (5, 1, 0)] == [4, 0, 0]


@ag.function
def rows_as_python_list(x):
    return list(x)


def test_list_of_a_tensor_says_to_use_a_for_statement_or_a_comprehension():
    raises(rt.errors.OperatorNotAllowedInGraphError, rows_as_python_list, (rt.constant([1, 2]),),
           "Iterating over a symbolic tensor", "Iterate with a `for` statement or a comprehension",
           "list(...), tuple(...) and other consumers of iterators are not converted", at="return list(x)")


@ag.function
def appends_in_a_tensor_loop(n):
    out = []
    for i in rt.range(n):
        out.append(i * 2)
    return out


@ag.function
def remembers_in_a_branch(x):
    keeper = types.SimpleNamespace(seen=[])
    if x > 0:
        keeper.seen.extend([x + 1])  # not a local name: stays a Python list, and the tensor escapes the branch
    else:                            # (append is a StateError before that: test_shared_containers.py)
        keeper.seen.extend([x - 1])
    return keeper.seen[0]


def test_a_list_a_tensor_loop_appends_to_is_a_tensor_list_that_must_be_stacked_to_return():
    raises(TypeError, appends_in_a_tensor_loop, (rt.constant(3),), "appends_in_a_tensor_loop() returns a tensor list",
           "return rt.stack(the_list) or rt.concat(the_list, 0) instead")
    assert ag.to_graph(appends_in_a_tensor_loop.python_function)(3) == [0, 2, 4]  # fine on Python values


def keeps_in_an_attribute(n):
    keeper = types.SimpleNamespace(out=[])
    for i in rt.range(n):
        keeper.out.extend([i * 2])  # not a local name: stays a Python list, and the tensor escapes the loop
    return keeper.out[0]


def test_a_tensor_escaping_a_loop_body_in_a_list_names_the_line_that_made_it():
    message = raises(rt.errors.InaccessibleTensorError, ag.function(keeps_in_an_attribute), (rt.constant(3),),
                     "was made inside while_body", "escaped it (e.g. appended to a Python list",
                     "assign the value to a variable that exists before the loop", "grow a tensor with rt.concat",
                     "the tensor was made in user code:")
    assert f'File "{__file__}", line {line_of(keeps_in_an_attribute, "keeper.out.extend([i * 2])")}' in message


def test_a_tensor_escaping_a_branch_in_a_list_names_the_line_that_made_it():
    message = raises(rt.errors.InaccessibleTensorError, remembers_in_a_branch, (rt.constant(3),),
                     "was made inside", "a branch of a tensor-dependent if")
    assert f'line {line_of(remembers_in_a_branch, "keeper.seen.extend([x + 1])")}' in message


def test_a_tensor_from_another_functions_graph():
    leaked = []
    keep = rt.function(lambda x: leaked.append(x * 2) or x)
    keep(rt.constant(1))
    use = rt.function(lambda y: y + leaked[0])
    with pytest.raises(rt.errors.InaccessibleTensorError, match=r"belongs to another graph .* Pass it as an "
                                                                 r"argument"):
        use(rt.constant(1))
