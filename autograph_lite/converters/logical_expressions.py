"""``a and b``, ``a or b``, ``not a`` -> ``ag__.and_``/``or_`` (lazy operands) and ``ag__.not_``.

    a and b or not c  ->  ag__.or_(lambda: ag__.and_(lambda: a, lambda: b), lambda: ag__.not_(c))

Comparisons stay Python operators (tensors overload them).
"""
import gast

from autograph_lite.pyct import templates
from autograph_lite.pyct.transformer import Transformer


class LogicalExpressionTransformer(Transformer):

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        operands = [templates.replace_as_expression('lambda: value', value=v) for v in node.values]
        template = 'ag__.and_(operands)' if isinstance(node.op, gast.And) else 'ag__.or_(operands)'
        return templates.replace_as_expression(template, operands=operands)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_as_expression('ag__.not_(operand)', operand=node.operand)
