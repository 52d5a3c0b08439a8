"""Base class of the converters: a gast transformer that keeps origins and names unique.

Statement lists go through ``visit_block`` (which flattens statements replaced by several), new
nodes inherit the origin of the node they replace, and functions marked ``SKIP`` (nested generators,
classes) are left exactly as written.
"""
from typing import Dict, List, Set, Tuple

import gast

from autograph_lite.pyct import anno, nodes, templates
from autograph_lite.pyct.rewritten_code import add_source_names

SKIP = 'skip_conversion'
_AST = gast.AST
# Nodes no converter rewrites and that have no children worth visiting.
_LEAVES = frozenset([gast.Name, gast.Constant, gast.Load, gast.Store, gast.Del, gast.Pass,
                     gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
                     gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE, gast.Is, gast.IsNot,
                     gast.In, gast.NotIn, gast.And, gast.Or, gast.USub, gast.UAdd, gast.Invert,
                     gast.Global, gast.Nonlocal])
_BLOCK_FIELDS = ('body', 'orelse', 'finalbody')
_BLOCK_FIELDS_OF: Dict[type, Tuple[str, ...]] = {}


def _block_fields(cls) -> Tuple[str, ...]:
    fields = _BLOCK_FIELDS_OF.get(cls)
    if fields is None:
        fields = _BLOCK_FIELDS_OF[cls] = tuple(f for f in _BLOCK_FIELDS if f in cls._fields)
    return fields


class Context:
    """What all converters of one conversion share: the entity's names and a name generator."""

    def __init__(self, node, filename: str):
        self.filename = filename
        self.always_live: Set[str] = set()  # generated names to treat as read at any time
        self.roles: Dict[str, str] = {}     # generated state variable -> its role (the converters' contract)
        self._next_suffix: Dict[str, int] = {}
        self.used_names: Set[str] = set()
        # The node classes of the user's code: a converter of a construct that does not occur, and
        # that no converter writes, has nothing to do (conversion.py skips its walk).
        self.node_kinds: Set[type] = set()
        self.attribute_names: Set[str] = set()   # every ``.attr`` the user's code reads or writes
        self.loop_has_else = False
        self.function_defs = 0   # ``def``s, the converted function's own included
        # Set by converters/unbound_reads.mark: whether some read needs a check (until then: assume so).
        self.unbound_reads_marked = True
        self.chained_comparison = False   # ``a < b < c``
        # Set by a converter that writes ``not flag`` (guards, loop tests): the logical converter has work.
        self.negations_written = False
        self.source_names: Set[str] = set()   # every name the code spells (rewritten_code's test)
        kinds, leaves = self.node_kinds, nodes.CONTEXTS_AND_OPERATORS
        fields_of, node_fields = nodes.FIELDS, nodes.node_fields
        stack = [node]
        while stack:   # (in no particular order: it collects sets and counts)
            child = stack.pop()
            cls = child.__class__
            kinds.add(cls)
            if cls in leaves:
                continue   # no names, no children
            add_source_names(child, self.source_names)
            if cls is gast.Name:
                self.used_names.add(child.id)
            elif cls is gast.Attribute:
                self.attribute_names.add(child.attr)
            elif cls is gast.FunctionDef:
                self.used_names.add(child.name)
                self.function_defs += 1
            elif (cls is gast.For or cls is gast.While or cls is gast.AsyncFor) and child.orelse:
                self.loop_has_else = True
            elif cls is gast.Compare and len(child.ops) > 1:
                self.chained_comparison = True
            attributes = child.__dict__
            for field in fields_of.get(cls) or node_fields(cls):   # nodes.children, inlined
                value = attributes.get(field)
                if value.__class__ is list:
                    stack.extend(item for item in value if isinstance(item, _AST))
                elif isinstance(value, _AST):
                    stack.append(value)

    def new_name(self, base: str) -> str:
        """``base`` if unused, else ``base_1``, ``base_2``... (``break_1`` for ``break_``)."""
        name, n = base, self._next_suffix.get(base, 0)
        if n:
            name = f'{base}{n}' if base.endswith('_') else f'{base}_{n}'
        while name in self.used_names:
            n += 1
            name = f'{base}{n}' if base.endswith('_') else f'{base}_{n}'
        self._next_suffix[base] = n + 1
        self.used_names.add(name)
        return name


# Expression contexts and operators: no converter replaces one (so none passes an origin on) and
# none has a line of its own; they get no origin.
_WITHOUT_ORIGIN = nodes.CONTEXTS_AND_OPERATORS


def propagate_origin(new, origin) -> None:
    """Give ``new`` (a node or list of nodes) and the nodes under it that have none the origin ``origin``."""
    stack = list(new) if isinstance(new, list) else [new]
    key, field, fields_of, located_fields = anno.ORIGIN, anno.FIELD, nodes.LOCATED_FIELDS, nodes.located_fields
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls in _WITHOUT_ORIGIN or not isinstance(node, _AST):
            continue   # (also None and the non-node items of lists, which are pushed unchecked)
        attributes = node.__dict__
        annotations = attributes.get(field)
        if annotations is None:
            attributes[field] = {key: origin}   # anno.setanno, inlined: this loop sees every new node
        elif key in annotations:
            continue
        else:
            annotations[key] = origin
        # nodes.children, inlined (the order does not matter here), without contexts and operators
        for name in fields_of.get(cls) or located_fields(cls):
            value = attributes.get(name)
            if value.__class__ is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)


