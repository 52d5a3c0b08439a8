"""ag.testing's graph checks on planted bugs of their kind, and on correct code: graph vs eager (a Python side
effect baked into the graph), stale captures (a global or closure value that changed since tracing), trace
counts (an unexpected retrace) and code snapshots (a changed conversion)."""
import pytest

import autograph_lite as ag
import runtime as rt

SCALE = 2.0
OFFSET = rt.Variable(1.0)
CALLS = {'count': 0}


def scaled(x):
    return x * SCALE


def shifted(x):
    return x + OFFSET


def counting(x):
    CALLS['count'] += 1       # a Python side effect: runs while tracing only
    return x * CALLS['count']


def halve_until_small(x):
    while rt.reduce_max(rt.abs(x)) > 1.0:
        x = x / 2
    return x


def accumulate(total, x):
    total.assign_add(rt.reduce_sum(x))
    return total.read_value() * 2.0


# --- assert_graph_matches_eager ---------------------------------------------------------------------------
def test_graph_matches_eager_on_correct_code_and_reports_one_trace():
    run = ag.testing.assert_graph_matches_eager(halve_until_small, rt.constant([3.0, -1.0]))
    assert run.graph.numpy().tolist() == [0.75, -0.25] and run.eager.numpy().tolist() == [0.75, -0.25]
    assert run.traces.count == 1


def test_an_existing_function_keeps_its_traces():
    function = ag.function(halve_until_small)
    function(rt.constant([4.0]))
    assert ag.testing.assert_graph_matches_eager(function, rt.constant([8.0])).traces.count == 0
    assert function.experimental_get_tracing_count() == 1


def test_variables_start_from_the_same_state_in_both_runs_and_are_compared():
    total = rt.Variable(1.0)
    run = ag.testing.assert_graph_matches_eager(accumulate, total, rt.constant([1.0, 2.0]))
    assert float(run.graph) == float(run.eager) == 8.0
    assert float(total) == 4.0   # as if called once


def test_graph_matches_eager_fails_on_a_python_side_effect_baked_into_the_graph():
    CALLS['count'] = 0
    with pytest.raises(ag.testing.GraphEagerMismatch) as failure:
        ag.testing.assert_graph_matches_eager(counting, rt.constant([1.0, 2.0]))
    message = str(failure.value)
    assert 'counting(Tensor([1. 2.], shape=(2,), dtype=float32)): the graph does not match eager execution' in message
    assert 'result: Tensor([1. 2.], shape=(2,), dtype=float32) != Tensor([2. 4.], shape=(2,), dtype=float32)' \
        in message
    assert 'traces made by this check (1; the function holds 1 in all):\n  counting(x)' in message


def test_graph_matches_eager_compares_exception_types():
    def picky(x):
        if rt.reduce_sum(x) > 0:
            return x
        raise ValueError('not positive')   # raised while tracing by the graph, at the call eagerly
    with pytest.raises(ag.testing.GraphEagerMismatch, match="outcome: the graph raised"):
        ag.testing.assert_graph_matches_eager(picky, rt.constant([1.0]))


# --- assert_no_stale_captures -----------------------------------------------------------------------------
def test_no_stale_captures_passes_for_a_variable_and_an_argument():
    ag.testing.assert_no_stale_captures(shifted, rt.constant(2.0))
    ag.testing.assert_no_stale_captures(lambda x, s: x * s, rt.constant(2.0), rt.constant(3.0))


def test_a_global_changed_since_tracing_is_a_stale_capture(monkeypatch):
    function = ag.function(scaled)
    assert float(function(rt.constant(3.0))) == 6.0
    monkeypatch.setitem(globals(), 'SCALE', 5.0)   # the graph keeps 2.0
    with pytest.raises(ag.testing.GraphEagerMismatch) as failure:
        ag.testing.assert_no_stale_captures(function, rt.constant(3.0))
    message = str(failure.value)
    assert 'the graph as traced does not match eager execution now' in message
    assert 'result: Tensor(6.0, shape=(), dtype=float32) != Tensor(15.0, shape=(), dtype=float32)' in message
    assert 'Pass the value as an argument (a tensor' in message


def test_a_global_the_graph_bakes_in_is_found_by_changing_it():
    with pytest.raises(ag.testing.GraphEagerMismatch) as failure:
        ag.testing.assert_no_stale_captures(scaled, rt.constant(3.0))
    message = str(failure.value)
    assert f"global 'SCALE' (module {__name__}) = 2.0 was baked into the graph when it was traced: with it set to " \
           "3.0, eagerly the function returned Tensor(9.0, shape=(), dtype=float32), but the graph (not retraced) " \
           "still returned Tensor(6.0, shape=(), dtype=float32)" in message
    assert SCALE == 2.0   # put back
    ag.testing.assert_no_stale_captures(scaled, rt.constant(3.0), constants=['SCALE'])   # declared constant


