"""Templates: build code from a Python code string whose placeholder names are substituted.

This is the only way converters produce new code, so what they emit reads like the code itself.

>>> import gast
>>> from autograph_lite.pyct.codegen import unparse
>>> node = replace('target = ag__.not_(value)', target='x', value=gast.Name('y', gast.Load(), None, None))
>>> unparse(node)[0]
'x = ag__.not_(y)\\n'

A replacement may be: a ``str`` (a name; also renames defs, arguments, keywords and entries of
``nonlocal``/``global``), an expression node, a statement node or a list of statements (where the
placeholder stands alone as a statement), or a list of names/expressions (spliced where the
placeholder is an element of a tuple, list, call arguments or a ``nonlocal`` list).
"""
from typing import Any, Dict, List

import gast

from autograph_lite.pyct.nodes import node_fields
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


def _names(names, replacements: Dict[str, Any]) -> List[str]:
    out = []
    for name in names:
        value = replacements.get(name, name)
        out.extend(value if isinstance(value, (list, tuple)) else [value])
    return out


def _substituted_list(items: list, replacements: Dict[str, Any]) -> list:
    out = []
    for item in items:
        if isinstance(item, gast.AST):
            item = _substituted(item, replacements)
            if item is None:
                continue
            if isinstance(item, list):
                out.extend(item)   # a placeholder that stood for several elements or statements
                continue
        out.append(item)
    return out


def _substituted(node: gast.AST, replacements: Dict[str, Any]):
    """A copy of template ``node`` with its placeholders replaced: a node, a list to splice, or None.

    One walk that copies and substitutes at once (the parsed template itself is never modified);
    the replacement values are inserted as they are, not copied or visited.
    """
    cls = node.__class__
    if cls is gast.Name and node.id in replacements:
        value = replacements[node.id]
        if isinstance(value, (list, tuple)):
            return [_with_ctx(item, node.ctx) for item in value]
        return _with_ctx(value, node.ctx)
    if cls is gast.Expr and isinstance(node.value, gast.Name) and node.value.id in replacements:
        value = replacements[node.value.id]
        if isinstance(value, gast.stmt):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, gast.stmt) for v in value):
            return list(value)
    new = cls.__new__(cls)
    attributes = new.__dict__
    source = node.__dict__
    attributes.update(source)   # names, constants, locations; the fields holding nodes are redone:
    for key in node_fields(cls):
        value = source.get(key)
        if value.__class__ is list:
            attributes[key] = _substituted_list(value, replacements)
        elif isinstance(value, gast.AST):
            value = _substituted(value, replacements)
            if value is None:
                del attributes[key]   # a placeholder replaced by None: the (optional) field is left out
            else:
                attributes[key] = value
    if cls is gast.FunctionDef:
        new.name = replacements.get(new.name, new.name)
    elif cls is gast.Nonlocal or cls is gast.Global:
        new.names = _names(new.names, replacements)
    elif cls is gast.keyword and new.arg in replacements:
        new.arg = replacements[new.arg]
    return new


_parsed: Dict[str, gast.Module] = {}


def replace(template: str, **replacements: Any) -> List[gast.stmt]:
    """Parse ``template`` and substitute ``replacements``; returns the list of statements."""
    module = _parsed.get(template)
    if module is None:
        module = _parsed[template] = parse_str(template)
    return _substituted_list(module.body, replacements)


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
    """A fresh node of an expression given as text, e.g. a state symbol ``'self.x'``."""
    return replace_as_expression(source)
