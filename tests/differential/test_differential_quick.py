"""The differential harness's CI subset: real packages, converted in place, pass their own tests.

Runs ``tests/differential/run.py``'s quick subset (see tests/differential/README.md) for a few of
the packages, once in each form of the converted functions (the plain form that runs on Python values,
and the staged form that runs while tracing). Skips, saying why, only when the pinned sdist cannot be downloaded.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run as differential  # noqa: E402
from packages import by_name  # noqa: E402

# cachetools' classes use private names (self.__data): converted methods must mangle them.
# humanize: formatting code with early returns and unit loops (its quick run takes seconds).
# parse: a hand-written format-spec parser and regex building in loops (its quick run takes seconds).
# networkx: argmap compiles code at the first call and swaps it in (bugs 16 and 17 of the differential
# README); its quick run takes 10-12 s per form since bug 16's fix (80-90 s before: it recompiled on
# every call).
# pycparser: a recursive-descent C parser (whole programs); 10 s for both forms at load 3.
# wrapt, tenacity, simplejson (issue 23): decorators and proxies forwarding every dunder; retrying decorators,
# callable strategy objects and unittest.mock; a recursive-descent JSON scanner.
QUICK_PACKAGES = ['toolz', 'more-itertools', 'boltons', 'cachetools', 'humanize', 'parse', 'networkx', 'pycparser',
                  'wrapt', 'tenacity', 'simplejson']
# The longest quick runs (6-27 s each, both forms) run in CI's slow step (-m slow), not in the README's
# test command; the other four keep real packages in every default run.
SLOW_PACKAGES = {'toolz', 'boltons', 'networkx', 'pycparser', 'wrapt', 'tenacity', 'simplejson'}


@pytest.mark.parametrize('staged_form', [False, True], ids=['plain form', 'staged form'])
@pytest.mark.parametrize('name', [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_PACKAGES else [])
                                  for name in QUICK_PACKAGES])
def test_converted_package_passes_its_own_quick_tests(name, staged_form):
    package = by_name(name)
    try:
        differential.fetch(package)
    except differential.FetchError as exc:
        pytest.skip(f'the sdist of {name}=={package.version} is not reachable: {exc}')
    result = differential.run_package(package, quick=True, staged_form=staged_form)
    conversion = result['conversion']
    assert conversion['converted'] > 20, conversion
    assert {error.split(':')[0] for error in conversion['import_errors']} <= set(package.unimportable), conversion
    assert (result['failed'], result['errors'], result['collection_errors']) == (0, 0, 0), \
        (result['failures'], result['output_tail'])
    assert result['passed'] > 20
