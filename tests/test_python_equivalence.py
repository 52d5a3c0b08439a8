"""Converted == original on Python values, in both forms of the converted code: random small functions
(hypothesis) and real algorithms."""
import itertools
import os
import tempfile

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import autograph_lite as ag
from converted_forms import FORMS, in_form
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


def outcome(function, *args):
    log = []
    try:
        result = ('value', function(*args, log))
    except Exception as exc:  # compare what the user would observe (the exact type)
        result = ('raised', type(exc))
    return result, log


INPUTS = st.lists(st.tuples(st.integers(-4, 6), st.integers(-4, 6)), min_size=3, max_size=6)


def check_same_behaviour(source, inputs):
    original = load(source)
    converted = ag.to_graph(original)
    generated = ag.to_code(original)
    compile(generated, '<to_code>', 'exec')   # generated code is always valid Python
    for x, y in inputs:
        expected = outcome(original, x, y)
        for form in FORMS:   # the plain form, and the staged form (what runs while tracing)
            assert in_form(form, outcome, converted, x, y) == expected, (form, source, x, y, generated)


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
