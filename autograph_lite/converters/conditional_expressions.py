"""``a if c else b`` -> ``ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b')``."""
from autograph_lite.pyct import codegen, templates
from autograph_lite.pyct.transformer import Transformer


class ConditionalExpressionTransformer(Transformer):

    def visit_IfExp(self, node):
        source = codegen.unparse_expression(node)
        node = self.generic_visit(node)
        return templates.replace_as_expression(
            'ag__.if_exp(test, lambda: body, lambda: orelse, source)',
            test=node.test, body=node.body, orelse=node.orelse, source=templates.literal(source))
