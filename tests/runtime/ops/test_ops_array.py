"""Array ops: cast, identity, reshape, transpose, expand_dims, squeeze, tile, concat, stack, where,
and shapes as tensors (shape, size, rank)."""
import numpy as np
import pytest

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

M = np.arange(6, dtype=np.int32).reshape(2, 3)


def test_cast():
    assert_same(rt.cast([1.7, -1.7, 0.0], rt.int32).numpy(), np.array([1, -1, 0], np.int32))  # truncation
    assert_same(rt.cast([0.0, 2.5], rt.bool).numpy(), np.array([False, True]))
    assert_same(rt.cast(rt.constant([True]), "float64").numpy(), np.array([1.0]))
    _, out = trace(lambda x: rt.cast(x, rt.float32), (rt.int32, (None, 2)))
    assert (out.op.type, out.dtype, out.shape) == ("Cast", rt.float32, (None, 2))
    graph, same = trace(lambda x: rt.cast(x, rt.int32), (rt.int32, (3,)))
    assert same.op.type == "Cast"  # still an op; the optimizer removes it
    with pytest.raises(TypeError, match="dtype str is not supported; use one of bool"):
        rt.cast([1], "str")


def test_identity():
    assert_same(rt.identity([1, 2]).numpy(), np.array([1, 2], np.int32))
    _, out = trace(rt.identity, (rt.float32, (None,)))
    assert (out.op.type, out.shape) == ("Identity", (None,))


def test_reshape():
    assert_same(rt.reshape(M, [3, 2]).numpy(), M.reshape(3, 2))
    assert_same(rt.reshape(M, [-1]).numpy(), M.reshape(-1))
    assert_same(rt.reshape(M, rt.constant([1, -1])).numpy(), M.reshape(1, -1))
    assert rt.reshape(5, []).shape == ()
    with pytest.raises(rt.errors.InvalidArgumentError, match="Reshape: cannot reshape array of size 6"):
        rt.reshape(M, [4])


def test_reshape_traced_shapes():
    assert trace(lambda x: rt.reshape(x, [3, -1]), (rt.int32, (2, 3)))[1].shape == (3, 2)
    assert trace(lambda x: rt.reshape(x, [-1, 3]), (rt.int32, (None, 3)))[1].shape == (None, 3)
    assert trace(lambda x: rt.reshape(x, [-1]), (rt.int32, None))[1].shape == (None,)
    with pytest.raises(ValueError, match=r"Reshape \(Reshape\): cannot reshape a tensor with 6 elements to shape \[4\]"):
        trace(lambda x: rt.reshape(x, [4]), (rt.int32, (2, 3)))
    with pytest.raises(ValueError, match="more than one -1"):
        trace(lambda x: rt.reshape(x, [-1, -1]), (rt.int32, (2, 3)))
    # a shape computed in the graph: its static part is still known
    _, dynamic = trace(lambda x, y: rt.reshape(x, rt.shape(y)), (rt.int32, (6,)), (rt.float32, (None, 3)))
    assert dynamic.shape == (None, 3)
    _, stacked = trace(lambda x, n: rt.reshape(x, [n, 2]), (rt.int32, (6,)), (rt.int32, ()))
    assert stacked.shape == (None, 2)
    assert_graph_matches_eager(lambda x: rt.reshape(x, [3, -1]), M, unknown_dims=True)
    assert_graph_matches_eager(lambda x, y: rt.reshape(x, rt.shape(y)), np.arange(6), np.zeros((3, 2)),
                               unknown_dims=True)
    assert_graph_matches_eager(lambda x, n: rt.reshape(x, [n, -1]), np.arange(6), np.int32(2), unknown_dims=True)


def test_reshape_shape_argument_errors():
    with pytest.raises(TypeError, match="Reshape: shape must be an int32 or int64 tensor, got float32"):
        rt.reshape(M, rt.constant([2.0, 3.0]))
    with pytest.raises(TypeError, match="Reshape: shape must be a list of ints or a 1-D int tensor, got 'ab'"):
        rt.reshape(M, "ab")


