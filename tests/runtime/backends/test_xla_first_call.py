"""The first call of a jit_compile=True function does only what XLA's program needs: the numpy executor of a
graph with a loop (built when traced for jit_compile=None, tests/runtime/backends/test_first_call_tier.py) is
built only when a failed run-time check reruns the call there (runtime/tracing/concrete_function.py)."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

jax = pytest.importorskip("jax")


def gather_in_a_loop(x, n):
    total = rt.zeros_like(x[0])
    for i in rt.range(n):
        total += rt.gather(x, i)   # out of range when n > len(x): a run-time check
    return total


def test_a_loop_under_jit_compile_builds_no_numpy_executor_until_a_check_fails(numpy_executors):
    f = ag.function(gather_in_a_loop, jit_compile=True)
    x = rt.constant([1, 2, 3])
    f.get_concrete_function(x, rt.constant(2))
    assert numpy_executors == []
    assert int(f(x, rt.constant(3)).numpy()) == 6 and int(f(x, rt.constant(1)).numpy()) == 1
    assert numpy_executors == []
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)"):
        f(x, rt.constant(4))   # rerun on the numpy executor, built now, for its exact error
    assert len(numpy_executors) == 1
    assert int(f(x, rt.constant(2)).numpy()) == 3   # the calls stay XLA's
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)"):
        f(x, rt.constant(5))
    assert len(numpy_executors) == 1   # built once


def test_without_jit_compile_a_loop_still_builds_the_numpy_executor_when_traced(numpy_executors):
    ag.function(gather_in_a_loop).get_concrete_function(rt.constant([1, 2, 3]), rt.constant(2))
    assert len(numpy_executors) == 1


def test_a_loaded_function_under_jit_compile_builds_no_numpy_executor(numpy_executors, tmp_path):
    f = ag.function(gather_in_a_loop)
    x = rt.constant([1.0, 2.0, 3.0])
    assert float(f(x, rt.constant(3)).numpy()) == 6.0
    rt.save(f, tmp_path / "f")
    numpy_executors.clear()
    loaded = rt.load(tmp_path / "f", jit_compile=True)
    np.testing.assert_array_equal(loaded(x, rt.constant(2)).numpy(), np.float32(3.0))
    assert numpy_executors == []
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)"):
        loaded(x, rt.constant(4))
    assert len(numpy_executors) == 1


# --- the lowered program: lax primitives where jnp adds wrapping, no work a known range makes needless ----------
def assert_same(function, *args):
    """``function`` on the numpy executor and compiled: equal results (or the same error type and message)."""
    try:
        expected = ag.function(function)(*args).numpy()
    except rt.errors.InvalidArgumentError as error:
        with pytest.raises(rt.errors.InvalidArgumentError) as caught:
            ag.function(function, jit_compile=True)(*args)
        assert str(caught.value).splitlines()[0] == str(error).splitlines()[0]
        return None
    got = ag.function(function, jit_compile=True)(*args).numpy()
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
    np.testing.assert_array_equal(got, expected)
    return got


def rows_of_a_range(x):
    total = rt.zeros_like(x[0])
    for t in rt.range(1, rt.shape(x)[0]):   # a static range: its elements are t = counter + 1
        total += x[t] * rt.cast(t, x.dtype)
    return total


def rows_of_a_descending_range(x):
    total = rt.zeros_like(x[0])
    for t in rt.range(rt.shape(x)[0] - 1, -1, -3):
        total = total * 2.0 + x[t]
    return total


def test_a_loop_over_a_static_range_computes_its_elements_and_indexes_without_checks_or_selects():
    x = rt.constant(np.arange(40, dtype=np.float32).reshape(10, 4))
    assert_same(rows_of_a_range, x)
    assert_same(rows_of_a_descending_range, x)
    text = ag.function(rows_of_a_range, jit_compile=True).experimental_get_compiler_ir(x)
    assert "gather" not in text and "select" not in text and "tensor<9xi32>" not in text   # no table of the range
    assert text.count("stablehlo.dynamic_slice") == 1 and "call @" not in text


def pick(x, i, j):
    return x[i] + x[-1] + x[1, j] + rt.gather(x[0], j)


@pytest.mark.parametrize("i, j", [(0, 0), (2, 3), (-3, -4), (-1, 1), (3, 0), (0, 4), (-4, 0), (1, -5)])
def test_subscripts_and_gathers_at_tensor_indices_agree_with_the_numpy_executor(i, j):
    x = rt.constant(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert_same(pick, x, rt.constant(i), rt.constant(j))


def test_arg_max_and_min_agree_with_the_numpy_executor_on_ties_and_nans():
    values = np.array([[1.0, 3.0, 3.0, np.nan], [2.0, -1.0, -1.0, 0.5], [np.nan, np.nan, 4.0, 4.0]], np.float32)
    for axis in (0, 1, -1):
        assert_same(lambda x: rt.argmax(x, axis=axis, output_type=rt.int32), rt.constant(values))
        assert_same(lambda x: rt.argmin(x, axis=axis, output_type=rt.int32), rt.constant(values))
        assert_same(lambda x: rt.argmax(x, axis=axis), rt.constant(values))   # int64: jnp's path


def test_reverse_along_negative_and_several_axes():
    x = rt.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for axes in ([-1], [0, 2], [1, -3]):
        assert_same(lambda t: rt.reverse(t, axes), x)


def test_one_hot_and_where_agree_with_the_numpy_executor():
    indices = rt.constant([0, 3, -1, 2, 5])
    assert_same(lambda i: rt.one_hot(i, 4), indices)                       # 1 and 0: a conversion, no select
    assert_same(lambda i: rt.one_hot(i, 4, on_value=2.5, off_value=-1.0), indices)
    assert_same(lambda i: rt.one_hot(i, 3, axis=0, dtype=rt.int32), indices)
    c = rt.constant([True, False, True])
    x, y = rt.constant([1.0, 2.0, 3.0]), rt.constant([-1.0, -2.0, -3.0])
    assert_same(lambda c, x, y: rt.where(c, x, y), c, x, y)                  # one shape: lax.select
    assert_same(lambda c, x: rt.where(c, x, 0.0), c, x)                     # broadcast: jnp.where
    assert_same(lambda c, x: rt.where(c[:, None], x, rt.reverse(x, [0])[None, :]), c, x)
    text = ag.function(lambda i: rt.one_hot(i, 4), jit_compile=True).experimental_get_compiler_ir(indices)
    assert "select" not in text


def count_steps(start, limit, step):
    total = rt.constant(0)
    for i in rt.range(start, limit, step):   # a range of a length known only when the graph runs
        total += i * 10 + 1
    return total


@pytest.mark.parametrize("start, limit, step", [(0, 7, 1), (2, 7, 1), (9, 7, 1), (1, 8, 3), (8, -2, -3),
                                                (0, 0, 2), (5, 1, 2)])
def test_a_loop_over_a_range_of_tensor_bounds_runs_as_many_times_as_on_the_numpy_executor(start, limit, step):
    assert_same(count_steps, rt.constant(start), rt.constant(limit), step)   # the step a Python int
    assert_same(count_steps, rt.constant(start), rt.constant(limit), rt.constant(step))
    assert_same(lambda n: count_steps(0, n, 1), rt.constant(limit))


def test_a_range_of_a_tensor_step_of_zero_is_the_numpy_executors_error():
    assert assert_same(count_steps, rt.constant(0), rt.constant(5), rt.constant(0)) is None   # (an error: equal)


# --- what a loop that runs exactly its trip count makes known when compiling ---------------------------------
def counted_then_filled(x):
    i = rt.constant(0)
    while i < 5:   # a tensor loop that runs exactly 3 times: i is 6 after it, known when compiling
        x = x * 1.5
        i += 2
    return rt.fill(rt.stack([i]), 1.0) * x


def test_a_counter_after_a_counted_loop_is_known_when_compiling():
    assert assert_same(counted_then_filled, rt.constant(1.0)).tolist() == [3.375] * 6


def pop_each_step(x, n):
    values = [x, x * 2.0, x * 3.0]
    for _ in rt.range(n):
        x = x + values.pop()
    return x


@pytest.mark.parametrize("n", [0, 2, 3, 4, 7])
def test_pops_in_a_counted_loop_agree_with_the_numpy_executor_up_to_and_past_the_lists_length(n):
    got = assert_same(pop_each_step, rt.constant(1.0), n)   # n > 3: the numpy executor's "pop from an empty list"
    assert (got is None) == (n > 3)


def power_by_loop(x):
    y = x
    for _ in rt.range(6):
        y = y * x + 0.5
    return y


def test_a_gradient_through_a_counted_loop_compiles_without_run_time_checks():
    x = rt.constant([0.5, -1.25, 2.0])

    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(power_by_loop(x))
        return tape.gradient(y, x)
    expected = ag.function(gradient)(x).numpy()
    np.testing.assert_allclose(ag.function(gradient, jit_compile=True)(x).numpy(), expected, rtol=1e-5)

    def by_jax(v):
        y = v
        for _ in range(6):
            y = y * v + 0.5
        return y.sum()
    np.testing.assert_allclose(jax.grad(by_jax)(np.asarray(x.numpy())), expected, rtol=1e-5)
    # the backward loop counts down from the forward loop's count (known when compiling): it pops each list it
    # pushed exactly as often, so no pop checks for an empty list, and the forward loop no check of its slots
    text = ag.function(gradient, jit_compile=True).experimental_get_compiler_ir(x)
    assert "select" not in text and "compare  NE" not in text
    assert text.count("stablehlo.while") == 2


def collect_rows(x):
    rows = []
    for t in rt.range(rt.shape(x)[0]):
        rows.append(x[t] * 2.0)
    return rt.stack(rows)


def test_an_empty_list_appended_to_in_a_counted_loop_starts_as_zeros_of_its_slots():
    x = rt.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    assert assert_same(collect_rows, x).tolist() == (np.arange(12).reshape(4, 3) * 2.0).tolist()
    text = ag.function(collect_rows, jit_compile=True).experimental_get_compiler_ir(x)
    assert "concatenate" not in text   # (the empty list and its slots were concatenated)
