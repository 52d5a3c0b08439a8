"""numpy functions on tensors become runtime ops (runtime/ops/numpy_dispatch.py).

Inside a traced function ``np.sum(t)`` is a ``Sum`` node; on eager tensors the same op runs and
returns a tensor. Unmapped numpy functions on a symbolic tensor are a clear error (issue 10, class 8:
numpy used to wrap the tensor in an object array and return silently wrong values).
"""
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from runtime.ops import numpy_dispatch
from user_errors import raises

X = np.array([1.0, 2.0, 3.0], np.float32)
M = np.array([[1.0, -2.0, 3.5], [0.5, 4.0, -1.0]], np.float32)
I = np.array([[3, 1, 4], [1, 5, 9]], np.int32)


def graph_and_eager(fn, *arrays):
    """``fn`` traced by ag.function and run eagerly on tensors; both results as numpy values."""
    traced = ag.function(fn)(*map(rt.constant, arrays))
    eager = fn(*map(rt.constant, arrays))
    return traced, eager


def values(result):
    if isinstance(result, tuple):
        return tuple(values(r) for r in result)
    assert isinstance(result, rt.Tensor), f"expected a tensor, got {type(result).__name__} {result!r}"
    return np.asarray(result)


# --- issue 10, class 8: the repros, now right ------------------------------------------------------------
def sum_times_two(t):
    return np.sum(t) * 2


def max_prod_dot_argmax(t):
    return np.max(t), np.prod(t), np.dot(t, t), np.argmax(t), np.min(t), np.argmin(t), np.mean(t)


def test_issue_10_class_8_np_sum_of_a_traced_tensor_is_the_sum():
    function = ag.function(sum_times_two)
    result = function(rt.constant([1., 2., 3.]))
    assert repr(result) == "Tensor(12.0, shape=(), dtype=float32)"
    graph_ops = [op.type for op in function.get_concrete_function(rt.constant(X)).unoptimized_graph.operations]
    assert "Sum" in graph_ops


def test_issue_10_class_8_max_prod_dot_argmax_are_right_in_graph_and_eager():
    traced, eager = graph_and_eager(max_prod_dot_argmax, X)
    expected = (3.0, 6.0, 14.0, 2, 1.0, 0, 2.0)
    for got in (values(traced), values(eager)):
        assert [v.item() for v in got] == list(expected)
        assert [v.dtype for v in got] == [np.float32] * 3 + [np.int64, np.float32, np.int64, np.float32]


