"""tensor[key] (one StridedSlice op) and gather: numpy-style subscripts, symbolic indices, run-time
range errors naming the op."""
import numpy as np
import pytest

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, run_traced, trace

CUBE = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
KEYS = [
    1, -1, (1, 2), (0, -1, -1), slice(None), slice(1, None), slice(None, None, -1), slice(-3, None, 2),
    (Ellipsis, 1), (Ellipsis, slice(None, 2)), (1, Ellipsis), (None,), (None, 1), (slice(None), None, 0),
    (0, slice(None), slice(3, 0, -2)), (Ellipsis, None), (), (slice(5, 10),), np.int64(1), (0, np.int32(-2)),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy(key):
    x = rt.constant(CUBE)
    want = CUBE[key]
    assert_same(np.asarray(x[key]._value), np.asarray(want))


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_traced_infers_shape_and_matches_eager(key):
    _, out = trace(lambda x: x[key], (rt.int32, CUBE.shape))
    assert out.op.type == "StridedSlice"
    assert out.shape == np.asarray(CUBE[key]).shape
    assert_graph_matches_eager(lambda x: x[key], CUBE, unknown_dims=True)


def test_getitem_with_unknown_dims_and_rank():
    _, out = trace(lambda x: x[0, 1:, ::2], (rt.float32, (None, None, 6)))
    assert out.shape == (None, 3)
    _, unknown_rank = trace(lambda x: x[0], (rt.float32, None))
    assert unknown_rank.shape is None


def test_getitem_result_is_a_copy():
    base = np.arange(4, dtype=np.int32)
    piece = rt.constant(base)[1:3]
    base[1] = 100
    assert piece.numpy().tolist() == [1, 2]


def test_scalar_int_tensors_as_indices():
    x = rt.constant(CUBE)
    assert_same(x[rt.constant(1)].numpy(), CUBE[1])
    assert_same(x[rt.constant(1, rt.int64), 1:rt.constant(3)].numpy(), CUBE[1, 1:3])


def test_symbolic_indices_become_extra_inputs():
    graph, out = trace(lambda x, i: x[i, i:, -i], (rt.int32, (None, 3, 4)), (rt.int32, ()))
    assert out.op.type == "StridedSlice"
    assert len(out.op.inputs) == 4  # the tensor, i, i, and -i
    assert out.op.attrs["key"] == (("index", ("input", 0)), ("slice", ("input", 1), None, None),
                                   ("index", ("input", 2)))
    assert out.shape == (None,)
    got = run_traced(lambda x, i: x[i, i:, -i], CUBE, np.int32(1), shapes=[(None, 3, 4), ()])
    assert_same(got[0], CUBE[1, 1:, -1])


def test_symbolic_counter_indexes_inside_a_while_loop():
    values = np.array([3.0, 1.5, 4.0], np.float32)

    def total(x):
        def body(i, acc):
            return i + 1, acc + x[i]
        return rt.while_loop(lambda i, acc: i < rt.size(x), body, (0, 0.0))[1]

    assert run_traced(total, values, shapes=[(None,)])[0] == np.float32(8.5)
    assert total(rt.constant(values)).numpy() == np.float32(8.5)


def test_out_of_range_index_is_an_error_at_run_time_naming_the_op():
    with pytest.raises(rt.errors.InvalidArgumentError, match="^StridedSlice: index 5 is out of bounds for axis 0 "
                                                           "with size 2$"):
        rt.constant(CUBE)[5]
    with pytest.raises(rt.errors.InvalidArgumentError, match="StridedSlice: index 3 is out of bounds"):
        run_traced(lambda x, i: x[i], CUBE, np.int32(3), shapes=[(None, 3, 4), ()])
    with pytest.raises(ValueError, match=r"StridedSlice \(StridedSlice\): index 2 is out of bounds for dimension "
                                         r"0 with size 2"):
        trace(lambda x: x[2], (rt.int32, (2, 3)))


def test_invalid_subscripts_say_what_is_allowed():
    x = rt.constant(CUBE)
    with pytest.raises(TypeError, match=r"invalid index \[0, 1\] of type list: valid subscripts are ints, slices.*"
                                        r"use rt.gather for a list of indices"):
        x[[0, 1]]
    with pytest.raises(TypeError, match="only scalar int32/int64 tensors can be used as indices, got dtype float32"):
        x[rt.constant(1.0)]
    with pytest.raises(TypeError, match="a bool .* cannot be used as an index"):
        x[True]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(ValueError, match=r"too many indices for a tensor of shape \(2, 3\): 3 indices for rank 2"):
        trace(lambda t: t[0, 0, 0], (rt.int32, (2, 3)))
    with pytest.raises(TypeError, match="only scalar int32/int64 tensors can be used as indices"):
        trace(lambda t, i: t[i], (rt.int32, (2, 3)), (rt.int32, (2,)))


def test_gather():
    params = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    assert_same(rt.gather(params, [2, 0]).numpy(), params[[2, 0]])
    assert_same(rt.gather(params, [[1], [0]], axis=1).numpy(), np.take(params, [[1], [0]], axis=1))
    assert_same(rt.gather(params, rt.constant(1, rt.int64)).numpy(), params[1])
    _, out = trace(lambda p, i: rt.gather(p, i, axis=1), (rt.float32, (None, 5, 6)), (rt.int32, (None, 2)))
    assert (out.op.type, out.dtype, out.shape) == ("GatherV2", rt.float32, (None, None, 2, 6))
    assert_graph_matches_eager(lambda p, i: rt.gather(p, i), params, np.array([0, 2, 2], np.int32),
                               unknown_dims=True)


def test_gather_out_of_range_is_invalid_argument_like_tensorflow():
    with pytest.raises(rt.errors.InvalidArgumentError) as error:
        rt.gather(rt.constant([0.0]), [1])
    assert str(error.value) == "GatherV2: indices[0] = 1 is not in [0, 1)"
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^GatherV2: indices\[1,0\] = -1 is not in \[0, 3\)$"):
        rt.gather([1, 2, 3], [[0], [-1]])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^GatherV2: indices = 7 is not in \[0, 3\)$"):
        rt.gather([1, 2, 3], 7)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"GatherV2: indices\[0\] = 1 is not in \[0, 1\)"):
        run_traced(lambda x: rt.gather(x, [1]), np.array([0.0], np.float32))


