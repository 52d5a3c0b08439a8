"""rt.Function: one trace per input signature, keyed the way the seeds describe."""
import warnings

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


def counting(fn):
    """A Function around ``fn`` plus the list of argument tuples it was traced with."""
    traces = []

    def traced(*args, **kwargs):
        traces.append(args)
        return fn(*args, **kwargs)

    traced.__name__ = fn.__name__
    return rt.Function(traced), traces


def test_tensors_keyed_by_dtype_and_shape():
    f = rt.function(lambda x: x + 1)
    f(rt.constant(1))
    f(rt.constant(2))
    f(rt.constant([1, 2]))
    f(rt.constant([3, 4]))
    f(rt.constant(1.0))
    f(np.array([1, 2], dtype=np.int32))  # ndarrays count as tensors of their dtype and shape
    assert f.experimental_get_tracing_count() == 3
    assert f(np.array([5, 6], dtype=np.int32)).numpy().tolist() == [6, 7]


def test_python_scalars_keyed_by_type_and_value():
    f = rt.function(lambda x: rt.constant(1.0) * 2)
    for value in (1, 1.0, True, 1, 1.0, True, "1", None, None):
        f(value)
    assert f.experimental_get_tracing_count() == 5  # 1, 1.0, True, "1", None are all different


def test_structures_by_structure_and_contents():
    f = rt.function(lambda xs: xs[0] + xs[1])
    assert f([rt.constant(1), rt.constant(2)]).numpy() == 3
    assert f([rt.constant(5), rt.constant(6)]).numpy() == 11
    assert f((rt.constant(1), rt.constant(2))).numpy() == 3  # a tuple is a different structure than a list
    assert f([1, 2]).numpy() == 3
    assert f([1, 3]).numpy() == 4
    assert f.experimental_get_tracing_count() == 4
    g = rt.function(lambda d: d["a"] * d["b"])
    assert g({"a": rt.constant(2), "b": rt.constant(3)}).numpy() == 6
    assert g({"b": rt.constant(4), "a": rt.constant(5)}).numpy() == 20
    assert g.experimental_get_tracing_count() == 1


def test_hashable_objects_by_value_unhashable_by_identity():
    class Config:
        def __init__(self, scale):
            self.scale = scale

        def __eq__(self, other):
            return isinstance(other, Config) and other.scale == self.scale

        def __hash__(self):
            return hash(self.scale)

    class Mutable:
        __hash__ = None

        def __init__(self, scale):
            self.scale = scale

    f = rt.function(lambda x, c: x * c.scale)
    assert f(rt.constant(2), Config(3)).numpy() == 6
    assert f(rt.constant(2), Config(3)).numpy() == 6  # equal value: same trace
    assert f.experimental_get_tracing_count() == 1
    m = Mutable(4)
    assert f(rt.constant(2), m).numpy() == 8
    assert f(rt.constant(2), m).numpy() == 8
    assert f(rt.constant(2), Mutable(4)).numpy() == 8  # a different object: a new trace
    assert f.experimental_get_tracing_count() == 3


def test_unhashable_argument_entries_are_dropped_when_the_object_dies():
    class Box:
        __hash__ = None

    f = rt.function(lambda x, box: x + 1)
    box = Box()
    f(rt.constant(1), box)
    entries = len(f._cache)
    del box
    import gc
    gc.collect()
    assert len(f._cache) == entries - 1


def test_keyword_arguments_and_defaults_share_traces():
    calls = []

    def scaled(x, scale=2, *, offset=0):
        calls.append(1)
        return x * scale + offset

    f = rt.Function(scaled)
    assert f(rt.constant(1)).numpy() == 2
    assert f(rt.constant(1), 2).numpy() == 2
    assert f(x=rt.constant(3), scale=2).numpy() == 6
    assert len(calls) == 1
    assert f(rt.constant(1), offset=5).numpy() == 7
    assert len(calls) == 2
    with pytest.raises(TypeError, match=r"scaled\(\): .*unexpected keyword argument 'bogus'"):
        f(rt.constant(1), bogus=1)