def test_transpose():
    assert_same(rt.transpose(M).numpy(), M.T)
    cube = np.arange(24).reshape(2, 3, 4)
    assert_same(rt.transpose(cube, [1, 0, 2]).numpy(), cube.transpose(1, 0, 2))
    assert trace(rt.transpose, (rt.float32, (None, 3)))[1].shape == (3, None)
    assert trace(lambda x: rt.transpose(x, [2, 0, 1]), (rt.float32, (1, 2, None)))[1].shape == (None, 1, 2)
    with pytest.raises(ValueError, match=r"Transpose: perm \[0, 0\] is not a permutation of the 2 axes"):
        rt.transpose(M, [0, 0])
    assert_graph_matches_eager(lambda x: rt.transpose(x, [1, 0, 2]), cube, unknown_dims=True)


def test_expand_dims_and_squeeze():
    assert rt.expand_dims(M, 0).shape == (1, 2, 3)
    assert rt.expand_dims(M, -1).shape == (2, 3, 1)
    assert rt.squeeze(np.zeros((1, 2, 1))).shape == (2,)
    assert rt.squeeze(np.zeros((1, 2, 1)), axis=-1).shape == (1, 2)
    assert trace(lambda x: rt.expand_dims(x, 1), (rt.float32, (None, 3)))[1].shape == (None, 1, 3)
    assert trace(lambda x: rt.squeeze(x, [0]), (rt.float32, (1, None)))[1].shape == (None,)
    assert trace(rt.squeeze, (rt.float32, (1, None)))[1].shape is None  # the unknown dim might be 1
    assert trace(rt.squeeze, (rt.float32, (1, 3, 1)))[1].shape == (3,)
    with pytest.raises(ValueError, match=r"cannot squeeze axis 1 of shape \(1, 3\): its size is 3, not 1"):
        rt.squeeze(np.zeros((1, 3)), axis=1)
    with pytest.raises(ValueError, match="axis 3 is out of range for a tensor of rank 3"):
        rt.expand_dims(M, 3)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"Squeeze: cannot squeeze axis 0 of shape \(2,"):
        from op_tracing import run_traced
        run_traced(lambda x: rt.squeeze(x, 0), np.zeros((2, 1)), shapes=[(None, 1)])
    assert_graph_matches_eager(lambda x: (rt.expand_dims(x, 1), rt.squeeze(rt.expand_dims(x, 0))), M,
                               unknown_dims=True)


def test_tile():
    assert_same(rt.tile(M, [2, 1]).numpy(), np.tile(M, [2, 1]))
    assert trace(lambda x: rt.tile(x, [2, 3]), (rt.float32, (None, 3)))[1].shape == (None, 9)
    assert trace(lambda x, m: rt.tile(x, m), (rt.float32, (2, 3)), (rt.int32, (2,)))[1].shape == (None, None)
    with pytest.raises(ValueError, match="Tile: multiples has 1 entries but the input has rank 2"):
        trace(lambda x: rt.tile(x, [2]), (rt.float32, (None, 3)))
    assert_graph_matches_eager(lambda x: rt.tile(x, [1, 2]), M, unknown_dims=True)


def test_concat():
    assert_same(rt.concat([M, M], 0).numpy(), np.concatenate([M, M]))
    assert_same(rt.concat([M, [[9], [9]]], axis=-1).numpy(), np.concatenate([M, [[9], [9]]], axis=1).astype(np.int32))
    assert trace(lambda a, b: rt.concat([a, b], 0), (rt.float32, (2, 3)), (rt.float32, (None, 3)))[1].shape == (None, 3)
    assert trace(lambda a, b: rt.concat([a, b], 1), (rt.float32, (2, 3)), (rt.float32, (None, 4)))[1].shape == (2, 7)
    with pytest.raises(TypeError, match=r"ConcatV2: all values must have the same dtype, got int32 \(values\[0\]\) "
                                        r"and float32 \(values\[1\]\)"):
        rt.concat([rt.constant([1]), rt.constant([1.0])], 0)
    with pytest.raises(ValueError, match=r"dimension 1 differs between shapes \(2, 3\) and \(2, 4\)"):
        trace(lambda a, b: rt.concat([a, b], 0), (rt.float32, (2, 3)), (rt.float32, (2, 4)))
    with pytest.raises(TypeError, match="ConcatV2: values must be a non-empty list of tensors"):
        rt.concat([], 0)
    assert_graph_matches_eager(lambda a, b: rt.concat([a, b, a], 1), M, M + 10, unknown_dims=True)


