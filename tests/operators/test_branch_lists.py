"""Python lists that the branches of a tensor-dependent if change in place: each branch gets its own copy;
the same number of elements keeps a Python list (merged element by element, written back into the
original object), different numbers make a tensor list. graph == eager == converted; errors name the list."""
import numpy as np
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from test_user_programs import plain, run_three_ways
from user_errors import raises


def appends_one_in_each_branch(x):
    xs = [x]
    alias = xs
    if x > 0:
        xs.append(x * 2)
    else:
        xs.append(x * 3)
    return rt.stack(xs), len(alias), alias[-1]


def test_the_same_number_of_appends_keeps_a_python_list_and_its_aliases():
    assert run_three_ways(appends_one_in_each_branch, rt.constant(2.0)) == ([2.0, 4.0], 2, 4.0)
    assert run_three_ways(appends_one_in_each_branch, rt.constant(-2.0)) == ([-2.0, -6.0], 2, -6.0)
    staged = ag.function(appends_one_in_each_branch)
    staged(rt.constant(1.0)), staged(rt.constant(-1.0))
    assert staged.experimental_get_tracing_count() == 1
    graph = staged.get_concrete_function(rt.TensorSpec([], rt.float32)).graph
    ops = [op.type for op in graph.operations]
    assert ops.count("If") == 1 and not any(op.startswith("TensorList") for op in ops)
    assert "xs = ag__.list_append(xs, x * 2)" in ag.to_code(appends_one_in_each_branch)


def appends_in_one_branch(x):
    xs = []
    if x > 0:
        xs.append(x * 2)
        xs.append(x)
    return rt.stack(xs), len(xs)


def test_different_numbers_of_appends_make_a_tensor_list():
    staged = ag.function(appends_in_one_branch)
    assert plain(staged(rt.constant(2.0))) == plain(appends_in_one_branch(rt.constant(2.0))) == ([4.0, 2.0], 2)
    assert plain(staged(rt.constant(-2.0))) == ([], 0)      # Python: rt.stack([]) has no dtype to stack
    graph = staged.get_concrete_function(rt.TensorSpec([], rt.float32)).graph
    ops = [op.type for op in graph.operations]
    assert ops.count("If") == 1 and "TensorListFromTensors" in ops and "TensorListStack" in ops
    assert staged.experimental_get_tracing_count() == 1


def test_item_assignment_in_a_branch_and_numbers_adopting_the_dtype():
    def replaces(x):
        xs = [1.0, 2.0]
        if x > 0:
            xs[0] = x
        return xs[0] + xs[1]

    assert run_three_ways(replaces, rt.constant(5.0)) == 7.0
    assert run_three_ways(replaces, rt.constant(-5.0)) == 3.0

    def grows_from_numbers(x):
        xs = [1]
        if x > 0:
            xs.append(x)
        return rt.stack(xs)

    assert plain(ag.function(grows_from_numbers)(rt.constant(2.0))) == [1.0, 2.0]
    assert plain(ag.function(grows_from_numbers)(rt.constant(-2.0))) == [1.0]


def test_nested_ifs_and_an_if_inside_a_tensor_loop():
    def nested(x):
        xs = []
        if x > 0:
            if x > 1:
                xs.append(x)
            else:
                xs.append(-x)
        else:
            xs.append(x * 0)
        return xs[0]

    assert [run_three_ways(nested, rt.constant(v)) for v in (2.0, 0.5, -1.0)] == [2.0, -0.5, -0.0]

    def signed_sum(n):
        total = 0.0
        for i in rt.range(n):
            parts = []
            if i % 2 == 0:
                parts.append(rt.cast(i, rt.float32))
            else:
                parts.append(-rt.cast(i, rt.float32))
            total += parts[0]
        return total

    assert run_three_ways(signed_sum, rt.constant(5)) == 2.0


def test_python_objects_that_both_branches_add_alike_pass_through():
    def labels(x):
        names = []
        if x > 0:
            names.append("step")
            y = 1
        else:
            names.append("step")
            y = 2
        return len(names) + y

    assert plain(ag.function(labels)(rt.constant(1.0))) == 2 and ag.to_graph(labels)(-1.0) == 3


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=3), st.integers(0, 2), st.integers(0, 2), st.booleans())
def test_graph_matches_python_on_random_appends(start, true_count, false_count, positive):
    def branchy(x):
        xs = [rt.constant(float(v)) for v in start]
        if x > 0:
            for k in range(true_count):
                xs.append(x + k)
        else:
            for k in range(false_count):
                xs.append(x - k)
        xs.append(rt.constant(100.0))
        return rt.stack(xs)

    x = rt.constant(1.5 if positive else -1.5)
    expected = [v for v in start] + ([1.5 + k for k in range(true_count)] if positive else
                                     [-1.5 - k for k in range(false_count)]) + [100.0]
    got = plain(ag.function(branchy)(x))
    assert got == expected
    assert got == plain(branchy(x))


def test_a_list_rebound_in_a_branch_is_merged_as_before():
    def rebinds(x):
        xs = [x]
        if x > 0:
            xs = xs + [x * 2]
        else:
            xs = [x, x, x]
        return len(xs)

    raises(rt.errors.StateError, ag.function(rebinds), (rt.constant(1.0),),
           "in the else branch but a list of (a tensor of dtype float32 and shape (), a tensor of dtype float32 and "
           "shape ()) in the if branch of a tensor-dependent if; both branches must leave it", at="if x > 0:")
    assert ag.to_graph(rebinds)(1.0) == 2


def test_errors_name_the_list():
    def strings_of_different_lengths(x):
        xs = ["a"]
        if x > 0:
            xs.append("b")
        return len(xs)

    raises(TypeError, ag.function(strings_of_different_lengths), (rt.constant(1.0),),
           "the branches of a tensor-dependent if leave the list 'xs' with different numbers of elements, so it "
           "becomes a tensor list, which holds tensors of one dtype", "Append the same number of elements in both "
           "branches")
    assert ag.to_graph(strings_of_different_lengths)(1.0) == 2

    def mixed_dtypes(x, n):
        xs = [x]
        if x > 0:
            xs.append(n)
        return rt.stack(xs)

    raises(rt.errors.StateError, ag.function(mixed_dtypes), (rt.constant(1.0), rt.constant(2)),
           "the branches of a tensor-dependent if leave the list 'xs' with different numbers of elements",
           "the list 'xs' holds float32 values but the new element is int32")

    def same_count_different_dtypes(x, n):
        xs = []
        if x > 0:
            xs.append(x)
        else:
            xs.append(n)
        return xs[0]

    raises(rt.errors.StateError, ag.function(same_count_different_dtypes), (rt.constant(1.0), rt.constant(2)),
           "rt.cond: 'xs' (element [0]) is float32 in the true branch but int32 in the false branch", at="if x > 0:")
    np.testing.assert_equal(plain(ag.to_graph(same_count_different_dtypes)(1.0, 2)), 1.0)
