"""ag.testing.strategies and @ag.testing.given_signature: shapes with None dims, tensors of a TensorSpec, the
arguments of an input_signature; a property test passes on a correct function and fails on a planted
graph/eager difference; without hypothesis, a clear ImportError."""
import sys

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

hypothesis = pytest.importorskip('hypothesis')
from hypothesis import HealthCheck, given, settings  # noqa: E402  (after the skip when hypothesis is absent)
hypothesis = pytest.importorskip('hypothesis')

QUICK = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(ag.testing.strategies.shapes([None, 3, None], max_side=3))
def test_shapes_fill_the_none_dims(shape):
    assert len(shape) == 3 and shape[1] == 3 and 1 <= shape[0] <= 3 and 1 <= shape[2] <= 3


@QUICK
@given(ag.testing.strategies.shapes(None, max_rank=2))
def test_shapes_of_unknown_rank(shape):
    assert len(shape) <= 2


@QUICK
@given(ag.testing.strategies.tensors(rt.TensorSpec([2, None], rt.int32), min_value=-3, max_value=3))
def test_tensors_match_their_spec(x):
    assert x.dtype == rt.int32 and x.shape[0] == 2 and np.all(np.abs(x.numpy()) <= 3)


def weighted_sum(x, w):
    return rt.reduce_sum(x * rt.expand_dims(w, 1))


SIGNATURE = [rt.TensorSpec([None, 3], rt.float64), rt.TensorSpec([None], rt.float64)]


@QUICK
@given(ag.testing.strategies.arguments(ag.function(weighted_sum, input_signature=SIGNATURE)))
def test_arguments_share_the_none_dims_by_default(arguments):
    x, w = arguments
    assert x.dtype == rt.float64 and x.shape[1] == 3 and x.shape[0] == w.shape[0]


@ag.testing.given_signature(ag.function(weighted_sum, input_signature=SIGNATURE), max_examples=10)
def test_given_signature_runs_graph_against_eager_then_the_body(x, w):
    assert float(weighted_sum(x, w)) == pytest.approx(float(np.sum(x.numpy() * w.numpy()[:, None])))


def test_given_signature_fails_on_a_graph_that_differs_from_eager():
    seen = []

    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def remembers_first_size(x):
        seen.append(1)            # a Python side effect: the graph keeps the value of its one trace
        return x * float(len(seen))

    @ag.testing.given_signature(remembers_first_size, max_examples=5)
    def test_property():
        pass
    with pytest.raises(ag.testing.GraphEagerMismatch, match='the graph does not match eager execution'):
        test_property()


def test_given_signature_needs_a_signature():
    with pytest.raises(TypeError, match="'weighted_sum' has no input_signature: declare one"):
        ag.testing.given_signature(ag.function(weighted_sum))


def test_without_hypothesis_the_strategies_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'hypothesis', None)
    with pytest.raises(ImportError, match=r'needs hypothesis: pip install "autograph-lite\[testing\]"'):
        ag.testing.strategies.shapes([None])
