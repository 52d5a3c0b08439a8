"""A gradient that exists but is not implemented is an error, never a silent None (issue: lists in loops).
Every registered op has a rule today (TensorListConcat, the last one without, now has one); the mechanism
is checked on an op whose rule is swapped for a GradientNotImplemented declaration for the test."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.core.registry import GradientNotImplemented, get_op, registered_ops


def collect_scaled(x, n):
    values = []
    for i in rt.range(n):
        values.append(x * rt.cast(i, rt.float32))
    return rt.reduce_sum(rt.concat(values, 0))  # joining a tensor list's elements: TensorListConcat


@ag.function
def step(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = collect_scaled(x, n)
    return tape.gradient(loss, x)


def test_a_gradient_declared_not_implemented_is_a_gradient_error_with_its_reason():
    concat = get_op("TensorListConcat")
    rule = concat.gradient
    reason = "the gradient of joining a list's elements is not implemented here; stack them instead"
    object.__setattr__(concat, "gradient", GradientNotImplemented(reason))   # OpDef is frozen
    try:
        with pytest.raises(rt.errors.GradientError) as info:
            ag.function(step.python_function)(rt.constant([2.0, 1.0]), rt.constant(3))
    finally:
        object.__setattr__(concat, "gradient", rule)
    message = str(info.value)
    assert "the gradient of TensorListConcat" in message and "is not implemented" in message
    assert reason in message


def test_every_op_has_a_gradient_rule_or_a_reason_it_has_none():
    assert not [name for name, op in registered_ops().items() if isinstance(op.gradient, GradientNotImplemented)]


def test_concat_of_a_tensor_list_is_differentiable():
    # loss = sum over i < n of sum(x * i): d/dx = sum of i = n (n - 1) / 2 per element
    np.testing.assert_array_equal(step(rt.constant([2.0, 1.0]), rt.constant(4)).numpy(), [6.0, 6.0])


def test_a_truly_non_differentiable_op_still_gives_none():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(rt.argmax(x), rt.float32)
    assert tape.gradient(y, x) is None