def test_stack():
    assert_same(rt.stack([1, 2, 3]).numpy(), np.array([1, 2, 3], np.int32))
    assert_same(rt.stack([M, M], axis=1).numpy(), np.stack([M, M], axis=1))
    assert rt.stack([rt.constant(1.5), 2]).dtype == rt.float32  # Python values adopt the tensors' dtype
    assert trace(lambda a, b: rt.stack([a, b], -1), (rt.float32, (None, 3)), (rt.float32, (2, None)))[1].shape == (2, 3, 2)
    with pytest.raises(ValueError, match="all values must have the same shape"):
        trace(lambda a, b: rt.stack([a, b]), (rt.float32, (2,)), (rt.float32, (3,)))
    assert_graph_matches_eager(lambda a, b: rt.stack([a, b]), M, M, unknown_dims=True)


def test_where_select():
    cond = np.array([[True, False, True]])
    assert_same(rt.where(cond, M, 0).numpy(), np.where(cond, M, 0).astype(np.int32))
    assert rt.where([True, False], 1.5, rt.constant(0.0, rt.float64)).dtype == rt.float64
    _, out = trace(lambda c, x: rt.where(c, x, -x), (rt.bool, (None, 1)), (rt.float32, (3,)))
    assert (out.op.type, out.shape) == ("SelectV2", (None, 3))
    with pytest.raises(TypeError, match="where: condition must be a bool tensor, got int32"):
        rt.where([1, 0], 1, 2)
    with pytest.raises(ValueError, match="pass both x and y, or neither"):
        rt.where([True], 1)
    with pytest.raises(TypeError, match="SelectV2: x and y must have the same dtype, got int32 and float32"):
        rt.where([True], rt.constant(1), rt.constant(1.0))
    assert_graph_matches_eager(lambda c, x: rt.where(c, x, 0), cond, M, unknown_dims=True)


def test_where_coordinates():
    cond = np.array([[True, False], [False, True]])
    assert_same(rt.where(cond).numpy(), np.array([[0, 0], [1, 1]], np.int64))
    _, out = trace(rt.where, (rt.bool, (None, None, 2)))
    assert (out.op.type, out.dtype, out.shape) == ("Where", rt.int64, (None, 3))
    assert_graph_matches_eager(rt.where, cond, unknown_dims=True)


def test_shape_size_rank():
    assert_same(rt.shape(M).numpy(), np.array([2, 3], np.int32))
    assert_same(rt.shape(M, out_type=rt.int64).numpy(), np.array([2, 3], np.int64))
    assert_same(rt.size(M).numpy(), np.int32(6))
    assert_same(rt.rank(M).numpy(), np.int32(2))
    assert rt.shape(5).shape == (0,)
    graph, (s, n, r) = trace(lambda x: (rt.shape(x), rt.size(x), rt.rank(x)), (rt.float32, (None, 3)))
    assert [(t.op.type, t.dtype, t.shape) for t in (s, n, r)] == [
        ("Shape", rt.int32, (2,)), ("Size", rt.int32, ()), ("Rank", rt.int32, ())]
    assert trace(rt.shape, (rt.float32, None))[1].shape == (None,)
    assert_graph_matches_eager(lambda x: (rt.shape(x), rt.size(x), rt.rank(x)), M, unknown_dims=True)
    with pytest.raises(TypeError, match="out_type must be rt.int32 or rt.int64, got float32"):
        rt.shape(M, out_type=rt.float32)


def test_shape_of_a_fully_known_shape_is_a_known_constant():
    from runtime.ops.shape_ops import constant_value
    _, known = trace(rt.shape, (rt.float32, (4, 3)))
    assert_same(constant_value(known), np.array([4, 3], np.int32))
    _, partial = trace(rt.shape, (rt.float32, (None, 3)))
    assert constant_value(partial) is None


def test_lists_mixing_tensors_and_numbers_are_packed():
    assert_same(rt.convert_to_tensor([rt.constant(1), 2]).numpy(), np.array([1, 2], np.int32))
    assert_same(rt.convert_to_tensor([[rt.constant(1.5)], [2]]).numpy(), np.array([[1.5], [2.0]], np.float32))
    _, packed = trace(lambda i: rt.convert_to_tensor([i, 2, i]), (rt.int64, ()))
    assert (packed.op.type, packed.dtype, packed.shape) == ("Pack", rt.int64, (3,))
    assert_graph_matches_eager(lambda x, i: rt.gather(x, [i, 0]), np.array([5, 6, 7]), np.int32(2))
