"""Python's operators on tensors: each one is a registered op, installed on ``Tensor`` here.

``Tensor`` lives in ``runtime.core`` and knows no ops; importing this module (the ops package does)
gives it ``+ - * / // % ** @``, ``divmod``, unary ``- abs ~``, ``& |``, the elementwise comparisons and ``[]``,
the way TensorFlow's ``_override_operator`` does.

>>> import runtime as rt
>>> rt.constant([1, 2]) * 3 + 1
Tensor([4 7], shape=(2,), dtype=int32)
>>> divmod(rt.constant([7, -7]), 3)
(Tensor([ 2 -3], shape=(2,), dtype=int32), Tensor([1 2], shape=(2,), dtype=int32))
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from runtime.core.errors import in_users_words
from runtime.core.registry import eager_op_hooks
from runtime.core.tensor import EagerTensor, Tensor, _user_location
from runtime.ops.indexing import slice_by_key
from runtime.ops.logical_ops import logical_and, logical_not, logical_or
from runtime.ops.math_ops import (add, divide, equal, floordiv, greater, greater_equal, less, less_equal, matmul,
                                  mod, multiply, not_equal, pow, subtract)  # noqa: A004
from runtime.ops.unary_ops import abs, negative  # noqa: A004


def _binary(name: str, op: Callable) -> None:
    setattr(Tensor, f"__{name}__", op)  # a plain function is a method: one call less per ``x + y``
    setattr(Tensor, f"__r{name}__", lambda self, other: op(other, self))


def install_operators() -> None:
    """Give ``Tensor`` its Python operators (idempotent)."""
    for name, op in {"add": add, "sub": subtract, "mul": multiply, "truediv": divide, "floordiv": floordiv,
                     "mod": mod, "pow": pow, "matmul": matmul, "and": logical_and, "or": logical_or}.items():
        _binary(name, op)
    for name, op in {"lt": less, "le": less_equal, "gt": greater, "ge": greater_equal, "eq": equal,
                     "ne": not_equal}.items():
        setattr(Tensor, f"__{name}__", op)
    # divmod(a, b) is (a // b, a % b): floor division and the remainder with b's sign, as numpy and Python.
    Tensor.__divmod__ = lambda self, other: (floordiv(self, other), mod(self, other))
    Tensor.__rdivmod__ = lambda self, other: (floordiv(other, self), mod(other, self))
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: abs(self)
    Tensor.__invert__ = lambda self: logical_not(self)
    Tensor.__getitem__ = lambda self, key: slice_by_key(self, key)
    Tensor.__setitem__ = _refuse_item_assignment
    EagerTensor.__iter__ = _rows
    Tensor.__hash__ = object.__hash__  # identity: tensors are dict keys internally, though == is elementwise


def _rows(tensor: EagerTensor):
    """Iterating an eager tensor (``for row in m``, ``a, b = m``) yields its rows; while a GradientTape
    records, each row is ``m[i]``, an op the tape sees, so the rows' gradients reach ``m``."""
    array = tensor._value
    if array.ndim == 0:
        raise TypeError("iteration over a scalar tensor")
    if eager_op_hooks:
        return (slice_by_key(tensor, index) for index in range(len(array)))
    return (EagerTensor(np.asarray(row)) for row in array)  # rows of a vector are 0-d arrays


def _refuse_item_assignment(tensor: Tensor, key, value) -> None:
    """Tensors are immutable (eager ones too: an alias must not change): say what to write instead."""
    what = "a symbolic tensor" if not isinstance(tensor, EagerTensor) else "a tensor"
    raise TypeError(in_users_words(
        f"{what} (dtype={tensor.dtype.name}, shape={tensor.shape}) does not support item assignment"
        f"{_user_location()}: tensors are immutable. "
        "Write `x = rt.update_by_key(x, key, value)` (or rt.tensor_scatter_nd_update(x, indices, updates)); "
        "inside a function converted by ag.function, `x[key] = value` on a local name does this for you"))


install_operators()
