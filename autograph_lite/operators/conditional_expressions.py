"""``a if cond else b`` for converted code: Python's conditional expression, or an ``rt.cond``.

>>> if_exp(1, lambda: 'yes', lambda: 'no', "'yes' if 1 else 'no'")
'yes'
"""
from __future__ import annotations

from typing import Any, Callable

import runtime as rt
from autograph_lite.operators.logical import PYTHON_CONDITIONS, as_condition, truth_value
from autograph_lite.operators.staged_exceptions import traced
from autograph_lite.operators.containers.checks import check_expression_picked
from runtime.core.tensor import SymbolicTensor

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import isinstance, len, str, type


def if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any], expr_repr: str = "",
           picked: str = "") -> Any:
    """``if_true() if cond else if_false()``; with a symbolic ``cond`` both sides are traced as the
    branches of an ``rt.cond`` and must give the same dtype and structure.

    ``picked``: the name the expression is assigned to, when the function then changes it in place
    (``buf = a if c else b; buf.append(v)``): a symbolic ``cond`` may then not pick between two different
    lists, dicts or sets (containers/checks.py).

    >>> if_exp([], lambda: 1 / 0, lambda: 'lazy')
    'lazy'
    """
    if type(cond) in PYTHON_CONDITIONS:
        return if_true() if cond else if_false()
    cond = as_condition(cond)  # a tensor list: len(cond) > 0
    if isinstance(cond, SymbolicTensor):
        name = f"the value of `{expr_repr}`" if expr_repr else "the conditional expression"
        where = f"value of `{expr_repr}`" if expr_repr else "conditional expression"
        sides = {}

        def side(which: bool, function: Callable[[], Any]) -> Any:
            sides[which] = value = traced(function, f"{where} (its {str(which).lower()} side)")
            if picked and len(sides) == 2:   # before rt.cond compares them: its error would not say why
                check_expression_picked(picked, sides[True], sides[False], expr_repr)
            return value

        return rt.cond(truth_value(cond), lambda: side(True, if_true), lambda: side(False, if_false),
                       output_names=(name,))
    return if_true() if cond else if_false()
