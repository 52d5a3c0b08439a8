"""ag.testing.assert_gradients_match on a custom op (rt.custom_gradient) with a wrong gradient rule (and its right
twin), through a tensor if, and at kinks (moved off by default, checked as given on request). Custom ops, not ops
registered here: the registry is global, and the suite checks every registered op (ONNX, XLA, kinks, rules)."""
import re

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


# Two custom ops, as a user writes them (rt.custom_gradient: a value and its gradient rule): x ** 3 with the
# right rule, and with a wrong one.
@rt.custom_gradient
def cube(x):
    def gradient(dy):
        return dy * 3.0 * x * x
    return x * x * x, gradient


@rt.custom_gradient
def wrong_cube(x):
    def gradient(dy):
        return dy * 2.0 * x   # the planted bug: d(x^3)/dx is 3x^2
    return x * x * x, gradient


def cubic_step(x, y):
    if rt.reduce_sum(x) > 0:
        return cube(x) * y, rt.reduce_sum(y)
    return x * y, y


def test_gradients_match_for_a_right_rule_through_a_tensor_if():
    check = ag.testing.assert_gradients_match(cubic_step, [0.5, 1.5], [2.0, -1.0])
    assert not check.moved
    np.testing.assert_allclose(check.numeric[0], check.tape[0], rtol=1e-6)
    np.testing.assert_allclose(check.graph[1], check.tape[1], rtol=1e-12)


def test_a_wrong_gradient_rule_of_a_custom_op_fails():
    with pytest.raises(AssertionError) as failure:
        ag.testing.assert_gradients_match(lambda x: wrong_cube(x) + x, [1.0, 2.0])
    message = str(failure.value)
    assert 'gradients do not match finite differences (rtol=1e-05, atol=1e-06) at (array([1., 2.]))' in message
    assert 'input 0: the eager tape gives' in message and 'input 0: the graph tape gives' in message


def test_only_the_eager_tape_when_graph_is_false():
    with pytest.raises(AssertionError) as failure:
        ag.testing.assert_gradients_match(wrong_cube, [1.0], graph=False)
    assert 'eager tape' in str(failure.value) and 'graph tape' not in str(failure.value)


def test_a_kink_is_moved_off_by_default_and_checked_as_given_on_request():
    def hinge(x):
        return rt.maximum(x, 0.0) * 3.0
    assert ag.testing.assert_gradients_match(hinge, [0.0, 1.0]).moved
    with pytest.raises(AssertionError) as failure:
        ag.testing.assert_gradients_match(hinge, [0.0, 1.0], at_given_points=True)
    assert re.search(r'the point is at a kink \(one-sided differences disagree: input 0 at \[0\]: right -?[0-9.]+, '
                     r'left 0\)', str(failure.value))


def test_gradients_of_an_existing_ag_function():
    function = ag.function(lambda x: rt.exp(x) * x)
    ag.testing.assert_gradients_match(function, np.array([[0.1, -0.2]]))
