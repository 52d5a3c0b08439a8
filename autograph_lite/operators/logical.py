"""``and``, ``or`` and ``not`` for converted code: Python semantics on Python values, lazy logical ops on
symbolic tensors.

Operands arrive as no-argument functions so the right side is evaluated only when needed, exactly as
Python's short-circuiting does.  With a symbolic left side the right side is traced inside one branch
of an ``rt.cond``, so any ops it creates run only when the left side does not decide the result.

>>> and_(lambda: 0, lambda: 1 / 0)
0
>>> or_(lambda: [], lambda: 'x')
'x'

Every condition of converted code (``if``, ``while``, ``a if c else b``, ``and``/``or``/``not``, ``assert``)
first goes through ``as_condition``: a tensor list or TensorArray (a Python list that a tensor loop
changed) is true when it is not empty, as a Python list is, so it stands for the tensor ``len(xs) > 0``.
"""
from __future__ import annotations

from typing import Any, Callable

import runtime as rt
from autograph_lite.operators.staged_exceptions import traced
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import any, bool, dict, float, int, isinstance, list, set, str, tuple, type

Operand = Callable[[], Any]
_TENSOR_LISTS = (rt.TensorList, rt.TensorArray)
# Types whose truth is Python's own and never staged: a condition of one of them skips every check
# (the common case while tracing Python-unrolled code, and of the staged form on Python values).
PYTHON_CONDITIONS = frozenset([bool, int, float, str, type(None), list, tuple, dict, set])


def as_condition(value: Any) -> Any:
    """What a condition tests: ``len(value) > 0`` (a bool tensor) for a tensor list or TensorArray, as
    Python's truthiness of a list; a Variable's value (``if flag:`` on a bool Variable is an ``rt.cond`` when
    traced, as TensorFlow's); any other value unchanged.

    >>> as_condition([])
    []
    >>> as_condition(rt.TensorList.from_tensors([1, 2]))
    Tensor(True, shape=(), dtype=bool)
    """
    if type(value) in PYTHON_CONDITIONS:
        return value
    if isinstance(value, rt.TensorList):
        return rt.greater(value.length(), 0)
    if isinstance(value, rt.TensorArray):
        return rt.greater(value.size(), 0)
    if isinstance(value, rt.Variable):
        return value.read_value()
    return value


def and_(left: Operand, right: Operand, *more: Operand) -> Any:
    """``a and b and ...``: the first falsy operand, else the last one (tensors: logical_and).

    >>> and_(lambda: 1, lambda: 'b')
    'b'
    """
    operand = left()
    if type(operand) in PYTHON_CONDITIONS:
        if not operand:
            return operand
        return right() if not more else and_(right, *more)
    value = as_condition(operand)
    if isinstance(value, SymbolicTensor):
        return rt.cond(truth_value(value), lambda: _as_bool(traced(_chain, _RIGHT_OF_AND, and_, right, more)),
                       lambda: False)
    if not value:
        return operand
    return right() if not more else and_(right, *more)


def or_(left: Operand, right: Operand, *more: Operand) -> Any:
    """``a or b or ...``: the first truthy operand, else the last one (tensors: logical_or).

    >>> or_(lambda: 0, lambda: '', lambda: None) is None
    True
    """
    operand = left()
    if type(operand) in PYTHON_CONDITIONS:
        if operand:
            return operand
        return right() if not more else or_(right, *more)
    value = as_condition(operand)
    if isinstance(value, SymbolicTensor):
        return rt.cond(truth_value(value), lambda: True,
                       lambda: _as_bool(traced(_chain, _RIGHT_OF_OR, or_, right, more)))
    if value:
        return operand
    return right() if not more else or_(right, *more)


_RIGHT_OF_AND = "right side of an `and` whose left side is a symbolic tensor"
_RIGHT_OF_OR = "right side of an `or` whose left side is a symbolic tensor"


def _chain(operator: Callable[..., Any], right: Operand, more: tuple) -> Any:
    return operator(right, *more) if more else right()


def not_(value: Any) -> Any:
    """``not value``: a Python bool, or ``rt.logical_not`` of a symbolic tensor.

    >>> not_([])
    True
    """
    if type(value) in PYTHON_CONDITIONS:
        return not value
    value = as_condition(value)
    if isinstance(value, SymbolicTensor):
        return rt.logical_not(truth_value(value))
    return not value


def truth_value(tensor: Any) -> Any:
    """Python's truthiness of a one-element tensor, as a scalar bool tensor (``t != 0`` for numbers).

    A tensor with more than one element has no truth value, as in numpy: that is the user's error.
    """
    shape = tensor.shape
    if shape:  # rank >= 1
        if any(dim != 1 for dim in shape):
            raise ValueError(
                f"The truth value of a tensor with shape {tuple(shape)} is ambiguous: a condition must "
                "have one element. Reduce it first, e.g. rt.reduce_any(t) or rt.reduce_all(t)")
        tensor = rt.reshape(tensor, ())
    if tensor.dtype == rt.bool:
        return tensor
    return rt.not_equal(tensor, rt.zeros((), tensor.dtype))


def _as_bool(value: Any) -> Any:
    """A branch result of a staged and/or: a bool tensor, or a Python value made a bool."""
    value = as_condition(value)
    if isinstance(value, rt.Tensor):
        return truth_value(value)
    return bool(value)


_GUARDED = {'and': ('`and`', 'decide on'), 'or': ('`or`', 'decide on'),
            'if_exp': ('`a if c else b`', 'decide on'), 'comprehension': ('comprehension', 'iterate over'),
            'comparison': ('comparison chain', 'decide on')}


def and_then(value: Any, rest: Operand) -> Any:
    """``value and rest()``, for a comparison chain whose first link converted code evaluates in place
    (``0 < (y := f(x)) < n`` -> ``and_then(0 < (y := f(x)), lambda: y < n)``; a walrus there binds the
    function's name).

    >>> and_then(1 < 2, lambda: 2 < 0), and_then([], lambda: 1 / 0)
    (False, [])
    """
    return and_(lambda: value, rest)


def walrus_guard(value: Any, construct: str, names: tuple) -> Any:
    """``value``, whose truth (or items) Python's own ``construct`` ('and', 'or', 'if_exp', 'comprehension',
    'comparison')
    decides on: the converter left it as Python because it assigns ``names`` with ``:=`` (a lambda would
    bind them in its own scope). On a symbolic tensor, which Python cannot decide on while tracing, this
    names the walrus and the fix.

    >>> walrus_guard(3, 'and', ('n',))
    3
    """
    if isinstance(value, SymbolicTensor) or (isinstance(value, _TENSOR_LISTS) and isinstance(
            as_condition(value), SymbolicTensor)):
        shown, action = _GUARDED[construct]
        quoted = ", ".join(f"'{name}'" for name in names)
        first = names[0]
        raise rt.errors.OperatorNotAllowedInGraphError(
            f"this {shown} assigns {quoted} with :=, so it stays Python's own {shown}, which cannot {action} a "
            f"symbolic tensor ({getattr(value, 'name', type(value).__name__)}) while tracing. " + (
                "Write it without := (repeat the expression, or use a `for` loop that appends): it then "
                "becomes a graph loop" if construct == 'comprehension' else
                f"Assign {first} in a statement before it (`{first} = ...`) and use {first} in the {shown}: "
                "it then becomes a graph operation"))
    return value
