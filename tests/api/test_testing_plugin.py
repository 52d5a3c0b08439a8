"""The pytest plugin of ag.testing: here through the suite's own `-p autograph_lite.testing.plugin` (the fixtures
and the marker), and in a pytest run of its own on a small test file (ids, report sections, the snapshot
option) -- two subprocess runs, since each starts a Python; and the example project examples/testing."""
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

import autograph_lite as ag
import runtime as rt

ROOT = pathlib.Path(__file__).resolve().parents[2]


def relu(x):
    if x > 0:
        return x
    return x * 0


def test_ag_modes_runs_each_mode(ag_modes, request):
    assert request.node.callspec.id == ag_modes.name
    result = ag_modes.run(relu, rt.constant(-2.0))
    assert float(result) == 0.0


def test_ag_trace_count_counts_this_tests_traces(ag_trace_count):
    function = ag.function(relu)
    function(rt.constant(1.0))
    function(rt.constant(2.0))
    function(rt.constant([1.0]))
    assert ag_trace_count.count == 2 and ag_trace_count.of(function) == 2


@pytest.mark.ag_run_eagerly
def test_the_marker_runs_functions_eagerly(ag_trace_count):
    assert ag.functions_run_eagerly()
    assert float(ag.function(relu)(rt.constant(3.0))) == 3.0
    assert ag_trace_count.count == 0


def test_without_the_marker_functions_run_as_graphs():
    assert not ag.functions_run_eagerly()


USER_TESTS = '''
import pathlib
import pytest
import autograph_lite as ag
import runtime as rt


def clip(x):
    if rt.reduce_max(x) > 1.0:
        x = x / rt.reduce_max(x)
    return x


def test_modes(ag_modes):
    assert float(rt.reduce_max(ag_modes.run(clip, rt.constant([4.0, 2.0])))) == 1.0


def test_fails_after_tracing():
    f = ag.function(clip)
    f(rt.constant([3.0]))
    f(rt.constant([3.0, 1.0]))
    ag.testing.assert_traces(f, [rt.constant([2.0])], expected=1)   # reuses the first graph
    assert False, 'planted failure'


def test_snapshot():
    ag.testing.assert_code_matches(clip, 'snapshots/clip.py')
'''


def run_pytest(directory: pathlib.Path, *options: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    # -c: this directory's own settings, not the repository's (whose addopts load the plugin already)
    config = directory / 'pytest.ini' if (directory / 'pytest.ini').exists() else os.devnull
    return subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-c', str(config),
                           '--rootdir', str(directory), '-p', 'autograph_lite.testing.plugin', *options,
                           str(directory)], capture_output=True, text=True, env=env, cwd=directory, timeout=300)


def test_a_user_test_run_with_the_plugin(tmp_path):
    (tmp_path / 'test_user.py').write_text(textwrap.dedent(USER_TESTS))
    first = run_pytest(tmp_path, '-rA')
    out = first.stdout
    assert first.returncode == 1, out + first.stderr
    for mode in ('eager', 'graph', 'plain', 'staged'):
        assert f'PASSED test_user.py::test_modes[{mode}]' in out
    assert 'FAILED test_user.py::test_fails_after_tracing - AssertionError: planted failure' in out
    # the report sections of the failed test: generated code and traces
    assert '- autograph_lite: generated code -' in out and '# ag.to_code(clip)\ndef clip(x):' in out
    assert '- autograph_lite: traces -' in out
    assert '2 trace(s) during the test:\n  clip: 2 trace(s), holds 2 graph(s) now\n    clip(x)\n    clip(x)' in out
    assert 'FAILED test_user.py::test_snapshot' in out and 'SnapshotMismatch: no snapshot of the converted code of ' \
        'clip at' in out

    updating = run_pytest(tmp_path, '--ag-update-snapshots', '-k', 'snapshot')
    assert updating.returncode == 0, updating.stdout + updating.stderr
    assert (tmp_path / 'snapshots' / 'clip.py').read_text().startswith('def clip(x):')


def test_the_example_project_passes(tmp_path):
    """examples/testing (docs/TESTING.md's worked example) is a project of its own: its tests pass with the plugin,
    its snapshot included (run in a copy, so that hypothesis's example database stays out of the repository)."""
    project = tmp_path / 'project'
    shutil.copytree(ROOT / 'examples' / 'testing', project, ignore=shutil.ignore_patterns('__pycache__', '.hypothesis'))
    result = run_pytest(project, '-rs')
    passed = 15 if importlib.util.find_spec('hypothesis') else 14
    assert result.returncode == 0 and f'{passed} passed' in result.stdout, result.stdout + result.stderr
