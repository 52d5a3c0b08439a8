"""Every registered gradient rule against central finite differences, on random shapes (float64)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.core.registry import NotDifferentiable, registered_ops
from gradient_checks import assert_close, graph_gradients, numeric_gradients

SETTINGS = settings(max_examples=8, deadline=None)


@st.composite
def shapes(draw, min_rank=0, max_rank=3):
    return tuple(draw(st.lists(st.integers(1, 4), min_size=min_rank, max_size=max_rank)))


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast: the second drops leading dims and sets some dims to 1 (maybe swapped)."""
    full = draw(shapes())
    keep = draw(st.integers(0, len(full)))
    other = tuple(1 if draw(st.booleans()) else d for d in full[len(full) - keep:])
    return (other, full) if draw(st.booleans()) else (full, other)


def arrays_for(draw, shape_list, low=-2.0, high=2.0):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, high, size=s) for s in shape_list], rng


def check(fn, arrays, rng, dynamic=False):
    out = np.asarray(fn(*[rt.constant(a) for a in arrays]))
    cotangent = rng.standard_normal(out.shape)
    expected = numeric_gradients(fn, arrays, cotangent)
    assert_close(graph_gradients(fn, arrays, cotangent, dynamic=dynamic), expected)


# --- elementwise binary ops (broadcasting, also with unknown dims) ------------------------------------
BINARY = {
    "AddV2": (rt.add, (-2, 2), (-2, 2)),
    "Sub": (rt.subtract, (-2, 2), (-2, 2)),
    "Mul": (rt.multiply, (-2, 2), (-2, 2)),
    "RealDiv": (rt.divide, (-2, 2), (0.5, 2)),
    "Maximum": (rt.maximum, (-2, 2), (-2, 2)),
    "Minimum": (rt.minimum, (-2, 2), (-2, 2)),
    "Pow": (rt.pow, (0.5, 2), (-2, 2)),
    "FloorMod": (rt.mod, (0.1, 0.9), (1.5, 2)),  # away from the jumps of floor(x / y)
}


@pytest.mark.parametrize("op_type", sorted(BINARY))
@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_binary_rules(op_type, data, dynamic):
    fn, x_range, y_range = BINARY[op_type]
    x_shape, y_shape = data.draw(broadcast_pair())
    (x,), rng = arrays_for(data.draw, [x_shape], *x_range)
    y = rng.uniform(*y_range, size=y_shape)  # same generator: never equal to x by construction
    check(fn, [x, y], rng, dynamic)


UNARY = {
    "Neg": (rt.negative, (-2, 2)), "Abs": (rt.abs, (0.2, 2)), "Square": (rt.square, (-2, 2)),
    "Exp": (rt.exp, (-2, 2)), "Log": (rt.log, (0.2, 2)), "Sqrt": (rt.sqrt, (0.2, 2)),
    "Sign": (rt.sign, (0.2, 2)), "Identity": (rt.identity, (-2, 2)),
    "Cast": (lambda x: rt.cast(x, rt.float64), (-2, 2)),
    "Tanh": (rt.math.tanh, (-2, 2)), "Sigmoid": (rt.math.sigmoid, (-2, 2)), "Softplus": (rt.math.softplus, (-2, 2)),
    "LogSigmoid": (rt.math.log_sigmoid, (-2, 2)),
    "Sin": (rt.math.sin, (-2, 2)), "Cos": (rt.math.cos, (-2, 2)), "Log1p": (rt.math.log1p, (-0.5, 2)),
    "Expm1": (rt.math.expm1, (-2, 2)), "Reciprocal": (rt.math.reciprocal, (0.3, 2)),
    "Rsqrt": (rt.math.rsqrt, (0.3, 2)), "Erf": (rt.math.erf, (-2, 2)), "Erfc": (rt.math.erfc, (-2, 2)),
}


@pytest.mark.parametrize("op_type", sorted(UNARY))
@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_unary_rules(op_type, data, dynamic):
    fn, value_range = UNARY[op_type]
    (x,), rng = arrays_for(data.draw, [data.draw(shapes())], *value_range)
    check(fn, [x], rng, dynamic)


