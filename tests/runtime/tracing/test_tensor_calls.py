"""The fast path of a Function's all-tensor calls (runtime/tracing/tensor_calls.py): once a signature has been
looked up, a call of eager tensors alone skips the signature key, with the slow path's results, traces and errors."""
import functools

import numpy as np
import pytest

import runtime as rt
from runtime.tracing import function as function_module


def counting(fn, **options):
    """A Function around ``fn`` plus the list of argument tuples it was traced with."""
    traces = []

    @functools.wraps(fn)   # fn's parameters: a Function of *args alone never takes the fast path
    def traced(*args, **kwargs):
        traces.append(args)
        return fn(*args, **kwargs)

    return rt.Function(traced, **options), traces


@pytest.fixture
def keyed_calls(monkeypatch):
    """The calls whose signature key was computed (the slow path's)."""
    calls = []
    make_key = function_module.make_key
    monkeypatch.setattr(function_module, "make_key", lambda values: calls.append(values) or make_key(values))
    return calls


def test_a_seen_signature_of_tensors_skips_the_key(keyed_calls):
    f, traces = counting(lambda x, y: x * y)
    x, y = rt.constant([1.0, 2.0]), rt.constant([3.0, 4.0])
    for _ in range(3):
        assert f(x, y).numpy().tolist() == [3.0, 8.0]
    assert f(y, y).numpy().tolist() == [9.0, 16.0]
    assert len(keyed_calls) == 1 and len(traces) == 1


def test_each_dtype_and_shape_keeps_its_own_trace(keyed_calls):
    f, traces = counting(lambda x: x * 2)
    values = [np.array([1, 2], np.int32), np.array([1.0, 2.0], np.float32), np.array([[1, 2]], np.int32),
              np.array(3, np.int32), np.array([1.5, 2.5], np.float64)]
    with pytest.warns(rt.RetraceWarning):   # 5 traces in the first 5 calls
        for _ in range(2):
            for value in values:
                result = f(rt.constant(value)).numpy()
                assert result.dtype == value.dtype and np.array_equal(result, value * 2)
    assert len(traces) == 5 and len(keyed_calls) == 5   # the second round: every call on the fast path


def test_an_array_reshaped_in_place_is_keyed_by_its_new_shape():
    f, traces = counting(lambda x: rt.reduce_sum(x, axis=0))
    x = rt.constant(np.arange(6, dtype=np.float32))
    assert f(x).numpy() == 15.0
    assert f(x).numpy() == 15.0
    x.numpy().shape = (2, 3)   # the tensor's own array: its shape is read on every call, never remembered
    assert f(x).numpy().tolist() == [3.0, 5.0, 7.0]
    assert len(traces) == 2


def test_other_arguments_take_the_slow_path_and_share_its_traces(keyed_calls):
    f, traces = counting(lambda x, scale=2: x * scale)
    x = rt.constant([1, 2])
    assert f(x).numpy().tolist() == [2, 4]               # a default: the slow path binds it
    assert f(x, 2).numpy().tolist() == [2, 4]            # a Python value: the same key, no new trace
    assert f(x, scale=3).numpy().tolist() == [3, 6]      # a keyword
    assert f(x, rt.constant(3)).numpy().tolist() == [3, 6]
    assert f(x, rt.constant(4)).numpy().tolist() == [4, 8]   # the fast path
    assert f(np.array([1, 2], np.int32), rt.constant(5)).numpy().tolist() == [5, 10]   # an ndarray: the slow path
    assert len(traces) == 3 and len(keyed_calls) == 5


def test_a_variable_argument_is_keyed_by_identity_as_before():
    f, traces = counting(lambda v, x: v.assign_add(x))
    a, b = rt.Variable([1.0]), rt.Variable([10.0])
    x = rt.constant([1.0])
    for _ in range(2):
        f(a, x)
        f(b, x)
    assert a.numpy().tolist() == [3.0] and b.numpy().tolist() == [12.0] and len(traces) == 2


def test_with_max_traces_an_evicted_signature_traces_again():
    f, traces = counting(lambda x: x + 1, max_traces=1)
    one, two = rt.constant([1]), rt.constant([1, 2])
    assert f(one).numpy().tolist() == [2]
    assert f(one).numpy().tolist() == [2]
    assert f(two).numpy().tolist() == [2, 3]   # evicts one's graph
    assert f(one).numpy().tolist() == [2]      # which is not kept by a fast path
    assert len(traces) == 3


def test_an_error_on_the_fast_path_is_the_slow_paths():
    def check(x):
        rt.debugging.assert_greater(x, 0.0, message="x must be positive")
        return x

    def error_of(f, x):
        with pytest.raises(rt.errors.InvalidArgumentError) as raised:
            f(x)
        return raised.value

    fast = rt.function(check)
    fast(rt.constant([1.0]))
    fast(rt.constant([1.0]))
    on_fast_path = error_of(fast, rt.constant([-1.0]))
    on_slow_path = error_of(rt.function(check), rt.constant([-1.0]))
    assert str(on_fast_path) == str(on_slow_path) and "x must be positive" in str(on_fast_path)
    assert fast.experimental_get_tracing_count() == 1


def test_jit_compiled_calls_on_the_fast_path_write_their_variables_back(keyed_calls):
    pytest.importorskip("jax")
    total = rt.Variable(0.0)

    @rt.function(jit_compile=True)
    def step(x):
        total.assign_add(rt.reduce_sum(x))
        return total * 2.0

    x = rt.constant([1.0, 2.0])
    for calls in range(1, 4):
        assert step(x).numpy() == 6.0 * calls
        assert total.numpy() == 3.0 * calls
    assert step.experimental_get_tracing_count() == 1 and len(keyed_calls) == 1
