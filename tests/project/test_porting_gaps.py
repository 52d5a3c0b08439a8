"""Gaps a user porting TensorFlow code hits (issue 12, section 3): wide Python ints, out-of-range
values, Variables created on a function's first trace (the Keras ``build`` pattern)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import autograph_lite as ag
import runtime as rt
from user_errors import raises


# --- Python ints beyond int32 are int64, exactly; beyond int64 an error ----------------------------------
def test_a_python_int_beyond_int32_is_an_exact_int64():
    big = rt.constant(2 ** 40)
    assert big.dtype == rt.int64 and big.numpy() == 2 ** 40
    assert repr(rt.constant([1, -2 ** 40])) == "Tensor([             1 -1099511627776], shape=(2,), dtype=int64)"
    assert rt.constant(2 ** 31 - 1).dtype == rt.int32 and rt.constant(-2 ** 31).dtype == rt.int32
    assert rt.constant(2 ** 31).dtype == rt.int64 and rt.constant(-2 ** 31 - 1).dtype == rt.int64
    assert rt.constant(-2 ** 63).numpy() == -2 ** 63
    assert (rt.constant(2 ** 40) + 1).numpy() == 2 ** 40 + 1
    assert rt.constant(range(2 ** 40, 2 ** 40 + 2)).numpy().tolist() == [2 ** 40, 2 ** 40 + 1]


@given(st.integers(-2 ** 63, 2 ** 63 - 1))
def test_every_int64_python_int_round_trips_exactly(value):
    tensor = rt.constant(value)
    assert int(tensor.numpy()) == value
    assert tensor.dtype == (rt.int32 if -2 ** 31 <= value < 2 ** 31 else rt.int64)


@pytest.mark.parametrize("value", [2 ** 63, -2 ** 63 - 1, [1, 2 ** 64]])
def test_a_python_int_beyond_int64_is_an_error(value):
    with pytest.raises(ValueError, match=r"is out of the range of int64 \(\[-9223372036854775808, "
                                         r"9223372036854775807\]\), the widest integer dtype"):
        rt.constant(value)


def test_a_big_int_in_a_traced_function_is_an_int64_constant():
    @ag.function
    def f(x):
        return x + 2 ** 40

    assert f(rt.constant(2 ** 33)).numpy() == 2 ** 33 + 2 ** 40
    with pytest.raises(ValueError, match=r"cannot convert 1099511627776 to a tensor of dtype int32: "
                                         r"1099511627776 is out of its range \[-2147483648, 2147483647\]"):
        f(rt.constant(1))


@pytest.mark.parametrize("value, dtype, message", [
    (-1, rt.uint8, "cannot convert -1 to a tensor of dtype uint8: -1 is out of its range [0, 255]"),
    (256, rt.uint8, "256 is out of its range [0, 255]"),
    (300, rt.int8, "cannot convert 300 to a tensor of dtype int8: 300 is out of its range [-128, 127]"),
    ([1, -129], rt.int8, "-129 is out of its range [-128, 127]"),
    (2 ** 40, rt.int32, "1099511627776 is out of its range [-2147483648, 2147483647]"),
    (256.0, rt.uint8, "256.0 is out of its range [0, 255]"),
    (np.array([1, 70000]), rt.int16, "70000 is out of its range [-32768, 32767]"),
])
def test_an_out_of_range_value_for_an_explicit_dtype_is_an_error(value, dtype, message):
    with pytest.raises(ValueError) as info:
        rt.constant(value, dtype)
    assert message in str(info.value)
    assert "pass a wider dtype (e.g. rt.int64)" in str(info.value)


def test_in_range_values_for_explicit_dtypes_still_convert():
    assert rt.constant(255, rt.uint8).numpy() == 255
    assert rt.constant([-128, 127], rt.int8).numpy().tolist() == [-128, 127]
    assert rt.constant(255.0, rt.uint8).numpy() == 255
    assert rt.constant(2 ** 40, rt.float64).numpy() == 2.0 ** 40
    assert rt.constant(np.array([1, 2], np.int64), rt.int8).dtype == rt.int8


def test_operands_must_fit_the_tensors_dtype():
    with pytest.raises(ValueError, match="cannot convert -1 to a tensor of dtype uint8"):
        rt.constant([1, 2], rt.uint8) + (-1)


# --- Variables created on the first trace: the Keras build pattern -----------------------------------------
class Dense:
    def __init__(self, units):
        self.units = units
        self.w = None
        self.calls = 0

    @ag.function
    def __call__(self, x):
        self.calls += 1  # a Python side effect: counts traces
        if self.w is None:
            self.w = rt.Variable(rt.ones([x.shape[-1], self.units]) * 0.5, name="w")
        return rt.matmul(x, self.w)


def test_keras_build_pattern_creates_the_variable_on_the_first_trace():
    layer = Dense(2)
    first = layer(rt.constant([[1.0, 2.0]]))
    assert first.numpy().tolist() == [[1.5, 1.5]]
    assert isinstance(layer.w, rt.Variable) and layer.w.numpy().tolist() == [[0.5, 0.5], [0.5, 0.5]]
    assert layer.calls == 2  # traced twice on the first call: the second trace must reuse the variable
    variable = layer.w
    second = layer(rt.constant([[1.0, 2.0], [3.0, 4.0]]))  # a new signature: traced again, no new variable
    assert second.numpy().tolist() == [[1.5, 1.5], [3.5, 3.5]]
    assert layer.w is variable and layer.calls == 3
    layer.w.assign(rt.ones([2, 2]))
    assert layer(rt.constant([[1.0, 2.0]])).numpy().tolist() == [[3.0, 3.0]]  # the graph reads the variable
    assert layer.__call__.experimental_get_tracing_count() == 2  # one per signature, the double first trace counts once


def test_initial_value_from_a_callable_and_from_random_ops():
    class Layer:
        w = None
        b = None

        @ag.function
        def __call__(self, x):
            if self.w is None:
                self.w = rt.Variable(lambda: rt.zeros([3]) + 2.0, name="w")
                self.b = rt.Variable(rt.random.uniform([3], seed=1), name="b")
            return x * self.w + self.b

    layer = Layer()
    out = layer(rt.constant([1.0, 2.0, 3.0]))
    bias = layer.b.numpy()
    assert np.all((bias >= 0) & (bias < 1))
    np.testing.assert_array_equal(out.numpy(), np.array([2.0, 4.0, 6.0], np.float32) + bias)
    np.testing.assert_array_equal(layer(rt.constant([1.0, 2.0, 3.0])).numpy(), out.numpy())  # drawn once


def create_every_time(x):
    v = rt.Variable(1.0, name="v")
    return v + x


def test_a_variable_created_on_every_trace_is_the_clear_error():
    raises(ValueError, ag.function(create_every_time), (rt.constant(1.0),),
           "rt.Variable('v') is created every time 'create_every_time' is traced: its first trace created 'v'",
           "guard the creation (`if self.v is None: self.v = rt.Variable(...)`)", at="rt.Variable(1.0")


class LateCreation:
    w = None

    @ag.function
    def __call__(self, x, create):
        if create:
            self.w = rt.Variable(0.0, name="late")
        return x


def test_a_variable_created_on_a_later_trace_is_the_clear_error():
    layer = LateCreation()
    assert layer(rt.constant(1.0), False).numpy() == 1.0
    message = raises(ValueError, layer.__call__, (rt.constant(1.0), True),
                     "rt.Variable('late') was created while tracing '__call__' again (for a new signature)",
                     "may create variables on its first trace only, as in TensorFlow",
                     at="self.w = rt.Variable(0.0")
    assert layer.w is None, message


def test_a_failed_first_trace_does_not_use_up_the_first_trace():
    class Flaky:
        w = None
        fail = True

        @ag.function
        def __call__(self, x):
            if self.fail:
                raise RuntimeError("boom")
            if self.w is None:
                self.w = rt.Variable(3.0, name="w")
            return x * self.w

    layer = Flaky()
    with pytest.raises(RuntimeError, match="boom"):
        layer(rt.constant(1.0))
    layer.fail = False
    assert layer(rt.constant(2.0)).numpy() == 6.0


def test_an_initial_value_computed_from_the_inputs_is_an_error():
    class FromInput:
        w = None

        @ag.function
        def __call__(self, x):
            if self.w is None:
                self.w = rt.Variable(x * 2, name="from_x")
            return self.w

    raises(ValueError, FromInput().__call__, (rt.constant(1.0),),
           "the initial value of rt.Variable('from_x') depends on the function's inputs",
           "create it outside the function and assign it inside", at="rt.Variable(x * 2")


def test_variables_created_by_rt_function_on_the_first_trace_too():
    state = {}

    @rt.function
    def counter(step):
        if "count" not in state:
            state["count"] = rt.Variable(0, name="count")
        state["count"].assign_add(step)
        return state["count"].read_value()

    assert [counter(rt.constant(2)).numpy() for _ in range(3)] == [2, 4, 6]


def test_a_variable_inside_a_graph_traced_outside_a_function_is_refused():
    graph = rt.FuncGraph("g")
    from runtime.core import context
    with context.graph_scope(graph):
        with pytest.raises(ValueError, match=r"rt.Variable\('v'\) was created while tracing a graph"):
            rt.Variable(1.0, name="v")


# --- range over an unknown dimension ----------------------------------------------------------------------
def sum_rows_by_shape(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return total


def sum_rows_by_run_time_shape(x):
    total = 0.0
    for i in range(rt.shape(x)[0]):
        total += x[i]
    return total


def test_range_of_an_unknown_dimension_is_a_clear_error():
    function = ag.function(sum_rows_by_shape, input_signature=[rt.TensorSpec([None])])
    raises(TypeError, function, (rt.constant([1.0, 2.0]),),
           "range() got None while tracing: a dimension that is unknown until the graph runs",
           "Use range(len(x)) or range(rt.shape(x)[i]) for a graph loop", at="range(x.shape[0])")


def test_range_of_the_run_time_dimension_stages_the_loop():
    function = ag.function(sum_rows_by_run_time_shape, input_signature=[rt.TensorSpec([None])])
    assert function(rt.constant([1.0, 2.0, 4.0])).numpy() == 7.0
    assert function(rt.constant([5.0])).numpy() == 5.0
    assert function.experimental_get_tracing_count() == 1


def test_range_of_a_known_dimension_unrolls_and_python_none_keeps_pythons_error():
    function = ag.function(sum_rows_by_shape)
    assert function(rt.constant([1.0, 2.0])).numpy() == 3.0
    with pytest.raises(TypeError, match="'NoneType' object cannot be interpreted as an integer"):
        ag.to_graph(_range_of)(None)


def _range_of(n):
    return list(range(n))


# --- a staged if's return value: the error names the returns, at the later return's line --------------------
def early_return_of_a_tuple(x):
    if x > 0:
        return x, x
    return -x


def early_return_of_a_float(x):
    if x > 0:
        return 1.5
    return -x


def returns_in_if_elif_and_after(x):
    if x > 0:
        return x
    elif x < -5:
        return x * 2
    return rt.cast(x, rt.float32)


def both_branches_return(x):
    if x > 0:
        return x, x
    else:
        return x


def test_an_early_return_of_another_structure_names_both_returns_at_the_later_one():
    raises(rt.errors.StateError, ag.function(early_return_of_a_tuple), (rt.constant(1),),
           "the return value is a tuple of (a tensor of dtype int32 and shape (), a tensor of dtype int32 and "
           "shape ()) at an earlier return (inside a tensor-dependent if) but a tensor of dtype int32 and shape () "
           "at this return; every return must give a tensor (or number) of the same dtype and structure",
           at="return -x")


def test_an_early_return_of_another_dtype_names_both_returns_at_the_later_one():
    message = raises(rt.errors.StateError, ag.function(early_return_of_a_float), (rt.constant(1),),
                     "the return value has dtype float32 at an earlier return (inside a tensor-dependent if) but "
                     "dtype int32 at this return; give every return the same dtype (e.g. with rt.cast)",
                     at="return -x")
    assert "def early_return_of_a_float" not in message


def test_the_returns_of_an_elif_chain_are_named_at_the_last_return():
    raises(rt.errors.StateError, ag.function(returns_in_if_elif_and_after), (rt.constant(1),),
           "the return value has dtype int32 at an earlier return (inside a tensor-dependent if) but dtype "
           "float32 at this return", at="return rt.cast(x, rt.float32)")


def test_returns_in_both_branches_name_the_branches():
    raises(rt.errors.StateError, ag.function(both_branches_return), (rt.constant(1),),
           "the return value is a tensor of dtype int32 and shape () in the else branch but a tuple of",
           "in the if branch of a tensor-dependent if", at="if x > 0:")
