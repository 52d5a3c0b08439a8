"""Tests of signals.py with ag.testing and its pytest plugin (active once autograph-lite is installed)."""
import pytest

import autograph_lite as ag
import runtime as rt
from signals import clip_norm, mean_of_present, normalize, smooth_l1


@pytest.mark.parametrize('values', [[1.0, None, 3.0], [None, 2], [4]])
def test_mean_of_present_converted_behaves_like_python(values):
    ag.testing.assert_converted_equivalent(mean_of_present, values)


def test_mean_of_nothing_raises_the_same_error_converted():
    with pytest.raises(ValueError, match='no values present'):
        ag.testing.assert_converted_equivalent(mean_of_present, [None])


def test_clip_norm_in_every_mode(ag_modes):
    clipped = ag_modes.run(clip_norm, rt.constant([3.0, 4.0]), 1.0)
    assert clipped.numpy().tolist() == pytest.approx([0.6, 0.8])


def test_clip_norm_graph_matches_eager():
    ag.testing.assert_graph_matches_eager(clip_norm, rt.constant([3.0, 4.0]), rt.constant(1.0))
    ag.testing.assert_graph_matches_eager(clip_norm, rt.constant([0.3, 0.4]), rt.constant(1.0))


def test_clip_norm_reads_no_stale_globals():
    ag.testing.assert_no_stale_captures(clip_norm, rt.constant([3.0, 4.0]), rt.constant(1.0))


def test_normalize_traces_once_for_every_length():
    ag.testing.assert_traces(normalize, [rt.constant([1.0]), rt.constant([1.0, 2.0, 4.0])], expected=1)


def test_clip_norm_retraces_for_each_python_max_norm(ag_trace_count):
    graph = ag.function(clip_norm)
    graph(rt.constant([3.0, 4.0]), 1.0)
    graph(rt.constant([3.0, 4.0]), 2.0)   # a Python number is part of the signature: a new graph
    assert ag_trace_count.of(graph) == 2


def test_smooth_l1_gradients():
    ag.testing.assert_gradients_match(smooth_l1, [-2.0, -0.3, 0.5, 1.5])


def test_clip_norm_conversion_snapshot():
    # Rewrite after an intended change with: pytest --ag-update-snapshots, then review the diff.
    ag.testing.assert_code_matches(clip_norm, 'snapshots/clip_norm.py')
