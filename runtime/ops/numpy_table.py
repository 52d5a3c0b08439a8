"""The one table from numpy names to runtime ops, and the adapters that take numpy's arguments.

``UFUNCS`` maps a ufunc called on tensors to its op; ``UFUNC_METHODS`` maps ``ufunc.reduce`` /
``ufunc.accumulate``; ``FUNCTIONS`` maps a numpy function to an adapter with numpy's signature that
calls runtime ops. :mod:`runtime.ops.numpy_dispatch` reads these tables when numpy hands it a call
(``__array_ufunc__`` / ``__array_function__``); adding a numpy function means adding one adapter and one
entry here.

>>> import numpy as np
>>> FUNCTIONS[np.sum].__name__, UFUNCS[np.add].__name__
('_sum', 'add')
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from runtime.core import dtypes
from runtime.ops.array_ops import cast, expand_dims, identity, reshape, squeeze, tile, transpose
from runtime.ops.combine_ops import concat, stack, where
from runtime.ops.convert import convert_to_tensor
from runtime.ops.creation_ops import ones_like, zeros_like
from runtime.ops.indexing import gather
from runtime.ops.logical_ops import logical_and, logical_not, logical_or
from runtime.ops.math_ops import (add, divide, equal, floordiv, greater, greater_equal, less, less_equal, matmul,
                                  maximum, minimum, mod, multiply, not_equal, pow, subtract)  # noqa: A004
from runtime.ops.reduction_ops import (argmax, argmin, cumprod, cumsum, reduce_all, reduce_any, reduce_max, reduce_mean,
                                       reduce_min, reduce_prod, reduce_sum)
from runtime.ops.einsum_ops import einsum
from runtime.ops.gradient_ops import broadcast_to
from runtime.ops.linalg_ops import det, inv, norm, trace
from runtime.ops.manipulation_ops import repeat, reverse
from runtime.ops.shape_ops import size
from runtime.ops.split_ops import split, unstack
from runtime.ops.sort_ops import argsort, sort
from runtime.ops.unary_ops import (abs, ceil, cos, exp, expm1, floor, is_finite, is_nan, log, log1p,  # noqa: A004
                                   negative, reciprocal, round, sign, sin, sqrt, square, tanh)
from runtime.core.tensor import Tensor


# --- adapters: numpy's signature on the left, runtime ops on the right ---------------------------------------
def _as_dtype_or_none(dtype: Any) -> Optional[np.dtype]:
    return None if dtype is None else dtypes.as_dtype(dtype)


def _sum(a, axis=None, dtype=None, keepdims=False):
    a = convert_to_tensor(a)
    target = _as_dtype_or_none(dtype) or (dtypes.int64 if a.dtype == dtypes.bool else None)
    return reduce_sum(a if target is None else cast(a, target), axis, keepdims)


def _mean(a, axis=None, dtype=None, keepdims=False):
    a = convert_to_tensor(a)
    target = _as_dtype_or_none(dtype) or (dtypes.float64 if a.dtype.kind in "iub" else None)
    return reduce_mean(a if target is None else cast(a, target), axis, keepdims)


def _prod(a, axis=None, dtype=None, keepdims=False):
    a = convert_to_tensor(a)
    target = _as_dtype_or_none(dtype)
    return reduce_prod(a if target is None else cast(a, target), axis, keepdims)


def _max(a, axis=None, keepdims=False):
    return reduce_max(a, axis, keepdims)


def _min(a, axis=None, keepdims=False):
    return reduce_min(a, axis, keepdims)


def _truth(a) -> Tensor:
    a = convert_to_tensor(a)
    return a if a.dtype == dtypes.bool else not_equal(a, 0)


def _any(a, axis=None, keepdims=False):
    return reduce_any(_truth(a), axis, keepdims)


def _all(a, axis=None, keepdims=False):
    return reduce_all(_truth(a), axis, keepdims)


def _flat(a) -> Tensor:
    return reshape(a, [-1])


def _arg_reduction(op: Callable) -> Callable:
    def arg_reduce(a, axis=None, keepdims=False):
        a = convert_to_tensor(a)
        if axis is None:  # numpy: the index into the flattened array
            result = op(_flat(a), 0)
            return reshape(result, [1] * a.ndim) if keepdims else result
        result = op(a, axis)
        return expand_dims(result, axis) if keepdims else result
    return arg_reduce


def _cumsum(a, axis=None, dtype=None):
    a = convert_to_tensor(a)
    if dtype is not None:
        a = cast(a, dtype)
    return cumsum(_flat(a), 0) if axis is None else cumsum(a, axis)


def _cumprod(a, axis=None, dtype=None):
    a = convert_to_tensor(a)
    if dtype is not None:
        a = cast(a, dtype)
    return cumprod(_flat(a), 0) if axis is None else cumprod(a, axis)


def _round(a, decimals=0):
    if decimals != 0:
        raise TypeError(f"np.round with decimals={decimals!r} has no op mapping (decimals=0 maps onto rt.math.round)")
    return round(a)


def _sort(a, axis=-1, kind=None):
    return sort(_flat(a), 0) if axis is None else sort(a, axis)


def _argsort(a, axis=-1, kind=None):
    # Ties keep their order (a stable sort); numpy's default kind leaves the order of ties unspecified.
    order = argsort(_flat(a), 0) if axis is None else argsort(a, axis)
    return cast(order, dtypes.int64)  # numpy's index dtype


def _einsum(subscripts, *operands):
    if not isinstance(subscripts, str):
        raise TypeError("np.einsum maps onto rt.einsum only with a subscripts string as its first argument")
    return einsum(subscripts, *operands)


def _repeat(a, repeats, axis=None):
    return repeat(a, repeats, axis)


def _flip(m, axis=None):
    m = convert_to_tensor(m)
    if axis is None:
        axis = list(range(_ndim(m)))
    return reverse(m, axis)


def _broadcast_to(array, shape):
    return broadcast_to(array, shape)


def _split(ary, indices_or_sections, axis=0):
    if not isinstance(indices_or_sections, int):
        raise TypeError("np.split maps onto rt.split only with a number of equal sections; for split points "
                        "pass rt.split the section sizes")
    return split(ary, indices_or_sections, axis)


def _unstack(x, *, axis=0):
    return tuple(unstack(x, axis=axis))


def _trace(a):
    if _ndim(a) != 2:
        raise TypeError("np.trace maps onto rt.linalg.trace for matrices only (numpy sums over the first two "
                        "axes, TensorFlow over the last two)")
    return trace(a)


def _det(a):
    return det(a)


def _inv(a):
    return inv(a)


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's name
    if ord is not None:
        raise TypeError(f"np.linalg.norm with ord={ord!r} has no op mapping (ord=None maps onto rt.linalg.norm)")
    return norm(x, "euclidean", axis, keepdims)


def _dot(a, b):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if a.ndim == 1 and b.ndim == 1:
        return reduce_sum(multiply(a, b))
    if a.ndim == 2 and b.ndim == 1:
        return squeeze(matmul(a, expand_dims(b, 1)), [1])
    if a.ndim == 1 and b.ndim == 2:
        return squeeze(matmul(expand_dims(a, 0), b), [0])
    if a.ndim == 2 and b.ndim == 2:
        return matmul(a, b)
    raise TypeError(f"np.dot of tensors of rank {a.ndim} and {b.ndim} has no op mapping (ranks 0-2 map); "
                    "use rt.matmul for batched products")


def _matmul(a, b):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 1 or b.ndim == 1:  # numpy promotes a vector to a matrix, then drops that axis
        return _dot(a, b) if max(a.ndim, b.ndim) <= 2 else _unmapped_rank("np.matmul", a, b)
    return matmul(a, b)


def _unmapped_rank(name: str, a: Tensor, b: Tensor):
    raise TypeError(f"{name} of a vector with a tensor of rank {max(a.ndim, b.ndim)} has no op mapping; "
                    "use rt.matmul with explicit rt.expand_dims")


def _where(condition, x=None, y=None):
    if x is None and y is None:  # np.where(c) is np.nonzero(c): one index vector per axis
        return _nonzero(condition)
    return where(_truth(condition), x, y)


def _nonzero(a):
    a = _truth(a)
    coordinates = where(a)
    return tuple(coordinates[:, axis] for axis in range(a.ndim))


def _concatenate(arrays, axis=0):
    if axis is None:
        return concat([_flat(a) for a in arrays], 0)
    return concat(list(arrays), axis)


def _stack(arrays, axis=0):
    return stack(list(arrays), axis)


def _reshape(a, shape=None, order="C", *, newshape=None):
    if order != "C":
        raise TypeError(f"np.reshape: only order='C' maps onto rt.reshape, got order={order!r}")
    return reshape(a, newshape if shape is None else shape)


def _transpose(a, axes=None):
    return transpose(a, axes)


def _clip(a, a_min=None, a_max=None, *, min=None, max=None):  # noqa: A002 - numpy 2's names
    low = a_min if min is None else min
    high = a_max if max is None else max
    result = convert_to_tensor(a)
    if low is not None:
        result = maximum(result, low)
    if high is not None:
        result = minimum(result, high)
    return result


def _expand_dims(a, axis):
    return expand_dims(a, axis)


def _squeeze(a, axis=None):
    return squeeze(a, axis)


def _tile(A, reps):  # noqa: N803 - numpy's name
    return tile(A, reps)


def _take(a, indices, axis=None):
    return gather(_flat(a), indices) if axis is None else gather(a, indices, axis)


def _zeros_like(a, dtype=None):
    return zeros_like(a, dtype)


def _ones_like(a, dtype=None):
    return ones_like(a, dtype)


def _static_shape(a, name: str) -> Tuple[Optional[int], ...]:
    a = convert_to_tensor(a)
    if a.shape is None:
        raise TypeError(f"{name}: the rank is not known while tracing; use rt.shape(t) / rt.rank(t) for the "
                        "run-time values (tensors)")
    return tuple(a.shape)


def _known(dims: Tuple[Optional[int], ...], name: str, what: Any) -> Tuple[int, ...]:
    if None in dims:
        raise TypeError(f"{name}: the shape {what} is not fully known while tracing; use rt.shape(t) for the "
                        "run-time shape (a tensor)")
    return dims


def _shape(a):
    shape = _static_shape(a, "np.shape")
    return _known(shape, "np.shape", shape)


def _ndim(a):
    return len(_static_shape(a, "np.ndim"))


def _size(a, axis=None):
    shape = _static_shape(a, "np.size")
    if axis is not None:
        return _known((shape[axis],), "np.size", shape)[0]
    return size(a) if None in shape else int(np.prod(shape, dtype=np.int64))


# --- THE table ---------------------------------------------------------------------------------------------
# ufunc -> op, for ``ufunc(*inputs)``; numpy's aliases (np.abs, np.divide, np.mod) are these same objects.
UFUNCS: Dict[np.ufunc, Callable] = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.true_divide: divide,
    np.floor_divide: floordiv, np.remainder: mod, np.power: pow, np.maximum: maximum, np.minimum: minimum,
    np.greater: greater, np.greater_equal: greater_equal, np.less: less, np.less_equal: less_equal,
    np.equal: equal, np.not_equal: not_equal, np.logical_and: logical_and, np.logical_or: logical_or,
    np.logical_not: logical_not, np.negative: negative, np.positive: identity,
    np.absolute: abs, np.sign: sign, np.exp: exp, np.log: log, np.sqrt: sqrt, np.square: square,
    np.matmul: _matmul, np.tanh: tanh, np.sin: sin, np.cos: cos, np.floor: floor, np.ceil: ceil, np.rint: round,
    np.log1p: log1p, np.expm1: expm1, np.reciprocal: reciprocal, np.isnan: is_nan, np.isfinite: is_finite,
}

# ``ufunc.reduce`` / ``ufunc.accumulate`` (numpy's default axis for these is 0).
UFUNC_METHODS: Dict[Tuple[np.ufunc, str], Callable] = {
    (np.add, "reduce"): reduce_sum, (np.multiply, "reduce"): reduce_prod,
    (np.maximum, "reduce"): reduce_max, (np.minimum, "reduce"): reduce_min,
    (np.logical_and, "reduce"): reduce_all, (np.logical_or, "reduce"): reduce_any,
    (np.add, "accumulate"): cumsum,
}
METHOD_ARGUMENTS = {"reduce": {"axis", "keepdims"}, "accumulate": {"axis"}}

# numpy function -> adapter taking numpy's arguments.
FUNCTIONS: Dict[Callable, Callable] = {
    np.sum: _sum, np.mean: _mean, np.prod: _prod, np.max: _max, np.amax: _max, np.min: _min, np.amin: _min,
    np.any: _any, np.all: _all, np.argmax: _arg_reduction(argmax), np.argmin: _arg_reduction(argmin),
    np.cumsum: _cumsum, np.dot: _dot, np.where: _where, np.nonzero: _nonzero, np.concatenate: _concatenate,
    np.stack: _stack, np.reshape: _reshape, np.transpose: _transpose, np.clip: _clip,
    np.expand_dims: _expand_dims, np.squeeze: _squeeze, np.tile: _tile, np.take: _take,
    np.zeros_like: _zeros_like, np.ones_like: _ones_like, np.shape: _shape, np.ndim: _ndim, np.size: _size,
    np.cumprod: _cumprod, np.round: _round, np.around: _round, np.sort: _sort, np.argsort: _argsort,
    np.einsum: _einsum, np.repeat: _repeat, np.flip: _flip, np.broadcast_to: _broadcast_to, np.split: _split,
    np.trace: _trace, np.linalg.det: _det, np.linalg.inv: _inv, np.linalg.norm: _norm,
}
if hasattr(np, "unstack"):  # numpy >= 2.1
    FUNCTIONS[np.unstack] = _unstack
