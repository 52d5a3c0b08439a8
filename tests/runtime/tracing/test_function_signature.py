"""input_signature, reduce_retracing and thread-safe tracing of rt.Function."""
import threading

import numpy as np
import pytest

import runtime as rt


def test_input_signature_accepts_any_size_for_none_dims_with_one_trace():
    @rt.function(input_signature=[rt.TensorSpec(shape=[None], dtype=rt.int32)])
    def next_collatz(x):
        print("Tracing with", x.shape)
        return rt.where(x % 2 == 0, x // 2, 3 * x + 1)

    assert next_collatz(rt.constant([1, 2])).numpy().tolist() == [4, 1]
    assert next_collatz(rt.constant([1, 2, 3, 4, 5])).numpy().tolist() == [4, 1, 10, 2, 16]
    assert next_collatz([6, 7]).numpy().tolist() == [3, 22]  # a Python list is converted to the spec's dtype
    assert next_collatz(np.array([8], dtype=np.int32)).numpy().tolist() == [4]
    assert next_collatz.experimental_get_tracing_count() == 1
    assert next_collatz.get_concrete_function().inputs[0].shape == (None,)
    assert next_collatz.get_concrete_function(rt.TensorSpec([None], rt.int32)) is \
        next_collatz.get_concrete_function()


def test_input_signature_wrong_dtype_is_type_error_naming_argument():
    f = rt.function(lambda x: x, input_signature=[rt.TensorSpec([None], rt.int32)])
    with pytest.raises(TypeError, match=r"argument 'x' expected int32 Tensor, shape=\(None,\), got float32 Tensor, "
                                        r"shape=\(1,\)"):
        f(rt.constant([1.0]))
    with pytest.raises(TypeError, match="without losing its fractional part"):
        f([1.5])


def test_input_signature_wrong_rank_or_dim_is_value_error():
    f = rt.function(lambda x: x, input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    with pytest.raises(ValueError, match=r"argument 'x' expected float32 Tensor, shape=\(None, 3\), got float32 "
                                         r"Tensor, shape=\(3,\)"):
        f(rt.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"got float32 Tensor, shape=\(1, 2\)"):
        f(rt.constant([[1.0, 2.0]]))
    assert f(rt.constant([[1.0, 2.0, 3.0]])).shape == (1, 3)


def test_input_signature_argument_count_and_bad_specs():
    f = rt.function(lambda x, y: x + y, input_signature=[rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)])
    assert f(rt.constant(1), y=rt.constant(2)).numpy() == 3
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        f(rt.constant(1))
    with pytest.raises(TypeError, match="input_signature must contain only rt.TensorSpec, got 3"):
        rt.function(lambda x: x, input_signature=[3])
    with pytest.raises(TypeError, match="input_signature must be a list of rt.TensorSpec"):
        rt.function(lambda x: x, input_signature=rt.TensorSpec([]))


def test_input_signature_nested_specs():
    f = rt.function(lambda pair: pair[0] * pair[1],
                    input_signature=[[rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)]])
    assert f([rt.constant(3), rt.constant(4)]).numpy() == 12
    assert f([5, 6]).numpy() == 30
    with pytest.raises(TypeError, match="argument 'pair' must be"):
        f(rt.constant(1))


def test_reduce_retracing_relaxes_varying_dims_after_second_shape():
    traces = []

    @rt.function(reduce_retracing=True)
    def total(x):
        traces.append(x.shape)
        return rt.reduce_sum(x)

    assert total(rt.constant([1, 2, 3])).numpy() == 6
    assert total(rt.constant([1, 2, 3, 4])).numpy() == 10
    assert total(rt.constant([5])).numpy() == 5
    assert total(rt.constant([1, 1, 1, 1, 1, 1])).numpy() == 6
    assert traces == [(3,), (None,)]
    assert total.experimental_get_tracing_count() == 2
    assert total(rt.constant([[1, 2]])).numpy() == 3  # another rank: a new trace
    assert total(rt.constant([1.0])).numpy() == 1.0  # another dtype: a new trace
    assert traces == [(3,), (None,), (1, 2), (1,)]