@SETTINGS
@given(data=st.data())
def test_matmul_rule_with_batch_broadcasting(data):
    m, k, n = (data.draw(st.integers(1, 4)) for _ in range(3))
    batch = data.draw(shapes(max_rank=2))
    a_shape, b_shape = batch + (m, k), (k, n)
    if data.draw(st.booleans()):
        a_shape, b_shape = (m, k), batch + (k, n)
    arrays, rng = arrays_for(data.draw, [a_shape, b_shape])
    check(rt.matmul, arrays, rng, data.draw(st.booleans()))


# --- reductions ----------------------------------------------------------------------------------
REDUCTIONS = {"Sum": rt.reduce_sum, "Mean": rt.reduce_mean, "Prod": rt.reduce_prod, "Max": rt.reduce_max,
              "Min": rt.reduce_min}


@pytest.mark.parametrize("op_type", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data(), keepdims=st.booleans(), dynamic=st.booleans())
def test_reduction_rules(op_type, data, keepdims, dynamic):
    shape = data.draw(shapes(min_rank=1))
    axis = data.draw(st.one_of(st.none(), st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1,
                                                    max_size=len(shape), unique_by=lambda a: a % len(shape))))
    (x,), rng = arrays_for(data.draw, [shape], 0.5, 2.0)
    check(lambda t: REDUCTIONS[op_type](t, axis, keepdims=keepdims), [x], rng, dynamic)


def test_prod_rule_with_zeros_is_the_product_of_the_others():
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 4.0, 2.0]])
    check(lambda t: rt.reduce_prod(t, 1), [x], np.random.default_rng(0))
    (grad,) = graph_gradients(lambda t: rt.reduce_prod(t, 1), [x], np.ones(3))
    np.testing.assert_array_equal(grad, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [8.0, 2.0, 4.0]])


def test_max_rule_shares_the_gradient_between_ties():
    (grad,) = graph_gradients(rt.reduce_max, [np.array([1.0, 3.0, 3.0])], np.array(1.0))
    np.testing.assert_array_equal(grad, [0.0, 0.5, 0.5])


@SETTINGS
@given(data=st.data(), exclusive=st.booleans(), reverse=st.booleans())
def test_cumsum_rule(data, exclusive, reverse):
    shape = data.draw(shapes(min_rank=1))
    axis = data.draw(st.integers(0, len(shape) - 1))
    (x,), rng = arrays_for(data.draw, [shape])
    check(lambda t: rt.cumsum(t, axis, exclusive=exclusive, reverse=reverse), [x], rng)


@SETTINGS
@given(data=st.data(), exclusive=st.booleans(), reverse=st.booleans())
def test_cumprod_rule(data, exclusive, reverse):
    shape = data.draw(shapes(min_rank=1))
    axis = data.draw(st.integers(0, len(shape) - 1))
    (x,), rng = arrays_for(data.draw, [shape], 0.5, 2.0)
    check(lambda t: rt.math.cumprod(t, axis, exclusive=exclusive, reverse=reverse), [x], rng)


@SETTINGS
@given(data=st.data(), dynamic=st.booleans(), descending=st.booleans())
def test_sort_and_top_k_rules(data, dynamic, descending):
    shape = data.draw(shapes(min_rank=1))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    (x,), rng = arrays_for(data.draw, [shape])  # distinct values almost surely: no ties
    direction = "DESCENDING" if descending else "ASCENDING"
    check(lambda t: rt.math.sort(t, axis, direction), [x], rng, dynamic)
    k = data.draw(st.integers(0, shape[-1]))
    check(lambda t: rt.math.top_k(t, k)[0], [x], rng, dynamic)


