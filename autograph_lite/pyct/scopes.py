"""Which names are local variables of a function (Python's scoping rule, read from the tree).

A converter may only rebind a name that is already local: rebinding a global or a closure variable in the
function would make it local everywhere in the function (an UnboundLocalError before the assignment).

>>> import gast
>>> tree = gast.parse("def f(a):\\n    global g\\n    b = [x for x in a]\\n    g = 1\\n    h.append(b)")
>>> sorted(function_locals(tree.body[0]))
['a', 'b']
"""
import sys
from typing import Dict, List, Optional, Set, Tuple

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


class LazyLocals:
    """``function_locals(node)``, computed at the first ``name in ...`` test: converters that ask only
    about the targets of constructs most functions lack (``x.append(v)``, ``x[i] = v``) skip the walk.

    The converters that use it rebind only names already local, and ask before they rewrite, so the
    set is the one an eager ``function_locals`` would have given.

    >>> tree = gast.parse("def f(a):\\n    b = 1").body[0]
    >>> 'b' in LazyLocals(tree), 'c' in LazyLocals(tree)
    (True, False)
    """

    __slots__ = ('_function', '_names')

    def __init__(self, function):
        self._function = function
        self._names = None

    def __contains__(self, name: str) -> bool:
        if self._names is None:
            self._names = function_locals(self._function)
        return name in self._names


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


# --- every name of a function resolved to the scope it belongs to ------------------------------

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_ALL_SCOPES = _FUNCTIONS + _COMPREHENSIONS + (gast.ClassDef,)
# Since Python 3.12 list/set/dict comprehensions run inline in their function (PEP 709): a name they read
# is read as the function's local. Generator expressions stay functions.
_INLINED = (gast.ListComp, gast.SetComp, gast.DictComp) if sys.version_info >= (3, 12) else ()


class Scope:
    """A function, lambda, comprehension or class body: the names it binds and declares."""

    def __init__(self, node, parent: Optional['Scope']):
        self.node, self.parent = node, parent
        self.bound: Set[str] = set()
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()


def _arguments(node) -> List[str]:
    arguments = node.args
    return [a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
            + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]]


def _enter(node, parent: Optional[Scope], stack: list) -> Scope:
    """The scope ``node`` opens; pushes its parts, each with the scope it is evaluated in."""
    scope = Scope(node, parent)
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


def scopes_of(root) -> Dict[int, Scope]:
    """id(node) -> the scope that node's names belong to, for every node of ``root`` (a function)."""
    scope_of: Dict[int, Scope] = {}
    stack: List[Tuple[object, Scope]] = []
    _enter(root, None, stack)
    while stack:
        node, scope = stack.pop()
        scope_of[id(node)] = scope
        if isinstance(node, _ALL_SCOPES):
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
        stack.extend((child, scope) for child in nodes.children(node))
    return scope_of


def owner_of(name: str, scope: Scope) -> Optional[Scope]:
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


def reads_as_local(scope: Scope, owner: Scope) -> bool:
    """True if Python reads the owner's variable from ``scope`` as a local (UnboundLocalError), not as a
    free variable of a nested function (NameError)."""
    while scope is not owner:
        if not isinstance(scope.node, _INLINED):
            return False
        scope = scope.parent
    return True


def frame_of(scope: Scope) -> Scope:
    """The scope whose frame runs the code of ``scope``: itself, or for a comprehension Python inlines into
    its function (3.12+, PEP 709), that function's. A comprehension that is not inlined runs in a frame of
    its own, whose first argument is the iterator of its first ``for``.

    >>> tree = gast.parse("def f(self):\\n    return [super() for _ in self]").body[0]
    >>> call = tree.body[0].value.elt
    >>> kind = type(frame_of(scopes_of(tree)[id(call.func)]).node).__name__
    >>> kind == ('FunctionDef' if sys.version_info >= (3, 12) else 'ListComp')
    True
    """
    while isinstance(scope.node, _INLINED) and scope.parent is not None:
        scope = scope.parent
    return scope


def is_comprehension(node) -> bool:
    """True for a list/set/dict comprehension or a generator expression."""
    return isinstance(node, _COMPREHENSIONS)