def contains(nodes, kinds, stop_at=(), children=nodes.children) -> bool:
    """True if a node of type ``kinds`` occurs in ``nodes``, not looking inside ``stop_at`` nodes;
    ``children(node)`` says where to look below a node (all its children by default)."""
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, stop_at) or anno.hasanno(node, SKIP):
            continue
        stack.extend(children(node))
    return False


# Where statements are: the blocks of compound statements, of except handlers and of match cases.
_STATEMENT_FIELDS = ('body', 'orelse', 'finalbody', 'handlers', 'cases')


def contains_statement(nodes, kinds, stop_at=()) -> bool:
    """``contains`` for statement kinds (``return``, ``break``...): the same answer, looking only into
    blocks of statements, since no expression holds one (a lambda's body is an expression)."""
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, stop_at) or anno.hasanno(node, SKIP):
            continue
        attributes = node.__dict__
        for field in _STATEMENT_FIELDS:
            value = attributes.get(field)
            if value.__class__ is list:
                stack.extend(value)
    return False


def binds_by_walrus(nodes) -> bool:
    """True if evaluating ``nodes`` can bind a name of the enclosing function with ``:=`` (also from
    inside a comprehension, as Python does; a lambda's walrus binds the lambda's own name).

    Converters that defer an operand into a lambda (``ag__.and_(lambda: a, lambda: b)``) leave
    such an expression as Python: inside the lambda the walrus would bind the lambda's local.
    """
    return contains(nodes, gast.NamedExpr, stop_at=(gast.Lambda,))


def walrus_guard(value, construct: str, bound_by) -> 'gast.expr':
    """``ag__.walrus_guard(value, construct, names)``: ``value`` decides a ``construct`` left as Python
    because ``bound_by`` (nodes) assign those names with ``:=``; a symbolic tensor there is a clear error."""
    names = sorted({n.target.id for n in _walk_outside_lambdas(bound_by)
                    if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name)})
    return templates.replace_as_expression('ag__.walrus_guard(value, construct, names)', value=value,
                                           construct=templates.literal(construct),
                                           names=templates.literal(tuple(names)))


def _walk_outside_lambdas(roots):
    stack = list(roots)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, gast.Lambda):
            stack.extend(nodes.children(node))


class Transformer(gast.NodeTransformer):
    """Converter base: ``visit_block`` for statement lists, origin propagation, skipped nodes.

    Converters of statements set ``statements_only``: they then never walk into expressions.
    """

    statements_only = False

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit(self, node):
        cls = node.__class__
        if cls in _LEAVES:
            return node
        annotations = node.__dict__.get(anno.FIELD)   # anno.hasanno, inlined: every node passes here
        if annotations and SKIP in annotations:
            return node
        # The visitor method of each node class, looked up once per converter class.
        methods = type(self).__dict__.get('_methods')
        if methods is None:
            methods = {}
            setattr(type(self), '_methods', methods)
        method = methods.get(cls)
        if method is None:
            method = methods[cls] = getattr(type(self), 'visit_' + cls.__name__, type(self).generic_visit)
        result = method(self, node)
        if result is not node and result is not None:
            annotations = node.__dict__.get(anno.FIELD)
            if annotations and anno.ORIGIN in annotations:
                propagate_origin(result, annotations[anno.ORIGIN])
        return result

    def visit_block(self, statements: List[gast.stmt]) -> List[gast.stmt]:
        out: List[gast.stmt] = []
        for statement in statements:
            result = self.visit(statement)
            if result is None:
                continue
            if result.__class__ is list:
                out.extend(result)
            else:
                out.append(result)
        return out

    def generic_visit(self, node):
        attributes = node.__dict__
        for field in _block_fields(node.__class__):
            value = attributes.get(field)
            if value.__class__ is list:
                attributes[field] = self.visit_block(value)
        if self.statements_only:
            for handler in attributes.get('handlers', ()):
                handler.body = self.visit_block(handler.body)
            return node
        for field in node._fields:
            value = attributes.get(field)
            if value.__class__ is list:
                if field in _BLOCK_FIELDS:
                    continue   # visited above, as a block
                new_values = []
                for item in value:
                    if not isinstance(item, _AST):
                        new_values.append(item)  # e.g. the None key of `{**d}`
                        continue
                    result = self.visit(item)
                    if result is None:
                        continue
                    if result.__class__ is list:
                        new_values.extend(result)
                    else:
                        new_values.append(result)
                value[:] = new_values
            elif isinstance(value, _AST):
                attributes[field] = self.visit(value)
        return node
