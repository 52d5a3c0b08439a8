"""Exported GatherV2 and UnsortedSegmentSum fail on an index outside [0, dim), as our kernels do
(runtime/backends/onnx/checked_indexing.py): ONNX Gather would read -1 as the last row, and what it does past
the end is up to the runtime. In range, the exported graph gives exactly our values."""
import numpy as np
import pytest

import runtime as rt
from runtime.backends.onnx import to_onnx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(4)

PARAMS = np.arange(12, dtype=np.float32).reshape(4, 3)


def session_for(fn, *args):
    concrete = rt.Function(fn).get_concrete_function(*[rt.constant(a) for a in args])
    model = to_onnx(concrete)
    return concrete, ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def run(session, *arrays):
    return session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})


def gather_cases():
    return [  # (axis, valid indices of various ranks, a bad index value)
        (0, np.array([3, 0, 0], np.int32)),
        (0, np.array([[1, 2], [3, 0]], np.int64)),
        (1, np.array([2, 0], np.int32)),
        (1, np.array(1, np.int32)),
        (0, np.zeros((0,), np.int32)),
    ]


@pytest.mark.parametrize("axis,indices", gather_cases())
def test_gather_in_range_matches_ours_exactly(axis, indices):
    concrete, session = session_for(lambda p, i: rt.gather(p, i, axis=axis), PARAMS, indices)
    (theirs,) = run(session, PARAMS, indices)
    ours = concrete(rt.constant(PARAMS), rt.constant(indices)).numpy()
    assert theirs.shape == ours.shape == np.take(PARAMS, indices, axis=axis).shape
    np.testing.assert_array_equal(theirs, ours)


@pytest.mark.parametrize("axis,indices", [c for c in gather_cases() if c[1].size])
@pytest.mark.parametrize("bad", ["negative", "past the end"])
def test_gather_out_of_range_fails_in_onnxruntime_as_in_our_kernel(axis, indices, bad):
    concrete, session = session_for(lambda p, i: rt.gather(p, i, axis=axis), PARAMS, indices)
    wrong = indices.copy()
    wrong.flat[-1] = -1 if bad == "negative" else PARAMS.shape[axis]
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"is not in \[0, %d\)" % PARAMS.shape[axis]):
        concrete(rt.constant(PARAMS), rt.constant(wrong))
    with pytest.raises(Exception, match="GatherV2/indices_in_range") as error:
        run(session, PARAMS, wrong)
    assert "cannot be reshaped" in str(error.value)


def test_the_exported_gather_reads_only_checked_indices():
    concrete = rt.Function(lambda p, i: rt.gather(p, i)).get_concrete_function(
        rt.constant(PARAMS), rt.constant(np.array([1], np.int32)))
    model = to_onnx(concrete)
    producers = {out: node for node in model.graph.node for out in node.output}
    (gather,) = [node for node in model.graph.node if node.op_type == "Gather"]
    assert producers[gather.input[1]].name == "GatherV2/indices_in_range"


@pytest.mark.parametrize("ids", [np.array([0, 2, 0, 1], np.int32), np.array([[0, 2], [2, 1]], np.int64)])
def test_unsorted_segment_sum_in_range_matches_ours_and_out_of_range_fails(ids):
    data = np.arange(ids.size * 2, dtype=np.float32).reshape(ids.shape + (2,))
    concrete, session = session_for(lambda d, i: rt.unsorted_segment_sum(d, i, 3), data, ids)
    (theirs,) = run(session, data, ids)
    ours = concrete(rt.constant(data), rt.constant(ids)).numpy()
    np.testing.assert_array_equal(theirs, ours)
    assert ours.shape == (3, 2)
    for bad in (-1, 3):
        wrong = ids.copy()
        wrong.flat[0] = bad
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"not in \[0, 3\)"):
            concrete(rt.constant(data), rt.constant(wrong))
        with pytest.raises(Exception, match="UnsortedSegmentSum/indices_in_range"):
            run(session, data, wrong)


def test_the_gradient_of_a_gather_exports_with_the_check():
    @rt.function
    def grad(p, i):
        with rt.GradientTape() as tape:
            tape.watch(p)
            loss = rt.reduce_sum(rt.gather(p, i) ** 2)
        return tape.gradient(loss, p)

    indices = np.array([3, 1, 3], np.int32)
    concrete = grad.get_concrete_function(rt.constant(PARAMS), rt.constant(indices))
    session = ort.InferenceSession(to_onnx(concrete).SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(run(session, PARAMS, indices)[0], concrete(rt.constant(PARAMS),
                                                                             rt.constant(indices)).numpy())
    with pytest.raises(Exception, match="indices_in_range"):
        run(session, PARAMS, np.array([3, -1, 0], np.int32))
