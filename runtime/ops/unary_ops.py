"""Elementwise functions of one tensor: negative, abs, sign, exp, log, sqrt, square, and TensorFlow's
``tf.math`` unary functions (tanh, sigmoid, softplus, sin, cos, floor, ceil, round, log1p, expm1,
reciprocal, rsqrt, is_nan, is_finite, log_sigmoid).

Python scalars and lists are converted with the default dtypes, so ``abs(-3)`` is an int32 tensor.
Transcendental functions need floating-point input, as in TensorFlow (cast integers first). Each op's
dtype check lives in its inference, which eager calls run too (``apply_validated``).

>>> abs(-3)
Tensor(3, shape=(), dtype=int32)
>>> round([0.5, 1.5, 2.5, -0.5])
Tensor([ 0.  2.  2. -0.], shape=(4,), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from runtime.ops.convert import convert_to_tensor
from runtime.core import dtypes
from runtime.core.errors import in_users_words
from runtime.core.registry import (NO_ALGEBRA, Algebra, apply_op, get_op, not_differentiable, register_gradient,
                                   register_op)
from runtime.core.public_names import named
from runtime.core.tensor import Tensor
from runtime.ops.validated import apply_validated

_NUMERIC = "fiu"  # numpy kinds: float, signed and unsigned int (not bool)
_KIND_NAMES = {"f": "floating-point", _NUMERIC: "numeric (not bool)"}


def _declare_unary(public: str, name: str, kernel: Callable, kinds: str, doc: str, ufunc: Optional[np.ufunc] = None,
                   algebra: Algebra = NO_ALGEBRA):
    """Register a same-shape, same-dtype op accepting dtypes whose numpy kind is in ``kinds``; returns the
    function named ``public``."""
    def infer(specs, attrs):
        dtype, shape = specs[0]
        if dtype.kind not in kinds:
            raise TypeError(f"x must be a {_KIND_NAMES[kinds]} tensor, got {dtype.name}")
        return [specs[0]]

    op_def = register_op(name, ("x",), infer, kernel, doc=doc, ufunc=ufunc, algebra=algebra)

    def op(x: Any) -> Tensor:
        x = convert_to_tensor(x)
        if x.dtype.kind not in kinds:
            fix = "rt.cast(x, rt.float32)" if kinds == "f" else "rt.cast(x, rt.int32)"
            raise TypeError(in_users_words(f"{name}: x must be a {_KIND_NAMES[kinds]} tensor, got {x.dtype.name}; "
                                           f"convert it with {fix}"))
        return apply_op(op_def, (x,))

    op.__doc__ = f"Elementwise {doc} (the ``{name}`` op)."
    op.op_def = op_def
    return named(op, public)


def _quiet(ufunc: Callable) -> Callable:
    """log(0) = -inf and sqrt(-1) = nan, as in TensorFlow, without numpy's RuntimeWarnings."""
    def quiet_kernel(x):
        with np.errstate(all="ignore"):
            return ufunc(x)
    return quiet_kernel


negative = _declare_unary("negative", "Neg", np.negative, _NUMERIC, "-x", algebra=Algebra(self_inverse=True))
abs = _declare_unary("abs", "Abs", np.abs, _NUMERIC, "|x|")  # noqa: A001 - TensorFlow's public name
sign = _declare_unary("sign", "Sign", np.sign, _NUMERIC, "sign of x (-1, 0 or 1)")
square = _declare_unary("square", "Square", np.square, _NUMERIC, "x * x")
exp = _declare_unary("exp", "Exp", _quiet(np.exp), "f", "e ** x", ufunc=np.exp)
log = _declare_unary("log", "Log", _quiet(np.log), "f", "natural logarithm of x", ufunc=np.log)
sqrt = _declare_unary("sqrt", "Sqrt", _quiet(np.sqrt), "f", "square root of x", ufunc=np.sqrt)
# The registry constants of the ops declared above by their public functions (the backends' tables key by them).
NEG, ABS, SIGN, SQUARE, EXP, LOG, SQRT = (get_op(name)
                                         for name in ("Neg", "Abs", "Sign", "Square", "Exp", "Log", "Sqrt"))


