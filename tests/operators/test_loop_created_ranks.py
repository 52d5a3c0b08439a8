"""Issue 23: a variable first assigned inside a tensor loop whose rank the body changes (`v = rt.ones(shape)` with a
shape of a length the loop changes) has an unknown rank in the graph loop, as in TensorFlow (it was a StateError:
"'v' starts with shape () but the body makes it <unknown rank>"). A variable from before the loop must still keep
its rank. Graph == eager, exact values, exact trace counts; rt.while_loop takes rt.TensorShape(None) as a shape
invariant of unknown rank, as tf.while_loop does."""
import numpy as np

import autograph_lite as ag
import runtime as rt
from user_errors import raises
from both_modes import eager


def growing_rank(n):
    for i in rt.range(n):
        v = rt.ones(rt.fill([i], 2))     # rank i: (), (2,), (2, 2), ...
    return rt.reduce_sum(v), rt.rank(v)


def test_a_loop_created_variable_whose_rank_changes_has_an_unknown_rank():
    staged = ag.function(growing_rank)
    for n, expected in [(1, (1.0, 0)), (3, (4.0, 2)), (4, (8.0, 3))]:
        assert [np.asarray(value).tolist() for value in staged(rt.constant(n))] == list(expected)
        assert [np.asarray(value).tolist() for value in eager(staged, rt.constant(n))] == list(expected)
    assert staged.experimental_get_tracing_count() == 1
    raises(rt.errors.InvalidArgumentError, staged, (rt.constant(0),),
           "'v' is read after a tensor-dependent loop that ran zero times", at="for i in rt.range(n):")


def zeros_of_range(n):
    total = rt.constant(0)
    for i in rt.range(n):
        v = rt.zeros(rt.range(i))        # the issue's example: shape (0, 1, ..., i - 1)
        total += rt.size(v) + rt.rank(v)
    return total


def test_the_issues_example_matches_eager():
    staged = ag.function(zeros_of_range)
    expected = 1 + (0 + 1 + 2 + 3)   # the size of the scalar at i = 0 (the others are empty), and the ranks
    assert staged(rt.constant(4)).numpy() == expected and eager(staged, rt.constant(4)).numpy() == expected
    assert staged.experimental_get_tracing_count() == 1


def known_rank_stays_known(n):
    for i in rt.range(n):
        v = rt.ones([2, 3]) * rt.cast(i, rt.float32)
    return v


def test_a_loop_created_variable_of_one_rank_keeps_its_static_shape():
    concrete = ag.function(known_rank_stays_known).get_concrete_function(rt.TensorSpec([], rt.int32))
    assert concrete.graph.outputs[0].shape == (2, 3)


def rank_of_a_variable_from_before_changes(n):
    v = rt.constant(0.0)
    for i in rt.range(n):
        v = rt.ones(rt.fill([i], 2))
    return v


def test_a_variable_from_before_the_loop_must_keep_its_rank():
    raises(rt.errors.StateError, ag.function(rank_of_a_variable_from_before_changes), (rt.constant(2),),
           "'v' starts with shape () but the body makes it <unknown rank>; a loop variable must keep its rank",
           at="for i in rt.range(n):")


def test_rt_while_loop_takes_an_invariant_of_unknown_rank():
    @rt.function
    def expand(n):
        return rt.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, rt.expand_dims(x, 0)),
                             (0, rt.constant(5.0)), shape_invariants=[None, rt.TensorShape(None)])[1]

    assert expand(rt.constant(3)).numpy().tolist() == [[[5.0]]]
    assert expand.get_concrete_function(rt.TensorSpec([], rt.int32)).graph.outputs[0].shape is None