# --- every mapped function: graph == eager == numpy on the values -----------------------------------------
CASES = [
    ("sum axis keepdims", lambda t: np.sum(t, axis=1, keepdims=True), M),
    ("sum axis tuple", lambda t: np.sum(t, axis=(0, 1)), M),
    ("mean axis", lambda t: np.mean(t, axis=0), M),
    ("max axis", lambda t: np.max(t, axis=1), M),
    ("amin keepdims", lambda t: np.amin(t, axis=0, keepdims=True), M),
    ("prod axis", lambda t: np.prod(t, axis=1), M),
    ("argmax axis", lambda t: np.argmax(t, axis=1), M),
    ("argmax flat", lambda t: np.argmax(t), M),
    ("argmin axis keepdims", lambda t: np.argmin(t, axis=0, keepdims=True), M),
    ("argmin flat keepdims", lambda t: np.argmin(t, keepdims=True), M),
    ("any", lambda t: np.any(t > 3), M),
    ("all axis", lambda t: np.all(t > 0, axis=0), M),
    ("cumsum flat", lambda t: np.cumsum(t), M),
    ("cumsum axis", lambda t: np.cumsum(t, axis=1), M),
    ("dot matrix vector", lambda t: np.dot(t, np.ones(3, np.float32)), M),
    ("dot vector matrix", lambda t: np.dot(np.ones(2, np.float32), t), M),
    ("dot matrices", lambda t: np.dot(t, np.transpose(t)), M),
    ("dot scalar", lambda t: np.dot(t, np.float32(2)), M),
    ("matmul ufunc", lambda t: np.matmul(t, np.transpose(t)), M),
    ("matmul vector", lambda t: np.matmul(t, np.ones(3, np.float32)), M),
    ("@ with ndarray on the left", lambda t: np.ones((3, 2), np.float32) @ t, M),
    ("where three args", lambda t: np.where(t > 0, t, np.float32(0)), M),
    ("where one arg", lambda t: np.where(t > 0), M),
    ("nonzero", lambda t: np.nonzero(t > 1), M),
    ("concatenate", lambda t: np.concatenate([t, t], axis=1), M),
    ("concatenate flat", lambda t: np.concatenate([t, t], axis=None), M),
    ("stack", lambda t: np.stack([t, t * 2], axis=1), M),
    ("reshape", lambda t: np.reshape(t, (3, 2)), M),
    ("reshape -1", lambda t: np.reshape(t, -1), M),
    ("transpose", lambda t: np.transpose(t), M),
    ("transpose axes", lambda t: np.transpose(np.reshape(t, (1, 2, 3)), (2, 0, 1)), M),
    ("clip", lambda t: np.clip(t, -1.0, 2.0), M),
    ("clip upper only", lambda t: np.clip(t, None, 2.0), M),
    ("exp log sqrt abs", lambda t: (np.exp(t), np.log(np.abs(t)), np.sqrt(np.abs(t)), np.abs(t)), M),
    ("maximum minimum", lambda t: (np.maximum(t, 0.5), np.minimum(t, np.float32(0.5))), M),
    ("arithmetic ufuncs", lambda t: (np.add(t, 1), np.subtract(2, t), np.multiply(t, t), np.divide(t, 4),
                                     np.floor_divide(t, 2), np.mod(t, 2), np.power(t, 2), np.negative(t),
                                     np.positive(t), np.sign(t), np.square(t)), M),
    ("comparisons", lambda t: (np.greater(t, 1), np.greater_equal(t, 1), np.less(t, 1), np.less_equal(t, 1),
                               np.equal(t, 1), np.not_equal(t, 1)), M),
    ("logical", lambda t: (np.logical_and(t > 0, t < 2), np.logical_or(t > 3, t < 0),
                           np.logical_not(t > 0)), M),
    ("ufunc reduce", lambda t: (np.add.reduce(t), np.maximum.reduce(t, axis=1), np.multiply.reduce(t, axis=1,
                                                                                                 keepdims=True)), M),
    ("ufunc accumulate", lambda t: np.add.accumulate(t, axis=1), M),
    ("expand squeeze tile", lambda t: (np.expand_dims(t, 0), np.squeeze(np.reshape(t, (1, 6))),
                                       np.tile(t, (2, 1))), M),
    ("take", lambda t: (np.take(t, [0, 4]), np.take(t, [2, 0], axis=1)), M),
    ("zeros_like ones_like", lambda t: (np.zeros_like(t), np.ones_like(t, dtype=np.int32)), M),
    ("rt.math ufuncs", lambda t: (np.tanh(t), np.sin(t), np.cos(t), np.floor(t), np.ceil(t), np.rint(t * 2),
                                  np.log1p(np.abs(t)), np.expm1(t), np.reciprocal(t), np.isnan(np.sqrt(t)),
                                  np.isfinite(np.reciprocal(t - 0.5))), M),
    ("cumprod sort argsort round", lambda t: (np.cumprod(t), np.cumprod(t, axis=1), np.sort(t), np.sort(t, axis=0),
                                              np.sort(t, axis=None), np.argsort(t), np.argsort(t, axis=None),
                                              np.round(t * 3), np.around(t)), M),
    ("einsum repeat flip broadcast split", lambda t: (np.einsum("ij,kj->ik", t, t), np.repeat(t, 2, axis=1),
                                                      np.repeat(t, 2), np.flip(t), np.flip(t, 1),
                                                      np.broadcast_to(t[0], (4, 3)), *np.split(t, 3, axis=1),
                                                      *np.unstack(t, axis=1)), M),
    ("linalg", lambda t: (np.linalg.det(t[:, :2]), np.linalg.inv(t[:, :2]), np.linalg.norm(t),
                          np.linalg.norm(t, axis=1), np.trace(t[:, :2])), M),
    ("argsort of ties is stable", lambda t: np.argsort(np.floor(t / 2), kind="stable"), M),
    ("int sum keeps int32", lambda t: np.sum(t, axis=0), I),
    ("int mean is numpy's float64 mean", lambda t: np.mean(t), I),
    ("bool sum counts in int64", lambda t: np.sum(t > 2), I),
    ("int true divide", lambda t: np.true_divide(t, 2), I),
]


