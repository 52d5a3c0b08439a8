"""The pytest plugin of ``autograph_lite.testing`` (a ``pytest11`` entry point: active once autograph-lite is
installed; without installing, ``pytest -p autograph_lite.testing.plugin``).

- ``--ag-update-snapshots``: ``ag.testing.assert_code_matches`` rewrites its golden files instead of comparing;
- the ``ag_modes`` fixture runs a test once per mode (eager, graph, plain, staged): ``ag_modes.run(f, *args)``;
- the ``ag_trace_count`` fixture counts the traces made during the test (``ag_trace_count.count``);
- the ``ag_run_eagerly`` marker runs a test under ``ag.run_functions_eagerly(True)``;
- a failed test's report gets two sections: the generated code of the functions it traced or gave to an
  ``ag.testing`` assertion, and the traces it made, per function.

A test using ``ag_modes`` runs four times, with these ids:

>>> [mode.name for mode in forms.MODES]
['eager', 'graph', 'plain', 'staged']
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List

import pytest

from autograph_lite import api
from autograph_lite.testing import forms, snapshots, subjects
from autograph_lite.testing.traces import TraceCount
from runtime.tracing.function import trace_observers

MARKER = 'ag_run_eagerly'
_RECORDER = pytest.StashKey[TraceCount]()
_UPDATING = pytest.StashKey[bool]()
_MAX_FUNCTIONS_SHOWN = 5


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup('autograph_lite', 'autograph_lite.testing')
    group.addoption('--ag-update-snapshots', action='store_true', default=False,
                    help='rewrite the golden files of ag.testing.assert_code_matches with the current ag.to_code '
                         'output (review the diff in version control)')


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line('markers', f'{MARKER}: run the test with ag.run_functions_eagerly(True) (every '
                                       'ag.function call runs its Python function op by op)')
    if config.getoption('ag_update_snapshots', False):
        config.stash[_UPDATING] = snapshots.updating_snapshots()
        snapshots.set_update_snapshots(True)



def pytest_unconfigure(config: pytest.Config) -> None:
    if _UPDATING in config.stash:
        snapshots.set_update_snapshots(config.stash[_UPDATING])


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if 'ag_modes' in metafunc.fixturenames:
        metafunc.parametrize('ag_modes', forms.MODES, ids=[mode.name for mode in forms.MODES], indirect=True)


@pytest.fixture
def ag_modes(request: pytest.FixtureRequest) -> forms.Mode:
    """One way of running a function per run of the test: eager, graph, plain form, staged form.

    ``ag_modes.run(f, *args)`` runs ``f`` that way; ``ag_modes.name`` says which."""
    return request.param


@pytest.fixture
def ag_trace_count(request: pytest.FixtureRequest) -> TraceCount:
    """The traces made during the test so far: ``.count``, ``.of(function)``, ``.traces``."""
    return request.node.stash[_RECORDER]


def pytest_runtest_setup(item: pytest.Item) -> None:
    subjects.clear()
    counter = item.stash[_RECORDER] = TraceCount()
    trace_observers.append(counter._observe)   # what count_traces() does, without a context manager per test


def pytest_runtest_teardown(item: pytest.Item) -> None:
    # Items live for the whole session: drop what the test traced, so its graphs can be freed.
    counter = item.stash.get(_RECORDER, None)
    if counter is not None:
        trace_observers.remove(counter._observe)
        del item.stash[_RECORDER]
    subjects.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    if item.get_closest_marker(MARKER) is None:
        yield
        return
    with forms.eagerly(True):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == 'call' and _RECORDER in item.stash:
        for title, text in _failure_sections(item.stash[_RECORDER]):
            report.sections.append((title, text))


def _functions_involved(traces: TraceCount) -> List[Callable]:
    found: Dict[int, Callable] = {}
    for function in subjects.noted():
        found.setdefault(id(function), function)
    for trace in traces.traces:
        python_function = trace.function.python_function
        found.setdefault(id(python_function), python_function)
    return list(found.values())


def _generated_code(function: Callable) -> str:
    try:
        return api.to_code(function)
    except Exception as error:  # a report must not fail: say why the code cannot be shown
        return f'(no generated code: {type(error).__name__}: {error})'


def _failure_sections(traces: TraceCount) -> List[tuple]:
    functions = _functions_involved(traces)
    sections = []
    if functions:
        shown = functions[:_MAX_FUNCTIONS_SHOWN]
        text = '\n'.join(f'# ag.to_code({getattr(f, "__qualname__", f)})\n{_generated_code(f)}' for f in shown)
        if len(functions) > len(shown):
            text += f'\n# ... and {len(functions) - len(shown)} more function(s)\n'
        sections.append(('autograph_lite: generated code', text))
    if traces.count:
        counts: Dict[int, List[Any]] = {}
        for trace in traces.traces:
            counts.setdefault(id(trace.function), []).append(trace)
        lines = [f'{traces.count} trace(s) during the test:']
        for same in counts.values():
            name = getattr(same[0].function, '__name__', '?')
            lines.append(f'  {name}: {len(same)} trace(s), holds {same[0].function.experimental_get_tracing_count()} '
                         'graph(s) now')
            lines += [f'    {trace.concrete.pretty_printed_signature().splitlines()[0]}' for trace in same]
        sections.append(('autograph_lite: traces', '\n'.join(lines) + '\n'))
    return sections
