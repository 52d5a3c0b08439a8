"""Exported GatherV2, GatherNd, TensorScatterUpdate/Add and UnsortedSegmentSum fail on an index outside
[0, dim), as our kernels do (runtime/backends/onnx/checked_indexing.py): ONNX Gather would read -1 as the last
row, and what it does past the end is up to the runtime. In range, the exported graph gives exactly our
values. Every model runs with onnxruntime's graph optimizations off and all on (an optimizer that assumes
reshapes succeed must not be able to drop the check)."""
import numpy as np
import pytest

import runtime as rt
from runtime.backends.onnx import to_onnx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(4)

PARAMS = np.arange(12, dtype=np.float32).reshape(4, 3)


LEVELS = [ort.GraphOptimizationLevel.ORT_DISABLE_ALL, ort.GraphOptimizationLevel.ORT_ENABLE_ALL]


def sessions_of(model):
    found = []
    for level in LEVELS:
        options = ort.SessionOptions()
        options.graph_optimization_level = level
        found.append(ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]))
    return found


class Sessions:
    """The model at each optimization level: ``run`` returns the one result they agree on."""

    def __init__(self, model):
        self.sessions = sessions_of(model)

    def run(self, *arrays):
        results = [s.run(None, {i.name: a for i, a in zip(s.get_inputs(), arrays)}) for s in self.sessions]
        for other in results[1:]:
            for a, b in zip(results[0], other):
                np.testing.assert_array_equal(a, b)
        return results[0]

    def fail(self, match, *arrays):
        for session in self.sessions:
            with pytest.raises(Exception, match=match) as error:
                session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})
            assert "cannot be reshaped" in str(error.value)


def session_for(fn, *args):
    concrete = rt.Function(fn).get_concrete_function(*[rt.constant(a) for a in args])
    return concrete, Sessions(to_onnx(concrete))


def run(sessions, *arrays):
    return sessions.run(*arrays)


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
    session.fail("GatherV2/indices_in_range", PARAMS, wrong)


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
        session.fail("UnsortedSegmentSum/indices_in_range", data, wrong)


def test_the_gradient_of_a_gather_exports_with_the_check():
    @rt.function
    def grad(p, i):
        with rt.GradientTape() as tape:
            tape.watch(p)
            loss = rt.reduce_sum(rt.gather(p, i) ** 2)
        return tape.gradient(loss, p)

    indices = np.array([3, 1, 3], np.int32)
    concrete = grad.get_concrete_function(rt.constant(PARAMS), rt.constant(indices))
    session = Sessions(to_onnx(concrete))
    np.testing.assert_array_equal(run(session, PARAMS, indices)[0], concrete(rt.constant(PARAMS),
                                                                             rt.constant(indices)).numpy())
    session.fail("indices_in_range", PARAMS, np.array([3, -1, 0], np.int32))


ND_INDICES = [np.array([[0, 1], [3, 2]], np.int32), np.array([[[2]], [[0]]], np.int64), np.array([1, 0], np.int32)]


@pytest.mark.parametrize("indices", ND_INDICES)
def test_gather_nd_in_range_matches_ours_and_out_of_range_fails(indices):
    concrete, session = session_for(rt.gather_nd, PARAMS, indices)
    (theirs,) = run(session, PARAMS, indices)
    ours = concrete(rt.constant(PARAMS), rt.constant(indices)).numpy()
    assert theirs.shape == ours.shape
    np.testing.assert_array_equal(theirs, ours)
    for position in range(indices.shape[-1]):
        for bad in (-1, PARAMS.shape[position]):
            wrong = indices.copy()
            wrong[..., position].flat[-1] = bad
            with pytest.raises(rt.errors.InvalidArgumentError, match="does not index into shape"):
                concrete(rt.constant(PARAMS), rt.constant(wrong))
            session.fail("GatherNd/indices_in_range", PARAMS, wrong)


@pytest.mark.parametrize("update", [rt.tensor_scatter_nd_update, rt.tensor_scatter_nd_add])
@pytest.mark.parametrize("indices", ND_INDICES)
def test_tensor_scatter_in_range_matches_ours_and_out_of_range_fails(update, indices):
    slice_shape = PARAMS.shape[indices.shape[-1]:]
    updates = np.asarray(np.arange(np.prod(indices.shape[:-1] + slice_shape), dtype=np.float32).reshape(
        indices.shape[:-1] + slice_shape) + 100)
    concrete, session = session_for(lambda t, i, u: update(t, i, u), PARAMS, indices, updates)
    (theirs,) = run(session, PARAMS, indices, updates)
    np.testing.assert_array_equal(theirs, concrete(*[rt.constant(a) for a in (PARAMS, indices, updates)]).numpy())
    wrong = indices.copy()
    wrong.flat[0] = -1
    with pytest.raises(rt.errors.InvalidArgumentError, match="does not index into shape"):
        concrete(*[rt.constant(a) for a in (PARAMS, wrong, updates)])
    session.fail("indices_in_range", PARAMS, wrong, updates)


def test_a_run_time_python_index_is_checked_too():
    """``x[i]`` with ``i`` a tensor: -dim <= i < dim (Python's rule, ours), else the exported graph fails."""
    concrete, session = session_for(lambda p, i: (p[i], p[:, i], p[-1, i]), PARAMS, np.array(1, np.int32))
    for i in (0, 2, -1, -3):
        index = np.array(i, np.int32)
        theirs = run(session, PARAMS, index)
        ours = concrete(rt.constant(PARAMS), rt.constant(index))
        for a, b in zip(theirs, ours):
            np.testing.assert_array_equal(a, b.numpy())
    for i in (3, -4, 4, -5):   # p[i] is fine for 3 and -4 (4 rows), p[:, i] is not (3 columns)
        index = np.array(i, np.int32)
        with pytest.raises(rt.errors.InvalidArgumentError):
            concrete(rt.constant(PARAMS), rt.constant(index))
        session.fail("StridedSlice(_[0-9]+)?/indices_in_range", PARAMS, index)