@pytest.mark.parametrize("fn, array", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_numpy_call_graph_equals_eager_equals_numpy(fn, array):
    traced, eager = graph_and_eager(fn, array)
    with np.errstate(divide="ignore", invalid="ignore"):   # numpy warns where our runtime does not (as TF)
        expected = fn(array)
    traced, eager = values(traced), values(eager)
    if not isinstance(expected, tuple):
        traced, eager, expected = (traced,), (eager,), (expected,)
    for got_graph, got_eager, want in zip(traced, eager, expected, strict=True):
        want = np.asarray(want)
        np.testing.assert_allclose(got_graph, want, rtol=1e-6)
        np.testing.assert_array_equal(got_graph, got_eager)
        assert got_graph.dtype == got_eager.dtype
        assert got_graph.shape == want.shape


def test_dtypes_follow_the_runtime_except_mean_and_bool_sum():
    ints = rt.constant(I)
    assert np.sum(ints).dtype == rt.int32          # numpy would widen to int64
    assert np.mean(ints).dtype == rt.float64       # numpy's value: 3.8333..., not a truncated 3
    assert np.mean(ints).numpy() == pytest.approx(23 / 6)
    assert np.sum(ints > 2).dtype == rt.int64
    assert np.sum(ints, dtype=np.float32).dtype == rt.float32


def test_shape_ndim_size_are_python_values_when_known():
    def shapes(t):
        return np.shape(t), np.ndim(t), np.size(t), np.size(t, 1)

    assert shapes(rt.constant(M)) == ((2, 3), 2, 6, 3)
    seen = []

    @ag.function(input_signature=[rt.TensorSpec([None, 3])])
    def dynamic(t):
        seen.append((np.ndim(t), np.size(t, 1)))
        return np.size(t)

    assert dynamic(rt.constant(M)).numpy() == 6
    assert seen == [(2, 3)]


def test_np_shape_of_an_unknown_dim_is_a_clear_error():
    @ag.function(input_signature=[rt.TensorSpec([None, 3])])
    def f(t):
        return np.shape(t)

    raises(TypeError, f, (rt.constant(M),), "np.shape: the shape (None, 3) is not fully known while tracing",
           "use rt.shape(t)", at="np.shape(t)")


# --- hypothesis: reductions on random shapes and axes ---------------------------------------------------
REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
              "argmax": np.argmax, "argmin": np.argmin}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(REDUCTIONS)), keepdims=st.booleans())
def test_reductions_match_numpy_on_random_shapes(data, name, keepdims):
    array = data.draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
                                 elements=st.floats(-10, 10, width=32)))
    axis = data.draw(st.none() | st.integers(-array.ndim, array.ndim - 1))
    reduce = REDUCTIONS[name]

    def fn(t):
        return reduce(t, axis=axis, keepdims=keepdims)

    traced, eager = graph_and_eager(fn, array)
    want = reduce(array, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(values(traced), want, rtol=1e-9)
    np.testing.assert_array_equal(values(traced), values(eager))
    assert values(traced).shape == np.shape(want)


# --- no mapping: a clear error on symbolic tensors, numpy's own answer on eager ones ------------------------
def uses_sort(t):
    return np.partition(t, 1)


def uses_arctanh(t):
    return np.arctanh(t) + 1


def uses_asarray(t):
    return np.asarray(t) + 1


def uses_out(t):
    out = np.zeros(3, np.float32)
    return np.sum(t, out=out)


def uses_ufunc_out(t):
    out = np.zeros(3, np.float32)
    np.add(t, 1, out=out)
    return out


def uses_object_array(t):
    return np.array([t, t])


def test_unmapped_numpy_function_names_itself_and_the_op_to_use():
    message = raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(uses_sort), (rt.constant(X),),
                     "np.partition has no graph op mapping", "symbolic tensor t:0 (dtype=float32, shape=(3,))",
                     "numpy object array", "use the runtime op that computes it (rt.*)", at="np.partition(t, 1)")
    assert "Tensor(" not in message


def test_unmapped_ufunc_names_itself():
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(uses_arctanh), (rt.constant(X),),
           "np.arctanh has no graph op mapping", at="np.arctanh(t)")


def test_unmapped_function_with_a_known_replacement_suggests_it():
    @ag.function
    def f(t):
        return np.std(t)

    raises(rt.errors.OperatorNotAllowedInGraphError, f, (rt.constant(X),), "np.std has no graph op mapping",
           "use rt.sqrt(rt.reduce_mean(rt.square(x - rt.reduce_mean(x)))) instead", at="np.std(t)")


