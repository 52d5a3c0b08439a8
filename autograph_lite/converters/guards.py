"""Shared by the break, continue and return converters: find jumps, guard what follows one.

``if c: break`` followed by ``x = 1`` becomes ``if c: break_ = True`` followed by
``if not break_: x = 1`` - the rest of the block runs only if the flag was not set.
"""
from typing import Callable, List

import gast

from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import SKIP

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_LOOPS = (gast.While, gast.For, gast.AsyncFor)


def jumps_out(nodes, kind) -> bool:
    """True if ``nodes`` hold a ``break``/``continue`` (``kind``) that belongs to the loop around them.

    A jump in a nested loop's body belongs to that loop; one in a nested loop's ``else:`` clause
    belongs to ours (the ``else`` runs after the nested loop, in our body).
    """
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, _SCOPES) or anno.hasanno(node, SKIP):
            continue
        if isinstance(node, _LOOPS):
            stack.extend(node.orelse)
            continue
        stack.extend(gast.iter_child_nodes(node))
    return False


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
            guard = templates.replace('if not flag:\n    rest', flag=flag, rest=guarded)
            anno.setanno(guard[0], anno.GUARD_FLAG, flag)
            out.extend(guard)
            break
    return out
