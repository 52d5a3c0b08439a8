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
from typing import Dict, List, Optional, Set, Tuple

import gast

from autograph_lite.pyct import anno, nodes, templates
from autograph_lite.pyct.scopes import Scope, owner_of, reads_as_local, scopes_of
from autograph_lite.pyct.transformer import Transformer, propagate_origin


class DeletionTransformer(Transformer):

    def __init__(self, ctx, scope_of: Dict[int, Scope], deleted: Set[Tuple[int, str]], handlers: Set[int]):
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

    def _deleted_owner(self, node) -> Optional[Scope]:
        scope = self.scope_of.get(id(node))
        owner = owner_of(node.id, scope) if scope is not None else None
        return owner if owner is not None and (id(owner), node.id) in self.deleted else None

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load):
            return node
        owner = self._deleted_owner(node)
        if owner is None:
            return node
        check = 'ag__.defined(name)' if reads_as_local(self.scope_of[id(node)], owner) else 'ag__.defined_free(name)'
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
        owner = owner_of(name, scope_of[id(handler.name)])
        inside = {id(n) for statement in handler.body for n in gast.walk(statement)}
        if owner is not None and not isinstance(owner.node, gast.ClassDef) and any(
                isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and id(n) not in inside
                and owner_of(name, scope_of[id(n)]) is owner for n in gast.walk(node)):
            found.append(handler)
    return found


def transform(node, ctx):
    """Rewrite ``node`` (a function) if some ``del`` (or the end of an ``except ... as e:`` clause whose ``e``
    is read after it) removes a local; else return it unchanged."""
    if gast.Delete not in ctx.node_kinds and gast.ExceptHandler not in ctx.node_kinds:
        return node   # the user's code has neither (the converters before this one write none)
    if not any((isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del))
               or (isinstance(n, gast.ExceptHandler) and n.name is not None) for n in nodes.walk(node)):
        return node
    scope_of = scopes_of(node)
    deleted = set()
    for name in gast.walk(node):
        if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Del):
            owner = owner_of(name.id, scope_of[id(name)])
            if owner is not None and not isinstance(owner.node, gast.ClassDef):   # a class attribute: left as is
                deleted.add((id(owner), name.id))
    handlers = _handlers_to_clean_up(node, scope_of)
    for handler in handlers:
        deleted.add((id(owner_of(handler.name.id, scope_of[id(handler.name)])), handler.name.id))
    if not deleted:
        return node
    return DeletionTransformer(ctx, scope_of, deleted, {id(h) for h in handlers}).visit(node)
