"""Elementwise binary arithmetic and comparisons, and matmul.

Division follows TensorFlow, not numpy: ``divide`` of integers is true division into a float
(int8/int16/uint8 → float32, int32/int64 → float64), and integer ``floordiv``/``mod`` by zero is an
``InvalidArgumentError`` instead of a warning and a zero.

>>> add([1, 2], 1)
Tensor([2 3], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError, in_users_words
from runtime.core import shapes
from runtime.ops.convert import convert_operands, mixed_dtypes_error
from runtime.ops.cast_op import CAST
from runtime.ops.gradient_ops import unbroadcast
from runtime.core.registry import (Algebra, apply_op, get_op, not_differentiable, register_gradient,
                                   register_op)
from runtime.core.public_names import named
from runtime.core.tensor import Tensor


def _same_dtype_broadcast(specs, attrs):
    (x_dtype, x_shape), (y_dtype, y_shape) = specs
    if x_dtype != y_dtype:
        raise TypeError(f"x and y must have the same dtype, got {x_dtype.name} and {y_dtype.name}")
    return [(x_dtype, shapes.broadcast(x_shape, y_shape))]


def _numeric_broadcast(specs, attrs):
    if specs[0][0] == dtypes.bool:
        raise TypeError("bool tensors are not supported; use rt.logical_and/rt.logical_or, or rt.cast")
    return _same_dtype_broadcast(specs, attrs)


def _comparison(specs, attrs):
    ((dtype, shape),) = _same_dtype_broadcast(specs, attrs)
    return [(dtypes.bool, shape)]


def _declare_binary(public: str, name: str, kernel: Callable, infer=_numeric_broadcast, doc: str = "",
                    **elementwise):
    """Register a broadcasting binary op; returns the function named ``public``."""
    op_def = register_op(name, ("x", "y"), infer, kernel, doc=doc, **elementwise)
    numeric = infer is _numeric_broadcast

    def op(x: Any, y: Any) -> Tensor:  # the body of every eager ``x + y``: kept flat, no helper calls
        x, y = convert_operands(x, y)
        dtype = x.dtype
        if dtype is not y.dtype and dtype != y.dtype:  # ``is`` first: the cheap test, true almost always
            raise mixed_dtypes_error(name, "x and y", dtype, y.dtype)
        if numeric and dtype.kind == "b":
            raise TypeError(in_users_words(f"{name}: bool tensors are not supported; use rt.logical_and / "
                                           "rt.logical_or, or rt.cast(x, rt.int32) first"))
        return apply_op(op_def, (x, y))

    op.__doc__ = f"Elementwise {doc or name} with numpy broadcasting (the ``{name}`` op)."
    return named(op, public)


def _quiet(kernel: Callable) -> Callable:
    """Float kernels give inf/nan like TensorFlow, without numpy's RuntimeWarnings."""
    def quiet_kernel(x, y):
        with np.errstate(all="ignore"):
            return kernel(x, y)
    return quiet_kernel


def _integer_safe(kernel: Callable) -> Callable:
    """Integer division by zero is an error (numpy would warn and return 0)."""
    quiet = _quiet(kernel)

    def checked_kernel(x, y):
        if y.dtype.kind in "iu":
            if not y.all():
                raise InvalidArgumentError("Integer division by zero")
            return kernel(x, y)
        return quiet(x, y)
    return checked_kernel


def _pow_kernel(x, y):
    if x.dtype.kind in "iu":
        if (y < 0).any():
            raise InvalidArgumentError("Integers to negative integer powers are not allowed; "
                                       "cast the base to a float dtype first")
        return np.power(x, y)
    with np.errstate(all="ignore"):
        return np.power(x, y)


add = _declare_binary("add", "AddV2", np.add, doc="x + y",
                      algebra=Algebra(neutral=(((0, 1), 0, True),)))  # only -0.0 is neutral for floats
subtract = _declare_binary("subtract", "Sub", np.subtract, doc="x - y",
                           algebra=Algebra(neutral=(((1,), 0, False),)))  # only +0.0 is neutral for floats
