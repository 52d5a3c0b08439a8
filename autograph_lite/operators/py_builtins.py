"""Builtins that understand tensors: ``converted_call`` sends calls of ``range``, ``len``,
``enumerate``, ``zip``, ``print``, ``abs``, ``int``, ``float``, ``isinstance``, ``sum``, ``any``, ``all``,
``max`` and ``min`` here.

They replace the builtins only while a graph is being built (outside one converted code calls the
builtins themselves). On anything but a symbolic tensor each one *is* the builtin: it calls the
builtin with the arguments as given, so a wrong call raises the builtin's own error.  On symbolic tensors:

* ``range(n)`` → a ``StagedRange`` that a ``for`` loop stages (use ``rt.range`` for a range tensor);
* ``len(t)`` → the static first dimension as a Python int, or, when it is unknown while tracing, an
  int32 tensor holding it at run time (so ``for i in range(len(t))`` becomes a graph loop);
* ``enumerate``/``zip`` → staged iterables for a ``for`` loop;
* ``abs`` → ``rt.abs``; ``int``/``float`` → ``rt.cast`` to int32/float32;
* ``sum``/``any``/``all``/``max``/``min`` of a symbolic tensor, of a generator expression over one
  (comprehensions.py) or of a staged ``range`` → the reduction over the first dimension
  (``max(a, b)`` of tensors → ``rt.maximum``);
* ``print`` stays Python's print (runs while tracing only; ``rt.print`` is the graph op).

>>> list(range_(3)) == list(range(3))
True
"""
from __future__ import annotations

import builtins
from typing import Any

import runtime as rt
from autograph_lite.operators.comprehensions import StagedGenerator
from autograph_lite.operators.iteration import (StagedEnumerate, StagedIterable, StagedRange, StagedZip,
                                                TensorRows, as_staged_iterable)
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance, len, next, str

_range, _len, _enumerate, _zip = builtins.range, builtins.len, builtins.enumerate, builtins.zip
_abs, _int, _float = builtins.abs, builtins.int, builtins.float
_sum, _any, _all, _max, _min = builtins.sum, builtins.any, builtins.all, builtins.max, builtins.min


def range_(*args: Any, **kwargs: Any) -> Any:
    """``range(...)``; a ``StagedRange`` if a bound is symbolic.

    >>> range_(1, 10, 4)
    range(1, 10, 4)
    """
    if kwargs:
        return _range(*args, **kwargs)   # the builtin's own error
    for arg in args:
        if isinstance(arg, SymbolicTensor):
            return _staged_range(*args)
        if arg is None and rt.in_graph_mode():
            raise TypeError(
                "range() got None while tracing: a dimension that is unknown until the graph runs (x.shape[i] "
                "is None when the input's shape has a None dim, e.g. from an input_signature). Use "
                "range(len(x)) or range(rt.shape(x)[i]) for a graph loop over the run-time size, or trace with "
                "a fixed shape")
    return _range(*args)


def _staged_range(*args: Any) -> StagedRange:
    if not 1 <= len(args) <= 3:
        raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
    dtype = next(arg.dtype for arg in args if isinstance(arg, SymbolicTensor))
    if dtype.kind not in "iu":
        raise TypeError(f"range() of a tensor needs an integer dtype, got {dtype.name}; "
                        "convert it with int(...) or rt.cast(x, rt.int32)")
    values = [arg if isinstance(arg, SymbolicTensor) else rt.constant(arg, dtype) for arg in args]
    if len(values) == 1:
        values = [rt.constant(0, dtype)] + values
    if len(values) == 2:
        values.append(rt.constant(1, dtype))
    start, limit, delta = values
    return StagedRange(start, limit, delta)


def len_(*args: Any, **kwargs: Any) -> Any:
    """``len(obj)``; for a symbolic tensor, its first dimension (a tensor if unknown while tracing).

    >>> len_([1, 2])
    2
    """
    if kwargs or len(args) != 1:
        return _len(*args, **kwargs)   # the builtin's own error
    obj = args[0]
    if isinstance(obj, SymbolicTensor):
        return _tensor_len(obj)
    if isinstance(obj, StagedIterable):
        return obj.length()
    if isinstance(obj, rt.TensorList):
        return obj.length()
    return _len(obj)


