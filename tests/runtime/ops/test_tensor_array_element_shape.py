"""Issue 23: a TensorArray made without element_shape learns it from its writes, as TensorFlow's does, and
every version of the array shares it (write returns a new one): a write in a loop body or a branch gives the array
after the loop its element shape, so its stack, gather and read have a known rank there (they had an unknown one,
and an outer loop refused the stacked value as a loop variable). Where the rank stays unknown, the loop's error
names the TensorArray. Graph == eager, exact values, exact trace counts, exact messages."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from user_errors import line_of, raises
from both_modes import eager


def best_prefix(xs, n):
    best = rt.constant(0.0)
    for j in rt.range(n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)   # no element_shape
        for t in rt.range(rt.shape(xs)[0]):
            ta = ta.write(t, xs[t] + best)
        best = rt.reduce_max(ta.stack()) - ta.read(0)
    return best


def best_row(rows, n):
    best = rt.zeros([2])
    for j in rt.range(n):
        ta = rt.TensorArray(rt.float32, size=rt.shape(rows)[0])
        for t in rt.range(rt.shape(rows)[0]):
            ta = ta.write(t, rows[t] * rt.cast(j + 1, rt.float32))
        best = ta.gather([1])[0] + ta.stack()[0]
    return best


@pytest.mark.parametrize('function, args, expected', [
    (best_prefix, ([1.0, 4.0, 2.0], 3), 3.0),
    (best_row, ([[1.0, 2.0], [3.0, 4.0]], 2), [8.0, 12.0]),
])
def test_an_array_stacked_after_a_loop_is_a_loop_variable_of_an_outer_loop(function, args, expected):
    staged = ag.function(function)
    tensors = [rt.constant(value) for value in args]
    np.testing.assert_array_equal(staged(*tensors).numpy(), expected)
    np.testing.assert_array_equal(np.asarray(eager(staged, *tensors)), expected)
    assert staged.experimental_get_tracing_count() == 1


def shapes_after_a_loop(xs):
    ta = rt.TensorArray(rt.float32, size=rt.shape(xs)[0])
    for t in rt.range(rt.shape(xs)[0]):
        ta = ta.write(t, xs[t])
    return ta.element_shape, ta.stack().shape, ta.read(0).shape, ta.gather([0, 1]).shape


def test_the_first_write_in_a_loop_body_gives_the_array_after_the_loop_its_element_shape():
    seen = []

    @ag.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def record(xs):
        seen.append(shapes_after_a_loop(xs))
        return xs

    record.get_concrete_function()
    assert seen == [((3,), (None, 3), (3,), (2, 3))]


def both_branches_write(x, seen):
    ta = rt.TensorArray(rt.float32, size=1)
    if x > 0:
        ta = ta.write(0, rt.ones([2]) * x)
    else:
        ta = ta.write(0, rt.zeros([2]))
    seen.append(ta.element_shape)
    return ta.stack()


def test_a_write_in_a_branch_is_known_after_the_if():
    seen = []
    stacked = ag.function(both_branches_write)(rt.constant(2.0), seen)
    assert seen == [(2,)] and stacked.shape == (1, 2)
    np.testing.assert_array_equal(stacked.numpy(), [[2.0, 2.0]])


def test_rt_while_loop_arrays_share_the_learned_shape():
    @rt.function
    def squares(n):
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
        _, ta = rt.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, rt.stack([i, i * i]))),
                              (0, ta))
        return ta.stack()

    result = squares(rt.constant(3))
    np.testing.assert_array_equal(result.numpy(), [[0, 0], [1, 1], [2, 4]])
    assert squares.get_concrete_function(rt.TensorSpec([], rt.int32)).structured_outputs.shape == (None, 2)


def versions_disagree(x):
    ta = rt.TensorArray(rt.float32, size=2)
    first = ta.write(0, rt.zeros([2]))
    second = ta.write(1, rt.zeros([3]))
    return first.stack(), second.stack()


def test_versions_written_with_different_shapes_are_an_error_as_in_tensorflow():
    # every version of one array shares its element shape (TensorFlow raises the same ValueError)
    raises(ValueError, ag.function(versions_disagree), (rt.constant(1.0),),
           "cannot write a value of shape (3,): the array's elements have shape (2,)",
           at="second = ta.write(1, rt.zeros([3]))")


def unknown_rank_elements(xs, n):
    best = rt.constant(0.0)
    for j in rt.range(n):
        ta = rt.TensorArray(rt.float32, size=rt.shape(xs)[0], infer_shape=False, tensor_array_name="scores")
        for t in rt.range(rt.shape(xs)[0]):
            ta = ta.write(t, xs[t] + best)
        best = ta.stack()[0]
    return best


def test_an_array_whose_element_shape_stays_unknown_is_named_in_the_loops_error():
    message = raises(
        rt.errors.StateError, ag.function(unknown_rank_elements), (rt.constant([1.0, 2.0]), rt.constant(2)),
        "rt.while_loop: 'best' starts with shape () but the body makes it <unknown rank>",
        "It comes from the TensorArray 'scores' read or stacked at ",
        "whose element shape is unknown there: give the TensorArray an element_shape (rt.TensorArray(dtype, size, "
        "element_shape=...))", at="for j in rt.range(n):")
    stacked_at = line_of(unknown_rank_elements, "best = ta.stack()[0]")
    assert f"read or stacked at {__file__}:{stacked_at} (`best = ta.stack()[0]`)" in message


def late_first_write(n):
    x = rt.zeros([1])
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for i in rt.range(n):
        x = rt.concat([x, [1.0]], 0)      # grows: the loop relaxes x to (None,) and traces its body again
        if i == n - 1:
            ta = ta.write(0, x)
    return ta.stack()


def test_what_the_array_learns_holds_for_every_trace_of_the_loop_body():
    # The first trace of the body (x of shape (2,)) holds for the first iteration only; learning its write's
    # shape as a refinement claimed (None, 2) for a stacked (1, 4).
    staged = ag.function(late_first_write)
    assert staged.get_concrete_function(rt.TensorSpec([], rt.int32)).graph.outputs[0].shape == (None, None)
    np.testing.assert_array_equal(staged(rt.constant(3)).numpy(), [[0.0, 1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(eager(staged, rt.constant(3)).numpy(), [[0.0, 1.0, 1.0, 1.0]])
