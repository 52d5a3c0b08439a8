"""Elementwise functions of one tensor: negative, abs, sign, exp, log, sqrt, square.

Python scalars and lists are converted with the default dtypes, so ``abs(-3)`` is an int32 tensor.
``exp``/``log``/``sqrt`` need floating-point input, as in TensorFlow (cast integers first).

>>> abs(-3)
Tensor(3, shape=(), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime.ops.convert import convert_to_tensor
from runtime.core.registry import apply_op, register_op
from runtime.core.tensor import Tensor

_NUMERIC = "fiu"  # numpy kinds: float, signed and unsigned int (not bool)
_KIND_NAMES = {"f": "floating-point", _NUMERIC: "numeric (not bool)"}


def _declare_unary(name: str, kernel: Callable, kinds: str, doc: str):
    """Register a same-shape, same-dtype op accepting dtypes whose numpy kind is in ``kinds``."""
    def infer(specs, attrs):
        dtype, shape = specs[0]
        if dtype.kind not in kinds:
            raise TypeError(f"x must be a {_KIND_NAMES[kinds]} tensor, got {dtype.name}")
        return [specs[0]]

    op_def = register_op(name, ("x",), infer, kernel, doc=doc)

    def op(x: Any) -> Tensor:
        x = convert_to_tensor(x)
        if x.dtype.kind not in kinds:
            fix = "rt.cast(x, rt.float32)" if kinds == "f" else "rt.cast(x, rt.int32)"
            raise TypeError(f"{name}: x must be a {_KIND_NAMES[kinds]} tensor, got {x.dtype.name}; "
                            f"convert it with {fix}")
        return apply_op(op_def, (x,))

    op.__doc__ = f"Elementwise {doc} (the ``{name}`` op)."
    return op


def _quiet(ufunc: Callable) -> Callable:
    """log(0) = -inf and sqrt(-1) = nan, as in TensorFlow, without numpy's RuntimeWarnings."""
    def quiet_kernel(x):
        with np.errstate(all="ignore"):
            return ufunc(x)
    return quiet_kernel


negative = _declare_unary("Neg", np.negative, _NUMERIC, "-x")
abs = _declare_unary("Abs", np.abs, _NUMERIC, "|x|")  # noqa: A001 - TensorFlow's public name
sign = _declare_unary("Sign", np.sign, _NUMERIC, "sign of x (-1, 0 or 1)")
square = _declare_unary("Square", np.square, _NUMERIC, "x * x")
exp = _declare_unary("Exp", _quiet(np.exp), "f", "e ** x")
log = _declare_unary("Log", _quiet(np.log), "f", "natural logarithm of x")
sqrt = _declare_unary("Sqrt", _quiet(np.sqrt), "f", "square root of x")
