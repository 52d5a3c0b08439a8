"""``a if c else b`` -> ``ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b')``.

Unless ``a`` or ``b`` binds a name with ``:=``: inside the lambda it would bind the lambda's own
name, so the expression stays Python's (exact on Python values); its condition goes through
``ag__.walrus_guard``, so a symbolic one raises OperatorNotAllowedInGraphError naming the walrus and the fix.

The last argument is the expression as the user wrote it (errors about a staged one quote it), recorded
by ``record_user_text`` before the other converters rewrite its parts (calls, slices...).
"""
import gast

from autograph_lite.pyct import anno, codegen, nodes, templates
from autograph_lite.pyct.transformer import Transformer, binds_by_walrus, walrus_guard


def record_user_text(tree) -> None:
    """Annotate every conditional expression of ``tree`` with its text, while it is still the user's."""
    for node in nodes.walk(tree):
        if isinstance(node, gast.IfExp):
            anno.setanno(node, anno.USER_TEXT, codegen.unparse_expression(node))


class ConditionalExpressionTransformer(Transformer):

    def visit_IfExp(self, node):
        source = anno.getanno(node, anno.USER_TEXT, None) or codegen.unparse_expression(node)
        node = self.generic_visit(node)
        if binds_by_walrus([node.body, node.orelse]):
            node.test = walrus_guard(node.test, 'if_exp', [node.body, node.orelse])   # stays Python's
            return node
        return templates.replace_as_expression(
            'ag__.if_exp(test, lambda: body, lambda: orelse, source)',
            test=node.test, body=node.body, orelse=node.orelse, source=templates.literal(source))
