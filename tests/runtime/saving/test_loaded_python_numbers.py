"""A loaded function converts Python numbers, numpy scalars and arrays to the dtype of a saved tensor signature,
as the original's input_signature does (it cannot trace a new graph for them); an exact saved match wins."""
import numpy as np
import pytest

import runtime as rt


@pytest.fixture
def doubled(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def double(n):
        return n * 2
    rt.save(double, tmp_path / "double")
    return double, rt.load(tmp_path / "double")


@pytest.mark.parametrize("value", [5, np.int32(5), np.int64(5), np.array(5), 5.0, True])
def test_a_number_is_converted_as_the_original_converts_it(doubled, value):
    original, loaded = doubled
    got = loaded(value)
    assert got.dtype == rt.int32 and got.numpy() == original(value).numpy()


@pytest.mark.parametrize("value, message", [
    (5.5, "no saved signature matches (n=5.5)"),
    (2 ** 40, "no saved signature matches (n=1099511627776)"),
    ("5", "no saved signature matches (n='5')"),
])
def test_a_value_the_dtype_cannot_hold_matches_no_signature(doubled, value, message):
    _, loaded = doubled
    with pytest.raises(TypeError) as caught:
        loaded(value)
    assert message in str(caught.value)
    assert "n: int32 Tensor, shape=()" in str(caught.value)


def test_nested_lists_of_numbers_convert_leaf_by_leaf(tmp_path):
    @rt.function
    def total(pair):
        return pair[0] + rt.reduce_sum(pair[1])
    total([rt.constant(1.0), rt.constant([2.0, 3.0])])
    rt.save(total, tmp_path / "total")
    loaded = rt.load(tmp_path / "total")
    assert loaded([1, [2, 3]]).numpy() == np.float32(6.0)
    assert loaded([1, np.array([2.0, 3.0])]).numpy() == np.float32(6.0)
    with pytest.raises(TypeError, match="no saved signature matches"):
        loaded([1, [2, 3, 4]])   # a shape no saved signature has


def test_an_exact_python_valued_trace_wins_over_conversion(tmp_path):
    @rt.function
    def scaled(x, k):
        return x * k
    x = rt.constant([1.0, 2.0])
    scaled(x, 3)                    # k keyed by its Python value 3
    scaled(x, rt.constant(10.0))    # k a float32 tensor
    rt.save(scaled, tmp_path / "scaled")
    loaded = rt.load(tmp_path / "scaled")
    assert loaded.get_concrete_function(x, 3) is loaded.concrete_functions[0]
    assert loaded.get_concrete_function(x, 4) is loaded.concrete_functions[1]   # 4.0, converted
    np.testing.assert_array_equal(loaded(x, 4).numpy(), [4.0, 8.0])
    np.testing.assert_array_equal(loaded(x, 3).numpy(), [3.0, 6.0])


def test_a_function_with_an_input_signature_saves_without_a_call(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def half(x):
        return x / 2
    rt.save(half, tmp_path / "half")
    assert half.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(rt.load(tmp_path / "half")([1, 3]).numpy(), [0.5, 1.5])

    @rt.function
    def unsigned(x):
        return x
    with pytest.raises(rt.errors.SaveError, match="unsigned has not been traced yet"):
        rt.save(unsigned, tmp_path / "unsigned")
