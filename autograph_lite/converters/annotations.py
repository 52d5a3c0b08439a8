"""Annotated assignments in a function become plain assignments (Python never evaluates them there).

    def f(x):                        def f(x):
        if x > 0:                        w: int
            y: int = x * 2      ->       if x > 0:
            z: int                           y = x * 2
            z = 1                            pass
            w: int                           z = 1
                                             pass

Python does not evaluate the annotation of a local variable, so dropping it changes nothing; but a
name the control flow converter shares between generated functions is declared ``nonlocal``
there, and an annotated name cannot be (packaging's ``marker: MarkerAtom = ...`` in a branch gave
"SyntaxError: annotated name 'marker' can't be nonlocal"). A bare annotation only makes a name
local, which another assignment to it does too; a name that is only annotated keeps that effect
from the top of its function.
"""
import gast

from autograph_lite.pyct import nodes, templates
from autograph_lite.pyct.transformer import Transformer
from autograph_lite.pyct.nodes import NESTED_SCOPES



def _assigned_names(function) -> set:
    """The names ``function``'s own scope stores, bare annotations aside."""
    names = set()
    stack = nodes.children(function)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.AnnAssign) and node.value is None:
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names.add(node.id)
        if not isinstance(node, NESTED_SCOPES):
            stack.extend(nodes.children(node))
    return names


def _docstring(body) -> list:
    first = body[0] if body else None
    is_docstring = (isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant)
                    and isinstance(first.value.value, str))
    return [first] if is_docstring else []


class AnnotationTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self._assigned, self._hoisted = set(), []   # of the function being visited

    def visit_FunctionDef(self, node):
        if gast.AnnAssign not in self.ctx.node_kinds:
            return node   # no annotated assignment anywhere in the user's code: nothing to do
        outer = self._assigned, self._hoisted
        self._assigned, self._hoisted = _assigned_names(node), []
        node = self.generic_visit(node)
        if self._hoisted:
            docstring = _docstring(node.body)
            node.body = docstring + self._hoisted + node.body[len(docstring):]
        self._assigned, self._hoisted = outer
        return node

    def visit_AnnAssign(self, node):
        if node.value is not None:
            return templates.replace('target = value', target=node.target, value=node.value)
        if not isinstance(node.target, gast.Name):
            return node   # `obj.attr: T` evaluates obj: it stays where it is
        name = node.target.id
        if name not in self._assigned and all(h.target.id != name for h in self._hoisted):
            self._hoisted.append(node)
        return templates.replace('pass')
