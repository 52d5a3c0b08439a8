"""Calls -> ``ag__.converted_call(f, args, kwargs)`` so user functions get converted when called.

    f(a, *b, k=v, **kw)  ->  ag__.converted_call(f, (a, *b), {'k': v, **kw})
    g(x)                 ->  ag__.converted_call(g, (x,), None)

Calls to ``ag__`` itself and ``super()`` stay as they are, and so do calls in lambdas' defaults.
"""
import gast

from autograph_lite.pyct import templates
from autograph_lite.pyct.transformer import Transformer


def _is_exempt(func) -> bool:
    if isinstance(func, gast.Name):
        return func.id == 'super'
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id == 'ag__'


class CallTreeTransformer(Transformer):

    def visit_Lambda(self, node):
        node.body = self.visit(node.body)   # defaults are evaluated at definition: left alone
        return node

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if _is_exempt(node.func):
            return node
        args = templates.replace_as_expression('(args,)', args=node.args)
        if node.keywords:
            keys = [templates.literal(k.arg) if k.arg is not None else None for k in node.keywords]
            kwargs = templates.replace_as_expression('{keys: values}', keys=keys,
                                                     values=[k.value for k in node.keywords])
        else:
            kwargs = templates.literal(None)
        return templates.replace_as_expression('ag__.converted_call(func, args, kwargs)',
                                               func=node.func, args=args, kwargs=kwargs)
