"""``a if c else b`` -> ``ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b')``.

Unless ``a`` or ``b`` binds a name with ``:=``: inside the lambda it would bind the lambda's own
name, so the expression stays Python's (exact on Python values; a symbolic condition then needs
bool(), which raises OperatorNotAllowedInGraphError).
"""
from autograph_lite.pyct import codegen, templates
from autograph_lite.pyct.transformer import Transformer, binds_by_walrus


class ConditionalExpressionTransformer(Transformer):

    def visit_IfExp(self, node):
        source = codegen.unparse_expression(node)
        node = self.generic_visit(node)
        if binds_by_walrus([node.body, node.orelse]):
            return node
        return templates.replace_as_expression(
            'ag__.if_exp(test, lambda: body, lambda: orelse, source)',
            test=node.test, body=node.body, orelse=node.orelse, source=templates.literal(source))
