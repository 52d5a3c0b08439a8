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
from autograph_lite.converters.guards import guard_rest, jumps_out
from autograph_lite.pyct import templates
from autograph_lite.pyct.transformer import Transformer


class ContinueTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flag = None

    def visit_Continue(self, node):
        return templates.replace('flag = True', flag=self.flag)

    def visit_FunctionDef(self, node):
        saved, self.flag = self.flag, None
        node = self.generic_visit(node)
        self.flag = saved
        return node

    def _loop(self, node):
        node.orelse = self.visit_block(node.orelse)
        saved = self.flag
        if jumps_out(node.body, gast.Continue):
            self.flag = self.ctx.new_name(contract.CONTINUE_FLAG_NAME)
            self.ctx.roles[self.flag] = contract.CONTINUE_FLAG
            node.body = templates.replace('flag = False', flag=self.flag) + self.visit_block(node.body)
        else:
            self.flag = None
            node.body = self.visit_block(node.body)
        self.flag = saved
        return node

    visit_While = _loop
    visit_For = _loop

    def visit_block(self, statements):
        if self.flag is None:
            return super().visit_block(statements)
        return guard_rest(self, statements, lambda s: jumps_out(s, gast.Continue), self.flag)
