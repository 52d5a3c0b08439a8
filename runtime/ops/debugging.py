"""Run-time checks: ``Assert`` and ``assert_equal`` / ``assert_none_equal`` / ``assert_less`` /
``assert_less_equal`` / ``assert_greater`` / ``assert_greater_equal`` (available as ``rt.debugging``), and
``ensure_defined`` (a value that must not be read unless a flag is true).

Each check is a stateful ``Assert`` op: it always runs (even if nothing uses its result) and raises
``rt.errors.InvalidArgumentError`` with the message and the offending values when the condition is false.

>>> assert_less(convert_to_tensor([1, 2]), 3)
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError
from runtime.ops.convert import convert_operands, convert_to_tensor, mixed_dtypes_error
from runtime.ops.logging_ops import render, split_template
from runtime.ops.math_ops import equal, greater, greater_equal, less, less_equal, not_equal
from runtime.ops.reduction_ops import reduce_all
from runtime.core.attrs import TEMPLATE, TEXT, template_check
from runtime.core.registry import apply_op, not_differentiable, register_gradient, register_op

# rt.debugging's names (the comparisons and render above are imported for the checks, not published here)
__all__ = ["Assert", "assert_equal", "assert_greater", "assert_greater_equal", "assert_less", "assert_less_equal",
           "assert_none_equal", "ensure_defined"]

def _assert_infer(specs, attrs):
    if specs[0][0] != dtypes.bool:
        raise TypeError(f"condition must be a bool tensor, got {specs[0][0].name}")
    return []


def _assert_kernel(condition, *data, template):
    if not np.all(condition):
        raise InvalidArgumentError("assertion failed: " + render(template, data, " "))
    return ()


ASSERT = register_op("Assert", ("condition", "*data"), _assert_infer, _assert_kernel, stateful=True,
                     doc="Raises InvalidArgumentError showing its data when the condition is false.",
                     attrs={"template": TEMPLATE}, attrs_check=template_check(1))


not_differentiable(ASSERT, "a side effect with no result")


def Assert(condition: Any, data: Sequence[Any], name: Optional[str] = None) -> None:  # noqa: N802 - TF's name
    """Fail with ``InvalidArgumentError`` listing ``data`` (strings and tensors) unless ``condition``
    (a bool tensor; all elements must be true) holds when the op runs.

    >>> Assert(convert_to_tensor(True), ["never shown"])
    """
    condition = convert_to_tensor(condition)
    if condition.dtype != dtypes.bool:
        raise TypeError(f"Assert: condition must be a bool tensor, got {condition.dtype.name}; compare first "
                        "(e.g. x > 0)")
    if isinstance(data, (str, bytes)) or not isinstance(data, (list, tuple)):
        raise TypeError(f"Assert: data must be a list of strings and tensors, got {data!r}")
    template, tensors = split_template(data)
    apply_op(ASSERT, (condition, *tensors), {"template": template}, name=name)


def _declare_assert(compare: Callable, symbol: str, name: str, example: str):
    def check(x: Any, y: Any, message: Optional[str] = None) -> None:
        x, y = convert_operands(x, y)
        if x.dtype != y.dtype:
            raise mixed_dtypes_error(name, "x and y", x.dtype, y.dtype)
        data = [] if message is None else [str(message)]
        data += [f"Condition x {symbol} y did not hold element-wise:", "x =", x, "y =", y]
        Assert(reduce_all(compare(x, y)), data, name=f"{name}/Assert")

    check.__name__ = check.__qualname__ = name
    check.__doc__ = (f"Fail with ``InvalidArgumentError`` (showing ``message``, x and y) unless ``x {symbol} y`` "
                     f"holds for every element (with broadcasting). A stateful ``Assert`` op.\n\n"
                     f"    >>> {name}({example}, message='x must be {symbol} y')\n")
    return check


assert_equal = _declare_assert(equal, "==", "assert_equal", "[1, 2], [1, 2]")
assert_none_equal = _declare_assert(not_equal, "!=", "assert_none_equal", "[1, 2], [3, 4]")
assert_less = _declare_assert(less, "<", "assert_less", "[1, 2], 3")
assert_less_equal = _declare_assert(less_equal, "<=", "assert_less_equal", "[1, 3], 3")
assert_greater = _declare_assert(greater, ">", "assert_greater", "[4, 5], 3")
assert_greater_equal = _declare_assert(greater_equal, ">=", "assert_greater_equal", "[3, 5], 3")


def _ensure_defined_infer(specs, attrs):
    if specs[1][0] != dtypes.bool or (specs[1][1] is not None and specs[1][1] != ()):
        raise TypeError(f"the 'defined' flag must be a scalar bool tensor, got {specs[1][0].name}{specs[1][1]}")
    return [specs[0]]


def _ensure_defined_kernel(value, defined, *, message):
    if not bool(defined):
        raise InvalidArgumentError(message)
    return value


ENSURE_DEFINED = register_op(
    "EnsureDefined", ("value", "defined"), _ensure_defined_infer, _ensure_defined_kernel,
    doc="Returns its value; raises InvalidArgumentError(message) when the flag is false. Not stateful: it "
        "runs (and fails) only when something reads the value.", attrs={"message": TEXT})


@register_gradient(ENSURE_DEFINED)
def _ensure_defined_gradient(op, grads, ops):
    # The value passes through unchanged (when it is defined at all); the flag is a bool.
    return [grads[0], None]


def ensure_defined(value: Any, defined: Any, message: str, name: Optional[str] = None) -> Any:
    """``value``, checked when it is read: ``InvalidArgumentError(message)`` unless ``defined`` (a scalar bool
    tensor) is true. Unlike ``Assert`` it is not stateful, so an unused value is never checked — how a
    variable that only a tensor-dependent loop assigns is guarded against a loop that ran zero times.

    >>> ensure_defined(convert_to_tensor(3), convert_to_tensor(True), "never shown")
    Tensor(3, shape=(), dtype=int32)
    """
    return apply_op(ENSURE_DEFINED, (convert_to_tensor(value), convert_to_tensor(defined, dtypes.bool)),
                    {"message": str(message)}, name=name)