def test_a_closure_value_and_a_global_read_by_a_called_function_are_found():
    threshold = 0.5

    def above(x):
        return rt.cast(x > threshold, rt.float32) * scaled(x)
    with pytest.raises(ag.testing.GraphEagerMismatch) as failure:
        ag.testing.assert_no_stale_captures(above, rt.constant([0.0, 1.0]))
    message = str(failure.value)
    assert "closure variable 'threshold' of " in message and "global 'SCALE'" in message


# --- assert_traces / count_traces -------------------------------------------------------------------------
def test_assert_traces_passes_when_the_calls_share_a_graph():
    counted = ag.testing.assert_traces(halve_until_small, [rt.constant(2.0), rt.constant(3.0)], expected=1)
    assert counted.graphs == 1 and counted.count == 1 and counted.of(halve_until_small) == 1


def test_assert_traces_counts_graphs_traced_before():
    function = ag.function(halve_until_small)
    function(rt.constant(1.0))
    counted = ag.testing.assert_traces(function, [rt.constant(2.0), rt.constant([3.0])], expected=2)
    assert (counted.graphs, counted.count) == (2, 1)


def test_assert_traces_fails_on_an_unexpected_retrace():
    function = ag.function(halve_until_small)
    with pytest.raises(AssertionError) as failure:
        ag.testing.assert_traces(function, [2.0, 3.0, rt.constant(4.0), rt.constant(5.0)], expected=1)
    message = str(failure.value)
    assert 'halve_until_small: 4 call(s) use 3 graph(s), expected 1:\n' \
           '  call #0 (2.0) -> graph 0: halve_until_small(x=2.0)\n' \
           '  call #1 (3.0) -> graph 1: halve_until_small(x=3.0)\n' \
           '  call #2 (Tensor(4.0, shape=(), dtype=float32)) -> graph 2: halve_until_small(x)\n' \
           '  call #3 (Tensor(5.0, shape=(), dtype=float32)) -> graph 2: halve_until_small(x)\n' in message
    assert '  traced during the calls (3):\n    halve_until_small(x=2.0) (call #0)\n' in message
    assert 'a Python value in the arguments is part of the signature by value' in message


def test_count_traces_counts_every_function_or_the_given_ones():
    first, second = ag.function(scaled), ag.function(halve_until_small)
    with ag.testing.count_traces() as every, ag.testing.count_traces(first) as only_first:
        first(rt.constant(1.0))
        first(rt.constant([1.0]))
        second(rt.constant(1.0))
        first(rt.constant(2.0))
    assert (every.count, every.of(first), every.of(second), only_first.count) == (3, 2, 1, 2)
    with pytest.raises(TypeError, match='is not an ag.function'):
        with ag.testing.count_traces(scaled):
            pass


# --- assert_code_matches ----------------------------------------------------------------------------------
def relu(x):
    if x > 0:
        return x
    return 0


def test_a_snapshot_is_written_on_update_and_then_matches(tmp_path):
    golden = tmp_path / 'snapshots' / 'relu.py'
    with pytest.raises(ag.testing.SnapshotMismatch, match='no snapshot of the converted code of relu at .*'
                                                          '`pytest --ag-update-snapshots`'):
        ag.testing.assert_code_matches(relu, golden)
    ag.testing.assert_code_matches(relu, golden, update=True)
    assert golden.read_text() == ag.to_code(relu)
    assert ag.testing.assert_code_matches(relu, golden) == ag.to_code(relu)
    ag.testing.assert_code_matches(relu, tmp_path / 'plain.py', form='plain', update=True)
    assert (tmp_path / 'plain.py').read_text() == ag.to_code(relu, form='plain')


def relu_changed_since():
    def relu(x):   # the same function, edited: its conversion changes
        if x >= 0:
            return x
        return 0
    return relu


def test_a_changed_conversion_fails_with_a_diff(tmp_path):
    golden = tmp_path / 'relu.py'
    ag.testing.assert_code_matches(relu, golden, update=True)
    with pytest.raises(ag.testing.SnapshotMismatch) as failure:
        ag.testing.assert_code_matches(relu_changed_since(), golden)
    message = str(failure.value)
    assert "-    ag__.if_stmt(x > 0, if_body" in message and "+    ag__.if_stmt(x >= 0, if_body" in message
    assert 'run `pytest --ag-update-snapshots` and review the diff' in message


def test_the_update_switch_rewrites_and_a_relative_path_is_the_callers(tmp_path, monkeypatch):
    golden = tmp_path / 'relu.py'
    golden.write_text('stale\n')
    ag.testing.set_update_snapshots(True)
    try:
        assert ag.testing.updating_snapshots()
        ag.testing.assert_code_matches(relu, golden)
    finally:
        ag.testing.set_update_snapshots(False)
    assert golden.read_text() == ag.to_code(relu)
    from autograph_lite.testing import snapshots
    assert snapshots._resolved('snap/relu.py', 1) == __import__('pathlib').Path(__file__).parent / 'snap' / 'relu.py'
