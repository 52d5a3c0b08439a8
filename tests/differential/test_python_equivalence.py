"""Converted == original on Python values, in both forms of the converted code: random small functions
(hypothesis) and real algorithms."""
import itertools
import os
import tempfile

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import autograph_lite as ag
from example_budgets import examples
from program_grammar import ALL_FEATURES, python_functions

_DIR = tempfile.mkdtemp(prefix='ag_equivalence_')
_counter = itertools.count()


def load(source: str, name: str = 'f'):
    """Define the function from source in a real file, so its source can be read back."""
    path = os.path.join(_DIR, f'generated_{next(_counter)}.py')
    with open(path, 'w') as f:
        f.write(source)
    namespace = {'__name__': 'generated'}
    exec(compile(source, path, 'exec'), namespace)
    return namespace[name]


INPUTS = st.lists(st.tuples(st.integers(-4, 6), st.integers(-4, 6)), min_size=3, max_size=6)


def check_same_behaviour(source, inputs):
    """ag.testing.assert_converted_equivalent on each input: the same return value or exception (type and
    message), the same log (an argument each function appends to), in both forms."""
    original = load(source)
    _held = ag.to_graph(original)   # held: the checks below reuse this conversion instead of redoing it
    compile(ag.to_code(original), '<to_code>', 'exec')   # generated code is always valid Python
    for x, y in inputs:
        try:
            ag.testing.assert_converted_equivalent(original, x, y, [])
        except ag.testing.ConversionMismatch:
            raise
        except Exception:   # noqa: S110 -- the same exception both ways, re-raised by the check: equivalent
            pass


@examples(quick=50, full=300)
def test_random_functions_behave_like_the_original(max_examples):
    @settings(max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(python_functions(), INPUTS)
    def check(source, inputs):
        check_same_behaviour(source, inputs)
    check()


FEATURE_GROUPS = [
    pytest.param(('loop_else_jumps',), id='loop_else_jumps'),
    pytest.param(('nested_def', 'scope'), id='nested_def+scope'),
    pytest.param(('unpack', 'walrus', 'del'), id='unpack+walrus+del'),
    pytest.param(('try', 'with'), id='try+with'),
    pytest.param(('suppress', 'try', 'del'), id='suppress+try+del'),
    pytest.param(('callables', 'scope'), id='callables+scope'),
    pytest.param(ALL_FEATURES, id='all'),
]


@examples(quick=4, full=15)
@pytest.mark.parametrize('features', FEATURE_GROUPS)
def test_random_functions_with_more_constructs_behave_like_the_original(features, max_examples):
    # No shrinking: it would dominate CI time on the groups marked xfail (a failure prints the example).
    @settings(max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow],
              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    @given(python_functions(features), INPUTS)
    def check(source, inputs):
        check_same_behaviour(source, inputs)
    check()