# --- shape and array ops ---------------------------------------------------------------------------
@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_reshape_transpose_expand_squeeze_rules(data, dynamic):
    shape = data.draw(shapes(min_rank=1))
    perm = data.draw(st.permutations(range(len(shape))))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    (x,), rng = arrays_for(data.draw, [shape])
    check(lambda t: rt.reshape(t, [-1]), [x], rng, dynamic)
    check(lambda t: rt.transpose(t, perm), [x], rng, dynamic)
    check(lambda t: rt.squeeze(rt.expand_dims(t, axis), axis), [x], rng, dynamic)


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_tile_and_broadcast_to_rules(data, dynamic):
    shape = data.draw(shapes(min_rank=1))
    multiples = [data.draw(st.integers(1, 3)) for _ in shape]
    (x,), rng = arrays_for(data.draw, [shape])
    check(lambda t: rt.tile(t, multiples), [x], rng, dynamic)
    target = [2] + [m if d == 1 else d for d, m in zip(shape, multiples)]
    check(lambda t: rt.broadcast_to(t, target), [x], rng, dynamic)


def test_sum_to_shape_rule():
    from runtime.ops.gradient_ops import SUM_TO_SHAPE
    from runtime.core.registry import apply_op
    x, like = np.random.default_rng(1).uniform(size=(2, 3, 4)), np.zeros((3, 1))

    def fn(t):
        return apply_op(SUM_TO_SHAPE, (t, rt.constant(np.array([3, 1], np.int32))), {"static_shape": (3, 1)})
    np.testing.assert_allclose(np.asarray(fn(rt.constant(x))), x.sum(axis=(0, 2), keepdims=False)[:, None])
    check(fn, [x], np.random.default_rng(2))
    del like


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_strided_slice_rule(data, dynamic):
    (x,), rng = arrays_for(data.draw, [(4, 5, 3)])
    keys = [(1,), (slice(None, None, -2),), (Ellipsis, 1), (slice(1, 3), None, slice(None, None, 2)),
            (-1, slice(2, None), 0)]
    key = data.draw(st.sampled_from(keys))
    check(lambda t: t[key], [x], rng, dynamic)


def test_strided_slice_rule_with_a_run_time_index():
    @rt.function(input_signature=[rt.TensorSpec([4, 3], rt.float64), rt.TensorSpec([], rt.int32)])
    def row_gradient(x, i):
        return rt.gradients(rt.reduce_sum(x[i] * 2.0), x)[0]
    expected = np.zeros((4, 3))
    expected[2] = 2.0
    np.testing.assert_array_equal(np.asarray(row_gradient(rt.constant(np.ones((4, 3))), rt.constant(2))), expected)


def test_strided_slice_grad_rule():
    from runtime.ops.indexing import STRIDED_SLICE_GRAD
    from runtime.core.registry import apply_op

    def fn(t):
        return apply_op(STRIDED_SLICE_GRAD, (rt.constant(np.array([4, 3], np.int32)), t),
                        {"key": (("slice", 1, 3, None),), "static_shape": (4, 3)})
    check(fn, [np.random.default_rng(3).uniform(size=(2, 3))], np.random.default_rng(4))


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_gather_rule_sums_repeated_rows(data, dynamic):
    shape = data.draw(shapes(min_rank=1))
    axis = data.draw(st.integers(0, len(shape) - 1))
    indices = np.array(data.draw(st.lists(st.integers(0, shape[axis] - 1), min_size=1, max_size=5)), np.int32)
    if data.draw(st.booleans()):
        indices = indices[:1].reshape(())  # a scalar index
    (x,), rng = arrays_for(data.draw, [shape])
    check(lambda t: rt.gather(t, indices, axis), [x], rng, dynamic)


