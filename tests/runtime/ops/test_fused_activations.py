"""Activations with an out= form (Sigmoid, Softplus, Relu, Relu6) in pooled buffers and row-block regions,
and split/unstack as views in compiled graphs: the same bits as eager execution and the interpreter."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.backends import row_blocks
from runtime.backends.buffer_plan import MIN_BUFFER_ELEMENTS, PARALLEL_MIN_ELEMENTS
from runtime.backends.executor import generated_source, make_callable
from runtime.ops import unary_ops
from test_executor import same_as_interpreter, trace

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-30, -1e-30, 20.0, -20.0, 100.0, -100.0, 800.0, -800.0]


def _textbook_sigmoid(x):
    small = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + small), small / (1 + small)).astype(x.dtype, copy=False)


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_sigmoid_gives_the_textbook_stable_forms_bits(dtype):
    x = np.concatenate([np.random.default_rng(1).standard_normal(5000) * 40, SPECIALS]).astype(dtype)
    with np.errstate(all="ignore"):
        _same_bits(unary_ops._sigmoid_kernel(x), _textbook_sigmoid(x))
    assert unary_ops._sigmoid_kernel(np.array([-100.0], np.float32))[0] == np.float32(np.exp(-100.0))  # the tail


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float16, np.float32, np.float64]), hnp.array_shapes(max_dims=2, max_side=9)))
def test_the_sigmoid_matches_the_textbook_form_on_any_floats(x):
    with np.errstate(all="ignore"):
        _same_bits(unary_ops._sigmoid_kernel(x), _textbook_sigmoid(x))


def activations(x):  # each one read by another op: intermediates, written into buffers when big
    return (rt.sigmoid(x) - x, rt.math.softplus(x * 0.5) * 2.0, rt.nn.relu(x - 1.0) + x, rt.nn.relu6(x * 3.0) * x,
            rt.sigmoid(rt.tanh(x)) * 2.0, rt.sigmoid(x), rt.math.log_sigmoid(x * 2.0) - 1.0, rt.nn.gelu(x) + 1.0)


def _values(shape, dtype=np.float32):
    x = np.random.default_rng(3).standard_normal(shape).astype(dtype) * 8
    x.flat[:len(SPECIALS)] = SPECIALS
    return x


@pytest.mark.parametrize("shape", [(3, 5), (64, 64), (PARALLEL_MIN_ELEMENTS // 2 + 7, 2)])
def test_activations_in_buffers_and_row_blocks_give_the_eager_bits(monkeypatch, shape):
    monkeypatch.setattr(row_blocks, "_spare_cores", lambda: True)  # workers take blocks when there are several
    graph = trace(activations, (rt.float32, shape))
    source = generated_source(make_callable(graph))
    x = _values(shape)
    got = same_as_interpreter(graph, x)
    for g, e in zip(got, activations(rt.constant(x))):
        _same_bits(g, e.numpy())
    if np.prod(shape) >= MIN_BUFFER_ELEMENTS:  # written into buffers, not allocated per op
        assert all(f"into_{name}" in source for name in ("Sigmoid", "Softplus", "Relu6", "LogSigmoid", "Erfc"))
    if np.prod(shape) >= PARALLEL_MIN_ELEMENTS:
        assert "_run_in_row_blocks(" in source and "into_Sigmoid_" in source.split("def rows_of_region")[1]


def test_an_activation_never_writes_over_its_own_input():
    graph = trace(lambda x: rt.sigmoid(rt.exp(x) * 2.0) + 1.0, (rt.float64, (80, 80)))
    source = generated_source(make_callable(graph))
    line = next(line for line in source.splitlines() if "into_Sigmoid" in line)
    argument, out = line.split("(", 1)[1].rstrip(")").split(", out=")
    assert argument != out
    same_as_interpreter(graph, _values((80, 80), np.float64))


def lstm_gates(z, c):
    i, f, g, o = rt.split(z * 1.0, 4, axis=1)
    c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
    return rt.sigmoid(o) * rt.tanh(c), c


def test_split_pieces_are_views_in_a_compiled_graph_with_the_eager_bits():
    graph = trace(lstm_gates, (rt.float32, (32, 512)), (rt.float32, (32, 128)))
    source = generated_source(make_callable(graph))
    assert "[:, 0:128], " in source and "[:, 384:512])" in source and "k_SplitV" not in source
    z, c = _values((32, 512)), _values((32, 128))
    got = same_as_interpreter(graph, z, c)
    for g, e in zip(got, lstm_gates(rt.constant(z), rt.constant(c))):
        _same_bits(g, e.numpy())


def test_unstack_pieces_are_views_and_uneven_splits_keep_their_sizes():
    def f(x):
        a, b, c = rt.unstack(x * 2.0, axis=1)
        first, rest = rt.split(x + 1.0, [1, -1], axis=0)
        return a + b * c, first, rest, rt.unstack(x - 1.0)[2]
    graph = trace(f, (rt.float64, (4, 3)))
    source = generated_source(make_callable(graph))
    assert "k_Unpack" not in source and "k_SplitV" not in source and "[:, 2]" in source and "[1:4]" in source
    x = _values((4, 3), np.float64)
    got = same_as_interpreter(graph, x)
    for g, e in zip(got, f(rt.constant(x))):
        _same_bits(g, e.numpy())


def test_pieces_of_an_input_or_a_constant_are_copies_the_caller_may_change():
    f = rt.Function(lambda x: (rt.split(x, 2)[0], rt.unstack(rt.constant([[1.0, 2.0]]))[0]))
    x = np.arange(4.0, dtype=np.float32)
    piece, row = f(rt.constant(x))
    piece.numpy()[0] = 99.0
    row.numpy()[0] = 99.0
    again = f(rt.constant(x))
    assert x[0] == 0.0 and again[1].numpy().tolist() == [1.0, 2.0]


def test_a_loop_variable_split_in_its_loop_is_not_overwritten_while_a_piece_lives():
    converted = rt.Function(lambda x, n: rt.while_loop(
        lambda i, x: i < n, lambda i, x: (i + 1, rt.concat(rt.split(x * 1.0, 2)[::-1], 0) + 1.0), [0, x])[1])
    x = _values((8,), np.float64)
    want = x.copy()
    for _ in range(5):
        want = np.concatenate([want[4:], want[:4]]) + 1.0
    np.testing.assert_array_equal(converted(rt.constant(x), rt.constant(5)).numpy(), want)


def test_log_sigmoid_is_exact_in_both_tails_and_differentiates():
    x = np.array([-1000.0, -30.0, -1.0, 0.0, 1.0, 30.0, 1000.0], np.float64)
    with np.errstate(over="ignore"):  # the stable forms, in float64
        want = np.where(x < 0, x - np.log1p(np.exp(x)), -np.log1p(np.exp(-x)))
    np.testing.assert_allclose(rt.math.log_sigmoid(x).numpy(), want, rtol=1e-15)
    assert np.isnan(rt.math.log_sigmoid([np.nan]).numpy()[0])
    with pytest.raises(TypeError, match="floating-point"):
        rt.math.log_sigmoid([1, 2])
    v = rt.Variable(np.array([-2.0, 0.5, 3.0]))
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(rt.math.log_sigmoid(v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 1 / (1 + np.exp(np.array([-2.0, 0.5, 3.0]))))


def test_gelu_runs_as_one_row_block_region(monkeypatch):
    monkeypatch.setattr(row_blocks, "_spare_cores", lambda: True)
    graph = trace(lambda x: rt.nn.gelu(x) * 2.0, (rt.float32, (PARALLEL_MIN_ELEMENTS // 2, 2)))
    source = generated_source(make_callable(graph))
    assert source.count("_run_in_row_blocks(") == 1 and "into_Erfc" in source
    x = _values((PARALLEL_MIN_ELEMENTS // 2, 2))
    _same_bits(same_as_interpreter(graph, x)[0], (rt.nn.gelu(rt.constant(x)) * 2.0).numpy())
