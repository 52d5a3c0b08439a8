"""Shared by the break, continue and return converters: guard what follows a possible jump.

``if c: break`` followed by ``x = 1`` becomes ``if c: break_ = True`` followed by
``if not break_: x = 1`` - the rest of the block runs only if the flag was not set.
"""
from typing import Callable, List

import gast

from autograph_lite.pyct import templates


def guard_rest(transformer, statements: List[gast.stmt], may_jump: Callable[[gast.stmt], bool],
               flag: str) -> List[gast.stmt]:
    """Visit ``statements``; after the first one that may jump, nest the rest under ``if not flag``."""
    out: List[gast.stmt] = []
    for i, statement in enumerate(statements):
        jumps = may_jump(statement)
        result = transformer.visit(statement)
        out.extend(result if isinstance(result, list) else [result])
        rest = statements[i + 1:]
        if jumps and rest:
            guarded = guard_rest(transformer, rest, may_jump, flag)
            out.extend(templates.replace('if not flag:\n    rest', flag=flag, rest=guarded))
            break
    return out
