"""Tensors made from shapes and values: fill, zeros, ones, zeros_like, ones_like, eye, range."""
import numpy as np
import pytest

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace


def test_fill_zeros_ones():
    assert_same(rt.fill([2, 2], 7).numpy(), np.full((2, 2), 7, np.int32))
    assert_same(rt.fill(rt.constant([3], rt.int64), 1.5).numpy(), np.full(3, 1.5, np.float32))
    assert_same(rt.zeros([1, 2]).numpy(), np.zeros((1, 2), np.float32))
    assert_same(rt.zeros(3, rt.int32).numpy(), np.zeros(3, np.int32))
    assert_same(rt.ones([2], rt.bool).numpy(), np.ones(2, bool))
    assert_same(rt.ones([]).numpy(), np.float32(1.0))
    assert_same(rt.zeros([2, 0]).numpy(), np.zeros((2, 0), np.float32))
    with pytest.raises(ValueError, match=r"Fill: value must be a scalar, got shape \(2,\)"):
        rt.fill([2], [1, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"Fill: dims must be non-negative, got \[-1\]"):
        rt.zeros([-1])


def test_fill_traced_shapes():
    graph, out = trace(lambda: rt.zeros([2, 3], rt.int32))
    assert (out.op.type, out.dtype, out.shape) == ("Fill", rt.int32, (2, 3))
    assert [op.name for op in graph.operations] == ["Fill/dims", "Fill/value", "Fill"]
    assert trace(lambda x: rt.ones(rt.shape(x)), (rt.float32, (None, 4)))[1].shape == (None, 4)
    assert trace(lambda n: rt.fill([n, 2], 0.0), (rt.int32, ()))[1].shape == (None, 2)
    assert trace(lambda d: rt.fill(d, 0.0), (rt.int32, (3,)))[1].shape == (None, None, None)
    assert trace(lambda d: rt.fill(d, 0.0), (rt.int32, (None,)))[1].shape is None
    assert_graph_matches_eager(lambda x: (rt.ones(rt.shape(x)), rt.zeros([2], rt.int64)), np.zeros((2, 3)),
                               unknown_dims=True)
    assert_graph_matches_eager(lambda n: rt.fill([n, 2], 1.5), np.int32(3))


def test_zeros_like_ones_like():
    m = np.array([[1.5, 2.0]], np.float64)
    assert_same(rt.zeros_like(m).numpy(), np.zeros_like(m))
    assert_same(rt.ones_like(m).numpy(), np.ones_like(m))
    assert_same(rt.ones_like([[1, 2]], dtype=rt.float32).numpy(), np.ones((1, 2), np.float32))
    _, out = trace(rt.zeros_like, (rt.int32, (None, 2)))
    assert (out.op.type, out.dtype, out.shape) == ("ZerosLike", rt.int32, (None, 2))
    assert_graph_matches_eager(lambda x: (rt.zeros_like(x), rt.ones_like(x, rt.int32)), m, unknown_dims=True)


def test_eye():
    assert_same(rt.eye(3).numpy(), np.eye(3, dtype=np.float32))
    assert_same(rt.eye(2, 3, dtype=rt.int32).numpy(), np.eye(2, 3, dtype=np.int32))
    assert_same(rt.eye(rt.constant(2), dtype=rt.int64).numpy(), np.eye(2, dtype=np.int64))
    _, out = trace(lambda: rt.eye(10, dtype=rt.int32))
    assert (out.op.type, out.dtype, out.shape) == ("Const", rt.int32, (10, 10))
    with pytest.raises(TypeError, match="eye: num_rows must be known while tracing"):
        trace(lambda n: rt.eye(n), (rt.int32, ()))
    with pytest.raises(ValueError, match="eye: num_rows must be a non-negative integer, got -1"):
        rt.eye(-1)


def test_range():
    assert_same(rt.range(5).numpy(), np.arange(5, dtype=np.int32))
    assert_same(rt.range(1, 7, 2).numpy(), np.array([1, 3, 5], np.int32))
    assert_same(rt.range(5, 0, -2).numpy(), np.array([5, 3, 1], np.int32))
    assert_same(rt.range(0, 1, 0.25).numpy(), np.array([0, 0.25, 0.5, 0.75], np.float32))
    assert_same(rt.range(3, dtype=rt.float64).numpy(), np.arange(3, dtype=np.float64))
    assert_same(rt.range(rt.constant(3, rt.int64)).numpy(), np.arange(3, dtype=np.int64))
    assert rt.range(3, 1).shape == (0,)  # empty, like Python's range
    with pytest.raises(rt.errors.InvalidArgumentError, match="Range: delta must not be 0"):
        rt.range(0, 5, 0)
    with pytest.raises(TypeError, match="without losing its fractional part"):
        rt.range(0, 2.5, dtype=rt.int32)
    with pytest.raises(TypeError, match="Range: limit has dtype int64 but the range is int32"):
        rt.range(0, rt.constant(3, rt.int64), dtype=rt.int32)


def test_range_traced():
    _, static = trace(lambda: rt.range(2, 10, 3))
    assert (static.op.type, static.dtype, static.shape) == ("Range", rt.int32, (3,))
    _, dynamic = trace(rt.range, (rt.int32, ()))
    assert dynamic.shape == (None,)
    _, known_by_shape = trace(lambda x: rt.range(rt.size(x)), (rt.float32, (4, 2)))
    assert known_by_shape.shape == (None,)  # Size is not a Const until constant folding
    with pytest.raises(ValueError, match="Range: delta must not be 0"):
        trace(lambda: rt.range(0, 3, 0))
    assert_graph_matches_eager(lambda n: rt.range(n), np.int32(4))
    assert_graph_matches_eager(lambda a, b: rt.range(a, b, 0.5), np.float32(1), np.float32(3))


def test_python_ranges_and_tensor_like_objects_convert():
    assert_same(rt.constant(range(2, 5)).numpy(), np.array([2, 3, 4], np.int32))
    assert_same(rt.constant(range(0)).numpy(), np.zeros((0,), np.int32))
    assert int(rt.reduce_sum(range(4))) == 6

    class Doubled:  # anything may say how it becomes a tensor
        def __init__(self, value):
            self.value = value

        def __rt_tensor__(self):
            return rt.constant(self.value) * 2

    assert_same(rt.add(Doubled([1, 2]), 1).numpy(), np.array([3, 5], np.int32))
    with pytest.raises(TypeError, match="cannot convert a object"):
        rt.add(object(), 1)


@pytest.mark.parametrize("value, dtype, text", [
    (0.1, rt.float32, "Tensor(0.1, shape=(), dtype=float32)"),
    (0.1, rt.float64, "Tensor(0.1, shape=(), dtype=float64)"),
    (1.0 / 3.0, rt.float32, "Tensor(0.33333334, shape=(), dtype=float32)"),
    (1e20, rt.float32, "Tensor(1e+20, shape=(), dtype=float32)"),
    (0.1, rt.float16, "Tensor(0.1, shape=(), dtype=float16)"),
    (True, rt.bool, "Tensor(True, shape=(), dtype=bool)"),
    (-3, rt.int64, "Tensor(-3, shape=(), dtype=int64)"),
    ([0.1, 0.2], rt.float32, "Tensor([0.1 0.2], shape=(2,), dtype=float32)"),
])
def test_a_tensor_prints_its_value_in_its_own_precision(value, dtype, text):
    # numpy prints a 0-d array through a Python float: float32 0.1 would show 0.10000000149011612.
    assert repr(rt.constant(value, dtype)) == text
    assert str(rt.function(lambda: rt.constant(value, dtype))()) == text


def test_a_scalar_variable_prints_its_value_in_its_own_precision():
    assert repr(rt.Variable(0.1)) == "<Variable 'Variable' shape=() dtype=float32, numpy=0.1>"
