"""rt.math: the tf.math unary functions, erf, cumprod, reduce_logsumexp, top_k/sort/argsort.

Every kernel is compared with numpy (or the C library's erf) on random shapes and dtypes, eagerly and
traced (graph == eager, with known and unknown dims), plus TensorFlow's documented values at the edges.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

FLOATS = st.sampled_from([np.float32, np.float64])
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def float_arrays(low=-30.0, high=30.0, dtype=FLOATS, shape=SHAPES):
    return dtype.flatmap(lambda d: hnp.arrays(d, shape, elements=st.floats(low, high, width=32)))


def _quiet(fn):
    def quiet(x):
        with np.errstate(all="ignore"):
            return fn(x)
    return quiet


_erf, _erfc = np.frompyfunc(math.erf, 1, 1), np.frompyfunc(math.erfc, 1, 1)
UNARY = {  # public function: (numpy reference, exact?)
    rt.math.tanh: (np.tanh, True),
    rt.math.sigmoid: (_quiet(lambda x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)), False),
    rt.math.softplus: (lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0), False),
    rt.math.sin: (np.sin, True), rt.math.cos: (np.cos, True),
    rt.math.floor: (np.floor, True), rt.math.ceil: (np.ceil, True), rt.math.round: (np.round, True),
    rt.math.log1p: (_quiet(np.log1p), True), rt.math.expm1: (_quiet(np.expm1), True),
    rt.math.reciprocal: (_quiet(lambda x: 1 / x), True),
    rt.math.rsqrt: (_quiet(lambda x: 1 / np.sqrt(x)), True),
    rt.math.erf: (lambda x: np.asarray(_erf(x), np.float64).astype(x.dtype), False),
    rt.math.erfc: (lambda x: np.asarray(_erfc(x), np.float64).astype(x.dtype), False),
    rt.math.is_nan: (np.isnan, True), rt.math.is_finite: (np.isfinite, True),
}


@pytest.mark.parametrize("fn", list(UNARY), ids=lambda f: f.__name__)
@settings(max_examples=15, deadline=None)
@given(x=float_arrays())
def test_unary_matches_numpy_eager_and_traced(fn, x):
    reference, exact = UNARY[fn]
    want = np.asarray(reference(x))
    got = assert_graph_matches_eager(fn, x, unknown_dims=True)[0]
    assert got.dtype == want.dtype and got.shape == want.shape
    if exact:
        np.testing.assert_array_equal(got, want)
    else:  # float32 results within a few ulps; float64 to 1e-14
        rtol = 1e-14 if x.dtype == np.float64 and fn in (rt.math.erf, rt.math.erfc) else 4e-7
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-37)


def test_tensorflow_edge_values():
    inf, nan = np.inf, np.nan
    assert rt.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.6]).numpy().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 3.0]
    assert rt.round(rt.constant([3, -4])).numpy().tolist() == [3, -4]  # integers stay as they are
    special = rt.constant([inf, -inf, nan, 0.0, 1.0])
    assert rt.math.is_nan(special).numpy().tolist() == [False, False, True, False, False]
    assert rt.math.is_finite(special).numpy().tolist() == [False, False, False, True, True]
    np.testing.assert_allclose(rt.math.erf([0.0, 1.0, -1.0, 2.0]).numpy(),
                               [0.0, 0.8427007929, -0.8427007929, 0.995322265], rtol=2e-7)
    assert rt.math.erf([inf, -inf]).numpy().tolist() == [1.0, -1.0]
    assert np.isnan(rt.math.erf([nan]).numpy()).all()
    assert rt.math.erfc([inf, -inf]).numpy().tolist() == [0.0, 2.0]
    np.testing.assert_allclose(rt.math.erfc([5.0, 9.0]).numpy(), [1.5374597944e-12, 4.1370317e-37], rtol=4e-7)
    assert rt.sigmoid([-inf, 0.0, inf]).numpy().tolist() == [0.0, 0.5, 1.0]
    assert rt.sigmoid([-100.0]).numpy()[0] == np.float32(math.exp(-100))  # no underflow to 0 on the way
    assert rt.math.softplus([100.0, -100.0, 0.0]).numpy().tolist() == [100.0, np.float32(math.exp(-100)),
                                                                      np.float32(math.log(2))]
    assert rt.math.log1p([1e-10]).numpy()[0] == np.float32(1e-10)
    assert rt.math.expm1([1e-10]).numpy()[0] == np.float32(1e-10)
    assert rt.tanh(rt.constant([0.5], rt.float16)).dtype == rt.float16


def test_no_numpy_warnings_on_edge_inputs(recwarn):
    rt.math.log1p([-2.0, -1.0]), rt.math.reciprocal([0.0]), rt.math.rsqrt([0.0, -1.0]), rt.sin([np.inf])
    rt.math.expm1([1000.0]), rt.cos([np.nan]), rt.math.softplus([np.nan]), rt.sigmoid([np.nan])
    rt.math.erf([np.nan, np.inf]), rt.math.erfc([np.nan, -np.inf])
    assert not recwarn.list


@pytest.mark.parametrize("fn, op_type", [(rt.tanh, "Tanh"), (rt.sigmoid, "Sigmoid"), (rt.math.erf, "Erf"),
                                         (rt.floor, "Floor"), (rt.math.is_nan, "IsNan")])
def test_float_functions_refuse_ints_eagerly_and_while_tracing(fn, op_type):
    message = "x must be a floating-point tensor, got int32; convert it with rt.cast(x, rt.float32)"
    with pytest.raises(TypeError) as eager_error:
        fn([1, 2])
    assert str(eager_error.value) == f"{op_type}: {message}"
    with pytest.raises(TypeError) as traced_error:
        trace(fn, (rt.int32, (None,)))
    assert str(traced_error.value) == f"{op_type} ({op_type}): {message}"


def test_round_refuses_bool():
    with pytest.raises(TypeError, match=r"^Round: x must be a numeric \(not bool\) tensor, got bool"):
        rt.round([True])


def test_traced_ops_have_their_types_and_shapes():
    graph, out = trace(lambda x: (rt.tanh(x), rt.math.is_finite(x), rt.math.erf(x)), (rt.float32, (None, 3)))
    assert [t.op.type for t in out] == ["Tanh", "IsFinite", "Erf"]
    assert [(t.dtype, t.shape) for t in out] == [(rt.float32, (None, 3)), (rt.bool, (None, 3)),
                                                (rt.float32, (None, 3))]


# --- cumprod, reduce_logsumexp ---------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(x=hnp.arrays(st.sampled_from([np.int32, np.float64]), hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                    elements=st.integers(-3, 3)), data=st.data())
def test_cumprod_matches_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    got = assert_graph_matches_eager(lambda t: rt.math.cumprod(t, axis, exclusive, reverse), x, unknown_dims=True)[0]
    flipped = np.flip(x, axis) if reverse else x
    want = np.cumprod(flipped, axis=axis, dtype=x.dtype)
    if exclusive:
        want = np.concatenate([np.ones_like(np.take(want, [0], axis)), np.delete(want, -1, axis)], axis)
    assert_same(got, np.flip(want, axis) if reverse else want)


def test_cumprod_values():
    assert rt.math.cumprod([2, 3, 4]).numpy().tolist() == [2, 6, 24]
    assert rt.math.cumprod([2, 3, 4], exclusive=True).numpy().tolist() == [1, 2, 6]
    assert rt.math.cumprod([2, 3, 4], exclusive=True, reverse=True).numpy().tolist() == [12, 4, 1]
    with pytest.raises(ValueError, match="Cumprod: x must have at least one dimension, got a scalar"):
        rt.math.cumprod(3)


@settings(max_examples=25, deadline=None)
@given(x=float_arrays(-50, 50, shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)),
       data=st.data())
def test_reduce_logsumexp_matches_numpy(x, data):
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    keepdims = data.draw(st.booleans())
    got = assert_graph_matches_eager(lambda t: rt.reduce_logsumexp(t, axis, keepdims), x, unknown_dims=True)[0]
    want = np.log(np.sum(np.exp(x.astype(np.float64)), axis=axis, keepdims=keepdims)).astype(x.dtype)
    # log of a sum >= 1: absolute error of a few ulps of 1 (TensorFlow computes it the same way)
    single = x.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-6 if single else 1e-12, atol=1e-6 if single else 1e-13)


def test_reduce_logsumexp_is_stable_for_large_and_infinite_values():
    assert rt.reduce_logsumexp([1000.0, 1000.0]).numpy() == np.float32(1000 + math.log(2))
    assert rt.math.reduce_logsumexp([-1000.0, -1000.0]).numpy() == np.float32(-1000 + math.log(2))
    assert rt.reduce_logsumexp([[-np.inf, -np.inf], [np.inf, 1.0]], axis=1).numpy().tolist() == [-np.inf, np.inf]
    with pytest.raises(TypeError, match="reduce_logsumexp: input must be a floating-point tensor, got int32"):
        rt.reduce_logsumexp([1, 2])


# --- top_k, sort, argsort --------------------------------------------------------------------------
ORDERABLE = hnp.arrays(st.sampled_from([np.int32, np.float32, np.float64]),
                       hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
                       elements=st.integers(-3, 3))  # few distinct values: many ties


def descending_stable(x, axis):
    return np.argsort(-x, axis=axis, kind="stable")  # equal values keep their order


@settings(max_examples=40, deadline=None)
@given(x=ORDERABLE, data=st.data())
def test_top_k_matches_a_stable_numpy_sort(x, data):
    k = data.draw(st.integers(0, x.shape[-1]))
    values, indices = assert_graph_matches_eager(lambda t: rt.math.top_k(t, k), x, unknown_dims=True)
    want_indices = descending_stable(x, -1)[..., :k].astype(np.int32)
    assert_same(indices, want_indices)
    assert_same(values, np.take_along_axis(x, want_indices, -1))


@settings(max_examples=40, deadline=None)
@given(x=ORDERABLE, data=st.data())
def test_sort_and_argsort_match_a_stable_numpy_sort(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    direction = data.draw(st.sampled_from(["ASCENDING", "DESCENDING"]))
    values, indices = assert_graph_matches_eager(
        lambda t: (rt.sort(t, axis, direction), rt.argsort(t, axis, direction)), x, unknown_dims=True)
    want = (np.argsort(x, axis=axis, kind="stable") if direction == "ASCENDING"
            else descending_stable(x, axis)).astype(np.int32)
    assert_same(indices, want)
    assert_same(values, np.take_along_axis(x, want, axis))


def test_top_k_ties_and_shapes_like_tensorflow():
    values, indices = rt.math.top_k([[1, 3, 3, 2], [5, 5, 5, 5]], k=3)
    assert values.numpy().tolist() == [[3, 3, 2], [5, 5, 5]]
    assert indices.numpy().tolist() == [[1, 2, 3], [0, 1, 2]]  # lower index first among equal values
    assert indices.dtype == rt.int32
    assert rt.math.top_k([1.0, 2.0], k=1, index_type=rt.int64)[1].dtype == rt.int64
    _, (known_k, _) = trace(lambda x: rt.math.top_k(x, 2), (rt.float32, (None, 5)))
    assert known_k.shape == (None, 2)
    _, (run_time_k, run_time_indices) = trace(lambda x, k: rt.math.top_k(x, k), (rt.float32, (4, 5)),
                                              (rt.int32, ()))
    assert run_time_k.shape == (4, None) and run_time_indices.dtype == rt.int32


def test_sort_is_stable_in_both_directions():
    assert rt.argsort([2, 1, 2, 1]).numpy().tolist() == [1, 3, 0, 2]
    assert rt.argsort([2, 1, 2, 1], direction="DESCENDING").numpy().tolist() == [0, 2, 1, 3]
    assert rt.sort([[3.0, 1.0], [0.0, 5.0]], axis=0, direction="DESCENDING").numpy().tolist() == [[3.0, 5.0],
                                                                                                   [0.0, 1.0]]


def test_ordering_errors():
    with pytest.raises(ValueError, match=r"^TopKV2: input must have at least k=3 entries in its last dimension, "
                                         r"got shape \(2,\)"):
        rt.math.top_k([1, 2], k=3)
    with pytest.raises(ValueError, match=r"^TopKV2 \(TopKV2\): input must have at least k=3 entries"):
        trace(lambda x: rt.math.top_k(x, 3), (rt.float32, (None, 2)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="TopKV2: input must have at least k=3 entries"):
        rt.function(lambda x, k: rt.math.top_k(x, k))(rt.constant([1.0, 2.0]), rt.constant(3))
    with pytest.raises(ValueError, match="^TopKV2: k must be >= 0, got -1"):
        rt.math.top_k([1, 2], k=-1)
    with pytest.raises(ValueError, match="^TopKV2: input must have at least one dimension, got a scalar"):
        rt.math.top_k(3.0)
    with pytest.raises(ValueError, match="^Sort: direction must be 'ASCENDING' or 'DESCENDING', got 'UP'"):
        rt.sort([1, 2], direction="up")
    with pytest.raises(TypeError, match="^ArgSort: values must be a numeric tensor, got bool"):
        rt.argsort([True, False])
    with pytest.raises(ValueError, match="^Sort: axis 1 is out of range for a tensor of rank 1"):
        rt.sort([1, 2], axis=1)


def test_top_level_aliases_are_the_namespace_functions():
    for name in ("tanh", "sigmoid", "sin", "cos", "floor", "ceil", "round", "sort", "argsort", "reduce_logsumexp",
                 "exp", "add", "reduce_sum", "cumsum"):
        assert getattr(rt, name) is getattr(rt.math, name), name
    assert rt.math.cumprod and rt.math.erf and rt.math.top_k
