"""Item assignment to a local name -> a functional update that rebinds the name.

    x[i] = v           ->  x = ag__.set_item(x, i, v)
    x[i, 1:3] += v     ->  x = ag__.set_item_augmented(x, (i, ag__.slice(1, 3, None)), '+=', v)
    del d[k]           ->  d = ag__.del_item(d, 'd', k)
    x[i], x[j] = a, b  ->  set_item_1, set_item_2 = a, b
                           x = ag__.set_item(x, i, set_item_1)
                           x = ag__.set_item(x, j, set_item_2)

On a tensor, ``set_item`` returns the updated copy (tensors are immutable); on anything else it does
exactly ``x[i] = v`` and returns ``x`` itself, so lists, dicts and numpy arrays keep Python's semantics and
aliases. Because the name is rebound, a tensor ``if``/loop carries it as state. Targets that are not a
plain local name (``self.x[i] = v``, ``x[i][j] = v``, a global or closure ``cache[k] = v``, which
rebinding would turn into a local) are left as written. ``ag__.slice`` is the builtin
``slice`` (the user may have shadowed the name).
"""
from typing import Set

import gast

from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.scopes import LazyLocals
from autograph_lite.pyct.transformer import Transformer

_AUGMENTED = {gast.Add: '+=', gast.Sub: '-=', gast.Mult: '*=', gast.Div: '/=', gast.FloorDiv: '//=',
              gast.Mod: '%=', gast.Pow: '**=', gast.MatMult: '@=', gast.BitAnd: '&=', gast.BitOr: '|=',
              gast.BitXor: '^=', gast.LShift: '<<=', gast.RShift: '>>='}


def _key(node):
    """The subscript as an expression: slices ``a:b:c`` become ``ag__.slice(a, b, c)`` calls."""
    if isinstance(node, gast.Slice):
        parts = [part if part is not None else templates.literal(None) for part in (node.lower, node.upper, node.step)]
        return templates.replace_as_expression('ag__.slice(lower, upper, step)', lower=parts[0], upper=parts[1],
                                               step=parts[2])
    if isinstance(node, gast.Tuple):
        return gast.Tuple(elts=[_key(item) for item in node.elts], ctx=gast.Load())
    return node


class SliceTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.locals: Set[str] = set()   # of the innermost function being converted

    def visit_FunctionDef(self, node):
        saved, self.locals = self.locals, LazyLocals(node)
        node = self.generic_visit(node)
        self.locals = saved
        return node

    def _is_name_item(self, node) -> bool:
        return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id in self.locals

    def _set_item(self, target, value):
        return in_place(templates.replace('name = ag__.set_item(name, key, value)', name=target.value.id,
                                          key=_key(target.slice), value=value), target.value.id)

    def visit_Assign(self, node):
        if len(node.targets) != 1:
            return node  # x[0] = y = v: left to Python
        target = node.targets[0]
        if self._is_name_item(target):
            return self._set_item(target, node.value)
        if (isinstance(target, (gast.Tuple, gast.List)) and any(self._is_name_item(item) for item in target.elts)
                and not any(isinstance(item, gast.Starred) for item in target.elts)):
            # Unpack into fresh names first, then assign the items in order (as Python does).
            temporaries, updates = [], []
            for item in target.elts:
                if self._is_name_item(item):
                    temporary = self.ctx.new_name('set_item')
                    temporaries.append(gast.Name(id=temporary, ctx=gast.Store(), annotation=None, type_comment=None))
                    updates.extend(self._set_item(item, templates.expression(temporary)))
                else:
                    temporaries.append(item)
            unpack = templates.replace('targets = value', targets=gast.Tuple(elts=temporaries, ctx=gast.Store()),
                                       value=node.value)
            return unpack + updates
        return node

    def visit_Delete(self, node):
        # `del d[k]` changes d in place: rebinding d makes a tensor if/loop carry d itself, so the branches are
        # compared as dicts (different keys named) instead of d[k] read as defined in one branch only.
        if not all(self._is_name_item(target) for target in node.targets):
            return node
        statements = []
        for target in node.targets:   # Python deletes the targets left to right
            name = target.value.id
            statements += in_place(templates.replace('name = ag__.del_item(name, text, key)', name=name,
                                                     text=templates.literal(name), key=_key(target.slice)), name)
        return statements

    def visit_AugAssign(self, node):
        if not self._is_name_item(node.target) or type(node.op) not in _AUGMENTED:
            return node
        return in_place(templates.replace('name = ag__.set_item_augmented(name, key, operator, value)',
                                          name=node.target.value.id, key=_key(node.target.slice),
                                          operator=templates.literal(_AUGMENTED[type(node.op)]), value=node.value),
                        node.target.value.id)


def in_place(statements, name: str):
    """Mark the statements that change local ``name`` in place: a tensor-dependent if or loop carries such a
    name as state even when it is not read after it by that name (another name may see the same object)."""
    for statement in statements:
        anno.setanno(statement, anno.IN_PLACE, name)
    return statements