def _declare_validated(public: str, name: str, kernel: Callable, kinds: str, doc: str, result_dtype=None,
                       ufunc: Optional[np.ufunc] = None, into_kernel: Optional[Callable] = None):
    """Register a same-shape op whose dtype check is in its inference; returns (OpDef, function named
    ``public``)."""
    fix = "rt.cast(x, rt.float32)" if kinds == "f" else "rt.cast(x, rt.int32)"

    def infer(specs, attrs):
        dtype, shape = specs[0]
        if dtype.kind not in kinds:
            raise TypeError(f"x must be a {_KIND_NAMES[kinds]} tensor, got {dtype.name}; convert it with {fix}")
        return [(result_dtype or dtype, shape)]

    op_def = register_op(name, ("x",), infer, kernel, doc=doc, ufunc=ufunc, into_kernel=into_kernel)

    def op(x: Any) -> Tensor:
        return apply_validated(op_def, (convert_to_tensor(x),))

    op.__doc__ = f"Elementwise {doc} (the ``{name}`` op)."
    return op_def, named(op, public)


def _sigmoid_into(x, *, out):
    """1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below: exp never overflows and the tails stay
    accurate. Computed as max(e, [x >= 0]) / (1 + e) with e = e^-|x| (the numerator is 1 for x >= 0, e
    below): one exp and six cheap passes over ``out`` and two temporaries, bit for bit what the textbook
    ``np.where(x >= 0, 1 / (1 + e), e / (1 + e))`` gives with two more passes and six more arrays
    (a ``where`` or a mixed-dtype ``maximum`` each cost half an exp here: avoided)."""
    e = np.negative(np.abs(x, out=out), out=out)
    np.exp(e, out=e)
    denominator = np.add(e, x.dtype.type(1))
    np.maximum(e, np.greater_equal(x, 0, out=np.empty_like(x)), out=e)  # [x >= 0] as 1.0 / 0.0; NaN stays
    return np.divide(e, denominator, out=e)


def _sigmoid_kernel(x):
    return _sigmoid_into(x, out=np.empty_like(x))


def _softplus_into(x, *, out):
    return np.logaddexp(x, x.dtype.type(0), out=out)  # log(1 + e^x) without overflow: x for large x


def _softplus_kernel(x):
    with np.errstate(all="ignore"):  # nan in, nan out, without a warning
        return _softplus_into(x, out=np.empty_like(x))


def _log_sigmoid_into(x, *, out):
    """log(sigmoid(x)) = -log(1 + e^-x), computed as -logaddexp(0, -x): never overflows, x for very
    negative x, -e^-x for large x."""
    e = np.negative(x, out=out)
    np.logaddexp(e, x.dtype.type(0), out=e)
    return np.negative(e, out=e)


def _log_sigmoid_kernel(x):
    with np.errstate(all="ignore"):
        return _log_sigmoid_into(x, out=np.empty_like(x))


def copied_into(kernel: Callable) -> Callable:
    """An ``into_kernel`` for an elementwise kernel that cannot write into a given array itself: its result
    copied into ``out`` (the same bits; a region of the compiled executor then runs on through the op)."""
    def into(x, *, out):
        np.copyto(out, kernel(x))
        return out
    return into


def _round_kernel(x):
    return np.rint(x) if x.dtype.kind == "f" else x.copy()  # rint rounds half to even, like TensorFlow


def _rsqrt_kernel(x):
    with np.errstate(all="ignore"):
        return np.reciprocal(np.sqrt(x))


TANH, tanh = _declare_validated("tanh", "Tanh", np.tanh, "f", "hyperbolic tangent of x")
SIGMOID, sigmoid = _declare_validated("sigmoid", "Sigmoid", _sigmoid_kernel, "f", "logistic function 1 / (1 + e^-x)",
                                      into_kernel=_sigmoid_into)
SOFTPLUS, softplus = _declare_validated("softplus", "Softplus", _softplus_kernel, "f", "softplus log(1 + e^x)",
                                        into_kernel=_softplus_into)
LOG_SIGMOID, log_sigmoid = _declare_validated("log_sigmoid", "LogSigmoid", _log_sigmoid_kernel, "f",
                                              "log(sigmoid(x)) = -softplus(-x)", into_kernel=_log_sigmoid_into)
SIN, sin = _declare_validated("sin", "Sin", _quiet(np.sin), "f", "sine of x", ufunc=np.sin)
COS, cos = _declare_validated("cos", "Cos", _quiet(np.cos), "f", "cosine of x", ufunc=np.cos)
FLOOR, floor = _declare_validated("floor", "Floor", np.floor, "f", "largest integer <= x")
CEIL, ceil = _declare_validated("ceil", "Ceil", np.ceil, "f", "smallest integer >= x")
ROUND, round = _declare_validated(  # noqa: A001 - TensorFlow's public name
    "round", "Round", _round_kernel, _NUMERIC, "nearest integer to x, halves to even (integers unchanged)")
