"""What a tensor-dependent if/loop carries when a path holds a Python number, or when it adds an
attribute to an object: graph == eager == expected, and converted == original on Python values."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_staged_control_flow import check

# --- a Python number on one path takes the tensor dtype of the other ------------------------------
def relu_returning_python_zero(x):
    if x > 0:
        return x
    return 0


def clipped(x):
    if x > 1.0:
        y = 1
    else:
        y = x
    return y


def test_python_number_on_one_path_adopts_the_tensor_dtype():
    relu = ag.function(relu_returning_python_zero)
    assert relu(rt.constant(-3.0)).numpy() == 0.0
    assert relu(rt.constant(-3.0)).dtype == rt.float32
    assert relu(rt.constant(2.5)).numpy() == 2.5
    assert relu(rt.constant(-3)).dtype == rt.int32
    clip = ag.function(clipped)
    for value in (0.25, 4.0):
        graph = clip(rt.constant(value))
        assert graph.dtype == rt.float32
        assert graph.numpy() == np.asarray(clipped(rt.constant(value))) == min(value, 1.0)


def fractional_on_int_path(x):
    if x > 0:
        y = x
    else:
        y = 0.5
    return y


def test_fractional_python_number_cannot_take_an_int_dtype():
    with pytest.raises(rt.errors.StateError, match="'y' has dtype float32 in the else branch but dtype int32"):
        ag.function(fractional_on_int_path)(rt.constant(3))


class Box:
    pass


def labelled(x):
    box = Box()
    if x > 0:
        box.value = x + 1
    else:
        box.value = x - 1
    return box.value


def labelled_in_one_branch(x):
    box = Box()
    if x > 0:
        box.value = x + 1
    return box.value


def test_an_attribute_a_tensor_if_adds_to_a_new_object():
    function = ag.function(labelled)
    check(function, (rt.constant(3),), 4)
    check(function, (rt.constant(-3),), -4)
    assert function.experimental_get_tracing_count() == 1
    assert "ag__.value_or_undefined(lambda: box.value, 'box.value')" in ag.to_code(labelled)
    assert [ag.to_graph(labelled)(v) for v in (3, -3)] == [labelled(v) for v in (3, -3)] == [4, -4]


def test_an_attribute_added_in_one_branch_of_a_tensor_if_is_named():
    with pytest.raises(rt.errors.StateError, match="'box.value' is defined only in the if branch"):
        ag.function(labelled_in_one_branch)(rt.constant(3))
    assert ag.to_graph(labelled_in_one_branch)(3) == 4
    with pytest.raises(AttributeError):
        ag.to_graph(labelled_in_one_branch)(-3)
    with pytest.raises(AttributeError):
        labelled_in_one_branch(-3)


class Accumulator:
    def __init__(self):
        self.total = 0

    def add_up_to(self, n):
        i = 0
        while i < n:
            self.total += i
            i += 1
        return self.total


def test_attributes_of_parameters_are_read_directly():
    code = ag.to_code(Accumulator.add_up_to)
    assert "return (i, self.total)" in code and "value_or_undefined" not in code
    accumulator = Accumulator()
    assert int(ag.function(accumulator.add_up_to)(rt.constant(4))) == 6
