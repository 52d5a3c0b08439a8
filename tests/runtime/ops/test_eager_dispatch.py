"""The lean eager path (``apply_op``, ``convert_operands``): the same values, dtypes, errors and silence
as the general conversion and the kernels, for tensors with Python scalars and for ufunc-wrapping ops."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError
from runtime.core.registry import get_op
from runtime.ops.convert import convert_operands

NUMERIC = [d for d in dtypes.ALL if d.kind in "iuf"]
scalars = st.one_of(st.integers(-2**63, 2**63 - 1), st.integers(-300, 300),
                    st.floats(allow_nan=True, allow_infinity=True), st.booleans())


def _numpy_cast(value, dtype):
    """What converting a Python scalar to ``dtype`` means: numpy's asarray, then astype (with its warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        array = np.asarray(value).astype(dtype)
    return array, [str(w.message) for w in caught]


@settings(max_examples=300, deadline=None)
@given(value=scalars, dtype=st.sampled_from(NUMERIC), scalar_first=st.booleans())
def test_a_python_scalar_next_to_a_tensor_converts_exactly_as_numpy_casts_it(value, dtype, scalar_first):
    tensor = rt.constant(np.ones(3, dtype))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            pair = convert_operands(value, tensor) if scalar_first else convert_operands(tensor, value)
        except (TypeError, ValueError) as error:  # an int out of range, a float for an integer dtype
            assert dtype.kind in "iu" and ("out of its range" in str(error) or "fractional part" in str(error))
            return
    converted = pair[0] if scalar_first else pair[1]
    assert converted.dtype == dtype and converted.shape == ()
    if not (isinstance(value, float) and dtype.kind in "iu"):  # (a whole float: checked, then cast)
        expected, expected_warnings = _numpy_cast(value, dtype)
        assert converted.numpy().tobytes() == expected.tobytes()
        assert [str(w.message) for w in caught] == expected_warnings


def test_int_and_float_scalars_keep_the_tensors_dtype_and_value():
    x = rt.constant([1.5, -2.0], rt.float16)
    assert (x * 2).dtype == np.float16 and (x * 2).numpy().tolist() == [3.0, -4.0]
    assert (2 ** 53 + 1.0 - rt.constant(0.0, rt.float64)).numpy() == float(2 ** 53)
    assert (rt.constant(1.0, rt.float32) * (2 ** 24 + 1)).numpy() == np.float32(2 ** 24)  # one rounding
    i = rt.constant([1, 2], rt.uint8)
    assert (i + 254).numpy().tolist() == [255, 0]  # wraps silently, as in a graph
    with pytest.raises(ValueError, match=r"256 is out of its range \[0, 255\]"):
        i + 256
    with pytest.raises(ValueError, match=r"-1 is out of its range \[0, 255\]"):
        -1 + i
    with pytest.raises(TypeError, match="fractional part"):
        i * 0.5


def test_eager_ops_that_wrap_a_ufunc_call_it_directly_silently_and_restore_the_error_state():
    assert get_op("Log").eager_kernel is np.log and get_op("RealDiv").eager_kernel is np.true_divide
    assert get_op("FloorMod").eager_kernel is get_op("FloorMod").kernel  # integer zero check kept
    before = np.geterr()
    x = rt.constant([0.0, 1.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's RuntimeWarning would fail the test
        log, quotient, root = rt.log(x), rt.divide(x, 0.0), rt.sqrt(x)
    assert np.geterr() == before
    with np.errstate(all="ignore"):
        expected = (np.log(x.numpy()), np.true_divide(x.numpy(), np.float32(0)), np.sqrt(x.numpy()))
    for got, want in zip((log, quotient, root), expected):
        assert got.dtype == want.dtype and got.numpy().tobytes() == want.tobytes()
    with pytest.raises(InvalidArgumentError, match="FloorMod: Integer division by zero"):
        rt.constant([3, 4]) % rt.constant([1, 0])


def test_tensors_hash_by_identity_while_equality_is_elementwise():
    a, b = rt.constant([1, 2]), rt.constant([1, 2])
    assert {a: "a", b: "b"}[a] == "a" and hash(a) != hash(b)
    assert (a == b).numpy().tolist() == [True, True] and (a != 1).numpy().tolist() == [False, True]


@settings(max_examples=100, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3), dtype=st.sampled_from(NUMERIC),
       keepdims=st.booleans(), data=st.data())
def test_reduction_kernels_give_numpys_results_and_errors(shape, dtype, keepdims, data):
    """The kernels call the array's methods (no np.sum wrapper); values, dtypes and errors are numpy's."""
    array = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    axis = data.draw(st.one_of(st.none(), st.lists(st.integers(-len(shape), max(len(shape) - 1, 0)),
                                                   max_size=len(shape), unique=True).map(tuple)))
    for name, reference in (("Sum", lambda: np.sum(array, axis=axis, keepdims=keepdims, dtype=array.dtype)),
                            ("Prod", lambda: np.prod(array, axis=axis, keepdims=keepdims, dtype=array.dtype)),
                            ("Max", lambda: np.max(array, axis=axis, keepdims=keepdims)),
                            ("Min", lambda: np.min(array, axis=axis, keepdims=keepdims))):
        kernel = get_op(name).kernel
        try:
            expected = reference()
        except Exception as error:  # noqa: BLE001 - the same error type and text is expected
            with pytest.raises(type(error), match=None) as raised:
                kernel(array, axis=axis, keepdims=keepdims)
            assert str(raised.value) == str(error)
            continue
        got = kernel(array, axis=axis, keepdims=keepdims)
        assert np.asarray(got).dtype == np.asarray(expected).dtype
        assert np.asarray(got).tobytes() == np.asarray(expected).tobytes() and np.shape(got) == np.shape(expected)
