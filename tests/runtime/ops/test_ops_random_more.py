"""rt.random.normal and rt.random.categorical: an op seed starts a reproducible sequence (as rt.random.uniform's;
tests/runtime/ops/test_random_seeds.py has TensorFlow's rules), the ops are stateful (a new draw on every run of a graph),
values have the right distribution, and errors are exact."""
import numpy as np
import pytest

import runtime as rt
from op_tracing import trace
from runtime.backends import executor


def test_normal_seeded_is_reproducible_and_distributed():
    rt.random.set_seed(0)
    a, b = rt.random.normal([4], seed=42).numpy(), rt.random.normal([4], seed=42).numpy()
    assert a.tolist() != b.tolist() and a.dtype == np.float32  # the sequence goes on
    rt.random.set_seed(0)
    assert rt.random.normal([4], seed=42).numpy().tolist() == a.tolist()  # and starts over
    assert a.tolist() != rt.random.normal([4], seed=43).numpy().tolist()
    draws = rt.random.normal([20000], mean=3.0, stddev=2.0, dtype=rt.float64, seed=0).numpy()
    assert draws.dtype == np.float64
    assert abs(draws.mean() - 3.0) < 0.05 and abs(draws.std() - 2.0) < 0.05


def test_categorical_seeded_follows_softmax_of_the_logits():
    logits = [[0.0, np.log(3.0)], [-np.inf, 0.0], [1000.0, 1000.0]]
    rt.random.set_seed(1)
    samples = rt.random.categorical(logits, 20000, seed=5).numpy()
    assert samples.shape == (3, 20000) and samples.dtype == np.int64
    assert abs(samples[0].mean() - 0.75) < 0.02
    assert (samples[1] == 1).all()  # a class of logit -inf is never drawn
    assert abs(samples[2].mean() - 0.5) < 0.02  # large logits: no overflow
    rt.random.set_seed(1)
    again = rt.random.categorical(logits, 20000, seed=5).numpy()
    assert (samples == again).all()
    assert rt.random.categorical([[0.0, 0.0]], 3, dtype=rt.int32).dtype == rt.int32


def test_stateful_in_a_graph_and_shapes():
    graph, (normal, categorical) = trace(lambda n, logits: (rt.random.normal([n, 2]), rt.random.categorical(logits, 4)),
                                         (rt.int32, ()), (rt.float32, (None, 3)))
    assert [t.op.type for t in (normal, categorical)] == ["RandomNormal", "Multinomial"]
    assert normal.shape == (None, 2) and categorical.shape == (None, 4) and categorical.dtype == rt.int64
    run = executor.make_callable(graph)
    logits = np.zeros((5, 3), np.float32)
    first, second = run(np.array(3, np.int32), logits), run(np.array(3, np.int32), logits)
    assert first[0].shape == (3, 2) and first[1].shape == (5, 4)
    assert first[0].tolist() != second[0].tolist()  # a new draw on every run
    rt.random.set_seed(2)
    seeded, out = trace(lambda: rt.random.normal([3], seed=9))
    seeded_run = executor.make_callable(seeded)
    first, second = seeded_run()[0].tolist(), seeded_run()[0].tolist()
    assert first != second and first == rt.random.normal([3], seed=9).numpy().tolist()  # one sequence, both ways


def test_errors():
    with pytest.raises(TypeError, match="^RandomNormal: dtype must be a floating-point type, got int32"):
        rt.random.normal([2], dtype=rt.int32)
    with pytest.raises(TypeError, match=r"^RandomNormal: seed must be a non-negative Python int \(below 2\*\*63\) or None, got 1.5"):
        rt.random.normal([2], seed=1.5)
    with pytest.raises(ValueError, match=r"^Multinomial: logits must have shape \[batch_size, num_classes\], got shape \(2,\)"):
        rt.random.categorical([0.0, 1.0], 2)
    with pytest.raises(TypeError, match="^Multinomial: logits must be a floating-point tensor, got int32"):
        rt.random.categorical([[0, 1]], 2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="Multinomial: every row of logits needs a finite maximum"):
        rt.random.categorical([[-np.inf, -np.inf]], 2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="Multinomial: num_samples must be >= 0, got -1"):
        rt.random.categorical([[0.0]], -1)


def test_uniform_of_a_scalar_shape_is_a_scalar_in_range():
    for dtype in (rt.float32, rt.float64):
        value = rt.random.uniform([], minval=2.0, maxval=3.0, dtype=dtype, seed=7)
        assert value.shape == () and value.dtype == dtype
        assert 2.0 <= float(value) < 3.0
    traced = rt.function(lambda: rt.random.uniform([], dtype=rt.float32, seed=3))()
    assert traced.shape == () and 0.0 <= float(traced) < 1.0
