"""``del x`` of a local -> ``x = ag__.deleted(x, 'x')``; every read of that ``x`` -> ``ag__.defined(x)``.

The end of an ``except E as e:`` clause deletes ``e`` too (Python adds ``finally: del e``): when the
function reads ``e`` after the clause, the clause catches into a fresh name, copies it to ``e`` and ends
with ``e = ag__.Undefined('e')`` in a ``finally``.

    def f(b):                      def f(b):
        a = 1                          a = 1
        del a            ->            a = ag__.deleted(a, 'a')
        return a and b                 return ag__.and_(lambda: ag__.defined(a), lambda: b)

Converted code reads variables from generated functions (branch and loop bodies, the lambdas of
``and``/``or``), where an emptied local is an empty closure cell: reading one raises NameError ("cannot
access free variable"), not the UnboundLocalError the original raises. So a deleted local holds an
``Undefined`` instead (as in TensorFlow's AutoGraph), and reading it raises exactly what the original
raises there: UnboundLocalError in the function itself, NameError in a function nested in it (where
Python reads it as a free variable). Only names some ``del`` removes are touched, and this runs first,
while every function and lambda in the tree is the user's own.
"""
import sys
from typing import Dict, List, Optional, Set, Tuple

import gast

from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import Transformer, propagate_origin

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_SCOPES = _FUNCTIONS + _COMPREHENSIONS + (gast.ClassDef,)
# Since Python 3.12 list/set/dict comprehensions run inline in their function (PEP 709): a name they read
# is read as the function's local. Generator expressions stay functions.
_INLINED = (gast.ListComp, gast.SetComp, gast.DictComp) if sys.version_info >= (3, 12) else ()


class _Scope:
    def __init__(self, node, parent: Optional['_Scope']):
        self.node, self.parent = node, parent
        self.bound: Set[str] = set()
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()


def _arguments(node) -> List[str]:
    arguments = node.args
    return [a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
            + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]]


def _enter(node, parent: Optional[_Scope], stack: list) -> _Scope:
    """The scope ``node`` opens; pushes its parts, each with the scope it is evaluated in."""
    scope = _Scope(node, parent)
    outer = parent if parent is not None else scope
    if isinstance(node, _FUNCTIONS):
        scope.bound.update(_arguments(node))
        stack.extend((default, outer) for default in node.args.defaults + node.args.kw_defaults
                     if default is not None)
        stack.extend((child, outer) for child in getattr(node, 'decorator_list', ()))
        stack.extend((child, scope) for child in (node.body if isinstance(node.body, list) else [node.body]))
    elif isinstance(node, gast.ClassDef):
        stack.extend((child, outer) for child in node.decorator_list + node.bases + node.keywords)
        stack.extend((child, scope) for child in node.body)
    else:   # a comprehension: its first iterable is evaluated outside it
        for position, generator in enumerate(node.generators):
            stack.append((generator.iter, scope if position else outer))
            stack.append((generator.target, scope))
            stack.extend((condition, scope) for condition in generator.ifs)
        stack.extend((getattr(node, field), scope) for field in ('elt', 'key', 'value')
                     if getattr(node, field, None) is not None)
    return scope


