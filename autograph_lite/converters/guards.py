"""Shared by the break, continue and return converters: find jumps, guard what follows one.

``if c: break`` followed by ``x = 1`` becomes ``if c: break_ = True`` followed by
``if not break_: x = 1`` - the rest of the block runs only if the flag was not set.
"""
from typing import Callable, List, Optional

import gast

from autograph_lite.pyct import anno, nodes, templates
from autograph_lite.pyct.transformer import Transformer, contains
from autograph_lite.pyct.nodes import NESTED_SCOPES

_LOOPS = (gast.While, gast.For, gast.AsyncFor)


def jumps_out(nodes, kind) -> bool:
    """True if ``nodes`` hold a ``break``/``continue`` (``kind``) that belongs to the loop around them.

    A jump in a nested loop's body belongs to that loop; one in a nested loop's ``else:`` clause
    belongs to ours (the ``else`` runs after the nested loop, in our body).
    """
    return contains(nodes, kind, stop_at=NESTED_SCOPES, children=_own_jump_targets)


def _own_jump_targets(node):
    """Where a jump may still belong to the loop being converted: not a nested loop's body."""
    return node.orelse if isinstance(node, _LOOPS) else nodes.children(node)


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
            transformer.ctx.negations_written = True   # the logical converter has work
            anno.setanno(guard[0], anno.GUARD_FLAG, flag)
            if anno.hasanno(rest[0], anno.ORIGIN):  # errors of the guard point at the code it guards
                anno.setanno(guard[0], anno.ORIGIN, anno.getanno(rest[0], anno.ORIGIN))
            out.extend(guard)
            break
    return out


class LoopJumpTransformer(Transformer):
    """Shared by the break and continue converters: inside a loop whose body has a ``jump`` of its own,
    the jump becomes ``flag = True`` and the statements after it are nested under ``if not flag:``.

    A subclass says which jump (``jump``), how its flag is named (``flag_name``, ``flag_role``), and what
    the loop around the converted body becomes (``visit_While``/``visit_For``, with ``_visit_body``).
    A nested function has loops of its own.
    """

    statements_only = True
    jump: type = gast.stmt
    flag_name: str = ''
    flag_role: str = ''

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flag = None  # flag of the innermost loop being converted; None where the jump is not converted

    def visit_FunctionDef(self, node):
        saved, self.flag = self.flag, None
        node = self.generic_visit(node)
        self.flag = saved
        return node

    def _convert_jump(self, node):
        return templates.replace('flag = True', flag=self.flag)

    def _new_flag_if_jumps(self, loop) -> Optional[str]:
        """A new flag for ``loop`` if its body holds a jump of its own, else None."""
        if not jumps_out(loop.body, self.jump):
            return None
        flag = self.ctx.new_name(self.flag_name)
        self.ctx.roles[flag] = self.flag_role
        return flag

    def _visit_body(self, loop, flag: Optional[str]) -> List[gast.stmt]:
        """``loop``'s body, converted with ``flag`` (None: the jumps in it belong to no loop of ours)."""
        saved, self.flag = self.flag, flag
        body = self.visit_block(loop.body)
        self.flag = saved
        return body

    def visit_block(self, statements):
        if self.flag is None:
            return super().visit_block(statements)
        return guard_rest(self, statements, lambda s: jumps_out(s, self.jump), self.flag)