LOG1P, log1p = _declare_validated("log1p", "Log1p", _quiet(np.log1p), "f", "log(1 + x), accurate for small x",
                                  ufunc=np.log1p)
EXPM1, expm1 = _declare_validated("expm1", "Expm1", _quiet(np.expm1), "f", "e ** x - 1, accurate for small x",
                                  ufunc=np.expm1)
RECIPROCAL, reciprocal = _declare_validated("reciprocal", "Reciprocal", _quiet(np.reciprocal), "f", "1 / x",
                                            ufunc=np.reciprocal)
RSQRT, rsqrt = _declare_validated("rsqrt", "Rsqrt", _rsqrt_kernel, "f", "1 / sqrt(x)")
IS_NAN, is_nan = _declare_validated("is_nan", "IsNan", np.isnan, "f", "test for nan (a bool tensor)", dtypes.bool)
IS_FINITE, is_finite = _declare_validated("is_finite", "IsFinite", np.isfinite, "f",
                                          "test for a finite value (a bool tensor)", dtypes.bool)


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _zero_where_no_gradient(g: Tensor, y: Tensor, rule: Callable, ops, safe_y: float = 1.0) -> Tensor:
    """``rule(g, y)``, but 0 wherever the output gradient ``g`` is 0, even where the derivative is inf or nan.

    TensorFlow's rule for sqrt, rsqrt and reciprocal (their kernels multiply "no nan"): it makes the
    everyday ``where(x > 0, sqrt(x), 0)`` differentiable at x <= 0 -- the branch not taken gets a zero
    gradient, and 0 * inf would be nan (JAX gives nan there; docs/GRADIENTS.md). There ``y`` is replaced by
    the finite ``safe_y`` before the rule reads it, so the second derivative is 0 there too, not nan.
    """
    dead = ops.equal(g, 0)
    return ops.where(dead, ops.zeros_like(g), rule(g, ops.where(dead, ops.ones_like(y) * safe_y, y)))


def _declare_unary_gradient(name: str, rule: Callable) -> None:
    register_gradient(get_op(name))(lambda op, grads, ops: [rule(op.inputs[0], op.outputs[0], grads[0], ops)])


_declare_unary_gradient("Neg", lambda x, y, g, ops: -g)
_declare_unary_gradient("Abs", lambda x, y, g, ops: g * sign(x))
_declare_unary_gradient("Sign", lambda x, y, g, ops: ops.zeros_like(x))  # flat almost everywhere, as in TF
_declare_unary_gradient("Square", lambda x, y, g, ops: g * (x * 2))
_declare_unary_gradient("Exp", lambda x, y, g, ops: g * y)
_declare_unary_gradient("Log", lambda x, y, g, ops: g / x)
_declare_unary_gradient("Sqrt", lambda x, y, g, ops: _zero_where_no_gradient(g, y, lambda g, y: g / (y * 2), ops))

# The ops declared with _declare_validated above (rt.math):
_declare_unary_gradient("Tanh", lambda x, y, g, ops: g * (1 - y * y))
_declare_unary_gradient("Sigmoid", lambda x, y, g, ops: g * (y * (1 - y)))
_declare_unary_gradient("Softplus", lambda x, y, g, ops: g * sigmoid(x))
_declare_unary_gradient("LogSigmoid", lambda x, y, g, ops: g * sigmoid(-x))
_declare_unary_gradient("Sin", lambda x, y, g, ops: g * cos(x))
_declare_unary_gradient("Cos", lambda x, y, g, ops: -g * sin(x))
_declare_unary_gradient("Log1p", lambda x, y, g, ops: g / (1 + x))
_declare_unary_gradient("Expm1", lambda x, y, g, ops: g * (y + 1))
_declare_unary_gradient("Reciprocal", lambda x, y, g, ops: _zero_where_no_gradient(
    g, y, lambda g, y: -g * (y * y), ops))
_declare_unary_gradient("Rsqrt", lambda x, y, g, ops: _zero_where_no_gradient(
    g, y, lambda g, y: g * (y * y * y * -0.5), ops))
for _step in (FLOOR, CEIL, ROUND):
    not_differentiable(_step, "a step function: flat almost everywhere (TensorFlow gives None too)")
not_differentiable(IS_NAN, "its result is bool")
not_differentiable(IS_FINITE, "its result is bool")
