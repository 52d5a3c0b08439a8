"""Gradient graphs export to ONNX: SumToShape (a gradient summed back over broadcast axes) and a loop's
gradient round-trip through onnxruntime and agree with our executor; the gradient of a loop inside a loop
(tensor lists of tensor lists) is refused with an ExportError that says why, and no invalid model is ever
returned or written (the exporter runs onnx's full checker and turns its failure into an ExportError)."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends import interpreter
from runtime.backends.onnx import ops as onnx_ops
from runtime.core.registry import get_op

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(3)
S = rt.TensorSpec


def run_onnx(model, arrays):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})


def node_types(graph):
    for node in graph.node:
        yield node.op_type
        for attribute in node.attribute:
            if attribute.g is not None:
                yield from node_types(attribute.g)


def assert_matches_executor(concrete, argument_sets, rtol=1e-6):
    model = rt.export.to_onnx(concrete)
    for arrays in argument_sets:
        ours = [np.asarray(v) for v in interpreter.run_graph(concrete.graph, arrays)]
        theirs = run_onnx(model, arrays)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
            np.testing.assert_allclose(a, b, rtol=rtol)
    return model


def scaled_sum(x, b):
    return rt.reduce_sum(x * b)


@pytest.mark.parametrize("x_spec, b_spec, shapes", [
    # every dim known: constant axes (the leading extra axis and the size-1 axis)
    (S([2, 4, 3], rt.float32), S([4, 1], rt.float32), [((2, 4, 3), (4, 1))]),
    # unknown dims: the axes are computed from the shapes when the model runs
    (S([None, 3], rt.float32), S([None, 1], rt.float32), [((4, 3), (4, 1)), ((4, 3), (1, 1)), ((1, 3), (1, 1))]),
    (S([None, None], rt.float32), S([None], rt.float32), [((2, 5), (5,)), ((2, 5), (1,)), ((3, 1), (1,))]),
])
def test_sum_to_shape_exports_and_matches_the_kernel(x_spec, b_spec, shapes):
    grad = rt.function_gradient(ag.function(scaled_sum).get_concrete_function(x_spec, b_spec), wrt=["x", "b"])
    rng = np.random.default_rng(0)
    argument_sets = [[rng.standard_normal(xs).astype(np.float32), rng.standard_normal(bs).astype(np.float32)]
                     for xs, bs in shapes]
    model = assert_matches_executor(grad, argument_sets)
    assert "ReduceSum" in set(node_types(model.graph))
    for arrays in argument_sets:   # the gradient wrt b is x summed over b's broadcast axes
        x, b = arrays
        expected = np.sum(x * np.ones_like(b), axis=tuple(range(x.ndim - b.ndim)))
        expected = np.sum(expected, axis=tuple(i for i, d in enumerate(b.shape) if d == 1), keepdims=True)
        np.testing.assert_allclose(run_onnx(rt.export.to_onnx(grad), arrays)[1], expected, rtol=1e-5)


def test_sum_to_shape_is_not_in_not_exported():
    assert "SumToShape" in rt.export.exportable_op_types()
    assert get_op("SumToShape") not in onnx_ops.NOT_EXPORTED


def damped(x, w, n):
    total = x
    for i in range(n):
        total = total * 0.9 + rt.sin(total) * w
    return rt.reduce_sum(total)


LOOP_ARGS = [[np.array([0.1, 0.5, 1.0], np.float32), np.array([0.3], np.float32), np.array(n, np.int32)]
             for n in (3, 1, 0)]


def test_a_loop_gradient_exports_and_matches_the_executor():
    forward = ag.function(damped).get_concrete_function(S([3], rt.float32), S([1], rt.float32), S([], rt.int32))
    model = assert_matches_executor(rt.function_gradient(forward, wrt=["x", "w"]), LOOP_ARGS)
    assert {"Loop", "SequenceInsert", "SequenceAt", "ReduceSum"} <= set(node_types(model.graph))


def test_a_tape_loop_gradient_in_a_function_exports_and_matches_the_executor():
    @ag.function
    def step(x, w, n):
        with rt.GradientTape() as tape:
            tape.watch(w)
            loss = damped(x, w, n)
        return loss, tape.gradient(loss, w)

    assert_matches_executor(step.get_concrete_function(S([3], rt.float32), S([1], rt.float32), S([], rt.int32)),
                            LOOP_ARGS)


def nested(x, n, m):
    total = x
    for i in range(n):
        for j in range(m):
            total = total * 0.9 + rt.sin(total) * x
    return rt.reduce_sum(total)


NESTED_SPECS = (S([3], rt.float32), S([], rt.int32), S([], rt.int32))


def test_a_nested_loop_gradient_is_refused_and_nothing_is_written(tmp_path):
    grad = rt.function_gradient(ag.function(nested).get_concrete_function(*NESTED_SPECS), wrt=["x"])
    path = tmp_path / "grad.onnx"
    with pytest.raises(rt.errors.ExportError) as caught:
        rt.export.to_onnx(grad, path)
    message = str(caught.value)
    assert message.startswith("cannot export 'nested_gradient' to ONNX: a tensor list holds tensor lists at ")
    assert "TensorListPushBack (node 'while_accumulate_1', 'while_accumulate_2')" in message
    assert "ONNX's sequence ops hold only tensors" in message
    assert not path.exists()
    # the forward function still exports, and the gradient still runs here
    assert_matches_executor(ag.function(nested).get_concrete_function(*NESTED_SPECS),
                            [[np.array([0.1, 0.5, 1.0], np.float32), np.array(2, np.int32), np.array(3, np.int32)]])


def test_a_tape_over_a_nested_loop_in_a_function_is_refused():
    @ag.function
    def nested_step(x, n, m):
        with rt.GradientTape() as tape:
            tape.watch(x)
            loss = nested(x, n, m)
        return tape.gradient(loss, x)

    with pytest.raises(rt.errors.ExportError, match="cannot export 'nested_step' to ONNX: a tensor list holds "
                                                    "tensor lists at TensorListFromTensors"):
        rt.export.to_onnx(nested_step.get_concrete_function(*NESTED_SPECS))


def test_an_invalid_model_is_an_export_error_and_is_not_written(tmp_path, monkeypatch):
    def wrong_neg(b, op, inputs):   # logical Not of a float: only type inference sees the problem
        return [b.one("Not", inputs, op.name)]

    monkeypatch.setitem(onnx_ops.CONVERTERS, get_op("Neg"), wrong_neg)
    concrete = ag.function(lambda x: -x).get_concrete_function(S([2], rt.float32))
    path = tmp_path / "neg.onnx"
    with pytest.raises(rt.errors.ExportError, match="made an invalid ONNX model \\(a bug in the exporter"):
        rt.export.to_onnx(concrete, path)
    assert not path.exists()


def test_a_list_rnn_training_step_exports_and_matches_the_executor():
    @ag.function
    def rnn_step(xs, W, h):
        with rt.GradientTape() as tape:
            tape.watch(W)
            outs = []
            for t in rt.range(rt.shape(xs)[0]):
                h = rt.tanh(rt.matmul(xs[t:t + 1], W) + h)
                outs.append(h)
            loss = rt.reduce_sum(rt.stack(outs) ** 2)
        return loss, tape.gradient(loss, W)

    concrete = rnn_step.get_concrete_function(S([None, 2], rt.float32), S([2, 2], rt.float32), S([1, 2], rt.float32))
    rng = np.random.default_rng(3)
    argument_sets = [[rng.standard_normal((t, 2)).astype(np.float32), rng.standard_normal((2, 2)).astype(np.float32),
                      np.zeros((1, 2), np.float32)] for t in (4, 1)]
    model = assert_matches_executor(concrete, argument_sets, rtol=1e-5)
    assert {"Loop", "SequenceInsert", "SequenceAt", "SplitToSequence"} <= set(node_types(model.graph))


def sliced(x, i):
    return (rt.reduce_sum(x[1:, ::2] * 3.0) + rt.reduce_sum(x[i] ** 2) + rt.reduce_sum(x[..., -1])
            + rt.reduce_sum(x[None, 2:] * 5.0))


@pytest.mark.parametrize("spec", [S([4, 5], rt.float32), S([None, None], rt.float32)])
def test_the_gradient_of_slicing_exports_and_matches_the_executor(spec):
    grad = rt.function_gradient(ag.function(sliced).get_concrete_function(spec, S([], rt.int32)), wrt="x")
    rng = np.random.default_rng(4)
    argument_sets = [[rng.standard_normal((4, 5)).astype(np.float32), np.array(i, np.int32)] for i in (0, 2, -1)]
    model = assert_matches_executor(grad, argument_sets)
    assert "ScatterND" in set(node_types(model.graph))
    x = argument_sets[1][0]
    expected = np.zeros_like(x)
    expected[1:, ::2] += 3.0
    expected[2] += 2 * x[2]
    expected[..., -1] += 1.0
    expected[2:] += 5.0
    np.testing.assert_allclose(run_onnx(rt.export.to_onnx(grad), argument_sets[1])[0], expected, rtol=1e-6)


def gathered(table, rows):
    return rt.reduce_sum(rt.gather(table, rows) * 2.0) + rt.reduce_sum(rt.gather(table, [[1, 1], [0, 2]], axis=1))


def test_the_gradient_of_a_gather_exports_and_repeated_rows_add_up():
    spec = [S([3, 4], rt.float32), S([None], rt.int32)]
    grad = rt.function_gradient(ag.function(gathered).get_concrete_function(*spec), wrt="table")
    table = np.arange(12, dtype=np.float32).reshape(3, 4)
    argument_sets = [[table, np.array(r, np.int32)] for r in ([2, 0, 2, 2], [1], [])]
    model = assert_matches_executor(grad, argument_sets)
    assert "ScatterND" in set(node_types(model.graph))
    expected = np.zeros_like(table)
    expected[2] += 3 * 2.0
    expected[0] += 2.0
    expected[:, 1] += 2.0
    expected[:, 0] += 1.0
    expected[:, 2] += 1.0
    np.testing.assert_array_equal(run_onnx(rt.export.to_onnx(grad), argument_sets[0])[0], expected)


def list_read_twice(xs, W):
    with rt.GradientTape() as tape:
        tape.watch(W)
        outs = []
        h = rt.zeros([1, 2])
        for t in rt.range(rt.shape(xs)[0]):
            h = rt.tanh(rt.matmul(xs[t:t + 1], W) + h)
            outs.append(h)
        loss = rt.reduce_sum(rt.stack(outs) ** 2) + rt.reduce_sum(outs[-1] * 3.0)   # two reads: TensorListAddN
    return tape.gradient(loss, W)


def list_concatenated_and_popped(xs, W):
    with rt.GradientTape() as tape:
        tape.watch(W)
        outs = []
        for t in rt.range(rt.shape(xs)[0]):
            outs.append(rt.matmul(xs[: t + 1], W)[:, 0])   # elements of lengths 1, 2, ...
        first = outs.pop(0)                                   # TensorListInsertItem in the gradient
        loss = rt.reduce_sum(rt.concat(outs, 0) ** 2) * rt.reduce_sum(first)   # TensorListSplitLike
    return tape.gradient(loss, W)


def op_types(graph):
    for op in graph.operations:
        yield op.type
        for sub in op.subgraphs():
            yield from op_types(sub)


@pytest.mark.parametrize("program, gradient_ops", [
    (list_read_twice, {"TensorListAddN", "TensorListZerosLike"}),
    (list_concatenated_and_popped, {"TensorListInsertItem", "TensorListSplitLike"})])
def test_list_gradient_ops_export_and_match_the_executor(program, gradient_ops):
    concrete = ag.function(program).get_concrete_function(S([None, 2], rt.float32), S([2, 2], rt.float32))
    assert gradient_ops <= set(op_types(concrete.graph))
    rng = np.random.default_rng(5)
    argument_sets = [[rng.standard_normal((t, 2)).astype(np.float32), rng.standard_normal((2, 2)).astype(np.float32)]
                     for t in (4, 2)]
    assert_matches_executor(concrete, argument_sets, rtol=1e-5)
