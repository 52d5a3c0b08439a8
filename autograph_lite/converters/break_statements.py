"""break -> a flag: set instead of jumping, part of the loop condition, guards what follows.

    while c:                     break_ = False
        if d:                    while not break_ and c:
            break        ->          if d:
        x += 1                           break_ = True
    else:                            if not break_:
        e()                              x += 1
                                 if not break_:
                                     e()

A loop's ``else`` moves after the loop (guarded by the flag when the loop has a ``break``).
For ``for`` loops the flag becomes the loop's extra test (checked before each iteration).
"""
import gast

from autograph_lite import contract
from autograph_lite.converters.guards import LoopJumpTransformer
from autograph_lite.pyct import anno, templates


class BreakTransformer(LoopJumpTransformer):

    jump = gast.Break
    flag_name, flag_role = contract.BREAK_FLAG_NAME, contract.BREAK_FLAG

    def visit_Break(self, node):
        return self._convert_jump(node)

    def _loop(self, node):
        orelse = self.visit_block(node.orelse)   # a break in the else belongs to the outer loop
        node.orelse = []
        flag = self._new_flag_if_jumps(node)
        node.body = self._visit_body(node, flag)
        if flag is None:
            return [node] + orelse
        self.ctx.negations_written = True   # the logical converter has work
        if isinstance(node, gast.While):
            if isinstance(node.test, gast.Constant) and node.test.value is True:
                node.test = templates.replace_as_expression('not flag', flag=flag)
            else:
                node.test = templates.replace_as_expression('not flag and test', flag=flag, test=node.test)
        else:
            extra = templates.replace_as_expression('not flag', flag=flag)
            anno.setanno(node, anno.EXTRA_LOOP_TEST, extra)
        before = templates.replace('flag = False', flag=flag)
        after = templates.replace('if not flag:\n    orelse', flag=flag, orelse=orelse) if orelse else []
        return before + [node] + after

    visit_While = _loop
    visit_For = _loop
