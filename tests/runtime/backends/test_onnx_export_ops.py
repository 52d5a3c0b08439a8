"""ONNX round trips of the tf.math / tf.nn / tf.linalg / array ops: onnxruntime's output equals our
executor's (exactly; transcendental functions to float32 precision)."""
import numpy as np
import pytest

import runtime as rt
from artifact_graphs import run, trace
from runtime.backends.onnx import to_onnx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(3)
S = rt.TensorSpec


def run_onnx(model, *arrays):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})


def round_trip(function, specs, arrays, rtol=0.0):
    graph = trace(function, *specs)
    model = to_onnx(graph)
    onnx.checker.check_model(model)
    ours, theirs = run(graph, *arrays), run_onnx(model, *arrays)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        if rtol:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-7)
        else:
            np.testing.assert_array_equal(a, b)
    return model


EDGES = np.array([[0.5, -1.5, 2.5, 2.5, -0.5], [np.nan, np.inf, -np.inf, 1e-3, -30.0]], np.float32)
ROUNDED = np.array([[1, 3, 3, 2, 0], [5, 5, 5, 0, -2]], np.float32)

EXACT = {  # op type: (function, specs, arrays)
    "Floor": (rt.floor, [S([None, 5])], [EDGES]), "Ceil": (rt.math.ceil, [S([None, 5])], [EDGES]),
    "Round": (rt.round, [S([None, 5])], [EDGES]),
    "Round_int": (rt.round, [S([3], rt.int32)], [np.array([1, -2, 3], np.int32)]),
    "IsNan": (rt.math.is_nan, [S([None, 5])], [EDGES]), "IsFinite": (rt.math.is_finite, [S([None, 5])], [EDGES]),
    "Reciprocal": (rt.math.reciprocal, [S([None, 5])], [EDGES]),
    "TopKV2": (lambda x: rt.math.top_k(x, 3), [S([None, 5])], [ROUNDED]),
    "TopKV2_run_time_k": (lambda x, k: rt.math.top_k(x, k, index_type=rt.int64), [S([2, 5]), S([], rt.int32)],
                          [ROUNDED, np.array(2, np.int32)]),
    "Sort": (lambda x: (rt.sort(x), rt.sort(x, 0, "DESCENDING")), [S([None, 5])], [ROUNDED]),
    "ArgSort": (lambda x: (rt.argsort(x), rt.argsort(x, 0, "DESCENDING"), rt.argsort(x, -1, "DESCENDING")),
                [S([None, 5])], [ROUNDED]),
    "Unique": (lambda x: tuple(rt.unique(x)), [S([None], rt.int32)], [np.array([4, 1, 4, 2, 1, 7], np.int32)]),
    "UniqueWithCounts": (lambda x: tuple(rt.unique_with_counts(x, rt.int64)), [S([None])],
                         [np.array([2.5, -1.0, 2.5, 0.0], np.float32)]),
}
CLOSE = {
    "Tanh": (rt.tanh, [S([None, 5])], [EDGES]), "Sigmoid": (rt.sigmoid, [S([None, 5])], [EDGES]),
    "Softplus": (rt.math.softplus, [S([None, 5])], [EDGES]), "Sin": (rt.sin, [S([None, 5])], [ROUNDED]),
    "LogSigmoid": (rt.math.log_sigmoid, [S([None, 5])], [EDGES]),
    "Cos": (rt.cos, [S([None, 5])], [ROUNDED]), "Erf": (rt.math.erf, [S([None, 5])], [EDGES]),
    "Rsqrt": (rt.math.rsqrt, [S([None, 5])], [np.abs(EDGES)]),
    "reduce_logsumexp": (lambda x: (rt.reduce_logsumexp(x, 1), rt.reduce_logsumexp(x * 100.0, 0, keepdims=True)),
                         [S([None, 5])], [ROUNDED]),
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact_round_trip(name):
    function, specs, arrays = EXACT[name]
    round_trip(function, specs, arrays)


@pytest.mark.parametrize("name", sorted(CLOSE))
def test_round_trip_to_float32_precision(name):
    function, specs, arrays = CLOSE[name]
    round_trip(function, specs, arrays, rtol=1e-6)


def test_ties_export_with_the_lower_index_first():
    model = round_trip(lambda x: rt.math.top_k(x, 4)[1], [S([8])], [np.array([2, 7, 7, 1, 7, 2, 7, 0], np.float32)])
    assert "TopK" in {node.op_type for node in model.graph.node}


NN = {
    "Relu": (lambda x: rt.nn.relu(x), [S([None, 5])], [EDGES]),
    "Relu_int": (lambda x: (rt.nn.relu(x), rt.nn.relu6(x)), [S([4], rt.int32)], [np.array([-3, 0, 4, 9], np.int32)]),
    "Relu6": (rt.nn.relu6, [S([None, 5])], [EDGES * 3]),
    "LeakyRelu": (lambda x: rt.nn.leaky_relu(x, 0.1), [S([None, 5])], [EDGES]),
}
NN_CLOSE = {
    "Elu": (rt.nn.elu, [S([None, 5])], [ROUNDED - 3]),
    "Softmax": (lambda x: (rt.nn.softmax(x), rt.nn.softmax(x * 500.0, 0)), [S([None, 5])], [ROUNDED]),
    "LogSoftmax": (lambda x: (rt.nn.log_softmax(x), rt.nn.log_softmax(x * 500.0, 0)), [S([None, 5])], [ROUNDED]),
    "composites": (lambda x: (rt.nn.gelu(x, approximate=True), rt.nn.l2_normalize(x, 1),
                              rt.nn.sigmoid_cross_entropy_with_logits(labels=x * 0.1, logits=x),
                              rt.nn.softmax_cross_entropy_with_logits(labels=rt.nn.softmax(x), logits=x)),
                   [S([None, 5])], [ROUNDED]),
}


@pytest.mark.parametrize("name", sorted(NN))
def test_nn_exact_round_trip(name):
    function, specs, arrays = NN[name]
    round_trip(function, specs, arrays)


@pytest.mark.parametrize("name", sorted(NN_CLOSE))
def test_nn_round_trip_to_float32_precision(name):
    function, specs, arrays = NN_CLOSE[name]
    round_trip(function, specs, arrays, rtol=1e-6)


SQUARE = np.array([[[4, 1, 0], [1, 5, 2], [0, 2, 6]], [[2, 0, 0], [0, 3, 1], [1, 0, 1]]], np.float32)
INTS = np.array([[1, -2, 3, 0], [4, 5, -6, 2]], np.int32)
ARRAYS = {
    "MatrixDeterminant": (rt.linalg.det, [S([None, 3, 3])], [SQUARE], 1e-5),
    "Einsum": (lambda a, b: (rt.einsum("bij,bjk->bik", a, a), rt.einsum("ii->i", b), rt.einsum("...j,...j->...", a, a)),
               [S([None, 3, 3]), S([3, 3])], [SQUARE, SQUARE[0]], 1e-6),
    "Einsum_int": (lambda x: rt.einsum("ij,kj->ik", x, x), [S([None, 4], rt.int32)], [INTS], 0),
    "ClipByValue": (lambda x, low: (rt.clip_by_value(x, -1, 3), rt.clip_by_value(x, low, 2)),
                    [S([None, 4], rt.int32), S([4], rt.int32)], [INTS, np.array([0, 1, -9, 5], np.int32)], 0),
    "OneHot": (lambda i: (rt.one_hot(i, 4), rt.one_hot(i, 3, on_value=7, off_value=-1, axis=0)),
               [S([None, 4], rt.int32)], [INTS], 0),
    "PadV2": (lambda x: (rt.pad(x, [[1, 0], [2, 1]]), rt.pad(x, [[0, 1], [0, 0]], constant_values=9)),
              [S([None, 4], rt.int32)], [INTS], 0),
    "MirrorPad": (lambda x: rt.pad(x, [[1, 1], [3, 2]], "REFLECT"), [S([None, 4])], [INTS.astype(np.float32)], 0),
    "ReverseV2": (lambda x: (rt.reverse(x, [0]), rt.reverse(x, [-1, 0]), rt.reverse(x, [])),
                  [S([None, 4], rt.int32)], [INTS], 0),
    "BroadcastTo": (lambda x, n: (rt.broadcast_to(x, [3, 2, 4]), rt.broadcast_to(x[:1], [n, 4])),
                    [S([2, 4], rt.int32), S([], rt.int32)], [INTS, np.array(5, np.int32)], 0),
    "SplitV": (lambda x: (*rt.split(x, 2, axis=1), *rt.split(x, [1, -1], axis=1), *rt.split(x, [3, 1], axis=-1),
                          *rt.split(x, 1)), [S([None, 4], rt.int32)], [INTS], 0),
    "Unpack": (lambda x: (*rt.unstack(x, axis=1), *rt.unstack(x[:1], num=1)), [S([None, 4], rt.int32)], [INTS], 0),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_linalg_and_array_ops_round_trip(name):
    function, specs, arrays, rtol = ARRAYS[name]
    round_trip(function, specs, arrays, rtol=rtol)


def test_symmetric_pad_names_the_missing_mode():
    from runtime.core.errors import ExportError
    graph = trace(lambda x: rt.pad(x, [[1, 1]], "SYMMETRIC"), S([3]))
    with pytest.raises(ExportError, match="MirrorPad mode SYMMETRIC cannot be exported"):
        to_onnx(graph)
