"""Example budgets of the long property tests: a quick run in the default suite, the full run behind ``-m slow``.

The README's test command (``python -m pytest -q -n auto``) must finish in minutes on two cores, so each long
hypothesis test runs twice under one name: with ``quick`` examples by default, and with ``full`` examples in
CI's slow step (``python -m pytest -m slow``). Nothing is dropped: the full budget is exactly what the test
ran before it was split.

    @examples(quick=50, full=300)
    def test_random_functions_behave_like_the_original(max_examples):
        @settings(max_examples=max_examples, deadline=None)
        @given(...)
        def check(...): ...
        check()
"""
import pytest


def examples(quick: int, full: int):
    """Parametrize a test over ``max_examples``: ``quick`` in the default run, ``full`` marked slow."""
    return pytest.mark.parametrize('max_examples', [
        pytest.param(quick, id=f'{quick} examples'),
        pytest.param(full, id=f'{full} examples', marks=pytest.mark.slow),
    ])
