"""TensorFlow's seed rules (tf.random.set_seed's documentation, its examples A1, A2, ... written as tests):
an op seed starts a reproducible sequence, eagerly and traced; the global seed picks op seeds; stateless ops are
functions of a seed pair; Generator carries its state in a Variable. The values are numpy's, not TF's bits."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


@pytest.fixture(autouse=True)
def no_global_seed():
    rt.random.set_seed(None)
    yield
    rt.random.set_seed(None)


def values(tensor):
    return np.asarray(tensor).tolist()


def test_no_seed_at_all_gives_new_values_on_every_call():
    assert values(rt.random.uniform([3])) != values(rt.random.uniform([3]))


def test_global_seed_only_eagerly_new_values_per_call_and_the_same_sequence_after_set_seed():
    rt.random.set_seed(1234)
    a1, a2 = values(rt.random.uniform([2])), values(rt.random.uniform([2]))
    assert a1 != a2
    rt.random.set_seed(1234)
    assert [values(rt.random.uniform([2])), values(rt.random.uniform([2]))] == [a1, a2]


def test_op_seed_eagerly_starts_a_sequence_that_goes_on():
    a1, a2 = values(rt.random.uniform([2], seed=1)), values(rt.random.uniform([2], seed=1))
    assert a1 != a2  # was: the same values on every call
    rt.random.set_seed(None)  # as re-running the program
    assert [values(rt.random.uniform([2], seed=1)), values(rt.random.uniform([2], seed=1))] == [a1, a2]


def test_both_seeds_eagerly_the_documented_example():
    rt.random.set_seed(1234)
    a1, a2 = values(rt.random.uniform([1], seed=1)), values(rt.random.uniform([1], seed=1))
    rt.random.set_seed(1234)
    assert values(rt.random.uniform([1], seed=1)) == a1 and values(rt.random.uniform([1], seed=1)) == a2
    assert a1 != a2
    rt.random.set_seed(4321)
    assert values(rt.random.uniform([1], seed=1)) != a1


def test_in_a_traced_function_each_op_has_its_sequence_across_calls():
    rt.random.set_seed(1234)

    @ag.function
    def f():
        a = rt.random.uniform([1], seed=1)
        b = rt.random.uniform([1], seed=1)
        return a, b
    (a1, b1), (a2, b2) = f(), f()
    assert values(a1) == values(b1) and values(a2) == values(b2)  # TF: (A1, A1) then (A2, A2)
    assert values(a1) != values(a2)
    rt.random.set_seed(1234)
    assert values(rt.random.uniform([1], seed=1)) == values(a1)  # a traced function is a re-run of the program


def test_global_seed_only_two_functions_of_the_same_shape_draw_the_same_values():
    rt.random.set_seed(1234)

    @ag.function
    def f():
        return rt.random.uniform([1]), rt.random.uniform([1])

    @ag.function
    def g():
        return rt.random.uniform([1]), rt.random.uniform([1])
    (a1, a2), (b1, b2) = f(), g()
    assert values(a1) != values(a2)  # TF: f() gives (A1, A2)
    assert (values(b1), values(b2)) == (values(a1), values(a2))  # and g() gives (A1, A2) too


def test_seeded_dropout_masks_differ_per_step_and_repeat_per_run():
    def train(steps):
        rt.random.set_seed(7)

        @ag.function
        def step(x):
            keep = rt.cast(rt.random.uniform(rt.shape(x), seed=3) > 0.5, x.dtype)
            return x * keep
        return [values(step(rt.ones([8]))) for _ in range(steps)]
    first_run = train(3)
    assert first_run[0] != first_run[1] != first_run[2]  # a new mask each step (was the same mask every step)
    assert train(3) == first_run  # the same masks when the program runs again


def test_normal_and_categorical_follow_the_same_rules():
    rt.random.set_seed(5)
    n1, c1 = values(rt.random.normal([3], seed=2)), values(rt.random.categorical([[0.0, 0.0]], 20, seed=2))
    n2, c2 = values(rt.random.normal([3], seed=2)), values(rt.random.categorical([[0.0, 0.0]], 20, seed=2))
    assert n1 != n2 and c1 != c2
    rt.random.set_seed(5)
    assert values(rt.random.normal([3], seed=2)) == n1
    assert values(rt.random.categorical([[0.0, 0.0]], 20, seed=2)) == c1


def test_a_loaded_function_starts_its_sequences_over(tmp_path):
    rt.random.set_seed(9)
    function = rt.function(lambda: rt.random.uniform([2], seed=4))
    first, second = values(function()), values(function())
    rt.save(function, tmp_path)
    loaded = rt.load(tmp_path)
    assert [values(loaded()), values(loaded())] == [first, second]


def test_bad_seeds_are_clear_errors():
    with pytest.raises(TypeError, match="set_seed: seed must be a non-negative Python int"):
        rt.random.set_seed("1")
    with pytest.raises(TypeError, match="RandomUniform: seed must be a non-negative Python int"):
        rt.random.uniform([2], seed=-1)


# --- stateless ops ----------------------------------------------------------------------------------------
def test_stateless_ops_are_functions_of_the_seed_pair_eager_and_traced():
    u = values(rt.random.stateless_uniform([3], seed=[1, 2]))
    assert u == values(rt.random.stateless_uniform([3], seed=[1, 2]))
    assert u != values(rt.random.stateless_uniform([3], seed=[1, 3]))
    traced = rt.function(lambda s: (rt.random.stateless_uniform([3], seed=s), rt.random.stateless_normal([2], seed=s)))
    a, n = traced(rt.constant([1, 2]))
    assert values(a) == u and values(n) == values(rt.random.stateless_normal([2], seed=[1, 2]))
    assert values(traced(rt.constant([1, 2]))[0]) == u  # every call
    ints = rt.random.stateless_uniform([50], seed=[4, 4], minval=-3, maxval=3, dtype=rt.int32)
    assert ints.dtype == rt.int32 and set(values(ints)) <= set(range(-3, 3))
    wide = rt.random.stateless_normal([20000], seed=[0, 1], mean=2.0, stddev=0.5, dtype=rt.float64)
    assert abs(float(rt.reduce_mean(wide)) - 2.0) < 0.02


def test_stateless_seed_must_be_a_pair_of_ints():
    with pytest.raises(TypeError, match=r"StatelessRandomUniform: seed must be a pair of ints, e.g. seed=\[1, 2\]"):
        rt.random.stateless_uniform([2], seed=[1, 2, 3])
    with pytest.raises(TypeError, match="StatelessRandomNormal: seed must be a pair of ints"):
        rt.random.stateless_normal([2], seed=rt.constant([1.0, 2.0]))


# --- Generator ------------------------------------------------------------------------------------------
def test_generator_from_seed_gives_one_reproducible_sequence():
    g = rt.random.Generator.from_seed(42)
    draws = [values(g.uniform([2])), values(g.normal([2])), values(g.uniform([2]))]
    assert draws[0] != draws[2]
    again = rt.random.Generator.from_seed(42)
    assert [values(again.uniform([2])), values(again.normal([2])), values(again.uniform([2]))] == draws
    g.reset_from_seed(42)
    assert values(g.uniform([2])) == draws[0]
    assert values(g.state) == [42, 1]


def test_generator_in_a_traced_function_continues_its_sequence():
    eager = rt.random.Generator.from_seed(3)
    expected = [values(eager.normal([3])) for _ in range(3)]
    g = rt.random.Generator.from_seed(3)
    sample = ag.function(lambda: g.normal([3]))
    assert [values(sample()) for _ in range(3)] == expected
    assert values(rt.random.Generator.from_non_deterministic_state().uniform([2])) != values(
        rt.random.Generator.from_non_deterministic_state().uniform([2]))
