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

from autograph_lite.pyct import nodes

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
        stack.extend(nodes.children(child))
    return names - declared


def bound_names(statements) -> Set[str]:
    """Names a block binds in its own scope, not inside nested functions, lambdas or classes (a name bound
    in a comprehension counts too: an over-approximation, which is what callers need).

    >>> sorted(bound_names(gast.parse("a = 1\\ndef g(): b = 2\\nimport os.path").body))
    ['a', 'g', 'os']
    """
    bound: Set[str] = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            bound.add(node.name)
            continue
        if isinstance(node, gast.Lambda):
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            bound.add(node.id)
        elif isinstance(node, gast.alias):
            bound.add((node.asname or node.name).split('.')[0])
        stack.extend(nodes.children(node))
    return bound
