"""Every op family inside rt.function (traced, optimized: constant folding, CSE, pruning; then compiled)
gives exactly the eager result — with tensor arguments, with Python constants only (so everything folds),
and under run_functions_eagerly."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from op_tracing import assert_same


def pipeline(x, i):
    """Uses (nearly) every public op once; x is a float32 matrix, i a scalar int32."""
    ints = rt.cast(x, rt.int32)
    shaped = rt.reshape(x, [-1, 2])
    pieces = [
        rt.add(x, 1.0), rt.subtract(1.0, x), rt.multiply(x, x), rt.divide(x, 4.0), rt.floordiv(ints, 3),
        rt.mod(ints, 3), rt.pow(x, 2.0), rt.negative(x), rt.abs(x), rt.sign(x), rt.exp(x / 10.0),
        rt.log(rt.abs(x) + 1.0), rt.sqrt(rt.abs(x)), rt.square(x), rt.maximum(x, 0.0), rt.minimum(x, 0.0),
        rt.matmul(x, rt.transpose(x)), rt.greater(x, 0.0), rt.greater_equal(x, 0.0), rt.less(x, 0.0),
        rt.less_equal(x, 0.0), rt.equal(x, 0.0), rt.not_equal(x, 0.0),
        rt.logical_and(x > 0.0, x < 3.0), rt.logical_or(x > 2.0, x < -1.0), rt.logical_not(x > 0.0),
        rt.reduce_sum(x, 0), rt.reduce_mean(ints, 1), rt.reduce_max(x), rt.reduce_min(x, [0, 1]),
        rt.reduce_prod(x, 1, keepdims=True), rt.reduce_any(x > 2.0, 1), rt.reduce_all(x > -9.0),
        rt.argmax(x, 1), rt.argmin(x, 0, output_type=rt.int32), rt.cumsum(x, 1, exclusive=True),
        shaped, rt.concat([x, x], 1), rt.stack([x, x], 2), rt.gather(x, [1, 0]), rt.where(x > 0.0),
        rt.where(x > 0.0, x, -x), rt.identity(x), rt.eye(3), rt.zeros([2, i]), rt.ones(rt.shape(x), rt.int32),
        rt.zeros_like(x), rt.ones_like(x), rt.fill([i], 2.5), rt.range(i), rt.range(1, 10, 3),
        rt.shape(x), rt.size(x), rt.rank(x), rt.tile(x, [1, i]), rt.expand_dims(x, 0), rt.squeeze(shaped[None]),
        x[i - 1], x[:, ::-1], x[..., None][1:, i], rt.random.stateless_uniform([2], seed=[3, 0]),
    ]
    rt.debugging.assert_greater(i, 0, message="i must be positive")
    return pieces


X = np.array([[1.5, -2.0, 0.0], [3.25, -0.5, 2.0]], np.float32)


def _compare(results, expected):
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert_same(np.asarray(got.numpy()), np.asarray(want.numpy()))


def test_pipeline_graph_equals_eager_with_tensor_arguments():
    traced = rt.function(pipeline)
    expected = pipeline(rt.constant(X), rt.constant(2))
    _compare(traced(rt.constant(X), rt.constant(2)), expected)
    _compare(traced(rt.constant(X), rt.constant(2)), expected)
    assert traced.experimental_get_tracing_count() == 1


def test_pipeline_graph_equals_eager_when_everything_is_constant():
    traced = rt.function(lambda: pipeline(rt.constant(X), rt.constant(2)))
    _compare(traced(), pipeline(rt.constant(X), rt.constant(2)))


def test_pipeline_with_unknown_dims_equals_eager():
    traced = rt.function(pipeline, input_signature=[rt.TensorSpec([None, None], rt.float32),
                                                    rt.TensorSpec([], rt.int32)])
    _compare(traced(rt.constant(X), rt.constant(1)), pipeline(rt.constant(X), rt.constant(1)))


def test_assert_in_a_function_fails_on_bad_data():
    traced = rt.function(pipeline)
    with pytest.raises(rt.errors.InvalidArgumentError, match="assertion failed: i must be positive"):
        traced(rt.constant(X), rt.constant(0))


def test_run_functions_eagerly_gives_the_same_results():
    traced = rt.function(pipeline)
    graph_results = traced(rt.constant(X), rt.constant(2))
    rt.run_functions_eagerly(True)
    try:
        _compare(traced(rt.constant(X), rt.constant(2)), graph_results)
    finally:
        rt.run_functions_eagerly(False)


def test_print_runs_on_every_call_of_a_function(capsys):
    @rt.function
    def report(x):
        rt.print("sum:", rt.reduce_sum(x))
        return x * 2

    report(rt.constant([1, 2]))
    report(rt.constant([3, 4]))
    assert capsys.readouterr().out == "sum: 3\nsum: 7\n"


_bound = st.one_of(st.none(), st.integers(-7, 7))


@settings(max_examples=80, deadline=None)
@given(start=_bound, stop=_bound, step=st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0)),
       index=st.integers(-3, 2))
def test_slicing_matches_numpy_eager_and_in_a_function(start, stop, step, index):
    cube = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    key = (index, slice(start, stop, step), Ellipsis, None)
    want = cube[key]
    assert_same(rt.constant(cube)[key].numpy(), want)
    traced = rt.function(lambda t, i: t[i, start:stop:step, ..., None])
    assert_same(traced(rt.constant(cube), rt.constant(index)).numpy(), want)


def test_ops_read_variables_eagerly_and_in_a_function():
    v = rt.Variable([1, 2, 3])

    @rt.function
    def pick(i):
        return v[i] * 2, rt.reduce_sum(v), rt.gather(v, [i])

    assert [t.numpy().tolist() for t in pick(rt.constant(1))] == [4, 6, [2]]
    v.assign([4, 5, 6])
    assert [t.numpy().tolist() for t in pick(rt.constant(2))] == [12, 15, [6]]
    assert (v[0].numpy(), rt.reduce_sum(v).numpy()) == (4, 15)
    assert pick.experimental_get_tracing_count() == 1
