"""rt.nn: activations, softmax/log_softmax, cross-entropies, l2_normalize, gelu — against numpy on random
shapes (eager and traced), TensorFlow's documented values at the edges, and exact errors."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
FLOAT_ARRAYS = st.sampled_from([np.float32, np.float64]).flatmap(
    lambda d: hnp.arrays(d, SHAPES, elements=st.floats(-60, 60, width=32)))
NUMERIC_ARRAYS = st.sampled_from([np.int32, np.int64, np.float32, np.float64]).flatmap(
    lambda d: hnp.arrays(d, SHAPES, elements=st.integers(-10, 10)))
_erfc = np.frompyfunc(math.erfc, 1, 1)


def close(got, want, dtype):
    assert got.dtype == dtype and got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 1e-12, atol=1e-30)


@settings(max_examples=30, deadline=None)
@given(x=NUMERIC_ARRAYS)
def test_relu_and_relu6_match_numpy_for_every_number_type(x):
    relu, relu6 = assert_graph_matches_eager(lambda t: (rt.nn.relu(t), rt.nn.relu6(t)), x, unknown_dims=True)
    assert_same(relu, np.maximum(x, 0).astype(x.dtype))
    assert_same(relu6, np.clip(x, 0, 6).astype(x.dtype))


@settings(max_examples=30, deadline=None)
@given(x=FLOAT_ARRAYS, alpha=st.sampled_from([0.2, 0.01, 1.5]))
def test_float_activations_match_numpy(x, alpha):
    leaky, elu, gelu, gelu_tanh = assert_graph_matches_eager(
        lambda t: (rt.nn.leaky_relu(t, alpha), rt.nn.elu(t), rt.nn.gelu(t), rt.nn.gelu(t, approximate=True)),
        x, unknown_dims=True)
    wide = x.astype(np.float64)
    assert_same(leaky, np.where(x > 0, x, x * x.dtype.type(alpha)))
    close(elu, np.where(wide > 0, wide, np.expm1(np.minimum(wide, 0))), x.dtype)
    # gelu's relative condition number grows like x² for negative x: float32 keeps ~4 digits at x = -14
    rtol, atol = (1e-4, 1e-37) if x.dtype == np.float32 else (1e-10, 1e-300)
    exact = 0.5 * wide * np.asarray(_erfc(-wide / math.sqrt(2)), np.float64)
    np.testing.assert_allclose(gelu, exact, rtol=rtol, atol=atol)
    u = math.sqrt(2 / math.pi) * (wide + 0.044715 * wide ** 3)
    with np.errstate(over="ignore"):  # 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), without the cancellation
        tanh_form = wide / (1 + np.exp(-2 * u))
    np.testing.assert_allclose(gelu_tanh, tanh_form, rtol=rtol, atol=atol)


@settings(max_examples=30, deadline=None)
@given(x=FLOAT_ARRAYS, data=st.data())
def test_softmax_and_log_softmax_match_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    softmax, log_softmax = assert_graph_matches_eager(
        lambda t: (rt.nn.softmax(t, axis), rt.nn.log_softmax(t, axis)), x, unknown_dims=True)
    wide = x.astype(np.float64)
    shifted = wide - wide.max(axis, keepdims=True)
    e = np.exp(shifted)
    want = e / e.sum(axis, keepdims=True)
    assert softmax.dtype == x.dtype and softmax.shape == want.shape
    # x - max rounds to within eps*|x - max| in x's dtype, and exp turns that absolute error into a relative
    # one: a tiny probability far below the maximum is only that accurate (float32 [48.375, 54.0, 16.348467]).
    relative = 4 * np.finfo(x.dtype).eps * (1 + np.abs(shifted)) if x.dtype == np.float32 else 1e-12
    assert (np.abs(softmax - want) <= relative * want + 1e-30).all()
    log_want = wide - wide.max(axis, keepdims=True) - np.log(e.sum(axis, keepdims=True))
    np.testing.assert_allclose(log_softmax, log_want, rtol=2e-6 if x.dtype == np.float32 else 1e-12, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(logits=FLOAT_ARRAYS, data=st.data())
def test_cross_entropies_and_l2_normalize_match_numpy(logits, data):
    labels = data.draw(hnp.arrays(logits.dtype, logits.shape, elements=st.floats(0, 1, width=32)))
    sigmoid_ce, softmax_ce, normalized = assert_graph_matches_eager(
        lambda z, x: (rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                      rt.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
                      rt.nn.l2_normalize(x, axis=-1)), labels, logits, unknown_dims=True)
    x, z = logits.astype(np.float64), labels.astype(np.float64)
    # max(x, 0) - x*z cancels: its rounding error is relative to |x|, not to the (small) result
    cancellation = 4 * np.finfo(logits.dtype).eps * (np.abs(x).max(initial=0.0) + 1)
    assert sigmoid_ce.dtype == logits.dtype
    np.testing.assert_allclose(sigmoid_ce, np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))),
                               rtol=2e-6 if logits.dtype == np.float32 else 1e-12, atol=cancellation)
    log_p = x - x.max(-1, keepdims=True) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))
    np.testing.assert_allclose(softmax_ce, -(z * log_p).sum(-1), rtol=1e-5, atol=1e-4)
    assert softmax_ce.dtype == logits.dtype
    norm = np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-12))
    close(normalized, x / norm, logits.dtype)


def test_tensorflow_edge_values():
    assert rt.nn.softmax([1000.0, 1000.0, -np.inf]).numpy().tolist() == [0.5, 0.5, 0.0]
    assert rt.nn.softmax([[1e30, 0.0]]).numpy().tolist() == [[1.0, 0.0]]
    assert rt.nn.log_softmax([0.0, 1000.0]).numpy().tolist() == [-1000.0, 0.0]  # finite, no log(0)
    assert rt.nn.log_softmax([[2.0, 2.0]], axis=0).numpy().tolist() == [[0.0, 0.0]]
    assert rt.nn.relu6([-3.0, 0.0, 3.0, 6.0, 1e9]).numpy().tolist() == [0.0, 0.0, 3.0, 6.0, 6.0]
    assert rt.nn.relu6([-3, 7]).dtype == rt.int32
    assert rt.nn.leaky_relu([-10.0, 10.0]).numpy().tolist() == [np.float32(-2.0), 10.0]  # alpha 0.2
    assert rt.nn.elu([-np.inf, 0.0, 1.0]).numpy().tolist() == [-1.0, 0.0, 1.0]
    # erfc form: 0.5 x (1 + erf(x/√2)) would cancel to exactly 0 here
    assert rt.nn.gelu([-10.0]).numpy()[0] == pytest.approx(-10 * 0.5 * math.erfc(10 / math.sqrt(2)), rel=1e-6)
    assert rt.nn.gelu([-10.0]).numpy()[0] != 0.0
    ce = rt.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0, 1.0], logits=[-1000.0, 1000.0, 1000.0])
    assert ce.numpy().tolist() == [1000.0, 1000.0, 0.0]
    assert rt.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1000.0, 0.0]]).numpy().tolist() \
        == [1000.0]
    assert rt.nn.l2_normalize([0.0, 0.0]).numpy().tolist() == [0.0, 0.0]  # epsilon: no 0/0
    assert rt.nn.l2_normalize([[3.0, 4.0], [6.0, 8.0]], axis=0).numpy()[:, 0].tolist() == pytest.approx(
        [1 / math.sqrt(5), 2 / math.sqrt(5)])


def test_ops_and_shapes_while_tracing():
    graph, out = trace(lambda x: (rt.nn.relu(x), rt.nn.softmax(x, 0), rt.nn.log_softmax(x), rt.nn.elu(x)),
                       (rt.float32, (None, 3)))
    assert [t.op.type for t in out] == ["Relu", "Softmax", "LogSoftmax", "Elu"]
    assert all(t.shape == (None, 3) and t.dtype == rt.float32 for t in out)
    _, loss = trace(lambda z, x: rt.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
                    (rt.float32, (None, 3)), (rt.float32, (None, 3)))
    assert loss.shape == (None,)


def test_errors():
    with pytest.raises(TypeError) as error:
        rt.nn.softmax([1, 2])
    assert str(error.value) == ("Softmax: features must be a floating-point tensor, got int32; convert it with "
                                "rt.cast(features, rt.float32)")
    with pytest.raises(TypeError, match=r"^LeakyRelu \(LeakyRelu\): features must be a floating-point tensor"):
        trace(rt.nn.leaky_relu, (rt.int32, (2,)))
    with pytest.raises(TypeError, match=r"^Relu: features must be a numeric \(not bool\) tensor, got bool"):
        rt.nn.relu([True])
    with pytest.raises(ValueError, match="^Softmax: axis 2 is out of range for a tensor of rank 2"):
        rt.nn.softmax([[1.0]], axis=2)
    with pytest.raises(ValueError, match="^LogSoftmax: logits must have at least one dimension, got a scalar"):
        rt.nn.log_softmax(1.0)
    with pytest.raises(ValueError, match=r"^sigmoid_cross_entropy_with_logits: labels and logits must have the same "
                                         r"shape, got \(2,\) and \(3,\)"):
        rt.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="^softmax_cross_entropy_with_logits: logits must be a floating-point tensor"):
        rt.nn.softmax_cross_entropy_with_logits(labels=[1, 0], logits=[1, 2])
    with pytest.raises(TypeError, match="^l2_normalize: x must be a floating-point tensor, got int32"):
        rt.nn.l2_normalize([3, 4])
    with pytest.raises(TypeError, match="^features must be a floating-point tensor, got int32"):
        rt.nn.gelu([1])


def test_namespace():
    assert rt.nn.sigmoid is rt.sigmoid and rt.nn.tanh is rt.tanh and rt.nn.top_k is rt.math.top_k
    assert rt.nn.softplus is rt.math.softplus


def test_softmax_of_a_probability_far_below_the_maximum_is_as_accurate_as_float32_allows():
    x = np.array([48.375, 54.0, 16.348467], np.float32)
    got = rt.nn.softmax(rt.constant(x)).numpy()
    wide = x.astype(np.float64)
    want = np.exp(wide - wide.max()) / np.exp(wide - wide.max()).sum()
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(np.float32).eps * 38)
    assert got.dtype == np.float32