def test_unsorted_segment_sum_rule():
    data = np.random.default_rng(5).uniform(size=(5, 2))
    check(lambda t: rt.unsorted_segment_sum(t, [0, 2, 0, 1, 2], 4), [data], np.random.default_rng(6))


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_concat_stack_select_fill_rules(data, dynamic):
    shape = data.draw(shapes(min_rank=1))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    other = tuple(d + 1 if i == axis % len(shape) else d for i, d in enumerate(shape))
    arrays, rng = arrays_for(data.draw, [shape, other])
    check(lambda a, b: rt.concat([a, b, a], axis), arrays, rng, dynamic)
    check(lambda a: rt.stack([a, a * 2.0], axis), arrays[:1], rng, dynamic)
    condition = rng.uniform(size=shape) > 0.5
    check(lambda a, b: rt.where(condition, a, b), [arrays[0], arrays[0][..., :1] * 1.5], rng, dynamic)
    check(lambda v: rt.fill([2, 3], v), [np.array(1.5)], rng)


@SETTINGS
@given(data=st.data())
def test_gather_nd_and_scatter_rules(data):
    (x, updates), rng = arrays_for(data.draw, [(4, 3), (2, 3)])
    rows = data.draw(st.lists(st.integers(0, 3), min_size=2, max_size=2, unique=True))
    indices = np.array([[r] for r in rows], np.int32)
    check(lambda t: rt.gather_nd(t, indices), [x], rng)
    check(lambda t, u: rt.tensor_scatter_nd_add(t, indices, u), [x, updates], rng)
    check(lambda t, u: rt.tensor_scatter_nd_update(t, indices, u), [x, updates], rng)


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_update_by_key_rule(data, dynamic):
    (x, row, scalar), rng = arrays_for(data.draw, [(4, 3), (3,), ()])
    check(lambda t, r: rt.update_by_key(t, 1, r), [x, row], rng, dynamic)
    check(lambda t, v: rt.update_by_key(t, (slice(None, None, 2), slice(1, None)), v), [x, scalar], rng, dynamic)


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_ensure_defined_rule(data, dynamic):
    (x,), rng = arrays_for(data.draw, [data.draw(shapes())])
    check(lambda t: rt.debugging.ensure_defined(t * 3.0, True, "never shown"), [x], rng, dynamic)


@SETTINGS
@given(data=st.data(), dynamic=st.booleans())
def test_sigmoid_cross_entropy_rule(data, dynamic):
    shape = data.draw(shapes())
    (labels, logits), rng = arrays_for(data.draw, [shape, shape], -3.0, 3.0)
    check(lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), [labels, logits], rng, dynamic)


# --- coverage: every op declares its gradient, and every rule is checked above ------------------------
CHECKED_ELSEWHERE = {
    "ReadVariableOp": "tests/gradients/test_gradient_tape.py (variables)",
    "If": "tests/gradients/test_gradient_control_flow.py", "While": "tests/gradients/test_gradient_while.py",
    "CustomGradient": "tests/gradients/test_custom_gradient.py (its rule is the user's gradient function)",
    **{op: "tests/gradients/test_list_gradients.py (tensor lists)"
       for op in ("TensorListFromTensors", "TensorListFromTensor", "TensorListPushBack", "TensorListPopItem",
                  "TensorListGetItem", "TensorListSetItem", "TensorListStack", "TensorListZerosLike", "TensorListAddN",
                  "TensorListConcat", "TensorListInsertItem", "TensorListSplitLike")},
    **{op: "tests/gradients/test_tensor_array_gradients.py (TensorArray)"
       for op in ("TensorListReserve", "TensorListGather", "TensorListScatterIntoExistingList",
                  "TensorListScatterAdd", "TensorListSplit", "TensorListResize")},
}
CHECKED_HERE = ({"Identity"} | set(BINARY) | set(UNARY) | set(REDUCTIONS) |
                {"MatMul", "Cumsum", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Tile", "BroadcastTo",
                 "SumToShape", "StridedSlice", "StridedSliceGrad", "GatherV2", "UnsortedSegmentSum", "ConcatV2",
                 "Pack", "SelectV2", "Fill", "GatherNd", "TensorScatterAdd", "TensorScatterUpdate",
                 "TensorStridedSliceUpdate", "Cumprod", "Sort", "TopKV2", "EnsureDefined",
                 "SigmoidCrossEntropyWithLogits"})


