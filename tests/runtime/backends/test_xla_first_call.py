"""The first call of a jit_compile=True function does only what XLA's program needs: the numpy executor of a
graph with a loop (built when traced for jit_compile=None, tests/runtime/backends/test_first_call_tier.py) is
built only when a failed run-time check reruns the call there (runtime/tracing/concrete_function.py)."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.tracing import concrete_function

jax = pytest.importorskip("jax")


@pytest.fixture
def numpy_executors(monkeypatch):
    made = []
    real = concrete_function.build_executor

    def counting(graph):
        made.append(graph)
        return real(graph)

    monkeypatch.setattr(concrete_function, "build_executor", counting)
    monkeypatch.setattr(concrete_function, "check_first_calls", False)
    return made


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
