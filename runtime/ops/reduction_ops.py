"""Reductions over axes: reduce_sum/mean/max/min/prod/any/all, argmax/argmin, cumsum/cumprod.

``axis`` is an int, a list of ints, or None (all axes). Integer ``reduce_mean`` truncates toward zero,
like TensorFlow; sums and products keep the input dtype (numpy would widen int32 to int64).

>>> reduce_sum([[1, 2], [3, 4]], axis=0)
Tensor([4 6], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError
from runtime.core import shapes
from runtime.core.attrs import AXES, BOOL, DTYPE, INT
from runtime.core.registry import OpDef, apply_op, get_op, not_differentiable, register_gradient, register_op
from runtime.core.public_names import named
from runtime.core.tensor import Tensor
from runtime.ops.combine_ops import where
from runtime.ops.convert import convert_to_tensor
from runtime.ops.creation_ops import zeros_like
from runtime.ops.gradient_ops import stop_gradient
from runtime.ops.math_ops import add, subtract
from runtime.ops.shape_ops import constant_value
from runtime.ops.unary_ops import exp, is_finite, log

Axis = Union[int, Sequence[int], None]
_NUMERIC, _BOOL = "fiu", "b"


def _normalize_axis(axis: Axis, tensor: Tensor, op_name: str) -> Optional[Tuple[int, ...]]:
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        known = constant_value(axis)
        if known is None:
            raise TypeError(f"{op_name}: axis must be known while tracing (a Python int, list of ints or "
                            f"constant), got {axis!r}")
        axis = known.tolist()
    if type(axis) is int:  # the common case, without the checks below
        axes = (axis,)
    else:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis) if isinstance(
            axis, (list, tuple, np.ndarray)) else (axis,)
        if not all(isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in axes):
            raise TypeError(f"{op_name}: axis must be an int or a list of ints, got {axis!r}")
        axes = tuple(int(a) for a in axes)
    if tensor.ndim is not None:
        for a in axes:
            if not -tensor.ndim <= a < max(tensor.ndim, 1):
                raise ValueError(f"{op_name}: axis {a} is out of range for a tensor of rank {tensor.ndim} "
                                 f"(shape {tensor.shape})")
    return axes


def _check_kind(tensor: Tensor, kinds: str, op_name: str) -> None:
    if tensor.dtype.kind not in kinds:
        need = "bool" if kinds == _BOOL else "numeric (not bool)"
        fix = "compare it first (e.g. x > 0)" if kinds == _BOOL else "cast it with rt.cast(x, rt.int32)"
        raise TypeError(f"{op_name}: input must be a {need} tensor, got {tensor.dtype.name}; {fix}")


def _reduce_infer(kinds: str):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        if dtype.kind not in kinds:
            raise TypeError(f"input must be a {'bool' if kinds == _BOOL else 'numeric'} tensor, got {dtype.name}")
        return [(dtype, shapes.reduced(shape, attrs["axis"], attrs["keepdims"]))]
    return infer


def _int_mean(x, axis, keepdims):
    total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
    if total.size == 0:
        return total.astype(x.dtype)
    count = x.size // max(total.size, 1) if x.size else 0
    if count == 0:
        raise InvalidArgumentError("Integer division by zero (mean of an empty tensor)")
    magnitude = np.abs(total) // count  # truncate toward zero, as TensorFlow's integer division does
    return (np.sign(total) * magnitude).astype(x.dtype)


def _mean_kernel(x, *, axis, keepdims):
    if x.dtype.kind in "iu":
        return _int_mean(x, axis, keepdims)
    with np.errstate(all="ignore"):  # the mean of nothing is nan, without a warning
        return np.mean(x, axis=axis, keepdims=keepdims)  # float16 accumulates in float32, returns float16


def _declare_reduction(public: str, name: str, kernel: Callable, kinds: str, doc: str):
    """Register a reduction op; returns the function named ``public``."""
    op_def = register_op(name, ("input",), _reduce_infer(kinds), kernel, doc=doc,
                         attrs={"axis": AXES, "keepdims": BOOL})

    def reduce(input_tensor: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
        tensor = convert_to_tensor(input_tensor)
        _check_kind(tensor, kinds, name)
        return apply_op(op_def, (tensor,), {"axis": _normalize_axis(axis, tensor, name),
                                            "keepdims": bool(keepdims)})

    reduce.__doc__ = (f"The {doc} of ``input_tensor`` over ``axis`` (all axes by default); the ``{name}`` op.\n\n"
                      f"``keepdims=True`` keeps reduced axes with size 1.")
    reduce.op_def = op_def
    return named(reduce, public)


# The kernels call the array's methods: the same ufunc reductions as np.sum & co., without their Python
# wrappers (a third of an eager reduce_sum of a small tensor).
reduce_sum = _declare_reduction(
    "reduce_sum", "Sum", lambda x, *, axis, keepdims: x.sum(axis=axis, keepdims=keepdims, dtype=x.dtype), _NUMERIC,
    "sum")
reduce_prod = _declare_reduction(
    "reduce_prod", "Prod", lambda x, *, axis, keepdims: x.prod(axis=axis, keepdims=keepdims, dtype=x.dtype), _NUMERIC,
    "product")
reduce_mean = _declare_reduction("reduce_mean", "Mean", _mean_kernel, _NUMERIC, "mean (truncated for integers)")
reduce_max = _declare_reduction(
    "reduce_max", "Max", lambda x, *, axis, keepdims: x.max(axis=axis, keepdims=keepdims), _NUMERIC, "maximum")
reduce_min = _declare_reduction(
    "reduce_min", "Min", lambda x, *, axis, keepdims: x.min(axis=axis, keepdims=keepdims), _NUMERIC, "minimum")
reduce_any = _declare_reduction(
    "reduce_any", "Any", lambda x, *, axis, keepdims: x.any(axis=axis, keepdims=keepdims), _BOOL, "logical or")
reduce_all = _declare_reduction(
    "reduce_all", "All", lambda x, *, axis, keepdims: x.all(axis=axis, keepdims=keepdims), _BOOL, "logical and")
SUM, MEAN, MAX, MIN = (f.op_def for f in (reduce_sum, reduce_mean, reduce_max, reduce_min))
PROD, ANY, ALL = (f.op_def for f in (reduce_prod, reduce_any, reduce_all))


def _arg_infer(specs, attrs):
    dtype, shape = specs[0]
    if dtype.kind not in _NUMERIC:
        raise TypeError(f"input must be a numeric tensor, got {dtype.name}")
    if shape is not None and shape[attrs["axis"]] == 0:
        raise ValueError(f"cannot take the arg max/min of an empty axis {attrs['axis']} "
                         f"(shape {shapes.format_shape(shape)})")
    return [(attrs["output_type"], shapes.reduced(shape, (attrs["axis"],), False))]


def _arg_kernel(numpy_fn: Callable) -> Callable:
    def kernel(x, *, axis, output_type):
        return numpy_fn(x, axis=axis).astype(output_type)
    return kernel


ARG_MAX = register_op("ArgMax", ("input",), _arg_infer, _arg_kernel(np.argmax),
                      doc="Index of the largest value along attr 'axis' (first one on ties).",
                      attrs={"axis": INT, "output_type": DTYPE})
ARG_MIN = register_op("ArgMin", ("input",), _arg_infer, _arg_kernel(np.argmin),
                      doc="Index of the smallest value along attr 'axis' (first one on ties).",
                      attrs={"axis": INT, "output_type": DTYPE})


def _arg_reduce(op_def: OpDef, input: Any, axis: Optional[int], output_type: Any) -> Tensor:  # noqa: A002
    tensor = convert_to_tensor(input)
    _check_kind(tensor, _NUMERIC, op_def.name)
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{op_def.name}: output_type must be rt.int32 or rt.int64, got {output_type.name}")
    if tensor.ndim == 0:
        raise ValueError(f"{op_def.name}: input must have at least one dimension, got a scalar")
    (axis,) = _normalize_axis(0 if axis is None else axis, tensor, op_def.name)
    if tensor.ndim is not None:
        axis %= tensor.ndim
    elif axis < 0:
        raise ValueError(f"{op_def.name}: a negative axis needs a known rank; the input's rank is unknown")
    return apply_op(op_def, (tensor,), {"axis": axis, "output_type": output_type})


def argmax(input: Any, axis: Optional[int] = None, output_type: Any = dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the largest value along ``axis`` (default 0), as ``output_type`` (int64).

    >>> argmax([[1, 9], [5, 2]])
    Tensor([1 0], shape=(2,), dtype=int64)
    """
    return _arg_reduce(ARG_MAX, input, axis, output_type)


