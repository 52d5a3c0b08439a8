"""Which names are local variables of a function (Python's scoping rule, read from the tree).

A converter may only rebind a name that is already local: rebinding a global or a closure variable in the
function would make it local everywhere in the function (an UnboundLocalError before the assignment).

>>> import gast
>>> tree = gast.parse("def f(a):\\n    global g\\n    b = [x for x in a]\\n    g = 1\\n    h.append(b)")
>>> sorted(function_locals(tree.body[0]))
['a', 'b']
"""
from typing import Set

import gast

_NEW_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp, gast.SetComp,
               gast.DictComp, gast.GeneratorExp)


def function_locals(node) -> Set[str]:
    """The parameters and assigned names of ``node`` (a function), minus its ``global``/``nonlocal`` names."""
    arguments = node.args
    names = {arg.id for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    names.update(arg.id for arg in (arguments.vararg, arguments.kwarg) if arg is not None)
    declared: Set[str] = set()
    stack = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, (gast.Global, gast.Nonlocal)):
            declared.update(child.names)
        elif isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
            names.add(child.id)
        if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(child.name)
            stack.extend(child.decorator_list)
            continue
        if isinstance(child, _NEW_SCOPES):
            continue
        stack.extend(gast.iter_child_nodes(child))
    return names - declared
