"""Item assignment in converted code (``ag__.set_item``): a functional update on tensors, Python elsewhere.

``x[key] = v`` in a converted function becomes ``x = ag__.set_item(x, key, v)`` (converters/slices.py).
On a tensor that is ``rt.update_by_key(x, key, v)``, a new tensor, so a tensor ``if``/loop that assigns an
item carries ``x`` as state. On anything else it is exactly Python's ``x[key] = v`` and returns the same
object: lists, dicts and numpy arrays are mutated in place and every alias sees it.

>>> values = [1, 2, 3]
>>> alias = values
>>> set_item(values, 0, 10) is values, alias
(True, [10, 2, 3])
>>> set_item(rt.constant([1, 2, 3]), 0, 10)
Tensor([10  2  3], shape=(3,), dtype=int32)
"""
from __future__ import annotations

import operator
from typing import Any

import runtime as rt

_IN_PLACE = {'+=': operator.iadd, '-=': operator.isub, '*=': operator.imul, '/=': operator.itruediv,
             '//=': operator.ifloordiv, '%=': operator.imod, '**=': operator.ipow, '@=': operator.imatmul,
             '&=': operator.iand, '|=': operator.ior, '^=': operator.ixor, '<<=': operator.ilshift,
             '>>=': operator.irshift}


def set_item(target: Any, key: Any, value: Any) -> Any:
    """``target[key] = value``; returns the new tensor for a tensor, else ``target`` itself (mutated).

    >>> set_item({'a': 1}, 'b', 2)
    {'a': 1, 'b': 2}
    """
    if isinstance(target, rt.Tensor):
        return rt.update_by_key(target, key, value)
    target[key] = value
    return target


def set_item_augmented(target: Any, key: Any, operator_text: str, value: Any) -> Any:
    """``target[key] += value`` (or another augmented operator); the key is evaluated once, as in Python.

    >>> set_item_augmented(rt.constant([1, 2]), 1, '*=', 5)
    Tensor([ 1 10], shape=(2,), dtype=int32)
    """
    in_place = _IN_PLACE[operator_text]
    if isinstance(target, rt.Tensor):
        return rt.update_by_key(target, key, in_place(target[key], value))  # tensors have no in-place forms
    target[key] = in_place(target[key], value)
    return target
