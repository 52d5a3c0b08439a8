"""assert -> ``ag__.assert_stmt(test, lambda: msg)`` (a graph assert when ``test`` is a tensor).

    assert x > 0, 'x must be positive'  ->  ag__.assert_stmt(x > 0, lambda: 'x must be positive')
"""
from autograph_lite.pyct import templates
from autograph_lite.pyct.transformer import Transformer


class AssertTransformer(Transformer):

    statements_only = True

    def visit_Assert(self, node):
        node = self.generic_visit(node)
        message = node.msg if node.msg is not None else templates.literal(None)
        return templates.replace('ag__.assert_stmt(test, lambda: message)', test=node.test, message=message)
