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
from typing import Any, Callable, Dict, List

import gast

from autograph_lite.pyct.nodes import node_fields
from autograph_lite.pyct.parser import parse_str


_new = gast.AST.__new__   # _new(cls): a node without fields (a context, an operator)


def _node(cls, attributes: dict):
    """A node of class ``cls`` with ``attributes``: what ``cls(**attributes)`` makes, without gast's
    constructor (a Python loop per call; converters make some 150 nodes per conversion)."""
    new = _new(cls)
    new.__dict__ = attributes
    return new


def _as_name(value: str, ctx) -> gast.Name:
    return _node(gast.Name, {'id': value, 'ctx': _new(ctx.__class__), 'annotation': None, 'type_comment': None})


def _with_ctx(node, ctx):
    if node is None:
        return None
    if isinstance(node, str):
        return _as_name(node, ctx)
    if hasattr(node, 'ctx') and not isinstance(ctx, gast.Param):
        node.ctx = _new(ctx.__class__)
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


# --- Compiled templates ----------------------------------------------------------------------------
#
# ``_substituted`` walks the parsed template generically at every use: per node a class check, a
# field lookup, a dict copy and a call per field. A template used again is compiled instead into a
# builder: a Python function that builds the same copy with one dict display per node, e.g. for
# ``retval_ = value`` with placeholders ``retval_`` and ``value``:
#
#     def build(r):
#         return [_node(K[0], {'targets': [*_many(r['retval_'], K[1])],
#                              'value': _one(r['value'], K[2]), 'type_comment': None, 'lineno': 1, ...})]
#
# (``K`` holds the node classes, the placeholders' own contexts and other non-literal constants). It
# makes exactly what ``_substituted`` makes, dict order included (tests/pyct/test_pyct_templates.py checks
# both on every template the converters use); the first use of a template goes through
# ``_substituted``, so that a template used once (a user's name in ``expression``) costs no compile.


def _one(value, ctx):
    """A placeholder in a field that holds one node: what ``_substituted`` makes of the Name there."""
    if isinstance(value, (list, tuple)):
        return [_with_ctx(item, ctx) for item in value]
    return _with_ctx(value, ctx)


def _many(value, ctx):
    """A placeholder that is an element of a list: the elements it stands for."""
    if isinstance(value, (list, tuple)):
        return [_with_ctx(item, ctx) for item in value]
    value = _with_ctx(value, ctx)
    return () if value is None else (value,)


def _statements(value, as_expression):
    """A placeholder standing alone as a statement: the statements it stands for (else its Expr)."""
    if isinstance(value, gast.stmt):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, gast.stmt) for v in value):
        return value
    return (as_expression(),)


def _without_none(node, fields):
    """Leave out the optional fields whose placeholder was replaced by None (as ``_substituted`` does)."""
    attributes = node.__dict__
    for field in fields:
        if attributes[field] is None:
            del attributes[field]
    return node


def _compiled(statements: List[gast.stmt], placeholders) -> Callable[[Dict[str, Any]], list]:
    """The builder of template ``statements`` for replacements named ``placeholders`` (see above)."""
    constants: List[Any] = []

    def constant(value) -> str:
        constants.append(value)
        return f'K[{len(constants) - 1}]'

    def scalar(value) -> str:
        return repr(value) if value is None or value.__class__ in (bool, int, str) else constant(value)

    def is_placeholder(node) -> bool:
        return node.__class__ is gast.Name and node.id in placeholders

    def item(node) -> str:   # an element of a list: an expression, or ``*`` an iterable to splice
        if not isinstance(node, gast.AST):
            return scalar(node)
        if is_placeholder(node):
            return f'*_many(r[{node.id!r}], {constant(node.ctx)})'
        if node.__class__ is gast.Expr and is_placeholder(node.value):
            return f'*_statements(r[{node.value.id!r}], lambda: {copy(node)})'
        return copy(node)

    def copy(node) -> str:   # a node that is not itself a placeholder
        cls = node.__class__
        if not node.__dict__:
            return f'_new({constant(cls)})'   # a context or operator: no fields, no location
        fields = node_fields(cls)
        entries, optional = [], []
        for key, value in node.__dict__.items():
            if key in fields and value.__class__ is list:
                code = '[' + ', '.join(item(v) for v in value) + ']'
            elif key in fields and isinstance(value, gast.AST):
                if is_placeholder(value):
                    code = f'_one(r[{value.id!r}], {constant(value.ctx)})'
                    optional.append(key)
                else:
                    code = copy(value)
            elif key == 'names' and (cls is gast.Nonlocal or cls is gast.Global):
                code = f'_names({constant(value)}, r)'
            elif (key == 'name' and cls is gast.FunctionDef or key == 'arg' and cls is gast.keyword) \
                    and value in placeholders:
                code = f'r[{value!r}]'
            else:
                code = scalar(value)
            entries.append(f'{key!r}: {code}')
        code = f'_node({constant(cls)}, {{{", ".join(entries)}}})'
        return f'_without_none({code}, {tuple(optional)!r})' if optional else code

    source = 'def build(r):\n    return [' + ', '.join(item(s) for s in statements) + ']\n'
    namespace = {'K': constants, '_node': _node, '_new': gast.AST.__new__, '_one': _one, '_many': _many,
                 '_statements': _statements,
                 '_without_none': _without_none, '_names': _names}
    exec(compile(source, '<autograph_lite template builder>', 'exec'), namespace)
    return namespace['build']


_parsed: Dict[str, gast.Module] = {}
# (template, placeholder names) -> its builder, or the number of uses so far (compiled at the second)
_builders: Dict[tuple, Any] = {}


def replace(template: str, **replacements: Any) -> List[gast.stmt]:
    """Parse ``template`` and substitute ``replacements``; returns the list of statements."""
    key = (template, tuple(replacements))
    builder = _builders.get(key, 0)
    if builder.__class__ is not int:
        return builder(replacements)
    module = _parsed.get(template)
    if module is None:
        module = _parsed[template] = parse_str(template)
    if builder == 0:
        _builders[key] = 1
        return _substituted_list(module.body, replacements)
    builder = _builders[key] = _compiled(module.body, frozenset(replacements))
    return builder(replacements)


def replace_as_expression(template: str, **replacements: Any) -> gast.expr:
    """Like ``replace`` for a template that is a single expression; returns the expression node."""
    statements = replace(template, **replacements)
    if len(statements) != 1 or not isinstance(statements[0], gast.Expr):
        raise ValueError(f'template is not a single expression: {template!r}')
    return statements[0].value


def literal(value: Any) -> gast.expr:
    """The expression node of a Python literal (str, number, tuple of them, None, bool)."""
    if isinstance(value, tuple):
        return _node(gast.Tuple, {'elts': [literal(item) for item in value], 'ctx': _new(gast.Load)})
    return _node(gast.Constant, {'value': value, 'kind': None})


def expression(source: str) -> gast.expr:
    """A fresh node of an expression given as text, e.g. a state symbol ``'self.x'``."""
    return replace_as_expression(source)