def _tensor_len(tensor: SymbolicTensor) -> Any:
    shape = tensor.shape
    if shape is not None and len(shape) == 0:
        raise TypeError(f"len() of a scalar tensor ({tensor!r}): it has no first dimension")
    if shape is None or shape[0] is None:
        return rt.shape(tensor)[0]
    return shape[0]


def enumerate_(*args: Any, **kwargs: Any) -> Any:
    """``enumerate(iterable, start)``; staged when ``iterable`` is.

    >>> list(enumerate_('ab', 1))
    [(1, 'a'), (2, 'b')]
    """
    if kwargs or not 1 <= len(args) <= 2:
        return _enumerate(*args, **kwargs)   # enumerate(iterable=..., start=...) or the builtin's own error
    iterable, start = args if len(args) == 2 else (args[0], 0)
    staged = as_staged_iterable(iterable)
    if staged is not None:
        return StagedEnumerate(staged, start)
    return _enumerate(iterable, start)


def zip_(*iterables: Any, **kwargs: Any) -> Any:
    """``zip(...)``; staged when one of the iterables is (the others become tensors).

    >>> list(zip_([1, 2], 'ab'))
    [(1, 'a'), (2, 'b')]
    """
    for iterable in iterables:
        if as_staged_iterable(iterable) is not None:
            return StagedZip([_as_staged_part(part) for part in iterables])
    return _zip(*iterables, **kwargs)


def _as_staged_part(iterable: Any) -> StagedIterable:
    staged = as_staged_iterable(iterable)
    if staged is not None:
        return staged
    if isinstance(iterable, _range):
        return StagedRange(iterable.start, iterable.stop, iterable.step)
    return TensorRows(rt.convert_to_tensor(iterable))


def abs_(*args: Any, **kwargs: Any) -> Any:
    """``abs(x)``; ``rt.abs`` of a symbolic tensor."""
    if len(args) == 1 and not kwargs and isinstance(args[0], SymbolicTensor):
        return rt.abs(args[0])
    return _abs(*args, **kwargs)


def int_(*args: Any, **kwargs: Any) -> Any:
    """``int(...)``; ``rt.cast(x, rt.int32)`` of a symbolic tensor (truncates toward zero, like int)."""
    if args and isinstance(args[0], SymbolicTensor):
        return _cast(args, kwargs, rt.int32, "int")
    return _int(*args, **kwargs)


def float_(*args: Any, **kwargs: Any) -> Any:
    """``float(...)``; ``rt.cast(x, rt.float32)`` of a symbolic tensor."""
    if args and isinstance(args[0], SymbolicTensor):
        return _cast(args, kwargs, rt.float32, "float")
    return _float(*args, **kwargs)


def _cast(args, kwargs, dtype, name: str) -> Any:
    if len(args) > 1 or kwargs:
        raise TypeError(f"{name}() of a tensor takes no other arguments, got {args[1:]!r} {kwargs!r}")
    return rt.cast(args[0], dtype)


def _stacked(iterable: Any) -> Any:
    """The tensor whose rows ``iterable`` would give, if iterating it must be staged; else None."""
    if isinstance(iterable, StagedGenerator):
        return iterable.tensor()
    if isinstance(iterable, SymbolicTensor):
        if iterable.shape is not None and len(iterable.shape) == 0:
            raise TypeError(f"iteration over a scalar tensor ({iterable!r}): it has no rows")
        return iterable
    if isinstance(iterable, StagedRange):
        return iterable.__rt_tensor__()
    return None


def sum_(*args: Any, **kwargs: Any) -> Any:
    """``sum(iterable, start)``; over a symbolic tensor (or a generator expression over one) the sum of its
    rows, ``rt.reduce_sum(t, axis=0)`` (plus ``start``).

    >>> sum_(v * v for v in [1, 2, 3])
    14
    """
    if not 1 <= len(args) <= 2 or not kwargs.keys() <= {'start'} or len(args) + len(kwargs) > 2:
        return _sum(*args, **kwargs)   # the builtin's own error
    rows = _stacked(args[0])
    if rows is None:
        return _sum(*args, **kwargs)
    start = args[1] if len(args) == 2 else kwargs.get('start', 0)
    total = rt.reduce_sum(rows, axis=0)
    return total if isinstance(start, int) and not isinstance(start, bool) and start == 0 else start + total


