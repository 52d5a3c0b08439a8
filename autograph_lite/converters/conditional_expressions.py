"""``a if c else b`` -> ``ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b')``.

Unless ``a`` or ``b`` binds a name with ``:=``: inside the lambda it would bind the lambda's own
name, so the expression stays Python's (exact on Python values); its condition goes through
``ag__.walrus_guard``, so a symbolic one raises OperatorNotAllowedInGraphError naming the walrus and the fix.

``name = a if c else b`` where the function changes ``name`` in place (``name.append(v)``) also passes
``name`` (``ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b', 'name')``): a tensor ``c`` may then not
pick one of two lists, dicts or sets, since the graph would merge them into a new one (a StateError).

The text argument is the expression as the user wrote it (errors about a staged one quote it), recorded
by ``record_user_text`` before the other converters rewrite its parts (calls, slices...).
"""
import gast

from autograph_lite.converters.containers import picked_name
from autograph_lite.converters.unpacking import unpacked_value
from autograph_lite.pyct import anno, codegen, nodes, templates
from autograph_lite.pyct.transformer import Transformer, binds_by_walrus, walrus_guard


def record_user_text(tree) -> None:
    """Annotate every conditional expression of ``tree`` with its text, while it is still the user's."""
    for node in nodes.walk(tree):
        if isinstance(node, gast.IfExp):
            anno.setanno(node, anno.USER_TEXT, codegen.unparse_expression(node))


class ConditionalExpressionTransformer(Transformer):

    def visit_Assign(self, node):
        """``buf = a if c else b`` where the function changes ``buf`` in place (``buf.append(v)``; converters/
        containers marked it): the if_exp gets the name, so a tensor ``c`` may not pick one of two lists (it would
        merge them into a new one, which the change would reach instead)."""
        picked = picked_name(node)
        if picked is None:
            return self.generic_visit(node)
        # `buf, n = (a, 1) if c else (b, 2)` reaches here as `(buf, n) = ag__.unpack(... if ... else ...)`.
        value = node.value
        expression = unpacked_value(value)
        converted = self.visit_IfExp(expression, picked)
        if expression is not value:
            value.args[0] = converted
        else:
            node.value = converted
        return node

    def visit_IfExp(self, node, picked=None):
        source = anno.getanno(node, anno.USER_TEXT, None) or codegen.unparse_expression(node)
        node = self.generic_visit(node)
        if binds_by_walrus([node.body, node.orelse]):
            node.test = walrus_guard(node.test, 'if_exp', [node.body, node.orelse])   # stays Python's
            return node
        if picked is not None:
            return templates.replace_as_expression(
                'ag__.if_exp(test, lambda: body, lambda: orelse, source, picked)', test=node.test, body=node.body,
                orelse=node.orelse, source=templates.literal(source), picked=templates.literal(picked))
        return templates.replace_as_expression(
            'ag__.if_exp(test, lambda: body, lambda: orelse, source)',
            test=node.test, body=node.body, orelse=node.orelse, source=templates.literal(source))
