"""A read of a local that some paths leave unassigned -> ``ag__.defined(x)``; such a local starts as
``ag__.Undefined('x')``.

    def f(b):                        def f(b):
        if b:                            x = ag__.Undefined('x')
            x = 1                        ...
        y = x                ->          ag__.if_stmt(b, if_body, else_body, ...)
        return 2                         y = ag__.defined(x)
                                         return 2

Python raises UnboundLocalError at ``y = x`` when ``b`` is false. Converted code keeps a variable that
an ``if``/loop may leave unassigned as an ``Undefined`` (the staged operators need a value for each
state variable), which could otherwise flow on silently (into a call, a container, a ``return``).
Definite-assignment analysis (pyct/static_analysis/definite_assignment.py) marks every read of a name it
cannot prove assigned; a marked read gets a check where the check changes what happens:
``ag__.defined(x)`` raises Python's UnboundLocalError, ``ag__.defined_free(x)`` (a read from a nested
function, lambda or comprehension) Python's NameError. ``x += 1`` gets a check statement before it.

A read in the function's own straight-line code (a ``with`` or ``try`` body included) of a name that never
holds an ``Undefined`` needs none: Python raises the same UnboundLocalError itself. So of a function's
names with marked reads, only these get the placeholder and checks on all those reads
(``_needing_placeholder``):

* a name with a marked read that runs in a generated function (a branch or loop body, a ``while`` test,
  the lambdas of ``and``/``or``/``a if c else b``/chained comparisons/``assert`` messages, a
  comprehension) or in one of the user's: unassigned, it would be an empty free variable there (NameError);
* a name bound inside an ``if``/``while``/``for`` (the only names the control flow converter may set to its
  own ``Undefined``: a state variable that may have no value before the statement).

The training step ``with tape: loss = ...`` followed by ``tape.gradient(loss, w)`` stays as written.

The analysis runs on the user's own control flow (``mark``, before the jump converters); the checks are
written after them (``CheckWriter``, just before the control flow converter: the jumps' guarding ``if``s are
there to see), so the converters in between still see the user's ``x[i] = v`` and ``xs.append(v)`` as
written. Those converters rebuild such statements from the name; the ``Undefined`` a rebuilt
``ag__.set_item(x, ...)`` receives raises the same UnboundLocalError itself.
"""
from typing import Optional, Set

import gast

from autograph_lite.pyct import anno, nodes, templates
from autograph_lite.pyct.static_analysis import definite_assignment
from autograph_lite.pyct.transformer import propagate_origin
from autograph_lite.pyct.nodes import NESTED_SCOPES


# What binds a name other than a parameter: a name stored or deleted (assignments, loop and ``with``
# targets, walrus, ``except ... as``, comprehensions), an import, a nested def or class, a match capture.
_BINDINGS = frozenset([gast.Store, gast.Del, gast.Import, gast.ImportFrom, gast.AsyncFunctionDef, gast.ClassDef,
                       gast.Match])


def mark(node, ctx):
    """Mark the reads of ``node`` (a function) that need a check (definite_assignment); returns ``node``.
    Records in ``ctx`` whether any did (else ``CheckWriter`` has nothing to write and skips its walk)."""
    if ctx.function_defs == 1 and ctx.node_kinds.isdisjoint(_BINDINGS):
        # The function binds nothing but its parameters (and a lambda's, bound when it is called): every
        # read of a local finds its value, and the analysis would mark none.
        ctx.unbound_reads_marked = False
        return node
    ctx.unbound_reads_marked = definite_assignment.analyze(node)
    return node


