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
So every read that definite-assignment analysis (pyct/static_analysis/definite_assignment.py) cannot
prove assigned checks its value: ``ag__.defined(x)`` raises Python's UnboundLocalError,
``ag__.defined_free(x)`` (a read from a nested function, lambda or comprehension) Python's NameError.
Reads of names every path assigns stay as written. ``x += 1`` gets a check statement before it.

The analysis runs on the user's own control flow (``mark``, before the jump converters); the checks are
written after them (``CheckWriter``, just before the control flow converter), so the converters in
between still see the user's ``x[i] = v`` and ``xs.append(v)`` as written. Those converters rebuild
such statements from the name; the ``Undefined`` a rebuilt ``ag__.set_item(x, ...)`` receives raises
the same UnboundLocalError itself.
"""
import gast

from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.static_analysis import definite_assignment
from autograph_lite.pyct.transformer import propagate_origin


def mark(node, ctx):
    """Mark the reads of ``node`` (a function) that need a check (definite_assignment); returns ``node``.
    Records in ``ctx`` whether any did (else ``CheckWriter`` has nothing to write and skips its walk)."""
    ctx.unbound_reads_marked = definite_assignment.analyze(node)
    return node


class CheckWriter:
    """Writes the checks and initializations that ``mark`` recorded, everywhere in the tree (also in nested
    functions and classes left as written: their reads of the function's variables see the Undefined)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit(self, node):
        if self.ctx.unbound_reads_marked:
            self._visit(node)
        return node

    def _visit(self, node) -> None:
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [new for item in value for new in self._replaced(item)]
            elif isinstance(value, gast.AST):
                replaced = self._replaced(value)
                setattr(node, field, replaced[0])
        names = anno.getanno(node, anno.UNBOUND_INITS, None)
        if names and isinstance(node, gast.FunctionDef):
            position = 1 if _has_docstring(node) else 0
            inits = [statement for name in names for statement in templates.replace(
                'name = ag__.Undefined(symbol)', name=name, symbol=templates.literal(name))]
            node.body[position:position] = inits

    def _replaced(self, node):
        if not isinstance(node, gast.AST):
            return [node]
        if isinstance(node, gast.Name):
            check = anno.getanno(node, anno.UNBOUND_CHECK, None)
            if check is None or not isinstance(node.ctx, gast.Load):
                return [node]
            new = templates.replace_as_expression(f'ag__.{check}(name)', name=node)
            _keep_origin(new, node)
            return [new]
        self._visit(node)
        if isinstance(node, gast.AugAssign) and anno.hasanno(node.target, anno.UNBOUND_CHECK):
            check = templates.replace('ag__.defined(name)',
                                      name=gast.Name(node.target.id, gast.Load(), None, None))
            _keep_origin(check, node)
            return check + [node]
        return [node]


def _keep_origin(new, old) -> None:
    origin = anno.getanno(old, anno.ORIGIN, None)
    if origin is not None:
        propagate_origin(new, origin)


def _has_docstring(function) -> bool:
    first = function.body[0]
    return isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant) and isinstance(first.value.value, str)
