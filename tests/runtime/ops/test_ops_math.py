"""Elementwise arithmetic, comparisons, unary math, logical ops and matmul: eager values, dtypes,
inferred shapes while tracing, dtype errors, Python-scalar adoption, TensorFlow's division rules."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

BINARY = [  # (public function, op type, numpy reference)
    (rt.add, "AddV2", np.add), (rt.subtract, "Sub", np.subtract), (rt.multiply, "Mul", np.multiply),
    (rt.maximum, "Maximum", np.maximum), (rt.minimum, "Minimum", np.minimum),
]
COMPARISONS = [
    (rt.greater, "Greater", np.greater), (rt.greater_equal, "GreaterEqual", np.greater_equal),
    (rt.less, "Less", np.less), (rt.less_equal, "LessEqual", np.less_equal),
    (rt.equal, "Equal", np.equal), (rt.not_equal, "NotEqual", np.not_equal),
]


@pytest.mark.parametrize("fn, op_type, reference", BINARY + COMPARISONS)
def test_binary_eager_matches_numpy(fn, op_type, reference):
    x = np.array([[1, -2, 3]], dtype=np.int32)
    y = np.array([[3], [-2]], dtype=np.int32)
    result = fn(rt.constant(x), rt.constant(y))
    assert_same(result.numpy(), reference(x, y))


@pytest.mark.parametrize("fn, op_type, reference", BINARY + COMPARISONS)
def test_binary_tracing_infers_broadcast_shape_with_unknown_dims(fn, op_type, reference):
    graph, out = trace(fn, (rt.float32, (None, 1)), (rt.float32, (3,)))
    assert out.op.type == op_type
    assert out.shape == (None, 3)
    assert out.dtype == (rt.bool if (fn, op_type, reference) in COMPARISONS else rt.float32)
    _, unknown_rank = trace(fn, (rt.float32, None), (rt.float32, (3,)))
    assert unknown_rank.shape is None


@pytest.mark.parametrize("fn, op_type, reference", BINARY + COMPARISONS)
def test_binary_dtype_mismatch_names_both_dtypes(fn, op_type, reference):
    with pytest.raises(TypeError, match=f"{op_type}: x and y must have the same dtype, got int32 and float32"):
        fn(rt.constant([1]), rt.constant([1.0]))


def test_incompatible_static_shapes_fail_while_tracing_and_at_run_time():
    with pytest.raises(ValueError, match=r"AddV2 \(AddV2\): shapes \(2,\) and \(3,\) are not broadcast-compatible"):
        trace(rt.add, (rt.float32, (2,)), (rt.float32, (3,)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="AddV2: operands could not be broadcast"):
        rt.add([1, 2], [1, 2, 3])


def test_python_scalar_adopts_the_tensor_dtype():
    assert rt.add(rt.constant([1.5], rt.float64), 2).dtype == rt.float64
    assert rt.multiply(3, rt.constant([2], rt.int64)).dtype == rt.int64
    assert (rt.constant([1, 2], rt.uint8) + 1).numpy().tolist() == [2, 3]
    assert rt.add(1, 2.5).dtype == rt.float32  # two Python values: the wider default
    with pytest.raises(TypeError, match="without losing its fractional part"):
        rt.add(rt.constant([1]), 2.5)


def test_arithmetic_refuses_bool_tensors():
    with pytest.raises(TypeError, match="AddV2: bool tensors are not supported; use rt.logical_and"):
        rt.add(rt.constant([True]), True)


def test_operators_on_tensors():
    x = rt.constant([4, -7])
    assert (x + 1).numpy().tolist() == [5, -6]
    assert (1 - x).numpy().tolist() == [-3, 8]
    assert (x * x).numpy().tolist() == [16, 49]
    assert (x // 2).numpy().tolist() == [2, -4]
    assert (x % 3).numpy().tolist() == [1, 2]
    assert (x ** 2).numpy().tolist() == [16, 49]
    assert (2 ** rt.constant([3])).numpy().tolist() == [8]
    assert (-x).numpy().tolist() == [-4, 7]
    assert abs(x).numpy().tolist() == [4, 7]
    assert (x / 2).numpy().tolist() == [2.0, -3.5]
    assert (x > 0).numpy().tolist() == [True, False]


def test_divide_of_ints_is_true_division_into_float64_like_tensorflow():
    result = rt.divide(rt.constant([1, 3]), 2)
    assert result.dtype == rt.float64
    assert result.numpy().tolist() == [0.5, 1.5]
    assert rt.divide(rt.constant([1], rt.int16), rt.constant([4], rt.int16)).dtype == rt.float32
    assert rt.divide(rt.constant([1.0], rt.float16), 2).dtype == rt.float16
    graph, out = trace(rt.divide, (rt.int32, (None,)), (rt.int32, ()))
    assert [op.type for op in graph.operations][-3:] == ["Cast", "Cast", "RealDiv"]
    assert (out.dtype, out.shape) == (rt.float64, (None,))


def test_float_division_by_zero_gives_inf_and_nan_without_warnings(recwarn):
    result = rt.divide([1.0, 0.0, -1.0], 0.0).numpy()
    assert result[0] == np.inf and np.isnan(result[1]) and result[2] == -np.inf
    assert rt.floordiv([1.0], 0.0).numpy()[0] == np.inf
    assert not recwarn.list


@pytest.mark.parametrize("fn, op_type", [(rt.floordiv, "FloorDiv"), (rt.mod, "FloorMod")])
def test_integer_division_by_zero_is_invalid_argument(fn, op_type):
    with pytest.raises(rt.errors.InvalidArgumentError, match=f"^{op_type}: Integer division by zero$"):
        fn(rt.constant([4, 5]), rt.constant([1, 0]))


def test_floordiv_and_mod_round_toward_negative_infinity():
    x, y = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    assert rt.floordiv(x, y).numpy().tolist() == [3, -4, -4, 3]
    assert rt.mod(x, y).numpy().tolist() == [1, 1, -1, -1]
    assert rt.mod([-7.5], 2.0).numpy().tolist() == [0.5]


def test_pow():
    assert_same(rt.pow(rt.constant([2, 3]), 3).numpy(), np.array([8, 27], np.int32))
    assert_same(rt.pow(rt.constant([4.0]), 0.5).numpy(), np.array([2.0], np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="^Pow: Integers to negative integer powers"):
        rt.pow(rt.constant([2]), -1)


UNARY = [  # (function, op type, numpy reference, input)
    (rt.negative, "Neg", np.negative, np.array([1, -2, 0], np.int32)),
    (rt.abs, "Abs", np.abs, np.array([1.5, -2.0], np.float32)),
    (rt.sign, "Sign", np.sign, np.array([-3, 0, 5], np.int64)),
    (rt.square, "Square", np.square, np.array([[-3, 4]], np.int32)),
    (rt.exp, "Exp", np.exp, np.array([0.0, 1.0], np.float64)),
    (rt.log, "Log", np.log, np.array([1.0, 10.0], np.float32)),
    (rt.sqrt, "Sqrt", np.sqrt, np.array([4.0, 2.0], np.float32)),
]


@pytest.mark.parametrize("fn, op_type, reference, value", UNARY)
def test_unary_eager_and_traced(fn, op_type, reference, value):
    assert_same(fn(value).numpy(), reference(value))
    _, out = trace(fn, (value.dtype, (None,) * value.ndim))
    assert (out.op.type, out.dtype, out.shape) == (op_type, value.dtype, (None,) * value.ndim)
    assert_graph_matches_eager(fn, value, unknown_dims=True)


def test_unary_ops_accept_python_scalars_and_lists():
    assert_same(rt.abs(-3).numpy(), np.int32(3))
    assert rt.abs(-3).dtype == rt.int32
    assert rt.negative([1.5]).dtype == rt.float32
    assert rt.square([[2]]).shape == (1, 1)


def test_float_only_functions_refuse_ints_with_a_fix():
    with pytest.raises(TypeError, match=r"Sqrt: x must be a floating-point tensor, got int32; convert it with "
                                        r"rt.cast\(x, rt.float32\)"):
        rt.sqrt(4)
    with pytest.raises(TypeError, match="Neg: x must be a numeric"):
        rt.negative(True)


def test_log_of_zero_and_sqrt_of_negative_are_quiet(recwarn):
    assert rt.log(0.0).numpy() == -np.inf
    assert np.isnan(rt.sqrt(-1.0).numpy())
    assert not recwarn.list


def test_logical_ops():
    a, b = np.array([True, True, False]), np.array([True, False, False])
    assert_same(rt.logical_and(a, b).numpy(), a & b)
    assert_same(rt.logical_or(a, b).numpy(), a | b)
    assert_same(rt.logical_not(a).numpy(), ~a)
    assert rt.logical_and(rt.constant([True, False]), True).numpy().tolist() == [True, False]
    _, out = trace(rt.logical_or, (rt.bool, (None, 1)), (rt.bool, (2,)))
    assert (out.op.type, out.shape) == ("LogicalOr", (None, 2))


def test_logical_ops_require_bool():
    with pytest.raises(TypeError, match=r"LogicalAnd: y must be a bool tensor, got int32; compare it first"):
        rt.logical_and(rt.constant([True]), rt.constant([1]))
    with pytest.raises(TypeError, match="LogicalNot: x must be a bool tensor, got float32"):
        rt.logical_not(1.0)


def test_matmul():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert_same(rt.matmul(a, b).numpy(), a @ b)
    _, out = trace(rt.matmul, (rt.float32, (None, 3)), (rt.float32, (3, None)))
    assert out.shape == (None, None)
    _, batched = trace(rt.matmul, (rt.float32, (5, 2, 3)), (rt.float32, (3, 4)))
    assert batched.shape == (5, 2, 4)
    with pytest.raises(ValueError, match=r"inner dimensions differ: \(2, 3\) @ \(2, 4\)"):
        trace(rt.matmul, (rt.float32, (2, 3)), (rt.float32, (2, 4)))
    with pytest.raises(TypeError, match="MatMul: a and b must have the same dtype, got int32 and float32"):
        rt.matmul(rt.constant([[1]]), rt.constant([[1.0]]))
    with pytest.raises(ValueError, match=r"MatMul: both arguments need rank >= 2"):
        rt.matmul([1.0], [[1.0]])


def test_binary_ops_traced_match_eager_with_unknown_dims():
    x = np.array([[1.5, -2.0, 3.0]], np.float32)
    y = np.array([[0.5], [4.0]], np.float32)
    for fn in [rt.add, rt.subtract, rt.multiply, rt.divide, rt.floordiv, rt.mod, rt.pow, rt.maximum,
               rt.minimum, rt.greater, rt.greater_equal, rt.less, rt.less_equal, rt.equal, rt.not_equal]:
        assert_graph_matches_eager(fn, x, y, unknown_dims=True)
    ints = np.array([7, -7, 9], np.int32), np.array([2, 3, 4], np.int32)
    for fn in [rt.divide, rt.floordiv, rt.mod, rt.pow]:
        assert_graph_matches_eager(fn, *ints, unknown_dims=True)
    assert_graph_matches_eager(rt.matmul, np.ones((2, 3), np.int32), np.ones((3, 2), np.int32), unknown_dims=True)


# --- property tests: broadcasting against numpy ----------------------------------------------------
_shapes = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4)
_PROPERTY_OPS = [(rt.add, np.add), (rt.subtract, np.subtract), (rt.multiply, np.multiply),
                 (rt.maximum, np.maximum), (rt.minimum, np.minimum), (rt.less, np.less), (rt.equal, np.equal)]


@settings(max_examples=60, deadline=None)
@given(shapes=_shapes, data=st.data(), which=st.sampled_from(range(len(_PROPERTY_OPS))))
def test_broadcasting_elementwise_ops_match_numpy(shapes, data, which):
    fn, reference = _PROPERTY_OPS[which]
    elements = st.integers(-1000, 1000)
    x = data.draw(hnp.arrays(np.int32, shapes.input_shapes[0], elements=elements))
    y = data.draw(hnp.arrays(np.int32, shapes.input_shapes[1], elements=elements))
    assert_same(np.asarray(fn(x, y)._value), reference(x, y))
    _, out = trace(fn, (rt.int32, x.shape), (rt.int32, y.shape))
    assert out.shape == shapes.result_shape


@settings(max_examples=40, deadline=None)
@given(shapes=_shapes, data=st.data())
def test_floor_division_matches_numpy_for_nonzero_divisors(shapes, data):
    x = data.draw(hnp.arrays(np.int64, shapes.input_shapes[0], elements=st.integers(-10**6, 10**6)))
    y = data.draw(hnp.arrays(np.int64, shapes.input_shapes[1],
                             elements=st.integers(-50, 50).filter(lambda v: v != 0)))
    assert_same(np.asarray(rt.floordiv(x, y)._value), np.floor_divide(x, y))
    assert_same(np.asarray(rt.mod(x, y)._value), np.mod(x, y))