def test_reduce_retracing_keeps_dims_that_do_not_vary():
    traces = []
    f = rt.function(lambda x: traces.append(x.shape) or x * 2, reduce_retracing=True)
    f(rt.zeros([2, 3]))
    f(rt.zeros([4, 3]))
    f(rt.zeros([7, 3]))
    assert traces == [(2, 3), (None, 3)]
    f(rt.zeros([7, 4]))
    assert traces == [(2, 3), (None, 3), (None, None)]


def test_without_reduce_retracing_every_shape_traces():
    f = rt.function(lambda x: x + 1)
    for length in range(1, 5):
        f(rt.constant([0] * length))
    assert f.experimental_get_tracing_count() == 4


def test_threads_get_correct_results_and_each_signature_traces_once():
    trace_log = []
    log_lock = threading.Lock()

    @rt.function
    def affine(x, scale):
        with log_lock:
            trace_log.append((x.dtype.name, x.shape, scale))
        return x * scale + 1

    inputs = [(rt.constant(3), 2), (rt.constant([1, 2]), 2), (rt.constant(3.5), 3),
              (rt.constant([[1.0], [2.0]]), 2), (rt.constant(7), 5)]
    expected = [(np.asarray(x) * s + 1) for x, s in inputs]
    errors = []
    start = threading.Barrier(8)

    def worker(seed):
        start.wait()
        for i in range(200):
            index = (seed + i) % len(inputs)
            x, scale = inputs[index]
            result = affine(x, scale).numpy()
            if not np.array_equal(result, expected[index]) or result.dtype != expected[index].dtype:
                errors.append((index, result))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert affine.experimental_get_tracing_count() == 5
    assert sorted(map(str, trace_log)) == sorted(map(str, [(x.dtype.name, x.shape, s) for x, s in inputs]))


def test_threads_with_variables_do_not_lose_updates():
    counter = rt.Variable(0)
    increment = rt.function(lambda: counter.assign_add(1))

    def worker():
        for _ in range(200):
            increment()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counter.numpy() == 1600
    assert increment.experimental_get_tracing_count() == 1


def test_a_failed_trace_is_not_cached_and_raises_again():
    calls = []

    def broken(x):
        calls.append(1)
        raise RuntimeError("broken while tracing")

    f = rt.Function(broken)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="broken while tracing"):
            f(rt.constant(1))
    assert len(calls) == 2 and f.experimental_get_tracing_count() == 0


# --- input_signature over functions with optional parameters (the library's own ones too) ----------------

LIBRARY_FUNCTIONS_WITH_OPTIONAL_PARAMETERS = [
    (rt.linalg.det, [rt.TensorSpec([2, 2], rt.float32)], [np.array([[1., 2.], [3., 4.]], np.float32)]),
    (rt.linalg.inv, [rt.TensorSpec([2, 2], rt.float32)], [np.array([[2., 0.], [0., 4.]], np.float32)]),
    (rt.reduce_sum, [rt.TensorSpec([None, 3], rt.float32)], [np.arange(6, dtype=np.float32).reshape(2, 3)]),
    (rt.nn.softmax, [rt.TensorSpec([3], rt.float32)], [np.array([1., 2., 3.], np.float32)]),
    (rt.transpose, [rt.TensorSpec([2, 3], rt.int32)], [np.arange(6, dtype=np.int32).reshape(2, 3)]),
    (rt.cumsum, [rt.TensorSpec([None], rt.int32)], [np.array([1, 2, 3, 4], np.int32)]),
    (rt.nn.relu, [rt.TensorSpec([4], rt.float32)], [np.array([-1., 0., 2., -3.], np.float32)]),
    (rt.argmax, [rt.TensorSpec([None], rt.float32)], [np.array([1., 5., 2.], np.float32)]),
    (rt.clip_by_value, [rt.TensorSpec([3], rt.float32), rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.float32)],
     [np.array([-2., 0.5, 9.], np.float32), np.float32(0.), np.float32(1.)]),
]


@pytest.mark.parametrize("library_function, specs, arrays", LIBRARY_FUNCTIONS_WITH_OPTIONAL_PARAMETERS,
                         ids=lambda value: getattr(value, "__qualname__", None) if callable(value) else None)
def test_input_signature_covers_the_leading_parameters_of_library_functions(library_function, specs, arrays):
    # The parameters after the signature's keep their defaults, as in TensorFlow.
    traced = rt.function(library_function, input_signature=specs)
    expected = library_function(*[rt.constant(a) for a in arrays]).numpy()
    got = traced(*[rt.constant(a) for a in arrays]).numpy()
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()
    assert traced.experimental_get_tracing_count() == 1
    assert len(traced.get_concrete_function().inputs) == len(specs)


