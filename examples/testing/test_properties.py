"""Property tests of signals.py: needs hypothesis (pip install "autograph-lite[testing]")."""
import pytest

import autograph_lite as ag
import runtime as rt
from signals import normalize

pytest.importorskip('hypothesis')


@ag.testing.given_signature(normalize, max_examples=20)
def test_normalize_graph_matches_eager_and_is_bounded(x):
    # given_signature already checked the graph against eager execution on this x
    assert float(rt.reduce_max(rt.abs(normalize(x)))) <= 1.0 + 1e-6
