"""numpy functions on tensors: numpy's protocols hand each call to the runtime op the table names.

Tensors implement numpy's ``__array_ufunc__`` and ``__array_function__`` protocols and hand every
call to :func:`dispatch_ufunc` / :func:`dispatch_function`. A numpy call with a mapping in
:mod:`runtime.ops.numpy_table` (the one numpy-name → op table) becomes
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
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from runtime.core.errors import OperatorNotAllowedInGraphError
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.ops.numpy_table import FUNCTIONS, METHOD_ARGUMENTS, UFUNC_METHODS, UFUNCS

__all__ = ["FUNCTIONS", "UFUNCS", "UFUNC_METHODS", "dispatch_function", "dispatch_ufunc", "install_numpy_protocols",
           "numpy_name", "unmapped_error"]


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
        if op is not None and len(inputs) == 1 and set(kwargs) <= METHOD_ARGUMENTS[method]:
            return op(inputs[0], kwargs.get("axis", 0), **{k: v for k, v in kwargs.items() if k != "axis"})
    symbolic = _symbolic_in((inputs, kwargs))
    if symbolic is not None:
        why = "has no graph op mapping" if op is None else f"called with {sorted(kwargs)} has no graph op mapping"
        raise unmapped_error(name, symbolic, why)
    return getattr(ufunc, method)(*_as_arrays(inputs), **_as_arrays(kwargs))


install_numpy_protocols()