def test_every_registered_op_declares_a_gradient_or_why_it_has_none():
    missing = sorted(name for name, op in registered_ops().items() if op.gradient is None)
    assert missing == [], (f"ops without a gradient declaration: {missing}; add register_gradient(OP) or "
                           "not_differentiable(OP, reason) next to their register_op")


def test_every_gradient_rule_is_checked_against_finite_differences():
    rules = {name for name, op in registered_ops().items() if op.infer.__module__.startswith("runtime.")
             and op.gradient is not None and not isinstance(op.gradient, NotDifferentiable)}  # not tests' own ops
    assert sorted(rules - CHECKED_HERE - set(CHECKED_ELSEWHERE)) == []


def test_stop_gradient_blocks_the_gradient_but_not_the_value():
    @rt.function(input_signature=[rt.TensorSpec([2], rt.float64)])
    def f(x):
        y = x * rt.stop_gradient(x * 3.0)
        return y, rt.gradients(rt.reduce_sum(y), x)[0], rt.gradients(rt.reduce_sum(rt.stop_gradient(y)), x)[0]
    value, grad, blocked = f(rt.constant([1.0, 2.0], rt.float64))
    np.testing.assert_array_equal(np.asarray(value), [3.0, 12.0])
    np.testing.assert_array_equal(np.asarray(grad), [3.0, 6.0])  # x * 3 is a constant to the gradient
    assert blocked is None


def test_integer_and_bool_paths_carry_no_gradient():
    @rt.function(input_signature=[rt.TensorSpec([3], rt.float64)])
    def through_int(x):
        as_int = rt.cast(x, rt.int32)
        return rt.gradients(rt.reduce_sum(rt.cast(as_int, rt.float64)), x, unconnected_gradients="zero")[0]
    np.testing.assert_array_equal(np.asarray(through_int(rt.constant([1.5, 2.5, 3.5], rt.float64))), [0.0, 0.0, 0.0])


def test_an_op_without_a_rule_on_the_path_is_a_clear_error():
    from runtime.passes.gradients import GradientError

    @rt.function(input_signature=[rt.TensorSpec([], rt.float64)])
    def through_sin(x):
        return rt.gradients(rt.sin(x) * 2.0, x)

    sin = registered_ops()["Sin"]
    rule = sin.gradient
    object.__setattr__(sin, "gradient", None)  # as if Sin had been declared without one (every op has one now)
    try:
        with pytest.raises(GradientError, match="no gradient is registered for op type 'Sin' .*rt.stop_gradient"):
            through_sin(rt.constant(1.0, rt.float64))
    finally:
        object.__setattr__(sin, "gradient", rule)


# --- rt.nn, rt.linalg and array ops ------------------------------------------------------------------
NEW_UNARY = {  # op type: (function of one float64 tensor, value range away from kinks)
    "Relu": (rt.nn.relu, (0.1, 2)), "Relu6": (rt.nn.relu6, (0.1, 5.9)),
    "LeakyRelu": (lambda x: rt.nn.leaky_relu(x, 0.3), (-2, -0.1)), "Elu": (rt.nn.elu, (-2, -0.1)),
    "Softmax": (lambda x: rt.nn.softmax(x, 0), (-2, 2)), "LogSoftmax": (rt.nn.log_softmax, (-2, 2)),
    "ReverseV2": (lambda x: rt.reverse(x, [0]), (-2, 2)),
    "ClipByValue": (lambda x: rt.clip_by_value(x, -0.5, 0.5), (-2, 2)),
    "PadV2": (lambda x: rt.pad(x, [[1, 2]] + [[0, 1]] * (x.ndim - 1)), (-2, 2)),
    "MirrorPad": (lambda x: rt.pad(x, [[2, 3]] + [[1, 0]] * (x.ndim - 1), "REFLECT"), (-2, 2)),
    "MirrorPad_symmetric": (lambda x: rt.pad(x, [[3, 1]] + [[0, 2]] * (x.ndim - 1), "SYMMETRIC"), (-2, 2)),
    "Repeat": (lambda x: rt.repeat(x, [1, 0, 2, 1, 3][:x.shape[0]], axis=0), (-2, 2)),
    "Repeat_flat": (lambda x: rt.repeat(x, 2), (-2, 2)),
    "SplitV": (lambda x: rt.split(x, [1, -1])[1] * 2.0 + rt.split(x, [1, -1])[0][0], (-2, 2)),
    "Unpack": (lambda x: rt.unstack(x, num=x.shape[0])[-1], (-2, 2)),
    "MatrixDiagPart": (lambda x: rt.linalg.diag_part(rt.reshape(x, [-1, 2, 3]) if x.shape[-1] != 2 else x), (-2, 2)),
}