def _scalar_rows(rows: Any, name: str) -> Any:
    """Python compares/tests each row as a bool, so the rows must be scalars (as eager tensors need)."""
    if rows.shape is None or len(rows.shape) != 1:
        raise TypeError(
            f"{name}() over a tensor of shape {rows.shape}: its rows are not scalars, so their truth value "
            f"(or order) is ambiguous, as in Python; reduce explicitly, e.g. rt.reduce_{name}(t, axis=0)")
    return rows


def _as_bools(rows: Any) -> Any:
    return rows if rows.dtype == rt.bool else rt.not_equal(rows, rt.zeros((), rows.dtype))


def any_(*args: Any, **kwargs: Any) -> Any:
    """``any(iterable)``; over a symbolic tensor of scalars (or a generator expression over one) a bool
    tensor, ``rt.reduce_any``.

    >>> any_(v > 2 for v in [1, 3])
    True
    """
    rows = _stacked(args[0]) if len(args) == 1 and not kwargs else None
    if rows is None:
        return _any(*args, **kwargs)
    return rt.reduce_any(_as_bools(_scalar_rows(rows, "any")))


def all_(*args: Any, **kwargs: Any) -> Any:
    """``all(iterable)``; over a symbolic tensor of scalars a bool tensor, ``rt.reduce_all``.

    >>> all_([])
    True
    """
    rows = _stacked(args[0]) if len(args) == 1 and not kwargs else None
    if rows is None:
        return _all(*args, **kwargs)
    return rt.reduce_all(_as_bools(_scalar_rows(rows, "all")))


def _any_symbolic(args: tuple) -> bool:
    for arg in args:   # (a loop, not any() over a generator: max(a, b) runs in hot loops)
        if isinstance(arg, SymbolicTensor):
            return True
    return False


def _extreme(name: str, python_fn: Any, reduce: Any, pairwise: Any, args: tuple, kwargs: dict) -> Any:
    if len(args) == 1:
        rows = _stacked(args[0])
        if rows is not None:
            if kwargs:
                raise TypeError(f"{name}() over a tensor takes no key or default, got {sorted(kwargs)}; apply the key "
                                "to the elements first (a generator expression)")
            return reduce(_scalar_rows(rows, name))
    elif len(args) > 1 and not kwargs and _any_symbolic(args):
        result = args[0]
        for arg in args[1:]:
            result = pairwise(result, arg)
        return result
    return python_fn(*args, **kwargs)


def max_(*args: Any, **kwargs: Any) -> Any:
    """``max(...)``; the largest row of a symbolic tensor of scalars (``rt.reduce_max``; an empty one fails
    when the graph runs), or ``rt.maximum`` of several tensors.

    >>> max_(v % 4 for v in range(10))
    3
    """
    return _extreme("max", _max, rt.reduce_max, rt.maximum, args, kwargs)


def min_(*args: Any, **kwargs: Any) -> Any:
    """``min(...)``; the smallest row of a symbolic tensor of scalars (``rt.reduce_min``), or ``rt.minimum``.

    >>> min_(3, 1, 2)
    1
    """
    return _extreme("min", _min, rt.reduce_min, rt.minimum, args, kwargs)


# Python semantics exactly: a Python print runs while tracing (rt.print is the graph op), and
# isinstance(t, rt.Tensor) already holds for symbolic tensors.
print_ = builtins.print
isinstance_ = builtins.isinstance

BUILTIN_OVERRIDES = {
    builtins.range: range_,
    builtins.len: len_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.abs: abs_,
    builtins.int: int_,
    builtins.float: float_,
    builtins.print: print_,
    builtins.isinstance: isinstance_,
    _sum: sum_,
    _any: any_,
    _all: all_,
    _max: max_,
    _min: min_,
}
"""Builtin → the version converted code calls instead (used by converted_call)."""
