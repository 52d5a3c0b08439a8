"""Reductions, arg max/min and cumsum: exact values vs numpy, TensorFlow's dtype rules, inferred shapes."""
import numpy as np
import pytest

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

X = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
F = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)

REDUCTIONS = [(rt.reduce_sum, "Sum", np.sum), (rt.reduce_prod, "Prod", np.prod),
              (rt.reduce_max, "Max", np.max), (rt.reduce_min, "Min", np.min), (rt.reduce_mean, "Mean", np.mean)]


@pytest.mark.parametrize("fn, op_type, reference", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1], (1,)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_float_reductions_match_numpy(fn, op_type, reference, axis, keepdims):
    numpy_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    want = reference(F, axis=numpy_axis, keepdims=keepdims).astype(np.float32)
    got = fn(F, axis=axis, keepdims=keepdims).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.asarray(got).dtype == np.float32 and np.shape(got) == np.shape(want)


@pytest.mark.parametrize("fn, op_type, reference", REDUCTIONS[:4])
def test_integer_reductions_keep_the_dtype(fn, op_type, reference):
    result = fn(X, axis=0)
    assert result.dtype == rt.int32  # numpy's sum/prod would give int64
    assert_same(result.numpy(), reference(X, axis=0).astype(np.int32))


def test_integer_mean_truncates_toward_zero_like_tensorflow():
    assert rt.reduce_mean(rt.constant([1, 2, 2])).numpy() == 1  # 5 / 3
    assert rt.reduce_mean(rt.constant([-1, -2, -2])).numpy() == -1  # not floor (-2)
    assert_same(rt.reduce_mean(X, axis=1).numpy(), np.array([0, 1], np.int32))  # 2/3 → 0, 3/3 → 1
    assert rt.reduce_mean(rt.constant([7], rt.uint8)).dtype == rt.uint8


def test_seed_mean_squared_error():
    y_true = rt.constant([7, 2, 7, 5, 2])
    y_pred = rt.constant([9, 9, 0, 8, 8])
    # (4 + 49 + 49 + 9 + 36) / 5 = 29.4 → 29 in integer arithmetic
    assert rt.reduce_mean(rt.pow(y_true - y_pred, 2)).numpy() == 29


def test_reduce_any_all():
    b = np.array([[True, False], [True, True]])
    assert_same(rt.reduce_any(b, axis=1).numpy(), np.array([True, True]))
    assert_same(rt.reduce_all(b, axis=1).numpy(), np.array([False, True]))
    assert rt.reduce_all(b).numpy() == np.False_
    with pytest.raises(TypeError, match=r"All: input must be a bool tensor, got int32; compare it first"):
        rt.reduce_all([1, 0])
    with pytest.raises(TypeError, match=r"Sum: input must be a numeric \(not bool\) tensor, got bool"):
        rt.reduce_sum([True])


def test_reduction_axis_errors():
    with pytest.raises(ValueError, match=r"Sum: axis 2 is out of range for a tensor of rank 2 \(shape \(2, 3\)\)"):
        rt.reduce_sum(X, axis=2)
    with pytest.raises(TypeError, match="Sum: axis must be an int or a list of ints, got 'a'"):
        rt.reduce_sum(X, axis="a")


def test_reductions_traced_infer_shapes_with_unknown_dims():
    _, out = trace(lambda x: rt.reduce_sum(x, axis=1), (rt.float32, (None, 3, None)))
    assert (out.op.type, out.dtype, out.shape) == ("Sum", rt.float32, (None, None))
    _, kept = trace(lambda x: rt.reduce_max(x, axis=[0, -1], keepdims=True), (rt.int32, (None, 3, 4)))
    assert kept.shape == (1, 3, 1)
    _, everything = trace(rt.reduce_mean, (rt.float32, (None, 3)))
    assert everything.shape == ()
    _, unknown = trace(lambda x: rt.reduce_sum(x, 0), (rt.float32, None))
    assert unknown.shape is None
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        trace(lambda x: rt.reduce_sum(x, 3), (rt.float32, (None, 3)))


def test_reductions_traced_match_eager():
    for fn in [rt.reduce_sum, rt.reduce_prod, rt.reduce_max, rt.reduce_min, rt.reduce_mean]:
        for axis in [None, 0, [1]]:
            assert_graph_matches_eager(lambda x: fn(x, axis), X, unknown_dims=True)
            assert_graph_matches_eager(lambda x: fn(x, axis, keepdims=True), F, unknown_dims=True)
    b = np.array([[True, False], [True, True]])
    assert_graph_matches_eager(lambda x: (rt.reduce_any(x, 0), rt.reduce_all(x)), b, unknown_dims=True)


def test_argmax_argmin():
    m = np.array([[1, 9, 3], [5, 2, 9]], np.float32)
    assert_same(rt.argmax(m).numpy(), np.array([1, 0, 1], np.int64))  # axis 0 by default, int64
    assert_same(rt.argmin(m, axis=1).numpy(), np.array([0, 1], np.int64))
    assert_same(rt.argmax(m, axis=-1, output_type=rt.int32).numpy(), np.array([1, 2], np.int32))
    assert rt.argmax([3, 1, 3]).numpy() == 0  # the first one on ties
    _, out = trace(lambda x: rt.argmax(x, 1), (rt.float32, (None, 4, 5)))
    assert (out.op.type, out.dtype, out.shape) == ("ArgMax", rt.int64, (None, 5))
    assert_graph_matches_eager(lambda x: (rt.argmax(x, 1), rt.argmin(x)), m, unknown_dims=True)
    with pytest.raises(TypeError, match="ArgMax: output_type must be rt.int32 or rt.int64, got float32"):
        rt.argmax(m, output_type=rt.float32)
    with pytest.raises(ValueError, match="ArgMin: input must have at least one dimension"):
        rt.argmin(3)


def test_cumsum():
    v = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    assert_same(rt.cumsum(v).numpy(), np.cumsum(v, axis=0, dtype=np.int32))
    assert_same(rt.cumsum(v, axis=1).numpy(), np.array([[1, 3, 6], [4, 9, 15]], np.int32))
    assert_same(rt.cumsum(v, axis=1, exclusive=True).numpy(), np.array([[0, 1, 3], [0, 4, 9]], np.int32))
    assert_same(rt.cumsum(v, axis=1, reverse=True).numpy(), np.array([[6, 5, 3], [15, 11, 6]], np.int32))
    assert_same(rt.cumsum(v, axis=-1, exclusive=True, reverse=True).numpy(),
                np.array([[5, 3, 0], [11, 6, 0]], np.int32))
    _, out = trace(lambda x: rt.cumsum(x, 1), (rt.float32, (None, 3)))
    assert (out.op.type, out.shape) == ("Cumsum", (None, 3))
    assert_graph_matches_eager(lambda x: rt.cumsum(x, 1, exclusive=True, reverse=True), v, unknown_dims=True)


def test_axis_may_be_a_known_tensor_but_not_a_run_time_value():
    assert_same(rt.reduce_sum(X, axis=rt.constant(1)).numpy(), np.array([2, 3], np.int32))
    assert trace(lambda x: rt.reduce_sum(x, rt.constant(0)), (rt.int32, (None, 3)))[1].shape == (3,)
    with pytest.raises(TypeError, match="Sum: axis must be known while tracing"):
        trace(lambda x, a: rt.reduce_sum(x, a), (rt.int32, (2, 3)), (rt.int32, ()))
