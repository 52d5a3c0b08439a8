"""Templates: build code from a Python code string whose placeholder names are substituted.

This is the only way converters produce new code, so what they emit reads like the code itself.

>>> node = replace('target = ag__.not_(value)', target='x', value=gast.Name('y', gast.Load(), None, None))
>>> unparse(node)
'x = ag__.not_(y)'

A replacement may be: a ``str`` (a name; also renames defs, arguments, keywords and entries of
``nonlocal``/``global``), an expression node, a statement node or a list of statements (where the
placeholder stands alone as a statement), or a list of names/expressions (spliced where the
placeholder is an element of a tuple, list, call arguments or a ``nonlocal`` list).
"""
from typing import Any, Dict, List

import gast

from autograph_lite.pyct.parser import parse_str


def _as_name(value: str, ctx) -> gast.Name:
    return gast.Name(id=value, ctx=ctx.__class__(), annotation=None, type_comment=None)


def _with_ctx(node, ctx):
    if node is None:
        return None
    if isinstance(node, str):
        return _as_name(node, ctx)
    if hasattr(node, 'ctx') and not isinstance(ctx, gast.Param):
        node.ctx = ctx.__class__()
        if isinstance(node, (gast.Tuple, gast.List)):
            for elt in node.elts:
                _with_ctx(elt, ctx)
    return node


class _Substitution(gast.NodeTransformer):

    def __init__(self, replacements: Dict[str, Any]):
        self.replacements = replacements

    def _names(self, names):
        out = []
        for name in names:
            value = self.replacements.get(name, name)
            out.extend(value if isinstance(value, (list, tuple)) else [value])
        return out

    def visit_Name(self, node):
        if node.id not in self.replacements:
            return node
        value = self.replacements[node.id]
        if isinstance(value, (list, tuple)):
            return [_with_ctx(item, node.ctx) for item in value]
        return _with_ctx(value, node.ctx)

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, gast.stmt):
                return value
            if isinstance(value, (list, tuple)) and all(isinstance(v, gast.stmt) for v in value):
                return list(value)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        node.name = self.replacements.get(node.name, node.name)
        return self.generic_visit(node)

    def visit_Nonlocal(self, node):
        node.names = self._names(node.names)
        return node

    visit_Global = visit_Nonlocal

    def visit_keyword(self, node):
        if node.arg in self.replacements:
            node.arg = self.replacements[node.arg]
        return self.generic_visit(node)


_parsed: Dict[str, gast.Module] = {}


def _clone(value):
    """A fresh copy of a parsed template (much faster than parsing again or copy.deepcopy)."""
    if isinstance(value, list):
        return [_clone(item) for item in value]
    if isinstance(value, gast.AST):
        new = value.__class__.__new__(value.__class__)
        new.__dict__.update({key: _clone(item) for key, item in value.__dict__.items()})
        return new
    return value


def replace(template: str, **replacements: Any) -> List[gast.stmt]:
    """Parse ``template`` and substitute ``replacements``; returns the list of statements."""
    module = _parsed.get(template)
    if module is None:
        module = _parsed[template] = parse_str(template)
    return _Substitution(replacements).visit(_clone(module)).body


def replace_as_expression(template: str, **replacements: Any) -> gast.expr:
    """Like ``replace`` for a template that is a single expression; returns the expression node."""
    statements = replace(template, **replacements)
    if len(statements) != 1 or not isinstance(statements[0], gast.Expr):
        raise ValueError(f'template is not a single expression: {template!r}')
    return statements[0].value


def literal(value: Any) -> gast.expr:
    """The expression node of a Python literal (str, number, tuple of them, None, bool)."""
    if isinstance(value, tuple):
        return gast.Tuple(elts=[literal(item) for item in value], ctx=gast.Load())
    return gast.Constant(value=value, kind=None)


def expression(source: str) -> gast.expr:
    """The node of an expression given as text, e.g. a state symbol ``'self.x'`` (not cached)."""
    return parse_str(source).body[0].value