def test_gather_argument_errors():
    with pytest.raises(TypeError, match="GatherV2: indices must be int32 or int64, got float32"):
        rt.gather([1, 2], [0.0])
    with pytest.raises(ValueError, match=r"GatherV2: axis 1 is out of range for params of shape \(2,\)"):
        rt.gather([1, 2], [0], axis=1)


def test_unused_gather_is_not_run_in_a_graph():
    def unused_return(x):
        rt.gather(x, [1])
        return x

    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices\[0\] = 1 is not in \[0, 1\)"):
        unused_return(rt.constant([0.0]))
    assert_same(run_traced(unused_return, np.array([0.0], np.float32))[0], np.array([0.0], np.float32))


# --- gather(batch_dims=): row i of the batch gathers from row i of params only -------------------------------
def _batched_reference(params, indices, axis, batch_dims):
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_batched_reference(p, i, axis - 1, batch_dims - 1) for p, i in zip(params, indices)])


@pytest.mark.parametrize("params_shape, indices_shape, axis, batch_dims", [
    ((2, 3), (2, 2), 1, 1), ((2, 4, 3), (2, 5), 1, 1), ((2, 4, 3), (2, 5), 2, 1), ((2, 3, 4, 5), (2, 3, 2), 2, 2),
    ((2, 3, 4, 5), (2, 3, 2), 3, 2), ((2, 3, 4), (2, 3, 2, 2), 2, 2), ((2, 5, 4), (2,), 1, 1),
    ((2, 5, 4), (2, 3), -1, -1)])
def test_gather_with_batch_dims_matches_tensorflows_definition(params_shape, indices_shape, axis, batch_dims):
    rng = np.random.default_rng(7)
    params = rng.normal(size=params_shape).astype(np.float32)
    indices = rng.integers(0, params_shape[axis], size=indices_shape).astype(np.int32)
    expected = _batched_reference(params, indices, axis % len(params_shape),
                                  batch_dims + len(indices_shape) if batch_dims < 0 else batch_dims)
    np.testing.assert_array_equal(rt.gather(params, indices, axis=axis, batch_dims=batch_dims).numpy(), expected)
    traced = rt.function(lambda p, i: rt.gather(p, i, axis=axis, batch_dims=batch_dims))
    np.testing.assert_array_equal(traced(rt.constant(params), rt.constant(indices)).numpy(), expected)


def test_gather_with_batch_dims_refuses_an_index_past_its_rows_end():
    # flattened, index 3 of row 0 would be row 1's first value: an error, not a silent 4
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices\[0,0\] = \[0, 3\] does not index into"):
        rt.gather([[1, 2, 3], [4, 5, 6]], [[3], [0]], batch_dims=1)
    with pytest.raises(ValueError, match=r"axis 0 must be in \[batch_dims=1, 2\)"):
        rt.gather([[1, 2, 3]], [[0]], axis=0, batch_dims=1)


def test_gather_with_batch_dims_has_a_gradient():
    x = rt.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.gather(x, [[2, 2], [0, 1]], batch_dims=1))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0.0, 0.0, 2.0], [1.0, 1.0, 0.0]])


# --- reduce_variance, reduce_std, moments: composites with numpy's values and gradients ----------------------
def test_spread_statistics_match_numpy_and_have_gradients():
    data = np.array([[1.0, 2.0, 4.0], [3.0, 9.0, -1.0]])
    x = rt.constant(data)
    np.testing.assert_allclose(rt.math.reduce_variance(x, axis=1).numpy(), data.var(axis=1))
    np.testing.assert_allclose(rt.math.reduce_std(x, axis=0, keepdims=True).numpy(), data.std(axis=0, keepdims=True))
    mean, variance = rt.nn.moments(x, axes=[0, 1])
    assert (float(mean), float(variance)) == pytest.approx((data.mean(), data.var()))
    with rt.GradientTape() as tape:
        tape.watch(x)
        v = rt.math.reduce_variance(x)
    np.testing.assert_allclose(tape.gradient(v, x).numpy(), 2 * (data - data.mean()) / data.size)
    with pytest.raises(TypeError, match=r"reduce_std: input must be a floating-point tensor, got int32"):
        rt.math.reduce_std([1, 2])