def test_every_suggested_rt_name_exists():
    import re
    for hint in numpy_dispatch._SUGGESTIONS.values():
        for dotted in re.findall(r"rt\.([a-z_.]+)\(", hint):
            target = rt
            for part in dotted.split("."):
                target = getattr(target, part)
            assert callable(target), dotted


@pytest.mark.parametrize("fn, fragment", [
    (uses_out, "np.sum called with arguments that have no op mapping"),
    (uses_ufunc_out, "np.add called with ['out'] has no graph op mapping"),
])
def test_unsupported_arguments_of_a_mapped_function_are_an_error(fn, fragment):
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(fn), (rt.constant(X),), fragment,
           "it cannot run on the symbolic tensor t:0")


@pytest.mark.parametrize("fn, at", [(uses_asarray, "np.asarray(t)"), (uses_object_array, "np.array([t, t])")])
def test_a_symbolic_tensor_never_becomes_a_numpy_array(fn, at):
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(fn), (rt.constant(X),),
           "Converting to a numpy array a symbolic tensor (t:0, dtype=float32, shape=(3,))",
           "numpy functions with an op mapping (np.sum, np.dot, np.exp, ...) become ops", at=at)


def test_eager_tensors_still_run_unmapped_numpy_and_become_ndarrays():
    t = rt.constant([3.0, 1.0, 2.0])
    assert np.asarray(t).tolist() == [3.0, 1.0, 2.0]
    assert type(np.asarray(t)) is np.ndarray
    partitioned = np.partition(t, 0)
    assert type(partitioned) is np.ndarray and partitioned[0] == 1.0
    assert np.allclose(t, [3.0, 1.0, 2.0]) is True or np.allclose(t, [3.0, 1.0, 2.0]) == np.True_
    arcsinh = np.arcsinh(t)
    assert type(arcsinh) is np.ndarray and arcsinh.dtype == np.float32
    np.testing.assert_array_equal(arcsinh, np.arcsinh(np.float32([3.0, 1.0, 2.0])))
    out = np.zeros(3, np.float32)
    np.add(t, 1, out=out)
    assert out.tolist() == [4.0, 2.0, 3.0]


def test_mapped_numpy_on_eager_tensors_returns_tensors():
    t = rt.constant([3.0, 1.0, 2.0])
    assert repr(np.sum(t)) == "Tensor(6.0, shape=(), dtype=float32)"
    assert repr(np.exp(rt.constant([0.0]))) == "Tensor([1.], shape=(1,), dtype=float32)"
    assert repr(np.ones(3, np.float32) + t) == "Tensor([4. 2. 3.], shape=(3,), dtype=float32)"


def test_run_functions_eagerly_gives_the_graph_result():
    function = ag.function(max_prod_dot_argmax)
    graph_result = values(function(rt.constant(X)))
    ag.run_functions_eagerly(True)
    try:
        eager_result = values(function(rt.constant(X)))
    finally:
        ag.run_functions_eagerly(False)
    for g, e in zip(graph_result, eager_result, strict=True):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype


def test_one_table_every_entry_is_callable_and_names_are_numpy_names():
    assert numpy_dispatch.numpy_name(np.linalg.norm) == "np.linalg.norm"
    assert numpy_dispatch.numpy_name(np.sum) == "np.sum"
    assert all(isinstance(u, np.ufunc) for u in numpy_dispatch.UFUNCS)
    assert all(callable(f) for f in numpy_dispatch.FUNCTIONS.values())
    assert np.abs in numpy_dispatch.UFUNCS and np.divide in numpy_dispatch.UFUNCS  # numpy's aliases


def test_np_dot_of_rank_three_is_a_clear_error():
    @ag.function
    def f(t):
        return np.dot(t, t)

    raises(TypeError, f, (rt.constant(np.ones((2, 2, 2), np.float32)),),
           "np.dot of tensors of rank 3 and 3 has no op mapping", "use rt.matmul", at="np.dot(t, t)")


def test_variables_work_with_mapped_and_unmapped_numpy():
    v = rt.Variable([3.0, 1.0, 2.0])
    assert repr(np.sum(v)) == "Tensor(6.0, shape=(), dtype=float32)"
    assert np.partition(v, 0)[0] == 1.0  # unmapped: numpy on the value, not endless re-dispatch
    np.testing.assert_array_equal(np.arcsinh(v), np.arcsinh(np.float32([3.0, 1.0, 2.0])))
    assert np.asarray(v).tolist() == [3.0, 1.0, 2.0]