def test_var_args_get_placeholders_named_after_parameter():
    f = rt.function(lambda *values: sum(values[1:], values[0]))
    assert f(rt.constant(1), rt.constant(2), rt.constant(3)).numpy() == 6
    graph = f.get_concrete_function(rt.constant(1), rt.constant(2)).graph
    assert [t.op.name for t in graph.inputs] == ["values", "values_1"]


def test_placeholders_named_after_arguments():
    f = rt.function(lambda x, y: x + y)
    concrete = f.get_concrete_function(rt.constant(1), rt.constant(2))
    assert [t.op.name for t in concrete.inputs] == ["x", "y"]


def test_outputs_nested_python_values_and_none():
    f = rt.function(lambda x: {"sum": x + 1, "pair": (x, 7), "nothing": None, "list": [2.5]})
    result = f(rt.constant(1))
    assert result["sum"].numpy() == 2 and result["nothing"] is None
    assert result["pair"][1].numpy() == 7 and result["pair"][1].dtype == rt.int32
    assert result["list"][0].dtype == rt.float32
    assert rt.function(lambda: None)() is None
    with pytest.raises(TypeError, match=r"returned 'text' \(element \['s'\]\), a str, which cannot be a graph output"):
        rt.function(lambda: {"s": "text"})()


def test_get_concrete_function_with_specs_and_calling_it():
    f = rt.function(lambda x: x * 2)
    concrete = f.get_concrete_function(rt.TensorSpec([None], rt.float32))
    assert concrete.structured_input_signature == ((rt.TensorSpec((None,), rt.float32, "x"),), {})
    assert concrete.outputs[0].shape == (None,) and concrete.structured_outputs.dtype == rt.float32
    assert concrete(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert f(rt.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
    assert f.experimental_get_tracing_count() == 1  # the call reuses the more general trace
    with pytest.raises(TypeError, match=r"argument 'x' expected float32 Tensor, shape=\(None,\), got int32"):
        concrete(rt.constant([1]))
    with pytest.raises(ValueError, match=r"argument 'x' expected float32 Tensor, shape=\(None,\), got float32 "
                                         r"Tensor, shape=\(\)"):
        concrete(rt.constant(1.0))
    with pytest.raises(TypeError, match="takes 1 tensor argument"):
        concrete()
    assert f.get_concrete_function(rt.TensorSpec([None], rt.float32)) is concrete


def test_concrete_function_graph_and_unoptimized_graph():
    f = rt.function(lambda x: x * (rt.constant(2) - 1))
    concrete = f.get_concrete_function(rt.constant(3))
    assert "Sub" in [op.type for op in concrete.unoptimized_graph.operations]
    assert f(rt.constant(3)).numpy() == 3


def test_run_functions_eagerly_calls_the_python_function_as_is():
    seen = []
    f = rt.function(lambda x: seen.append(type(x).__name__) or x)
    rt.run_functions_eagerly(True)
    try:
        assert f(np.array([1])).tolist() == [1]  # not converted, not traced
        assert f.experimental_get_tracing_count() == 0
    finally:
        rt.run_functions_eagerly(False)
    assert seen == ["ndarray"]


def test_decorator_with_and_without_arguments_and_metadata():
    @rt.function
    def plain(x):
        """Doc."""
        return x

    @rt.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def declared(x):
        return x

    assert isinstance(plain, rt.Function) and plain.__name__ == "plain" and plain.__doc__ == "Doc."
    assert plain.__wrapped__ is plain.python_function
    assert declared(rt.constant(4)).numpy() == 4
    with pytest.raises(TypeError, match="needs a callable"):
        rt.Function(3)


def test_methods_bind_per_instance():
    class Model:
        def __init__(self, scale):
            self.scale = scale

        @rt.function
        def apply(self, x):
            return x * self.scale

    a, b = Model(2), Model(3)
    assert a.apply(rt.constant(5)).numpy() == 10
    assert b.apply(rt.constant(5)).numpy() == 15
    assert a.apply(rt.constant(6)).numpy() == 12
    assert a.apply is a.apply and a.apply is not b.apply
    assert a.apply.experimental_get_tracing_count() == 1
    assert Model.apply(a, rt.constant(1)).numpy() == 2  # through the class: self is an argument


def test_function_called_while_tracing_another_is_inlined():
    inner = rt.function(lambda x: x + 1)
    outer = rt.function(lambda x: inner(x) * 2)
    assert outer(rt.constant(1)).numpy() == 4
    assert inner.experimental_get_tracing_count() == 0
    graph = outer.get_concrete_function(rt.constant(1)).graph
    assert "AddV2" in [op.type for op in graph.operations]


def test_trace_with_transforms_once_and_python_function_is_original():
    transformed = []

    def transform(fn):
        transformed.append(fn)
        return lambda x: fn(x) + 100

    def original(x):
        return x

    f = rt.Function(original, trace_with=transform)
    assert f(rt.constant(1)).numpy() == 101
    assert f(rt.constant([1])).numpy().tolist() == [101]
    assert transformed == [original] and f.python_function is original
    rt.run_functions_eagerly(True)
    try:
        assert f(rt.constant(1)).numpy() == 1
    finally:
        rt.run_functions_eagerly(False)


def test_symbolic_tensor_leaked_into_a_call_is_a_clear_error():
    leaked = []
    f = rt.function(lambda x: leaked.append(x) or x)
    f(rt.constant(1))
    with pytest.raises(TypeError, match="symbolic tensor from another traced function"):
        rt.function(lambda y: y)(leaked[0])


def _retrace_warnings(record):
    return [str(w.message) for w in record if issubclass(w.category, rt.RetraceWarning)]


def test_retracing_warning_names_the_changing_argument():
    f = rt.function(lambda x, n: x * n)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(4):
            f(rt.constant(1), n)
        assert _retrace_warnings(record) == []
        f(rt.constant(1), 4)
        f(rt.constant(1), 5)
    messages = _retrace_warnings(record)
    assert len(messages) == 1  # warned once
    message = messages[0]
    assert "traced 5 times in its last 10 calls" in message
    assert "argument 'n' (Python value) changed from 3 to 4" in message
    assert "input_signature" in message and "rt.constant" in message


def test_the_retracing_warning_is_a_warnings_category_pointing_at_the_users_call():
    f = rt.function(lambda x: x + 1)
    with pytest.warns(rt.RetraceWarning, match="traced 5 times") as record:
        for length in range(1, 6):
            f(rt.constant([1] * length))
    assert record[0].filename == __file__
    assert ag.RetraceWarning is rt.RetraceWarning and issubclass(rt.RetraceWarning, UserWarning)
    g = rt.function(lambda x: x + 1)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=rt.RetraceWarning)
        with pytest.raises(rt.RetraceWarning):
            for length in range(1, 6):
                g(rt.constant([1] * length))


def test_retracing_warning_for_tensor_shapes():
    f = rt.function(lambda x: x + 1)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for length in range(1, 6):
            f(rt.constant([1] * length))
    messages = _retrace_warnings(record)
    assert len(messages) == 1
    assert "argument 'x' (tensor) changed from int32 Tensor, shape=(4,) to int32 Tensor, shape=(5,)" in messages[0]


def test_no_retracing_warning_when_traces_are_spread_out():
    f = rt.function(lambda x, n: x * n)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(6):
            f(rt.constant(1), n)
            for _ in range(2):
                f(rt.constant(2), n)
    assert _retrace_warnings(record) == []
    assert f.experimental_get_tracing_count() == 6


def test_retracing_warning_says_how_many_graphs_are_held_and_warns_again_as_the_cache_grows():
    f = rt.function(lambda x, n: x * n + rt.constant(np.zeros(256, np.float32)))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(101):
            f(rt.constant(1.0), float(n))
    messages = _retrace_warnings(record)
    assert len(messages) == 2  # at 5 graphs, then when the cache reached 100
    assert "It now holds 5 graphs (" in messages[0] and "KB of constants and buffers" in messages[0]
    assert "It now holds 100 graphs (" in messages[1]
    assert f.experimental_get_tracing_count() == 101


def test_max_traces_keeps_the_least_recently_used_graphs_out():
    traced = []
    f = rt.function(lambda x, n: traced.append(n) or x * n, max_traces=2)
    x = rt.constant(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.RetraceWarning)
        assert [f(x, n).numpy() for n in (1, 2, 1, 3)] == [3, 6, 3, 9]  # 3 evicts 2: 1 was used after 2
        assert traced == [1, 2, 3] and len(f.concrete_functions) == 2
        assert f(x, 1).numpy() == 3 and traced == [1, 2, 3]   # still kept
        assert f(x, 2).numpy() == 6 and traced == [1, 2, 3, 2]  # evicted: traced again, now evicting 3
        assert sorted(c.structured_input_signature[0][1] for c in f.concrete_functions) == [1, 2]
    assert f.experimental_get_tracing_count() == 4


def test_max_traces_bounds_the_cache_of_a_long_running_loop():
    f = ag.function(lambda x, n: x + n, max_traces=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.RetraceWarning)
        for n in range(200):
            assert f(rt.constant(1), n).numpy() == 1 + n
    assert len(f.concrete_functions) == 8 and len(f._cache) == 8
    assert f.experimental_get_tracing_count() == 200


def test_an_evicted_general_trace_no_longer_accepts_calls():
    f = rt.function(lambda x: x * 2, max_traces=1)
    general = f.get_concrete_function(rt.TensorSpec([None], rt.int32))
    assert f(rt.constant([1, 2])).numpy().tolist() == [2, 4] and f.experimental_get_tracing_count() == 1
    f(rt.constant(3.0))  # a second trace evicts the general one
    assert f.concrete_functions != [general]
    assert f(rt.constant([1, 2, 3])).numpy().tolist() == [2, 4, 6] and f.experimental_get_tracing_count() == 3


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", True])
def test_max_traces_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match=r"max_traces must be an int >= 1 \(or None for no bound\)"):
        rt.function(lambda x: x, max_traces=bad)


