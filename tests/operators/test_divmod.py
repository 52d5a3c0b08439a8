"""``divmod`` with a tensor on either side: ``(a // b, a % b)`` with Python's (and numpy's) floor semantics,
eager, in a converted function and traced, equal to Python's divmod on each element."""
import numpy as np
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt

nonzero_ints = st.integers(-50, 50).filter(lambda v: v != 0)
ints = st.lists(st.integers(-100, 100), min_size=1, max_size=5)


def divide_with_remainder(a, b):
    quotient, remainder = divmod(a, b)
    return quotient, remainder


def _python(values, divisor, tensor_first=True):
    pairs = [divmod(v, divisor) if tensor_first else divmod(divisor, v) for v in values]
    return [q for q, _ in pairs], [r for _, r in pairs]


@settings(max_examples=30, deadline=None)
@given(values=ints, divisor=nonzero_ints)
def test_tensor_divmod_int(values, divisor):
    expected = _python(values, divisor)
    for run in (lambda a, b: divmod(a, b), ag.to_graph(divide_with_remainder), ag.function(divide_with_remainder)):
        quotient, remainder = run(rt.constant(values), divisor)
        assert quotient.dtype == rt.int32 and remainder.dtype == rt.int32
        assert quotient.numpy().tolist() == expected[0] and remainder.numpy().tolist() == expected[1]


@settings(max_examples=30, deadline=None)
@given(values=st.lists(nonzero_ints, min_size=1, max_size=5), dividend=st.integers(-100, 100))
def test_int_divmod_tensor(values, dividend):
    expected = _python(values, dividend, tensor_first=False)
    for run in (lambda a, b: divmod(a, b), ag.to_graph(divide_with_remainder), ag.function(divide_with_remainder)):
        quotient, remainder = run(dividend, rt.constant(values))
        assert quotient.numpy().tolist() == expected[0] and remainder.numpy().tolist() == expected[1]


def test_floats_follow_numpy_and_python():
    values = np.array([7.5, -7.5, 0.25], dtype=np.float32)
    expected = np.divmod(values, np.float32(2.0))
    assert [divmod(float(v), 2.0) for v in values] == [(3.0, 1.5), (-4.0, 0.5), (0.0, 0.25)]
    for run in (ag.to_graph(divide_with_remainder), ag.function(divide_with_remainder)):
        quotient, remainder = run(rt.constant(values), 2.0)
        np.testing.assert_array_equal(quotient.numpy(), expected[0])
        np.testing.assert_array_equal(remainder.numpy(), expected[1])


def test_two_tensors_and_a_scalar_tensor():
    quotient, remainder = ag.function(divide_with_remainder)(rt.constant([9, -9]), rt.constant([4, 4]))
    assert quotient.numpy().tolist() == [2, -3] and remainder.numpy().tolist() == [1, 3]
    quotient, remainder = divmod(rt.constant(-7), 2)
    assert (int(quotient), int(remainder)) == divmod(-7, 2) == (-4, 1)


def test_python_values_stay_python():
    assert ag.to_graph(divide_with_remainder)(-7, 2) == divmod(-7, 2) == (-4, 1)
