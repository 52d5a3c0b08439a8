"""List mutation of a local name -> a call that rebinds the name, so tensor loops see the list as state.

    outs.append(h)       ->  outs = ag__.list_append(outs, h)
    last = outs.pop()    ->  outs, last = ag__.list_pop(outs)
    outs.pop(0)          ->  outs, popped = ag__.list_pop(outs, 0)

On a Python list ``list_append`` appends in place and returns the same list (every alias sees it, as in
Python); on a tensor list it returns the new list. ``pop`` inside a larger expression, and calls on
anything but a local variable (``self.outs.append(h)``, a global or closure list), are left as written.
"""
import gast

from autograph_lite.pyct import templates
from autograph_lite.pyct.scopes import function_locals
from autograph_lite.pyct.transformer import Transformer


def _method_call(node, method: str, max_args: int):
    """``(name, args)`` if ``node`` is ``name.method(args)`` on a plain name with at most ``max_args``
    positional arguments and no keywords; else None."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == method
            and isinstance(node.func.value, gast.Name) and not node.keywords and len(node.args) <= max_args
            and not any(isinstance(arg, gast.Starred) for arg in node.args)):
        return None
    return node.func.value.id, node.args


class ListTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.local_names = set()  # of the innermost function: only those may be rebound

    def visit_FunctionDef(self, node):
        saved, self.local_names = self.local_names, function_locals(node)
        node = self.generic_visit(node)
        self.local_names = saved
        return node

    def visit_Expr(self, node):
        append = _method_call(node.value, 'append', 1)
        if append is not None and len(append[1]) == 1 and append[0] in self.local_names:
            name, (value,) = append
            return templates.replace('name = ag__.list_append(name, value)', name=name, value=value)
        pop = _method_call(node.value, 'pop', 1)
        if pop is not None and pop[0] in self.local_names:
            return self._pop(pop, self.ctx.new_name('popped'))
        return node

    def visit_Assign(self, node):
        pop = _method_call(node.value, 'pop', 1)
        if (pop is None or pop[0] not in self.local_names or len(node.targets) != 1
                or not isinstance(node.targets[0], gast.Name)):
            return node
        return self._pop(pop, node.targets[0].id)

    def _pop(self, call, target: str):
        name, args = call
        if args:
            return templates.replace('name, target = ag__.list_pop(name, index)', name=name, target=target,
                                     index=args[0])
        return templates.replace('name, target = ag__.list_pop(name)', name=name, target=target)
