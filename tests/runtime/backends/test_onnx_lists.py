"""Tensor lists export to ONNX sequences: every list op round-trips through onnxruntime and gives exactly
what our executor gives (loops carrying lists, ifs returning them, empty lists); TensorArrays do not export
and say why."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends import interpreter

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(3)
S = rt.TensorSpec


def tour(n):
    values = [100]
    for i in range(n):
        values.append(i * i)
    total = 0
    for v in values:              # iterating a list in another tensor loop
        total += v
    last = values.pop()
    first = values.pop(0)
    values[0] = -1
    values[-1] = 7
    return len(values), values[-1], values[1], last, first, total, rt.stack(values), rt.concat([rt.stack(values)], 0)


def collect(n, x):
    out = []
    for i in range(n):
        out.append(x * rt.cast(i, rt.float32))
    rows = [rt.fill([1], x)]
    for i in range(n):
        rows.append(rt.fill([i], x))   # elements of different sizes: concat joins them
    return rt.stack(out), rt.concat(rows, 0)


def branchy(x):
    xs = []
    if x > 1:                           # a tensor list out of an If
        xs.append(x)
        xs.append(x + 1)
    return rt.stack(xs), len(xs)


def rows_of(m):
    items = rt.TensorList.from_tensor(m)
    sums = []
    for row in items:
        sums.append(rt.reduce_sum(row))
    return rt.stack(sums), items[-1], items.length()


CASES = {
    "tour": (tour, [S([], rt.int32)], [[np.array(5, np.int32)], [np.array(3, np.int32)]]),
    "collect": (collect, [S([], rt.int32), S([], rt.float32)],
                [[np.array(4, np.int32), np.array(1.5, np.float32)],
                 [np.array(0, np.int32), np.array(1.5, np.float32)]]),   # zero trips: an empty stack
    "branchy": (branchy, [S([], rt.float32)], [[np.array(3.0, np.float32)], [np.array(0.0, np.float32)]]),
    "rows_of": (rows_of, [S([None, 2], rt.float32)], [[np.arange(6, dtype=np.float32).reshape(3, 2)]]),
}


def run_onnx(model, arrays):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})


@pytest.mark.parametrize("name", sorted(CASES))
def test_list_programs_match_onnxruntime_exactly(name):
    function, specs, argument_sets = CASES[name]
    concrete = ag.function(function).get_concrete_function(*specs)
    model = rt.export.to_onnx(concrete)
    node_types = {node.op_type for node in model.graph.node}
    assert not any(t.startswith("TensorList") for t in node_types)
    for arrays in argument_sets:
        ours = [np.asarray(v) for v in interpreter.run_graph(concrete.graph, arrays)]
        theirs = run_onnx(model, arrays)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
            np.testing.assert_array_equal(a, b)


def test_the_sequence_ops_used():
    concrete = ag.function(tour).get_concrete_function(S([], rt.int32))
    model = rt.export.to_onnx(concrete)

    def all_types(graph):
        for node in graph.node:
            yield node.op_type
            for attribute in node.attribute:
                if attribute.g is not None and attribute.g.node:
                    yield from all_types(attribute.g)

    used = set(all_types(model.graph))
    assert {"SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase", "SequenceLength",
            "ConcatFromSequence", "Loop"} <= used


def test_tensor_arrays_do_not_export_and_say_why():
    def array_rows(n):
        ta = rt.TensorArray(rt.float32, size=n)
        for i in rt.range(n):
            ta = ta.write(i, rt.cast(i, rt.float32))
        return ta.stack()

    concrete = ag.function(array_rows).get_concrete_function(S([], rt.int32))
    with pytest.raises(rt.errors.ExportError, match="no ONNX mapping for TensorListReserve"):
        rt.export.to_onnx(concrete)

    def array_from_outside(ta_size):
        ta = rt.TensorArray(rt.float32, size=2).unstack([1.0, 2.0])
        return ta.read(ta_size)

    concrete = ag.function(array_from_outside).get_concrete_function(S([], rt.int32))
    with pytest.raises(rt.errors.ExportError, match="TensorListReserve|TensorListScatterIntoExistingList"):
        rt.export.to_onnx(concrete)
