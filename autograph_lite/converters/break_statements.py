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

A ``while`` whose test assigns with ``:=`` and whose body may ``break`` or ``return`` first moves its test
into the body, where a walrus in an ``if`` test works on tensors (the flag that stops it is not a
``break``, so the ``else`` still runs when the test is false)::

    while (n := f(n)) > 0:           tested_false = False
        ...                  ->      while not tested_false:
                                         if (n := f(n)) > 0:
                                             ...
                                         else:
                                             tested_false = True

(Without ``break``/``return`` the operator evaluates such a test at the end of each staged iteration.)
"""
import gast

from autograph_lite import contract
from autograph_lite.converters.guards import LoopJumpTransformer, jumps_out
from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import binds_by_walrus, contains, propagate_origin
from autograph_lite.pyct.nodes import NESTED_SCOPES



class BreakTransformer(LoopJumpTransformer):

    jump = gast.Break
    flag_name, flag_role = contract.BREAK_FLAG_NAME, contract.BREAK_FLAG

    def visit_Break(self, node):
        return self._convert_jump(node)

    def _loop(self, node):
        if isinstance(node, gast.While) and binds_by_walrus([node.test]) and (
                jumps_out(node.body, gast.Break) or contains(node.body, gast.Return, stop_at=NESTED_SCOPES)):
            return self._test_moved_into_body(node)
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

    def _test_moved_into_body(self, node):
        flag = self.ctx.new_name(contract.TEST_FLAG_NAME)
        self.ctx.roles[flag] = contract.BREAK_FLAG
        self.ctx.negations_written = True   # `while not flag:`: the logical converter has work
        origin = anno.getanno(node.test, anno.ORIGIN, None) or anno.getanno(node, anno.ORIGIN, None)
        statements = templates.replace('flag = False\nwhile not flag:\n    if test:\n        body\n    else:\n'
                                       '        flag = True', flag=flag, test=node.test, body=node.body)
        statements[1].orelse = node.orelse
        if origin is not None:
            propagate_origin(statements, origin)
        return statements[:1] + self._loop(statements[1])

    visit_While = _loop
    visit_For = _loop
