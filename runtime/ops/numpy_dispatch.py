"""numpy functions on tensors: the one table from numpy names to runtime ops.

Tensors implement numpy's ``__array_ufunc__`` and ``__array_function__`` protocols and hand every
call to :func:`dispatch_ufunc` / :func:`dispatch_function`. A numpy call with a mapping here becomes
the runtime op, so ``np.sum(t)`` inside a traced function is a ``Sum`` node, and on an eager tensor it
runs the same op and returns a tensor (graph and eager give the same values and dtypes).

A numpy call with no mapping never turns a symbolic tensor into a numpy object array (which would
give silently wrong answers): it raises ``OperatorNotAllowedInGraphError`` naming the numpy function
and the ``rt`` op to use. On eager tensors an unmapped call runs numpy on the values, as before, and
returns what numpy returns. ``np.asarray(eager_tensor)`` is still the tensor's ndarray.

dtypes follow the runtime's (TensorFlow's) rules, not numpy's promotion, with two exceptions where
the op would give a different *value*: ``np.mean`` of integers or bools is computed in float64 and
``np.sum`` of bools counts in int64, as numpy does.

>>> import numpy as np
>>> from runtime.ops.convert import constant
>>> np.sum(constant([1.0, 2.0, 3.0])) * 2
Tensor(12.0, shape=(), dtype=float32)
>>> np.maximum(constant([1, 5]), 3)
Tensor([3 5], shape=(2,), dtype=int32)
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import OperatorNotAllowedInGraphError
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
from runtime.core.tensor import SymbolicTensor, Tensor


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
_METHOD_ARGUMENTS = {"reduce": {"axis", "keepdims"}, "accumulate": {"axis"}}

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

# What to use instead, for numpy functions people reach for that have no mapping. Every ``rt.NAME``
# here exists (a test checks it).
_SUGGESTIONS = {
    "std": "rt.sqrt(rt.reduce_mean(rt.square(x - rt.reduce_mean(x))))",
    "var": "rt.reduce_mean(rt.square(x - rt.reduce_mean(x)))",
    "allclose": "rt.reduce_all(rt.abs(a - b) <= tolerance)", "array_equal": "rt.reduce_all(rt.equal(a, b))",
    "asarray": "the tensor itself (rt.convert_to_tensor)", "array": "the tensor itself (rt.convert_to_tensor)",
}


def numpy_name(func: Any) -> str:
    """``np.sum`` for numpy's sum; ``np.linalg.norm`` keeps its submodule."""
    module = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    submodule = module.split(".")[1] if module.startswith("numpy.") else ""
    if submodule in ("linalg", "fft", "random"):
        return f"np.{submodule}.{name}"
    return f"np.{name}"


def _suggestion(name: str) -> str:
    short = name[len("np."):]
    hint = _SUGGESTIONS.get(short)
    if hint is None:
        return ("use the runtime op that computes it (rt.*), or call numpy outside the traced function on "
                "t.numpy() of an eager tensor")
    return f"use {hint} instead"


def _symbolic_in(values: Any) -> Optional[SymbolicTensor]:
    for value in values:
        if isinstance(value, SymbolicTensor):
            return value
        if isinstance(value, (list, tuple)):
            found = _symbolic_in(value)
            if found is not None:
                return found
        if isinstance(value, dict):
            found = _symbolic_in(value.values())
            if found is not None:
                return found
    return None


def unmapped_error(name: str, tensor: SymbolicTensor, why: str = "has no graph op mapping") -> Exception:
    return OperatorNotAllowedInGraphError(
        f"{name} {why}: it cannot run on the symbolic tensor {tensor.name} (dtype={tensor.dtype.name}, "
        f"shape={tensor.shape}) while tracing, and turning it into a numpy object array would give wrong "
        f"answers; {_suggestion(name)}")


def _as_arrays(value: Any) -> Any:
    """Eager tensors and Variables (also inside lists/tuples/dicts) as their ndarrays, for numpy itself."""
    if isinstance(value, Tensor) and not isinstance(value, SymbolicTensor):
        return value._value
    if isinstance(value, (list, tuple)):
        return type(value)(_as_arrays(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_arrays(v) for k, v in value.items()}
    return value


def _bind(adapter: Callable, args: Sequence[Any], kwargs: Dict[str, Any]) -> Optional[str]:
    """None if numpy's call fits the adapter, else why not (e.g. an unsupported ``out=`` argument)."""
    try:
        inspect.signature(adapter).bind(*args, **kwargs)
    except TypeError as error:
        return f"called with arguments that have no op mapping ({error})"
    return None


def dispatch_function(func: Callable, args: Sequence[Any], kwargs: Dict[str, Any]) -> Any:
    """``__array_function__``: the mapped op, or numpy on eager values, or a clear error."""
    name = numpy_name(func)
    adapter = FUNCTIONS.get(func)
    why = "has no graph op mapping" if adapter is None else _bind(adapter, args, kwargs)
    if why is None:
        return adapter(*args, **kwargs)
    symbolic = _symbolic_in((args, kwargs))
    if symbolic is not None:
        raise unmapped_error(name, symbolic, why)
    return func(*_as_arrays(args), **_as_arrays(kwargs))


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    return dispatch_ufunc(ufunc, method, inputs, kwargs)


def _array_function(self, func, types, args, kwargs):
    return dispatch_function(func, args, kwargs)


def install_numpy_protocols() -> None:
    """Give ``Tensor`` numpy's ``__array_ufunc__`` and ``__array_function__`` (idempotent)."""
    Tensor.__array_ufunc__ = _array_ufunc
    Tensor.__array_function__ = _array_function


def dispatch_ufunc(ufunc: np.ufunc, method: str, inputs: Sequence[Any], kwargs: Dict[str, Any]) -> Any:
    """``__array_ufunc__``: ``np.exp(t)``, ``ndarray + t``, ``np.add.reduce(t)``."""
    name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    if method == "__call__":
        op = UFUNCS.get(ufunc)
        if op is not None and not kwargs:
            return op(*inputs)
    else:
        op = UFUNC_METHODS.get((ufunc, method))
        if op is not None and len(inputs) == 1 and set(kwargs) <= _METHOD_ARGUMENTS[method]:
            return op(inputs[0], kwargs.get("axis", 0), **{k: v for k, v in kwargs.items() if k != "axis"})
    symbolic = _symbolic_in((inputs, kwargs))
    if symbolic is not None:
        why = "has no graph op mapping" if op is None else f"called with {sorted(kwargs)} has no graph op mapping"
        raise unmapped_error(name, symbolic, why)
    return getattr(ufunc, method)(*_as_arrays(inputs), **_as_arrays(kwargs))


install_numpy_protocols()
