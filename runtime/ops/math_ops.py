"""Elementwise arithmetic and comparisons, and matmul.

>>> add(constant([1, 2]), 1)
Tensor([2 3], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime.ops import shapes
from runtime.ops.convert import convert_operands, convert_to_tensor
from runtime.ops.registry import OpDef, apply_op, register_op
from runtime.tensor import Tensor


def _same_dtype_broadcast(specs, attrs):
    (x_dtype, x_shape), (y_dtype, y_shape) = specs
    if x_dtype != y_dtype:
        raise TypeError(f"x and y must have the same dtype, got {x_dtype.name} and {y_dtype.name}")
    return [(x_dtype, shapes.broadcast(x_shape, y_shape))]


def _comparison(specs, attrs):
    ((dtype, shape),) = _same_dtype_broadcast(specs, attrs)
    return [(np.dtype(bool), shape)]


def _binary(op_def: OpDef, x: Any, y: Any) -> Tensor:
    x, y = convert_operands(x, y)
    if x.dtype != y.dtype:
        raise TypeError(f"{op_def.name}: x and y must have the same dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}; convert one with rt.cast(value, rt.{x.dtype.name})")
    return apply_op(op_def, (x, y))


def _declare_binary(name: str, kernel: Callable, infer=_same_dtype_broadcast, doc: str = ""):
    op_def = register_op(name, ("x", "y"), infer, kernel, doc=doc)

    def op(x: Any, y: Any) -> Tensor:
        return _binary(op_def, x, y)

    op.__doc__ = f"Elementwise {doc or name} with numpy broadcasting (the ``{name}`` op)."
    return op


add = _declare_binary("AddV2", np.add, doc="x + y")
subtract = _declare_binary("Sub", np.subtract, doc="x - y")
multiply = _declare_binary("Mul", np.multiply, doc="x * y")
maximum = _declare_binary("Maximum", np.maximum, doc="max(x, y)")
minimum = _declare_binary("Minimum", np.minimum, doc="min(x, y)")
greater = _declare_binary("Greater", np.greater, _comparison, doc="x > y")
greater_equal = _declare_binary("GreaterEqual", np.greater_equal, _comparison, doc="x >= y")
less = _declare_binary("Less", np.less, _comparison, doc="x < y")
less_equal = _declare_binary("LessEqual", np.less_equal, _comparison, doc="x <= y")
equal = _declare_binary("Equal", np.equal, _comparison, doc="x == y")
not_equal = _declare_binary("NotEqual", np.not_equal, _comparison, doc="x != y")


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
    a = convert_to_tensor(a)
    b = convert_to_tensor(b)
    if a.dtype != b.dtype:
        raise TypeError(f"MatMul: a and b must have the same dtype, got {a.dtype.name} and {b.dtype.name}; "
                        f"convert one with rt.cast(value, rt.{a.dtype.name})")
    if a.ndim is not None and b.ndim is not None and (a.ndim < 2 or b.ndim < 2):
        raise ValueError(f"MatMul: both arguments need rank >= 2, got shapes {a.shape} and {b.shape}")
    return apply_op(MATMUL, (a, b))
