"""Comparing what two runs produced: exact sameness for Python values, closeness for tensors.

``to_python`` turns results into plain Python (tensors become nested lists), ``difference`` names the first
place where two values differ (``None`` when they are the same), ``close_difference`` does the same with a
tolerance for the numbers of tensors and arrays.

>>> import runtime as rt
>>> to_python((rt.constant([1, 2]), {'n': rt.constant(3.5)}))
([1, 2], {'n': 3.5})
>>> difference([1, (2, 3)], [1, (2, 4)])
'[1][1]: 3 != 4'
>>> difference(1, True)
'1 (int) != True (bool)'
>>> print(difference({'a': [1.0]}, {'a': [1.0]}))
None
"""
from __future__ import annotations

import math
from typing import Any, List, Optional, Set, Tuple

import numpy as np

import runtime as rt

_MISSING = object()
_ATOMS = frozenset({int, bool, str, bytes, complex, type(None)})


def to_python(value: Any) -> Any:
    """``value`` with every tensor replaced by its value as nested Python lists/numbers (and numpy scalars by
    Python numbers), keeping tuples, lists and dicts, so results compare with ``==``."""
    if isinstance(value, rt.Tensor):
        return value.numpy().tolist()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        items = [to_python(item) for item in value]
        return type(value)(items) if type(value) in (tuple, list) else tuple(items)
    if isinstance(value, dict):
        return {key: to_python(item) for key, item in value.items()}
    return value


def leaves(value: Any) -> List[Any]:
    """The leaves of nested tuples, lists and dicts (dict values in order), depth first.

    >>> leaves((1, [2, {'a': 3}]))
    [1, 2, 3]
    """
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    return [value]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + '...'


def _defines_eq(kind: type) -> bool:
    return any('__eq__' in vars(klass) for klass in kind.__mro__[:-1])


def _state(value: Any) -> Optional[dict]:
    """The attributes of an object of a user class without its own ``__eq__`` (``__dict__`` and slots)."""
    state = dict(vars(value)) if hasattr(value, '__dict__') else {}
    for klass in type(value).__mro__:
        for slot in getattr(klass, '__slots__', ()):
            if slot not in ('__dict__', '__weakref__'):
                state[slot] = getattr(value, slot, _MISSING)
    return state


def difference(a: Any, b: Any, path: str = '', _seen: Optional[Set[Tuple[int, int]]] = None) -> Optional[str]:
    """Where ``a`` and ``b`` differ, or None when they are the same: same types, same structure, equal
    leaves (NaN equals NaN, arrays and tensors compare dtype, shape and every element). Objects of classes
    without their own ``__eq__`` compare their attributes, so deep copies of one object are the same."""
    kind = type(a)
    if kind is type(b) and kind in _ATOMS:   # the common case first: no state, no recursion
        return None if a == b else f'{path}: {a!r} != {b!r}' if path else f'{a!r} != {b!r}'
    seen = set() if _seen is None else _seen
    where = f'{path}: ' if path else ''
    if kind is not type(b):
        return f'{where}{_short(a)} ({type(a).__name__}) != {_short(b)} ({type(b).__name__})'
    if (id(a), id(b)) in seen:
        return None
    if isinstance(a, (rt.Tensor, np.ndarray)):
        left, right = np.asarray(a), np.asarray(b)
        if left.dtype != right.dtype or left.shape != right.shape:
            return (f'{where}{left.dtype.name}{list(left.shape)} != {right.dtype.name}{list(right.shape)} '
                    f'({_short(a)} != {_short(b)})')
        same = np.array_equal(left, right, equal_nan=left.dtype.kind in 'fc')
        return None if same else f'{where}{_short(a)} != {_short(b)}'
    if isinstance(a, float):
        return None if a == b or (math.isnan(a) and math.isnan(b)) else f'{where}{a!r} != {b!r}'
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f'{where}{len(a)} items != {len(b)} items ({_short(a)} != {_short(b)})'
        seen.add((id(a), id(b)))
        for index, (left, right) in enumerate(zip(a, b)):
            found = difference(left, right, f'{path}[{index}]', seen)
            if found:
                return found
        return None
    if isinstance(a, dict):
        if list(a) != list(b):
            return f'{where}keys {list(a)!r} != {list(b)!r}'
        seen.add((id(a), id(b)))
        for key in a:
            found = difference(a[key], b[key], f'{path}[{key!r}]', seen)
            if found:
                return found
        return None
    if isinstance(a, (set, frozenset)):
        return None if a == b else f'{where}{_short(a)} != {_short(b)}'
    if isinstance(a, BaseException):
        same = str(a) == str(b)
        return None if same else f'{where}{type(a).__name__}({str(a)!r}) != {type(b).__name__}({str(b)!r})'
    if _defines_eq(type(a)) or not (hasattr(a, '__dict__') or hasattr(type(a), '__slots__')) \
            or callable(a) or isinstance(a, type):
        try:
            equal = a is b or bool(a == b)
        except Exception as error:  # an __eq__ that does not give a truth value
            return f'{where}cannot compare {_short(a)} with {_short(b)}: {error}'
        return None if equal else f'{where}{_short(a)} != {_short(b)}'
    seen.add((id(a), id(b)))
    left, right = _state(a), _state(b)
    if list(left) != list(right):
        return f'{where}attributes {sorted(left)} != {sorted(right)} ({_short(a)} != {_short(b)})'
    for name in left:
        found = difference(left[name], right[name], f'{path}.{name}', seen)
        if found:
            return found
    return None


def close_difference(a: Any, b: Any, rtol: float, atol: float, path: str = '') -> Optional[str]:
    """Like ``difference``, but tensors, arrays and floats need only be close (``|a - b| <= atol + rtol * |b|``);
    a tensor and a tensor compare dtypes and shapes exactly."""
    where = f'{path}: ' if path else ''
    if isinstance(a, (rt.Tensor, np.ndarray, float, np.floating)) and isinstance(b, (rt.Tensor, np.ndarray, float,
                                                                                      np.floating)):
        left, right = np.asarray(a), np.asarray(b)
        if left.dtype != right.dtype or left.shape != right.shape:
            return (f'{where}{left.dtype.name}{list(left.shape)} != {right.dtype.name}{list(right.shape)} '
                    f'({_short(a)} != {_short(b)})')
        if left.dtype.kind in 'fc':
            ok = np.isclose(left, right, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                worst = np.unravel_index(np.argmax(np.where(ok, 0, np.abs(left - right))), left.shape)
                at = f' (first of {int((~ok).sum())} at index {tuple(int(i) for i in worst)}: ' \
                     f'{left[worst]!r} vs {right[worst]!r})' if left.ndim else ''
                return f'{where}{_short(a)} != {_short(b)} beyond rtol={rtol}, atol={atol}{at}'
            return None
        return None if np.array_equal(left, right) else f'{where}{_short(a)} != {_short(b)}'
    if isinstance(a, (tuple, list)) and type(a) is type(b):
        if len(a) != len(b):
            return f'{where}{len(a)} items != {len(b)} items'
        for index, (left, right) in enumerate(zip(a, b)):
            found = close_difference(left, right, rtol, atol, f'{path}[{index}]')
            if found:
                return found
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f'{where}keys {list(a)!r} != {list(b)!r}'
        for key in a:
            found = close_difference(a[key], b[key], rtol, atol, f'{path}[{key!r}]')
            if found:
                return found
        return None
    return difference(a, b, path)
