"""continue -> a flag reset at the start of each iteration that guards the rest of the body.

    for x in xs:                 for x in xs:
        if x < 0:                    continue_ = False
            continue       ->        if x < 0:
        total += x                       continue_ = True
                                     if not continue_:
                                         total += x
"""
import gast

from autograph_lite import contract
from autograph_lite.converters.guards import LoopJumpTransformer
from autograph_lite.pyct import templates


class ContinueTransformer(LoopJumpTransformer):

    jump = gast.Continue
    flag_name, flag_role = contract.CONTINUE_FLAG_NAME, contract.CONTINUE_FLAG

    def visit_Continue(self, node):
        return self._convert_jump(node)

    def _loop(self, node):
        node.orelse = self.visit_block(node.orelse)
        flag = self._new_flag_if_jumps(node)
        node.body = self._visit_body(node, flag)
        if flag is not None:
            node.body = templates.replace('flag = False', flag=flag) + node.body
        return node

    visit_While = _loop
    visit_For = _loop
