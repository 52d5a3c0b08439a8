"""``a and b``, ``a or b``, ``not a`` -> ``ag__.and_``/``or_`` (lazy operands) and ``ag__.not_``.

    a and b or not c  ->  ag__.or_(lambda: ag__.and_(lambda: a, lambda: b), lambda: ag__.not_(c))

Comparisons stay Python operators (tensors overload them), except that a chain becomes the ``and``
Python defines it as, so a tensor link does not need bool(). When its inner operands are names or
constants (and nothing binds with ``:=``), every link is deferred:

    0 < x < n  ->  ag__.and_(lambda: 0 < x, lambda: x < n)

Otherwise each inner operand is evaluated once, where Python evaluates it, into a name the next link
reads (its own for a walrus): the first link is evaluated in place, so a walrus in its operands binds
the function's name, and the rest is deferred (nested, so each link sees the names bound before it):

    0 < (y := f(x)) < n    ->  ag__.and_then(0 < (y := f(x)), lambda: y < n)
    lo <= g(x) < h(x) < n  ->  ag__.and_then(lo <= (compared := g(x)), lambda: ag__.and_then(
                                   compared < (compared_1 := h(x)), lambda: compared_1 < n))

A walrus in a later operand would bind inside a lambda: that chain becomes Python's own ``and`` of its
links (each inner operand still evaluated once), whose truth values go through ``ag__.walrus_guard``, so a
symbolic tensor there is an error naming the walrus and the fix:

    a < f(x) < (y := g(x))
        ->  ag__.walrus_guard(a < (compared := f(x)), 'comparison', ('y',)) and compared < (y := g(x))

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

    def __init__(self, ctx):
        super().__init__(ctx)
        self.in_comprehension = 0   # a walrus in a comprehension's iterable is a SyntaxError

    def _comprehension(self, node):
        self.in_comprehension += 1
        try:
            return self.generic_visit(node)
        finally:
            self.in_comprehension -= 1

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn)):
            template = 'ag__.in_(value, container)' if isinstance(node.ops[0], gast.In) else \
                'ag__.not_in(value, container)'
            return templates.replace_as_expression(template, value=node.left, container=node.comparators[0])
        inner = node.comparators[:-1]
        if not inner:
            return node
        if all(isinstance(operand, (gast.Name, gast.Constant)) for operand in inner) \
                and not binds_by_walrus([node.left] + node.comparators):
            # Names and constants have no side effects: evaluated again by the next link.
            operands = [node.left] + node.comparators
            links = [templates.replace_as_expression(f'lambda: left {_COMPARISON_SYMBOLS[type(op)]} right',
                                                     left=copy.deepcopy(left), right=right)
                     for op, left, right in zip(node.ops, operands, operands[1:])]
            return templates.replace_as_expression('ag__.and_(links)', links=links)
        if self.in_comprehension:
            return node   # stays Python's (a walrus in a comprehension's iterable is a SyntaxError)
        links = list(zip(node.ops, node.comparators))
        if binds_by_walrus(node.comparators[1:]):
            return self._python_chain(node, node.left, links)
        return self._chain(node.left, links)

    def _chain(self, left, links):
        """``left op1 x1 op2 x2 ...`` with ``x1`` evaluated once, into a name the rest reads."""
        (op, right), rest = links[0], links[1:]
        if not rest:
            return gast.Compare(left=left, ops=[op], comparators=[right])
        first, reuse = self._link(left, op, right)
        return templates.replace_as_expression('ag__.and_then(first, lambda: rest)', first=first,
                                               rest=self._chain(reuse, rest))

    def _python_chain(self, node, left, links):
        """Python's ``and`` of the links, each but the last guarded (see the module docstring)."""
        values = []
        for op, right in links[:-1]:
            first, left = self._link(left, op, right)
            values.append(walrus_guard(first, 'comparison', [node]))
        op, right = links[-1]
        values.append(gast.Compare(left=left, ops=[op], comparators=[right]))
        return gast.BoolOp(op=gast.And(), values=values)

    def _link(self, left, op, right):
        """The comparison ``left op right``, and how the next link reads ``right`` without evaluating it again."""
        if isinstance(right, (gast.Name, gast.Constant)):
            value, reuse = right, copy.deepcopy(right)
        elif isinstance(right, gast.NamedExpr):
            value, reuse = right, templates.expression(right.target.id)
        else:
            name = self.ctx.new_name('compared')
            value = templates.replace_as_expression('(name := value)', name=name, value=right)
            reuse = templates.expression(name)
        return gast.Compare(left=left, ops=[op], comparators=[value]), reuse

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