def _scopes(root) -> Dict[int, _Scope]:
    """id(node) -> the scope that node's names belong to, for every node of ``root`` (a function)."""
    scope_of: Dict[int, _Scope] = {}
    stack: List[Tuple[object, _Scope]] = []
    _enter(root, None, stack)
    while stack:
        node, scope = stack.pop()
        scope_of[id(node)] = scope
        if isinstance(node, _SCOPES):
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                scope.bound.add(node.name)
            _enter(node, scope, stack)
            continue
        if isinstance(node, gast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, gast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            scope.bound.add(node.id)
        elif isinstance(node, gast.alias):
            scope.bound.add((node.asname or node.name).split('.')[0])
        stack.extend((child, scope) for child in gast.iter_child_nodes(node))
    return scope_of


def _owner(name: str, scope: _Scope) -> Optional[_Scope]:
    """The function (or comprehension) scope whose local ``name`` is, read from ``scope``; None: a global."""
    if name in scope.globals:
        return None
    if name in scope.bound and name not in scope.nonlocals:
        return scope
    parent = scope.parent
    while parent is not None:
        if not isinstance(parent.node, gast.ClassDef):   # a class body's names are not seen from inside it
            if name in parent.globals:
                return None
            if name in parent.bound and name not in parent.nonlocals:
                return parent
        parent = parent.parent
    return None


def _reads_as_local(scope: _Scope, owner: _Scope) -> bool:
    """True if Python reads the owner's variable from ``scope`` as a local (UnboundLocalError), not as a
    free variable of a nested function (NameError)."""
    while scope is not owner:
        if not isinstance(scope.node, _INLINED):
            return False
        scope = scope.parent
    return True


class DeletionTransformer(Transformer):

    def __init__(self, ctx, scope_of: Dict[int, _Scope], deleted: Set[Tuple[int, str]], handlers: Set[int]):
        super().__init__(ctx)
        self.scope_of, self.deleted, self.handlers = scope_of, deleted, handlers

    def visit(self, node):
        # Every node, also inside nested classes and generators that the other converters leave as
        # written: a read of the deleted variable there must not see the Undefined either.
        method = getattr(self, 'visit_' + node.__class__.__name__, None)
        result = method(node) if method is not None else self.generic_visit_all(node)
        if result is not node and anno.hasanno(node, anno.ORIGIN):
            propagate_origin(result, anno.getanno(node, anno.ORIGIN))
        return result

    def generic_visit_all(self, node):
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                new_values = []
                for item in value:
                    result = self.visit(item) if isinstance(item, gast.AST) else item
                    new_values.extend(result if isinstance(result, list) else [result])
                value[:] = new_values
            elif isinstance(value, gast.AST):
                setattr(node, field, self.visit(value))
        return node

    def _deleted_owner(self, node) -> Optional[_Scope]:
        scope = self.scope_of.get(id(node))
        owner = _owner(node.id, scope) if scope is not None else None
        return owner if owner is not None and (id(owner), node.id) in self.deleted else None

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load):
            return node
        owner = self._deleted_owner(node)
        if owner is None:
            return node
        check = 'ag__.defined(name)' if _reads_as_local(self.scope_of[id(node)], owner) else 'ag__.defined_free(name)'
        return templates.replace_as_expression(check, name=gast.Name(node.id, gast.Load(), None, None))

    def visit_ExceptHandler(self, node):
        node = self.generic_visit_all(node)
        if id(node) in self.handlers:
            # What Python does at the end of the clause (`finally: del e`), with an Undefined. The clause binds
            # a fresh name, which Python's own deletion then empties instead of `e`.
            name, caught = node.name.id, self.ctx.new_name('caught')
            node.body = templates.replace('name = caught\ntry:\n    body\nfinally:\n    name = ag__.Undefined(text)',
                                          body=node.body, name=name, caught=caught, text=templates.literal(name))
            node.name = gast.Name(caught, gast.Store(), None, None)
        return node

    def visit_Delete(self, node):
        statements = []
        for target in node.targets:
            if isinstance(target, gast.Name) and self._deleted_owner(target) is not None:
                statements += templates.replace('name = ag__.deleted(name, text)', name=target.id,
                                                text=templates.literal(target.id))
            else:
                statements.append(gast.Delete(targets=[self.visit(target)]))
        return statements


def _handlers_to_clean_up(node, scope_of) -> List[gast.ExceptHandler]:
    """The ``except ... as e:`` clauses whose ``e`` the function reads outside the clause: Python deletes
    ``e`` when the clause ends, so those reads must see it deleted too."""
    found = []
    for handler in gast.walk(node):
        if not (isinstance(handler, gast.ExceptHandler) and isinstance(handler.name, gast.Name)):
            continue
        name = handler.name.id
        owner = _owner(name, scope_of[id(handler.name)])
        inside = {id(n) for statement in handler.body for n in gast.walk(statement)}
        if owner is not None and not isinstance(owner.node, gast.ClassDef) and any(
                isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and id(n) not in inside
                and _owner(name, scope_of[id(n)]) is owner for n in gast.walk(node)):
            found.append(handler)
    return found


def transform(node, ctx):
    """Rewrite ``node`` (a function) if some ``del`` (or the end of an ``except ... as e:`` clause whose ``e``
    is read after it) removes a local; else return it unchanged."""
    if not any((isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del))
               or (isinstance(n, gast.ExceptHandler) and n.name is not None) for n in gast.walk(node)):
        return node
    scope_of = _scopes(node)
    deleted = set()
    for name in gast.walk(node):
        if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Del):
            owner = _owner(name.id, scope_of[id(name)])
            if owner is not None and not isinstance(owner.node, gast.ClassDef):   # a class attribute: left as is
                deleted.add((id(owner), name.id))
    handlers = _handlers_to_clean_up(node, scope_of)
    for handler in handlers:
        deleted.add((id(_owner(handler.name.id, scope_of[id(handler.name)])), handler.name.id))
    if not deleted:
        return node
    return DeletionTransformer(ctx, scope_of, deleted, {id(h) for h in handlers}).visit(node)