def test_input_signature_leaves_keyword_only_and_default_parameters_to_their_defaults():
    def scaled(x, scale=2.0, *, offset=1.0):
        return x * scale + offset

    f = rt.function(scaled, input_signature=[rt.TensorSpec([None], rt.float32)])
    assert f(rt.constant([1.0, 2.0])).numpy().tolist() == [3.0, 5.0]
    assert f(x=[0.0]).numpy().tolist() == [1.0]
    with pytest.raises(TypeError, match=r"scaled\(\): too many positional arguments"):
        f(rt.constant([1.0]), 3.0)
    with pytest.raises(TypeError, match=r"scaled\(\): got an unexpected keyword argument 'offset'"):
        f(rt.constant([1.0]), offset=0.0)


def test_input_signature_specs_beyond_the_positional_parameters_fill_star_args():
    def total(first, *rest):
        return first + sum(rest)

    f = rt.function(total, input_signature=[rt.TensorSpec([], rt.int32)] * 3)
    assert f(1, 2, 3).numpy() == 6
    assert f.get_concrete_function().inputs[2].dtype == rt.int32
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_must_cover_parameters_without_defaults():
    def needs_two(x, y):
        return x + y

    uncovered = rt.function(needs_two, input_signature=[rt.TensorSpec([], rt.int32)])
    with pytest.raises(TypeError, match=r"needs_two\(\): parameter 'y' is not covered by the input_signature "
                                        r"\(1 specs\) and has no default"):
        uncovered(1)
    with pytest.raises(TypeError, match=r"parameter 'y' is not covered"):
        uncovered.get_concrete_function()
    with pytest.raises(TypeError, match=r"needs_two\(\) takes 2 positional argument\(s\) but its input_signature "
                                        r"has 3 specs"):
        rt.function(needs_two, input_signature=[rt.TensorSpec([], rt.int32)] * 3)(1, 2, 3)


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def scale(self, x, offset=1.0):
        return x * self.factor + offset


def test_input_signature_of_a_method_covers_the_parameters_after_self():
    # Decorated in the class body, the Function sees (self, x, offset); bound, it is called without self.
    assert Scaler(2.0).scale(rt.constant([1.0, 2.0])).numpy().tolist() == [3.0, 5.0]
    assert Scaler(3.0).scale([1.0]).numpy().tolist() == [4.0]


def test_parameters_of_plain_functions_read_from_code_equal_inspect_signature():
    """Function reads a plain function's parameters from its code (skipping inspect's general path on every
    first trace): the same names, kinds, defaults and annotations as inspect.signature, and inspect
    itself wherever the signature comes from elsewhere (__wrapped__, __signature__, methods, builtins)."""
    import functools
    import inspect

    from runtime.tracing.function import _parameters_of

    def positional(x): pass
    def defaults(x, y=2): pass
    def every_kind(x, /, y, *rest, z=3, **options): pass
    def annotated(a: int, b: "str" = "s", *rest: float, c, d=2, **options: int) -> float: pass
    def none(): pass
    def long_defaults(a, b, c): pass
    long_defaults.__defaults__ = (1, 2, 3, 4)   # longer than the positional parameters: inspect's slicing
    def extra_kwdefaults(a, *, b, c=1): pass
    extra_kwdefaults.__kwdefaults__ = {"b": 5, "unused": 1}
    @functools.wraps(positional)
    def wrapped(*args): pass
    def declared(x): pass
    declared.__signature__ = inspect.Signature([inspect.Parameter("q", inspect.Parameter.POSITIONAL_ONLY)])

    class Holder:
        def method(self, x, y=1): pass

    cases = [positional, defaults, every_kind, annotated, none, long_defaults, extra_kwdefaults, wrapped, declared,
             lambda x, y=1: x, Holder().method, Holder.method, len, functools.partial(defaults, 1)]
    for function in cases:
        expected = list(inspect.signature(function).parameters.values())
        got = _parameters_of(function)
        assert got == expected, function
        assert [(p.kind, p.default, p.annotation) for p in got] == [(p.kind, p.default, p.annotation) for p in expected]
