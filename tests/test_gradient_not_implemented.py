"""A gradient that exists but is not implemented is an error, never a silent None (issue: lists in loops)."""
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.core.registry import GradientNotImplemented, get_op


def collect_scaled(x, n):
    values = []
    for i in rt.range(n):
        values.append(x * rt.cast(i, rt.float32))
    return rt.reduce_sum(rt.concat(values, 0))  # joining a list's elements: the one list op without a gradient


def test_differentiating_through_a_tensor_list_concat_says_so():
    @ag.function
    def step(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            loss = collect_scaled(x, n)
        return tape.gradient(loss, x)

    with pytest.raises(rt.errors.GradientError) as info:
        step(rt.constant([2.0, 1.0]), rt.constant(3))
    message = str(info.value)
    assert "the gradient of TensorListConcat" in message and "is not implemented" in message
    assert "append same-shaped elements and use rt.stack(list)" in message


def test_a_list_op_without_a_rule_declares_a_missing_gradient_not_a_zero_one():
    assert isinstance(get_op("TensorListConcat").gradient, GradientNotImplemented)


def test_a_truly_non_differentiable_op_still_gives_none():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(rt.argmax(x), rt.float32)
    assert tape.gradient(y, x) is None