def test_cache_misses_stay_flat_and_keep_trace_order_semantics():
    f = rt.function(lambda x, n: x * n)
    for n in range(300):
        f(rt.constant([1.0, 2.0]), n)
    assert f.experimental_get_tracing_count() == 300
    general = f.get_concrete_function(rt.TensorSpec([None], rt.float32), 7)
    assert f.experimental_get_tracing_count() == 301
    # the exact trace for n=7 and shape (2,) still wins over the later general one
    assert f.get_concrete_function(rt.constant([1.0, 2.0]), 7) is not general
    assert f.get_concrete_function(rt.constant([1.0, 2.0, 3.0]), 7) is general
    assert f(rt.constant([1.0, 2.0, 3.0]), 7).numpy().tolist() == [7.0, 14.0, 21.0]
    assert f.experimental_get_tracing_count() == 301
    unknown_rank = f.get_concrete_function(rt.TensorSpec(None, rt.float32), 8)
    assert f.get_concrete_function(rt.constant([[1.0]]), 8) is unknown_rank
    assert f.get_concrete_function(rt.constant(2.0), 8) is unknown_rank
    assert f.experimental_get_tracing_count() == 302


@pytest.mark.parametrize("values", [
    (rt.constant([1.0, 2.0]), 3, 2.5, True, None, "mode", b"raw", 1j),
    (rt.constant(1), [1, 2], {"b": rt.constant(2.0), "a": 1}),
    (np.ones((2, 3), np.float32), rt.constant(np.int64(4)), np.int32(7)),
    (),
])
def test_the_common_calls_key_is_the_key_builders(values):
    # make_key keys eager tensors and Python scalars itself (every call's path): the same key as KeyBuilder
    from runtime.tracing.signature import KeyBuilder, make_key
    builder = KeyBuilder()
    key, arrays = make_key(values)
    assert key == tuple(builder.key(value) for value in values)
    assert len(arrays) == len(builder.arrays) and all(a is b for a, b in zip(arrays, builder.arrays))
