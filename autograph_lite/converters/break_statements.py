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
from autograph_lite.converters.guards import guard_rest, jumps_out
from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import Transformer


class BreakTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flag = None  # flag of the innermost loop being converted

    def visit_Break(self, node):
        return templates.replace('flag = True', flag=self.flag)

    def visit_FunctionDef(self, node):
        saved, self.flag = self.flag, None
        node = self.generic_visit(node)
        self.flag = saved
        return node

    def _loop(self, node):
        has_break = jumps_out(node.body, gast.Break)
        orelse = self.visit_block(node.orelse)   # a break in the else belongs to the outer loop
        node.orelse = []
        if not has_break:
            saved, self.flag = self.flag, None
            node.body = self.visit_block(node.body)
            self.flag = saved
            return [node] + orelse
        saved, self.flag = self.flag, self.ctx.new_name(contract.BREAK_FLAG_NAME)
        self.ctx.roles[self.flag] = contract.BREAK_FLAG
        flag = self.flag
        node.body = self._guarded(node.body)
        self.flag = saved
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

    def _guarded(self, statements):
        return guard_rest(self, statements, lambda s: jumps_out(s, gast.Break), self.flag)

    def visit_block(self, statements):
        if self.flag is None:
            return super().visit_block(statements)
        return self._guarded(statements)