@pytest.mark.parametrize("op_type", sorted(NEW_UNARY))
@SETTINGS
@given(data=st.data())
def test_nn_linalg_and_array_rules(op_type, data):
    function, (low, high) = NEW_UNARY[op_type]
    shape = data.draw(st.sampled_from([(4, 2), (4, 3, 2), (5, 2)]))
    arrays, rng = arrays_for(data.draw, [shape], low, high)
    check(function, arrays, rng)


@SETTINGS
@given(data=st.data())
def test_det_inv_and_einsum_rules(data):
    n = data.draw(st.integers(1, 3))
    (matrix,), rng = arrays_for(data.draw, [(2, n, n)], -1, 1)
    matrix = matrix + 4 * np.eye(n)  # well conditioned
    check(rt.linalg.det, [matrix], rng)
    check(rt.linalg.inv, [matrix], rng)
    (a, b), rng = arrays_for(data.draw, [(2, 3), (3, 4)])
    check(lambda x, y: rt.einsum("ij,jk->ik", x, y), [a, b], rng)
    check(lambda x, y: rt.einsum("ij,jk", x, y) * rt.einsum("ij->ji", x)[0, 0], [a, b], rng)


# Equations numpy accepts that a plain "einsum of the others" does not differentiate: a subscript summed out of
# one input only, a repeated subscript (diagonals, traces), '...' with broadcasting, a scalar operand.
EINSUM_EQUATIONS = [
    ("ij,k->ik", [(2, 3), (4,)]), ("ij,k->", [(2, 3), (4,)]), ("ij->", [(2, 3)]), ("ij->j", [(2, 3)]),
    ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("iij->j", [(2, 2, 3)]), ("iji->ij", [(2, 3, 2)]),
    ("ij,jj->i", [(2, 3), (3, 3)]), ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("...i,...i", [(2, 3), (1, 3)]), ("i...->...", [(2, 3, 1)]), ("bij,k,->bik", [(2, 2, 3), (4,), ()]),
    ("ab,cd->abcd", [(2, 1), (1, 3)]), ("ijk->kji", [(2, 3, 1)]), ("i,i,i->", [(3,), (3,), (3,)]),
]


@pytest.mark.parametrize("equation, input_shapes", EINSUM_EQUATIONS)
@pytest.mark.parametrize("dynamic", [False, True])
def test_einsum_rule_for_every_kind_of_equation(equation, input_shapes, dynamic):
    rng = np.random.default_rng(len(equation))
    arrays = [rng.uniform(-2, 2, size=shape) for shape in input_shapes]
    np.testing.assert_allclose(np.asarray(rt.einsum(equation, *arrays)), np.einsum(equation, *arrays))
    if dynamic and "..." in equation:
        with pytest.raises(ValueError, match=r"the dims '...' stands for must be known while tracing"):
            check(lambda *xs: rt.einsum(equation, *xs), arrays, rng, dynamic)
        return
    check(lambda *xs: rt.einsum(equation, *xs), arrays, rng, dynamic)


CHECKED_HERE |= {"Relu", "Relu6", "LeakyRelu", "Elu", "Softmax", "LogSoftmax", "ReverseV2", "ClipByValue", "PadV2",
                 "MirrorPad", "Repeat", "SplitV", "Unpack", "MatrixDiagPart", "MatrixDeterminant", "MatrixInverse",
                 "Einsum"}
