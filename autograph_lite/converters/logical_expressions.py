"""``a and b``, ``a or b``, ``not a`` -> ``ag__.and_``/``or_`` (lazy operands) and ``ag__.not_``.

    a and b or not c  ->  ag__.or_(lambda: ag__.and_(lambda: a, lambda: b), lambda: ag__.not_(c))

Comparisons stay Python operators (tensors overload them), except that a chain whose inner operands
are names or constants becomes the ``and`` Python defines it as, so a tensor link does not need bool():

    0 < x < n  ->  ag__.and_(lambda: 0 < x, lambda: x < n)

An expression whose deferred operand binds a name with ``:=`` stays Python's own (a lambda would
bind the name in its own scope): exact on Python values; each operand Python takes the truth of goes
through ``ag__.walrus_guard``, so a symbolic tensor there raises OperatorNotAllowedInGraphError naming
the walrus and the fix (assign it before, in a statement):

    a and (n := f())  ->  ag__.walrus_guard(a, 'and', ('n',)) and (n := f())

Membership is ``ag__.in_`` / ``ag__.not_in`` (a bool tensor for a symbolic container; Python's ``in``
would need to iterate it):

    x in t  ->  ag__.in_(x, t)
"""
import copy

import gast

from autograph_lite.pyct import templates
from autograph_lite.pyct.transformer import Transformer, binds_by_walrus, walrus_guard


_COMPARISON_SYMBOLS = {gast.Lt: '<', gast.LtE: '<=', gast.Gt: '>', gast.GtE: '>=', gast.Eq: '==',
                       gast.NotEq: '!=', gast.In: 'in', gast.NotIn: 'not in', gast.Is: 'is', gast.IsNot: 'is not'}


class LogicalExpressionTransformer(Transformer):

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn)):
            template = 'ag__.in_(value, container)' if isinstance(node.ops[0], gast.In) else \
                'ag__.not_in(value, container)'
            return templates.replace_as_expression(template, value=node.left, container=node.comparators[0])
        inner = node.comparators[:-1]
        # Inner operands are evaluated twice below, so only names and constants (no side effects) qualify.
        if not inner or not all(isinstance(operand, (gast.Name, gast.Constant)) for operand in inner) \
                or binds_by_walrus(node.comparators):
            return node
        operands = [node.left] + node.comparators
        links = [templates.replace_as_expression(f'lambda: left {_COMPARISON_SYMBOLS[type(op)]} right',
                                                 left=copy.deepcopy(left), right=right)
                 for op, left, right in zip(node.ops, operands, operands[1:])]
        return templates.replace_as_expression('ag__.and_(links)', links=links)

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        if binds_by_walrus(node.values):
            # `a and (n := f())`: a lambda would bind its own n, so Python's `and` stays, which needs
            # bool() of each operand but the last: a symbolic one is an error that names n.
            construct = 'and' if isinstance(node.op, gast.And) else 'or'
            node.values[:-1] = [walrus_guard(value, construct, node.values) for value in node.values[:-1]]
            return node
        operands = [templates.replace_as_expression('lambda: value', value=v) for v in node.values]
        template = 'ag__.and_(operands)' if isinstance(node.op, gast.And) else 'ag__.or_(operands)'
        return templates.replace_as_expression(template, operands=operands)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_as_expression('ag__.not_(operand)', operand=node.operand)