multiply = _declare_binary("multiply", "Mul", np.multiply, doc="x * y", algebra=Algebra(neutral=(((0, 1), 1, None),)))
maximum = _declare_binary("maximum", "Maximum", np.maximum, doc="max(x, y)")
minimum = _declare_binary("minimum", "Minimum", np.minimum, doc="min(x, y)")
floordiv = _declare_binary("floordiv", "FloorDiv", _integer_safe(np.floor_divide), doc="x // y (floor division)",
                           ufunc=np.floor_divide, zero_divisor_error=True)
mod = _declare_binary("mod", "FloorMod", _integer_safe(np.mod), doc="x % y (result has the sign of y)",
                      ufunc=np.mod, zero_divisor_error=True)
pow = _declare_binary("pow", "Pow", _pow_kernel, doc="x ** y")  # noqa: A001 - TensorFlow's public name
POW = get_op("Pow")
greater = _declare_binary("greater", "Greater", np.greater, _comparison, doc="x > y")
greater_equal = _declare_binary("greater_equal", "GreaterEqual", np.greater_equal, _comparison, doc="x >= y")
less = _declare_binary("less", "Less", np.less, _comparison, doc="x < y")
less_equal = _declare_binary("less_equal", "LessEqual", np.less_equal, _comparison, doc="x <= y")
equal = _declare_binary("equal", "Equal", np.equal, _comparison, doc="x == y")
not_equal = _declare_binary("not_equal", "NotEqual", np.not_equal, _comparison, doc="x != y")
# The registry constants of the ops declared above by their public functions (the backends' tables key by them).
ADD, SUB, MUL, MAXIMUM, MINIMUM, FLOOR_DIV, FLOOR_MOD = (get_op(name) for name in (
    "AddV2", "Sub", "Mul", "Maximum", "Minimum", "FloorDiv", "FloorMod"))
GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, EQUAL, NOT_EQUAL = (get_op(name) for name in (
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual"))


def _float_only_broadcast(specs, attrs):
    if specs[0][0].kind != "f":
        raise TypeError(f"RealDiv needs floating-point inputs, got {specs[0][0].name}")
    return _same_dtype_broadcast(specs, attrs)


REAL_DIV = register_op("RealDiv", ("x", "y"), _float_only_broadcast, _quiet(np.true_divide),
                       doc="x / y for floating-point x and y.", ufunc=np.true_divide,
                       algebra=Algebra(neutral=(((1,), 1, None),)))
# TensorFlow's true division: small ints become float32, wide ints float64.
_TRUEDIV_DTYPE = {dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32, dtypes.uint8: dtypes.float32,
                  dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64}


def divide(x: Any, y: Any) -> Tensor:
    """True division ``x / y``; integers are cast to a float first, like TensorFlow.

    >>> divide([1, 3], 2)
    Tensor([0.5 1.5], shape=(2,), dtype=float64)
    """
    x, y = convert_operands(x, y)
    if x.dtype != y.dtype:
        raise mixed_dtypes_error("RealDiv", "x and y", x.dtype, y.dtype)
    if x.dtype.kind != "f":
        target = _TRUEDIV_DTYPE.get(x.dtype)
        if target is None:
            raise TypeError(f"RealDiv: cannot divide {x.dtype.name} tensors; cast them to a number type first")
        x = apply_op(CAST, (x,), {"dtype": target})
        y = apply_op(CAST, (y,), {"dtype": target})
    return apply_op(REAL_DIV, (x, y))


def _matmul_infer(specs, attrs):
    (a_dtype, a_shape), (b_dtype, b_shape) = specs
    if a_dtype != b_dtype:
        raise TypeError(f"a and b must have the same dtype, got {a_dtype.name} and {b_dtype.name}")
    if a_shape is None or b_shape is None:
        return [(a_dtype, None)]
    if len(a_shape) < 2 or len(b_shape) < 2:
        raise ValueError(f"matmul needs tensors of rank >= 2, got shapes {shapes.format_shape(a_shape)} "
                         f"and {shapes.format_shape(b_shape)}")
    inner_a, inner_b = a_shape[-1], b_shape[-2]
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ValueError(f"inner dimensions differ: {shapes.format_shape(a_shape)} @ "
                         f"{shapes.format_shape(b_shape)} ({inner_a} != {inner_b})")
    batch = shapes.broadcast(a_shape[:-2], b_shape[:-2])
    return [(a_dtype, batch + (a_shape[-2], b_shape[-1]))]


MATMUL = register_op("MatMul", ("a", "b"), _matmul_infer, np.matmul, doc="Matrix product a @ b.")


def matmul(a: Any, b: Any) -> Tensor:
    """Matrix product (batched over leading dims), like ``a @ b``.

    >>> matmul([[1.0, 2.0]], [[2.0], [3.0]])
    Tensor([[8.]], shape=(1, 1), dtype=float32)
    """
    a, b = convert_operands(a, b)
    if a.dtype is not b.dtype and a.dtype != b.dtype:  # ``is`` first: the cheap test, true almost always
        raise mixed_dtypes_error("MatMul", "a and b", a.dtype, b.dtype)
    a_rank, b_rank = a.ndim, b.ndim
    if a_rank is not None and b_rank is not None and (a_rank < 2 or b_rank < 2):
        raise ValueError(f"MatMul: both arguments need rank >= 2, got shapes {a.shape} and {b.shape}")
    return apply_op(MATMUL, (a, b))


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _to_inputs(op, grad_x, grad_y):
    """Gradients of a broadcasting binary op, summed back to each input's shape."""
    x, y = op.inputs
    return [None if grad_x is None else unbroadcast(grad_x, x), None if grad_y is None else unbroadcast(grad_y, y)]


def _declare_binary_gradient(name: str, rule: Callable) -> None:
    register_gradient(get_op(name))(lambda op, grads, ops: _to_inputs(op, *rule(op, grads[0], ops)))


_declare_binary_gradient("AddV2", lambda op, g, ops: (g, g))
_declare_binary_gradient("Sub", lambda op, g, ops: (g, -g))
_declare_binary_gradient("Mul", lambda op, g, ops: (g * op.inputs[1], g * op.inputs[0]))
_declare_binary_gradient("RealDiv", lambda op, g, ops: (g / op.inputs[1], -g * op.outputs[0] / op.inputs[1]))
# Ties go to x, as in TensorFlow: where x == y, all of the gradient flows to x.
_declare_binary_gradient("Maximum", lambda op, g, ops: _select_gradient(op.inputs[0] >= op.inputs[1], g, ops))
_declare_binary_gradient("Minimum", lambda op, g, ops: _select_gradient(op.inputs[0] <= op.inputs[1], g, ops))
# x % y = x - floor(x / y) * y, and floor is flat almost everywhere.
_declare_binary_gradient("FloorMod", lambda op, g, ops: (g, -g * floordiv(op.inputs[0], op.inputs[1])))


def _select_gradient(x_wins: Tensor, g: Tensor, ops):
    zero = ops.zeros_like(g)
    return ops.where(x_wins, g, zero), ops.where(x_wins, zero, g)


@register_gradient(get_op("Pow"))
def _pow_gradient(op, grads, ops):
    (x, y), z, g = op.inputs, op.outputs[0], grads[0]
    grad_x = g * y * pow(x, y - 1)
    # d/dy x**y = x**y * log(x), defined for x > 0; TensorFlow (and we) give 0 elsewhere.
    positive = x > 0
    safe_x = ops.where(positive, x, ops.ones_like(x))
    grad_y = g * ops.where(positive, z * ops.log(safe_x), ops.zeros_like(z))
    return _to_inputs(op, grad_x, grad_y)


@register_gradient(MATMUL)
def _matmul_gradient(op, grads, ops):
    (a, b), g = op.inputs, grads[0]
    return _to_inputs(op, matmul(g, _swap_last_two(b, ops)), matmul(_swap_last_two(a, ops), g))


def _swap_last_two(t: Tensor, ops) -> Tensor:
    if t.ndim is None:
        raise ValueError("gradient of MatMul: an input has unknown rank; give it a known rank")
    return ops.transpose(t, list(range(t.ndim - 2)) + [t.ndim - 1, t.ndim - 2])


not_differentiable(get_op("FloorDiv"), "floor division is piecewise constant (TensorFlow gives None too)")
for _comparison_name in ("Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual"):
    not_differentiable(get_op(_comparison_name), "a comparison: its result is bool")
