"""gast -> standard library ``ast``, for the unparser: one direct walk, no visitor dispatch.

Produces the same tree as ``gast.gast_to_ast`` (arguments become ``ast.arg``, an except handler's
name a plain string) without its per-node ``NodeTransformer`` machinery, which was the single
largest cost of unparsing. Of the source locations only statements' line numbers are kept: the
unparser reads no others.

>>> node = from_gast(gast.parse('def f(a):\\n    return a'))
>>> ast.unparse(node)
'def f(a):\\n    return a'
"""
import ast
from typing import Callable, Dict, Optional

import gast

_MISSING = object()
_CLASSES: Dict[type, Optional[type]] = {}   # gast class -> ast class of the same name (None: none)


def _ast_class(gast_class: type) -> Optional[type]:
    try:
        return _CLASSES[gast_class]
    except KeyError:
        _CLASSES[gast_class] = found = getattr(ast, gast_class.__name__, None)
        return found


def _plan(gast_class: type):
    """How to convert a node of ``gast_class``: (ast class or None, its fields, is it a statement)."""
    plan = _PLANS.get(gast_class)
    if plan is None:
        plan = _PLANS[gast_class] = (_ast_class(gast_class), tuple(gast_class._fields),
                                     issubclass(gast_class, gast.stmt))
    return plan


_PLANS: Dict[type, tuple] = {}
_OPERATORS = ('Add', 'Sub', 'Mult', 'MatMult', 'Div', 'Mod', 'Pow', 'LShift', 'RShift', 'BitOr', 'BitXor', 'BitAnd',
              'FloorDiv', 'And', 'Or', 'Invert', 'Not', 'UAdd', 'USub', 'Eq', 'NotEq', 'Lt', 'LtE', 'Gt', 'GtE',
              'Is', 'IsNot', 'In', 'NotIn')
_LEAF_VALUES = frozenset([str, int, float, bool, type(None), complex, bytes, type(...)])


def from_gast(node, on_statement: Optional[Callable[[gast.stmt, ast.stmt], None]] = None):
    """The ``ast`` tree of gast ``node`` (a node, a list of nodes or a plain value).

    ``on_statement(gast_statement, ast_statement)`` is called for every statement converted.
    """
    contexts = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}
    # Contexts and operators carry no data: one shared instance each (as ast.parse shares them).
    shared = dict(contexts)
    for name in _OPERATORS:
        shared[getattr(gast, name)] = getattr(ast, name)()
    name_class, arguments_class = gast.Name, gast.arguments
    handler_class, assign_class = gast.ExceptHandler, gast.Assign
    ast_name = ast.Name

    def arg(name):
        if name is None:
            return None
        return ast.arg(arg=name.id, annotation=convert(name.annotation), type_comment=name.type_comment)

    def convert(value):
        cls = value.__class__
        if cls is list:
            return [convert(item) for item in value]
        if cls in _LEAF_VALUES:
            return value
        if cls is name_class:
            new = ast_name.__new__(ast_name)   # (no __init__, as for the other classes below)
            new.id = value.id
            new.ctx = contexts.get(value.ctx.__class__) or convert(value.ctx)
            return new
        if not isinstance(value, gast.AST):
            return value
        if cls is arguments_class:
            return ast.arguments(posonlyargs=[arg(a) for a in value.posonlyargs],
                                 args=[arg(a) for a in value.args], vararg=arg(value.vararg),
                                 kwonlyargs=[arg(a) for a in value.kwonlyargs],
                                 kw_defaults=convert(value.kw_defaults), kwarg=arg(value.kwarg),
                                 defaults=convert(value.defaults))
        target, fields, is_statement = _PLANS.get(cls) or _plan(cls)
        if target is None:
            return None
        # Made without __init__: 3.13's warns of each required field not given there (an error from
        # 3.15), and the fields are set just below; an optional field left out reads as the class's None.
        new = target.__new__(target)
        attributes = value.__dict__
        new_attributes = new.__dict__   # an ast node keeps its fields in its __dict__, as gast's do
        for field in fields:
            item = attributes.get(field, _MISSING)
            if item is _MISSING:
                continue
            item_class = item.__class__
            if item_class in _LEAF_VALUES:
                new_attributes[field] = item
            elif item_class in shared:
                new_attributes[field] = shared[item_class]
            else:
                new_attributes[field] = convert(item)
        if cls is handler_class and value.name is not None:
            new.name = value.name.id
        elif cls is assign_class:
            new.type_comment = None
        if is_statement:
            new.lineno = attributes.get('lineno', 0)   # the unparser looks up type comments by line
            if on_statement is not None:
                on_statement(value, new)
        return new

    return convert(node)


_GAST_CLASSES: Dict[type, Optional[type]] = {}   # ast class -> gast class of the same name
_WITH_TYPE_PARAMS = frozenset([ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef])   # gast's field, from 3.12 ast's


def _gast_class(ast_class: type) -> Optional[type]:
    try:
        return _GAST_CLASSES[ast_class]
    except KeyError:
        _GAST_CLASSES[ast_class] = found = getattr(gast, ast_class.__name__, None)
        return found


def to_gast(node):
    """The gast tree of stdlib ``node``: the same tree as ``gast.ast_to_gast``, locations included.

    >>> gast.dump(to_gast(ast.parse('f(a)')).body[0].value.func)
    "Name(id='f', ctx=Load(), annotation=None, type_comment=None)"
    """
    def located(new, old):
        attributes, new_attributes = old.__dict__, new.__dict__   # (both keep their fields there)
        for attribute in old._attributes:
            if attribute in attributes:
                new_attributes[attribute] = attributes[attribute]
        return new

    def convert(value):
        if isinstance(value, list):
            return [convert(item) for item in value]
        if not isinstance(value, ast.AST):
            return value
        cls = value.__class__
        if cls is ast.Name:
            return located(gast.Name(value.id, convert(value.ctx), None, None), value)
        if cls is ast.arg:
            return located(gast.Name(value.arg, gast.Param(), convert(value.annotation), value.type_comment),
                           value)
        target = _gast_class(cls)
        if target is None:
            return None
        new = target.__new__(target)
        fields = new.__dict__
        for field in cls._fields:
            item = getattr(value, field, _MISSING)
            if item is not _MISSING:
                fields[field] = convert(item)
        if cls is ast.ExceptHandler and value.name:
            new.name = gast.Name(value.name, gast.Store(), None, None)
        elif cls in _WITH_TYPE_PARAMS and 'type_params' not in fields:
            new.type_params = []   # (before 3.12 the stdlib's nodes have no type parameters: gast's have none)
        return located(new, value)

    return convert(node)
