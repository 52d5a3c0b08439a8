"""Gradients through tensor-dependent `if` (the If op): finite differences, graph == eager, errors."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from gradient_checks import (assert_close, converted_eager_tape_gradients, converted_tape_gradients,
                             numeric_gradients)


def piecewise(x, w):
    if rt.reduce_sum(x) > 0.0:
        y = rt.exp(x) * w
        if rt.reduce_max(x) > 1.0:  # nested
            y = y * x
    else:
        y = rt.square(x) - w
    return rt.reduce_sum(y * y)


def relu_with_early_return(x):
    if rt.reduce_mean(x) > 0:
        return rt.reduce_sum(x * x)
    return rt.reduce_sum(x) * 3.0


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_nested_tensor_ifs_match_finite_differences_and_eager(sign, scale):
    rng = np.random.default_rng(int(scale * 10))
    x = sign * np.abs(rng.standard_normal(3)) * scale
    w = rng.standard_normal(3)
    traced, grads = converted_tape_gradients(piecewise, [x, w])
    assert_close(traced, numeric_gradients(ag.to_graph(piecewise), [x, w], np.array(1.0)))
    assert_close(traced, converted_eager_tape_gradients(piecewise, [x, w]), rtol=1e-12, atol=0)
    ops = grads.get_concrete_function(rt.constant(x), rt.constant(w)).unoptimized_graph.operations
    assert [op.name for op in ops if op.type == "If"].count("cond_grad") == 1  # the gradient of an If is an If


@pytest.mark.parametrize("x", [[1.0, 2.0], [-1.0, -2.0]])
def test_early_return_inside_an_if(x):
    x = np.array(x)
    traced, _ = converted_tape_gradients(relu_with_early_return, [x])
    assert_close(traced, numeric_gradients(ag.to_graph(relu_with_early_return), [x], np.array(1.0)))


def test_integer_branch_inputs_get_no_gradient():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float64), rt.TensorSpec([], rt.int32)])
    def f(x, n):
        y = rt.cond(n > 0, lambda: x * rt.cast(n, rt.float64), lambda: x)
        return rt.gradients(y, [x, n])
    grad_x, grad_n = f(rt.constant(2.0, rt.float64), rt.constant(3))
    assert float(grad_x) == 3.0 and grad_n is None


def test_a_branch_with_a_side_effect_is_refused():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        y = rt.cond(x > 0, lambda: x * rt.random.uniform([]), lambda: x)
        return rt.gradients(y, x)
    with pytest.raises(NotImplementedError, match="has a side effect \\(RandomUniform"):
        f(rt.constant(1.0))