class CheckWriter:
    """Writes the checks and initializations that ``mark`` recorded, everywhere in the tree (also in nested
    functions and classes left as written: their reads of the function's variables see the Undefined)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.placeholders: Optional[Set[str]] = None   # of the innermost function with marked reads

    def visit(self, node):
        if self.ctx.unbound_reads_marked:
            self._visit(node)
        return node

    def _visit(self, node) -> None:
        names = anno.getanno(node, anno.UNBOUND_INITS, None) if isinstance(node, gast.FunctionDef) else None
        if names:
            saved, self.placeholders = self.placeholders, _needing_placeholder(node, set(names))
            try:
                self._visit_fields(node)
            finally:
                names, self.placeholders = [n for n in names if n in self.placeholders], saved
            if names:
                position = 1 if _has_docstring(node) else 0
                inits = [statement for name in names for statement in templates.replace(
                    'name = ag__.Undefined(symbol)', name=name, symbol=templates.literal(name))]
                node.body[position:position] = inits
        else:
            self._visit_fields(node)

    def _visit_fields(self, node) -> None:
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [new for item in value for new in self._replaced(item)]
            elif isinstance(value, gast.AST):
                replaced = self._replaced(value)
                setattr(node, field, replaced[0])

    def _checked(self, check: Optional[str], name: str) -> bool:
        # A free read always checks (its name needs the placeholder); a local read if its name gets one.
        return check == 'defined_free' or (check is not None and self.placeholders is not None
                                           and name in self.placeholders)

    def _replaced(self, node):
        if not isinstance(node, gast.AST):
            return [node]
        if isinstance(node, gast.Name):
            check = anno.getanno(node, anno.UNBOUND_CHECK, None)
            if not self._checked(check, node.id) or not isinstance(node.ctx, gast.Load):
                return [node]
            new = templates.replace_as_expression(f'ag__.{check}(name)', name=node)
            _keep_origin(new, node)
            return [new]
        self._visit(node)
        if isinstance(node, gast.AugAssign) and self._checked(anno.getanno(node.target, anno.UNBOUND_CHECK, None),
                                                              getattr(node.target, 'id', '')):
            check = templates.replace('ag__.defined(name)',
                                      name=gast.Name(node.target.id, gast.Load(), None, None))
            _keep_origin(check, node)
            return check + [node]
        return [node]


# Expressions whose parts the converters after this one move into lambdas (logical_expressions.py,
# conditional_expressions.py, comprehensions.py); a chained comparison too, when it has a second link.
_DEFERRING = (gast.BoolOp, gast.IfExp, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _needing_placeholder(function, marked: Set[str]) -> Set[str]:
    """Of ``marked`` (``function``'s names with a marked read), those that may hold an ``Undefined`` or are
    read from a function nested in it: read where the converted code runs it in a (generated or the user's)
    nested function, or bound in an ``if``/``while``/``for`` (see the module docstring)."""
    found: Set[str] = set()
    # (node, nested: runs in a nested function, in_construct: in an if/loop at the function's own level,
    #  own: the function's own marks, not those of a nested function of the user's that has its own)
    stack = [(statement, False, False, True) for statement in function.body]
    while stack:
        node, nested, in_construct, own = stack.pop()
        if isinstance(node, gast.Name):
            check = anno.getanno(node, anno.UNBOUND_CHECK, None)
            if check == 'defined_free' or (check == 'defined' and nested and own):
                found.add(node.id)
            elif in_construct and isinstance(node.ctx, (gast.Store, gast.Del)):
                found.add(node.id)
            continue
        if in_construct and isinstance(node, gast.alias):
            found.add((node.asname or node.name).split('.')[0])
        elif in_construct and isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            found.add(node.name)
        if isinstance(node, NESTED_SCOPES):
            own = own and not (isinstance(node, gast.FunctionDef) and anno.hasanno(node, anno.UNBOUND_INITS))
            stack.extend((child, True, False, own) for child in nodes.children(node))
        elif isinstance(node, (gast.If, gast.For)):
            # The test of an if and the iterable of a for run in the function itself (a name the test binds
            # with := counts as the statement's: `if a and (n := f()):` may leave n unassigned).
            head = node.test if isinstance(node, gast.If) else node.iter
            stack.extend((child, nested or child is not head, True, own) for child in nodes.children(node))
        elif isinstance(node, gast.While) or isinstance(node, _DEFERRING) or (
                isinstance(node, gast.Compare) and len(node.comparators) > 1):
            construct = in_construct or isinstance(node, gast.While)
            stack.extend((child, True, construct, own) for child in nodes.children(node))
        else:
            stack.extend((child, nested, in_construct, own) for child in nodes.children(node))
    return found & marked


def _keep_origin(new, old) -> None:
    origin = anno.getanno(old, anno.ORIGIN, None)
    if origin is not None:
        propagate_origin(new, origin)


def _has_docstring(function) -> bool:
    first = function.body[0]
    return (isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant)
            and isinstance(first.value.value, str))