def argmin(input: Any, axis: Optional[int] = None, output_type: Any = dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the smallest value along ``axis`` (default 0), as ``output_type`` (int64).

    >>> argmin([3, 1, 2])
    Tensor(1, shape=(), dtype=int64)
    """
    return _arg_reduce(ARG_MIN, input, axis, output_type)


def _cumsum_infer(specs, attrs):
    dtype, shape = specs[0]
    if dtype.kind not in _NUMERIC:
        raise TypeError(f"x must be a numeric tensor, got {dtype.name}")
    return [specs[0]]


def _running(accumulate: Callable, identity: int) -> Callable:
    """A cumsum/cumprod kernel: ``exclusive`` starts from ``identity``, ``reverse`` runs from the end."""
    def kernel(x, *, axis, exclusive, reverse):
        if reverse:
            x = np.flip(x, axis)
        # float16 accumulates in float32 (as np.sum's pairwise sum and XLA's do): in float16, 10,000 values in
        # [-4, 4] summed in order drift by 2.4 from the exact -47.12
        wide = np.float32 if x.dtype == np.float16 else x.dtype
        out = accumulate(x, axis=axis, dtype=wide).astype(x.dtype, copy=False)
        if exclusive:  # shift by one along the axis, starting from the identity
            shifted = np.full_like(out, identity)
            target = [slice(None)] * out.ndim
            source = [slice(None)] * out.ndim
            target[axis], source[axis] = slice(1, None), slice(None, -1)
            shifted[tuple(target)] = out[tuple(source)]
            out = shifted
        return np.flip(out, axis) if reverse else out
    return kernel


_RUNNING_ATTRS = {"axis": INT, "exclusive": BOOL, "reverse": BOOL}
CUMSUM = register_op("Cumsum", ("x",), _cumsum_infer, _running(np.cumsum, 0),
                     doc="Running sum along attr 'axis' (optionally exclusive and/or reversed).", attrs=_RUNNING_ATTRS)
CUMPROD = register_op("Cumprod", ("x",), _cumsum_infer, _running(np.cumprod, 1),
                      doc="Running product along attr 'axis' (optionally exclusive and/or reversed).",
                      attrs=_RUNNING_ATTRS)


def _running_op(op_def: OpDef, x: Any, axis: int, exclusive: bool, reverse: bool) -> Tensor:
    tensor = convert_to_tensor(x)
    _check_kind(tensor, _NUMERIC, op_def.name)
    if tensor.ndim == 0:
        raise ValueError(f"{op_def.name}: x must have at least one dimension, got a scalar")
    (axis,) = _normalize_axis(axis, tensor, op_def.name)
    if tensor.ndim is not None:
        axis %= tensor.ndim
    elif axis < 0:
        raise ValueError(f"{op_def.name}: a negative axis needs a known rank; the input's rank is unknown")
    return apply_op(op_def, (tensor,), {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)})


def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running sum of ``x`` along ``axis``; ``exclusive`` leaves out the current element, ``reverse``
    sums from the end.

    >>> cumsum([1, 2, 3], exclusive=True)
    Tensor([0 1 3], shape=(3,), dtype=int32)
    """
    return _running_op(CUMSUM, x, axis, exclusive, reverse)


def cumprod(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running product of ``x`` along ``axis``; ``exclusive`` starts from 1, ``reverse`` runs from the end.

    >>> cumprod([1, 2, 3, 4], reverse=True)
    Tensor([24 24 12  4], shape=(4,), dtype=int32)
    """
    return _running_op(CUMPROD, x, axis, exclusive, reverse)


def reduce_logsumexp(input_tensor: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """``log(reduce_sum(exp(input_tensor)))`` computed without overflow, as TensorFlow does.

    Built from registered ops: the (finite) maximum is subtracted before ``exp`` and added back after
    ``log``, so ``[1000, 1000]`` gives ``1000 + log 2``, and an all ``-inf`` slice gives ``-inf``.

    >>> reduce_logsumexp([1000.0, 1000.0])
    Tensor(1000.6932, shape=(), dtype=float32)
    """
    tensor = convert_to_tensor(input_tensor)
    if tensor.dtype.kind != "f":
        raise TypeError(f"reduce_logsumexp: input must be a floating-point tensor, got {tensor.dtype.name}; "
                        "convert it with rt.cast(x, rt.float32)")
    raw_max = reduce_max(tensor, axis, keepdims=True)
    # inf - inf would be nan. The shift is a constant to gradients (TensorFlow's form): the gradient is then
    # exactly softmax, also where several entries tie for the max.
    shift = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
    total = reduce_sum(exp(subtract(tensor, shift)), axis, keepdims=keepdims)
    return add(log(total), shift if keepdims else reduce_sum(shift, axis, keepdims=False))


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def _kept(op, value: Tensor, ops) -> Tensor:
    """A reduction's output-shaped ``value`` with the reduced axes put back as size 1 (it then
    broadcasts against the input)."""
    if op.attrs["keepdims"] or op.attrs["axis"] is None:
        return value  # a reduction over every axis gives a scalar: it broadcasts against an input of any rank
    rank = op.inputs[0].ndim
    axis = op.attrs["axis"]
    if rank is None:
        # Axes counted from the front need no rank (e.g. a stacked TensorArray of unknown rank summed over
        # axis 0): inserted in increasing order, each lands where it was reduced.
        if any(a < 0 for a in axis):
            raise ValueError(f"gradient of {op.type}: the input has unknown rank and the reduced axes {list(axis)} "
                             "count from the end; give the input a known rank or count the axes from the front")
        rank = max(axis) + 1
    axes = sorted({a % rank for a in axis})
    for a in axes:
        value = ops.expand_dims(value, a)
    return value


def _spread(op, grad: Tensor, ops) -> Tensor:
    """The gradient of a sum: ``grad`` copied to every input position that was summed into it."""
    x = op.inputs[0]
    if x.shape is not None and None not in x.shape:
        return ops.broadcast_to(_kept(op, grad, ops), list(x.shape))
    return ops.broadcast_to(_kept(op, grad, ops), ops.shape(x))


@register_gradient(get_op("Sum"))
def _sum_gradient(op, grads, ops):
    return [_spread(op, grads[0], ops)]


@register_gradient(get_op("Mean"))
def _mean_gradient(op, grads, ops):
    x, y = op.inputs[0], op.outputs[0]
    if x.shape is not None and y.shape is not None and None not in x.shape and None not in y.shape:
        count = ops.constant(max(int(np.prod(x.shape)), 1) // max(int(np.prod(y.shape)), 1), x.dtype)
    else:
        count = ops.cast(ops.size(x), x.dtype) / ops.cast(ops.maximum(ops.size(y), 1), x.dtype)
    return [_spread(op, grads[0], ops) / count]


@register_gradient(get_op("Prod"))
def _prod_gradient(op, grads, ops):
    # d prod / d x_i = the product of the other elements, computed without dividing by zero: where
    # x_i == 0 it is the product of the non-zeros if x_i is the only zero, else 0.
    x, y, g = op.inputs[0], _kept(op, op.outputs[0], ops), _kept(op, grads[0], ops)
    is_zero = ops.equal(x, 0)
    one = ops.ones_like(x)
    zeros_counted = reduce_sum(ops.cast(is_zero, x.dtype), op.attrs["axis"], keepdims=True)
    product_of_nonzeros = reduce_prod(ops.where(is_zero, one, x), op.attrs["axis"], keepdims=True)
    at_zero = ops.where(ops.equal(zeros_counted, 1), product_of_nonzeros, ops.zeros_like(product_of_nonzeros))
    others = ops.where(is_zero, at_zero * one, y / ops.where(is_zero, one, x))
    return [g * others]


def _extremum_gradient(op, grads, ops):
    # The gradient is shared equally by the elements equal to the max (min), as in TensorFlow.
    x = op.inputs[0]
    hits = ops.cast(ops.equal(x, _kept(op, op.outputs[0], ops)), x.dtype)
    count = reduce_sum(hits, op.attrs["axis"], keepdims=True)
    return [_kept(op, grads[0], ops) * hits / count]


register_gradient(get_op("Max"))(_extremum_gradient)
register_gradient(get_op("Min"))(_extremum_gradient)
not_differentiable(get_op("Any"), "a logical reduction: bool input and result")
not_differentiable(get_op("All"), "a logical reduction: bool input and result")
not_differentiable(ARG_MAX, "its result is an integer index")
not_differentiable(ARG_MIN, "its result is an integer index")


@register_gradient(CUMSUM)
def _cumsum_gradient(op, grads, ops):
    attrs = op.attrs
    return [cumsum(grads[0], attrs["axis"], exclusive=attrs["exclusive"], reverse=not attrs["reverse"])]


@register_gradient(CUMPROD)
def _cumprod_gradient(op, grads, ops):
    # d y_j / d x_i = y_j / x_i for the i that y_j multiplies, so the gradient is a running sum of g * y the
    # other way, divided by x -- exact before the first zero along the scan (from there on every y_j is 0).
    # At the first zero it is the same running sum over the products with that zero replaced by 1, and
    # after it 0 (each product still holds the first zero). Exact with zeros, as JAX (TensorFlow divides
    # by the zero: its [2, 0, 3, 4] gives 0 where the answer is 32).
    attrs, x, g = op.attrs, op.inputs[0], grads[0]
    axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]

    def running_sum(products):
        return cumsum(g * products, axis, exclusive=exclusive, reverse=not reverse)

    is_zero = ops.equal(x, 0)
    zeros_so_far = cumsum(ops.cast(is_zero, dtypes.int32), axis, reverse=reverse)
    before_first_zero = ops.equal(zeros_so_far, 0)
    first_zero = ops.logical_and(is_zero, ops.equal(zeros_so_far, 1))
    one, zero = ops.ones_like(x), ops.zeros_like(x)
    before = running_sum(op.outputs[0]) / ops.where(before_first_zero, x, one)
    at_first_zero = running_sum(cumprod(ops.where(first_zero, one, x), axis, exclusive=exclusive, reverse=reverse))
    return [ops.where(before_first_zero, before, ops.where(first_zero, at_first_zero, zero))]
