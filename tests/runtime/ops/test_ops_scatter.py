"""gather_nd, tensor_scatter_nd_update/add and scatter_nd: TensorFlow's semantics, checked against a plain
numpy loop for random shapes, eagerly and traced (interpreter and compiled executor)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, run_traced, trace


@st.composite
def _indexed(draw, duplicates=True):
    """(tensor, indices [n, K], updates) with every index in range."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    depth = draw(st.integers(1, len(shape)))
    count = draw(st.integers(0, 5))
    rows = [[draw(st.integers(0, shape[k] - 1)) for k in range(depth)] for _ in range(count)]
    if not duplicates:
        rows = [list(r) for r in dict.fromkeys(map(tuple, rows))]
    indices = np.array(rows, np.int32).reshape(len(rows), depth)
    tensor = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    updates = (np.arange(len(rows) * int(np.prod(shape[depth:])), dtype=np.int32) + 100).reshape(
        (len(rows),) + shape[depth:])
    return tensor, indices, updates


def _reference(tensor, indices, updates, add):
    result = tensor.copy()
    for row, update in zip(indices, updates):
        if add:
            result[tuple(row)] += update
        else:
            result[tuple(row)] = update
    return result


@settings(max_examples=60, deadline=None)
@given(_indexed())
def test_gather_nd_matches_numpy(case):
    tensor, indices, _ = case
    expected = np.array([tensor[tuple(row)] for row in indices]).reshape(
        indices.shape[:-1] + tensor.shape[indices.shape[-1]:]).astype(np.int32)
    assert_same(rt.gather_nd(tensor, indices).numpy(), expected)
    assert_same(run_traced(rt.gather_nd, tensor, indices)[0], expected)


@settings(max_examples=60, deadline=None)
@given(_indexed(duplicates=False), st.booleans())
def test_tensor_scatter_nd_matches_numpy(case, add):
    tensor, indices, updates = case
    op = rt.tensor_scatter_nd_add if add else rt.tensor_scatter_nd_update
    expected = _reference(tensor, indices, updates, add)
    assert_same(op(tensor, indices, updates).numpy(), expected)
    assert_same(run_traced(op, tensor, indices, updates)[0], expected)
    assert_same(tensor, np.arange(tensor.size, dtype=np.int32).reshape(tensor.shape))  # input untouched


@settings(max_examples=40, deadline=None)
@given(_indexed())
def test_scatter_add_and_scatter_nd_sum_repeated_indices(case):
    tensor, indices, updates = case
    assert_same(rt.tensor_scatter_nd_add(tensor, indices, updates).numpy(), _reference(tensor, indices, updates, True))
    zeros = np.zeros_like(tensor)
    assert_same(rt.scatter_nd(indices, updates, tensor.shape).numpy(), _reference(zeros, indices, updates, True))


def test_examples_and_static_shapes():
    assert_same(rt.tensor_scatter_nd_update([1, 1, 1], [[0], [0]], [5, 6]).numpy(), np.array([6, 1, 1], np.int32))
    assert_same(rt.scatter_nd([[1], [1]], [2.5, 1.0], [3]).numpy(), np.array([0, 3.5, 0], np.float32))
    _, out = trace(rt.gather_nd, (rt.float32, (None, 4, 5)), (rt.int32, (7, 2)))
    assert (out.op.type, out.shape, out.dtype) == ("GatherNd", (7, 5), rt.float32)
    _, out = trace(rt.tensor_scatter_nd_update, (rt.float32, (None, 4)), (rt.int32, (None, 1)),
                   (rt.float32, (None, 4)))
    assert (out.op.type, out.shape) == ("TensorScatterUpdate", (None, 4))
    assert_graph_matches_eager(lambda x, i: rt.tensor_scatter_nd_add(x, i, x[:2]), np.ones((3, 2), np.float32),
                               np.array([[2], [2]], np.int32), unknown_dims=True)


def test_out_of_range_indices_are_invalid_argument_at_run_time():
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"GatherNd: indices\[1\] = \[0, 3\] does not index "
                                                             r"into shape \[2, 3\]"):
        rt.gather_nd(np.zeros((2, 3)), [[0, 0], [0, 3]])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"TensorScatterUpdate: indices\[0\] = \[-1\] does not "
                                                             r"index into shape \[2\]"):
        rt.tensor_scatter_nd_update([1, 2], [[-1]], [3])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"TensorScatterAdd: indices\[0\] = \[5\]"):
        run_traced(rt.tensor_scatter_nd_add, np.zeros(2, np.int32), np.array([[5]], np.int32),
                   np.array([1], np.int32))


def test_bad_arguments_are_named_while_tracing():
    with pytest.raises(TypeError, match="GatherNd: indices must be int32 or int64, got float32"):
        rt.gather_nd([1, 2], [[0.0]])
    with pytest.raises(ValueError, match=r"index rows of length 3 cannot index a tensor of rank 2"):
        trace(rt.gather_nd, (rt.float32, (2, 2)), (rt.int32, (1, 3)))
    with pytest.raises(ValueError, match=r"updates must have shape indices.shape\[:-1\] \+ tensor.shape\[1:\] = "
                                         r"\(2, 4\), got \(2, 3\)"):
        trace(rt.tensor_scatter_nd_update, (rt.float32, (5, 4)), (rt.int32, (2, 1)), (rt.float32, (2, 3)))
    with pytest.raises(TypeError, match="expected a float32 tensor, got int32 tensor"):
        trace(rt.tensor_scatter_nd_update, (rt.float32, (5,)), (rt.int32, (2, 1)), (rt.int32, (2,)))
    with pytest.raises(ValueError, match=r"indices must have at least one dimension"):
        rt.gather_nd([1, 2], 0)


def test_update_by_key_is_a_functional_item_assignment():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for key, value in [((1, 2), 7.0), (-1, [1, 2, 3, 4]), ((slice(1, 3), 0), 0.0), ((Ellipsis, 1), -1.0),
                       (slice(None, None, 2), 5.0)]:
        expected = x.copy()
        expected[key] = value
        assert_same(rt.update_by_key(x, key, value).numpy(), expected)
    assert_same(x, np.arange(12, dtype=np.float32).reshape(3, 4))
    expected = x.copy()
    expected[2, 1:] = 9
    assert_same(run_traced(lambda t, i: rt.update_by_key(t, (i, slice(1, None)), 9.0), x, np.int32(2))[0], expected)
    _, out = trace(lambda t: rt.update_by_key(t, 0, 1.0), (rt.float32, (None, 4)))
    assert (out.op.type, out.shape) == ("TensorStridedSliceUpdate", (None, 4))


def test_update_by_key_errors():
    with pytest.raises(rt.errors.InvalidArgumentError, match="TensorStridedSliceUpdate: index 5 is out of bounds"):
        rt.update_by_key(np.zeros(3), 5, 1.0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="TensorStridedSliceUpdate: index 7 is out of bounds"):
        run_traced(lambda t, i: rt.update_by_key(t, i, 1.0), np.zeros(3, np.float32), np.int32(7))
    with pytest.raises(ValueError, match=r"cannot assign a value of shape \(2,\) to a part of shape \(4,\)"):
        trace(lambda t: rt.update_by_key(t, 0, rt.constant([1.0, 2.0])), (rt.float32, (3, 4)))
    with pytest.raises(TypeError, match="expected a float32 tensor, got int32"):
        rt.update_by_key(np.zeros(3, np.float32), 0, rt.constant(1))
    with pytest.raises(IndexError, match="cannot assign to a new axis"):
        rt.update_by_key(np.zeros(3), (None, 0), 1.0)
