"""``ag.testing``: the toolkit for unit tests over conversions, and a pytest plugin.

What a test of a converted function wants to say, each in one call (docs/TESTING.md is the guide):

- ``assert_converted_equivalent(f, *args)``: converted == original on Python values (return value,
  exception, printed output, argument mutations, warnings), in both forms of the converted code;
- ``assert_graph_matches_eager(f, *args)``: the graph computes what eager execution computes;
  ``assert_no_stale_captures(f, *args)``: the graph did not bake in a global or closure value;
- ``assert_gradients_match(f, *args)``: tape gradients (eager and in a graph) == finite differences;
- ``assert_traces(f, calls, expected=N)`` and ``count_traces()``: "these calls make N graphs";
- ``assert_code_matches(f, path)``: ``ag.to_code(f)`` == a golden file (``pytest --ag-update-snapshots``);
- ``strategies`` and ``given_signature(f)``: hypothesis property tests (needs the ``[testing]`` extra);
- ``MODES`` / ``in_form``: run a function eagerly, as a graph, or converted in either form.

The pytest plugin (``autograph_lite.testing.plugin``, registered as a ``pytest11`` entry point) adds the
``ag_modes`` and ``ag_trace_count`` fixtures, the ``ag_run_eagerly`` marker, ``--ag-update-snapshots``, and
report sections with the generated code and trace counts of a failed test.

>>> import autograph_lite as ag
>>> def sign(x):
...     if x > 0:
...         return 1
...     elif x < 0:
...         return -1
...     return 0
>>> [ag.testing.assert_converted_equivalent(sign, x) for x in (-2, 0, 5)]
[-1, 0, 1]
"""
from typing import Any

from autograph_lite.testing.equivalence import ConversionMismatch, Outcome, assert_converted_equivalent
from autograph_lite.testing.forms import EAGER, FORMS, GRAPH, MODES, PLAIN, STAGED, Mode, form_context, in_form
from autograph_lite.testing.gradients import GradientCheck, assert_gradients_match
from autograph_lite.testing.graphs import (GraphEagerMismatch, GraphRun, assert_graph_matches_eager,
                                           assert_no_stale_captures)
from autograph_lite.testing.snapshots import (SnapshotMismatch, assert_code_matches, set_update_snapshots,
                                              updating_snapshots)
from autograph_lite.testing.traces import TraceCount, assert_traces, count_traces
from autograph_lite.testing.values import difference, to_python

__all__ = ['assert_converted_equivalent', 'assert_graph_matches_eager', 'assert_no_stale_captures',
           'assert_gradients_match', 'assert_traces', 'count_traces', 'assert_code_matches', 'given_signature',
           'strategies', 'set_update_snapshots', 'updating_snapshots', 'MODES', 'EAGER', 'GRAPH', 'PLAIN', 'STAGED',
           'Mode', 'FORMS', 'in_form', 'form_context', 'to_python', 'difference', 'ConversionMismatch',
           'GraphEagerMismatch', 'SnapshotMismatch', 'Outcome', 'GraphRun', 'GradientCheck', 'TraceCount']


def given_signature(function: Any, **options: Any):
    """``strategies.given_signature``: a property test over ``function``'s input_signature (needs hypothesis)."""
    from autograph_lite.testing import strategies
    return strategies.given_signature(function, **options)


def __getattr__(name: str) -> Any:
    # hypothesis is optional: ``ag.testing.strategies`` is imported when first used, not with the package.
    if name == 'strategies':
        import importlib
        return importlib.import_module('autograph_lite.testing.strategies')
    raise AttributeError(f"module 'autograph_lite.testing' has no attribute {name!r}")
