"""Body functions are defined once per call of the function, not once per loop iteration.

The control flow converter writes the helpers of a construct (``get_state``, ``set_state``,
``if_body``, ``loop_body``, ...) right before its ``ag__`` call. For a construct inside a loop body
that means new closures at every iteration: four for an ``if``, about 0.3 us of the 1 us an iteration
of a converted ``while`` cost on Python values. A helper that uses none of the enclosing body
function's own local variables means the same thing one level up, so it moves there (repeatedly,
as far up as it can go). It is then defined just before the body function it came from::

    def loop_body():                          def get_state_1():
        nonlocal n, steps                         return (n,)
        def get_state_1():                    ...
            return (n,)              ->       def if_body():
        ...                                       nonlocal n
        def if_body():                            n = n // 2
            nonlocal n                        ...
            n = n // 2                        def loop_body():
        ...                                       nonlocal n, steps
        ag__.if_stmt(n % 2 == 0, ...)             ag__.if_stmt(n % 2 == 0, ...)
        steps += 1                                steps += 1

A helper that reads a local of its body function (a ``for`` element that arrives as the body's
parameter, a temporary only the body binds) stays where it is. Names resolve exactly as before:
a moved helper uses no name of the scope it left, and the helpers' names are the converter's own
(unique in the conversion). User functions are never left: helpers move only out of helpers.

>>> import gast
>>> from autograph_lite.pyct import anno, codegen, parser
>>> f = parser.parse_str('def f():\\n    def body():\\n        def inner():\\n            return x\\n'
...                      '        inner()\\n    body()').body[0]
>>> for helper in (f.body[0], f.body[0].body[0]): anno.setanno(helper, anno.BODY_FUNCTION, True)
>>> print(codegen.unparse(hoist_body_functions(f))[0].strip())
def f():
<BLANKLINE>
    def inner():
        return x
<BLANKLINE>
    def body():
        inner()
<BLANKLINE>
    body()
"""
from typing import Dict, List, Set

import gast

from autograph_lite.pyct import anno, nodes

_BLOCK_FIELDS = ('body', 'orelse', 'finalbody')


def hoist_body_functions(node):
    """Move body functions out of the body functions that contain them wherever names allow."""
    if isinstance(node, gast.FunctionDef) and _nests_helpers(node.body):
        node.body = _Hoister().block(node.body)
    return node


def _nests_helpers(statements: List[gast.stmt]) -> bool:
    """True if a body function (in the blocks the hoister looks at) has one among its own statements:
    without one, no helper can move (an ``if`` outside loops, say) and the hoister's walk is skipped."""
    stack = list(statements)
    while stack:
        statement = stack.pop()
        cls = statement.__class__
        if cls is gast.FunctionDef:
            if _is_body_function(statement) and any(_is_body_function(s) for s in statement.body):
                return True
            stack.extend(statement.body)
        elif cls is not gast.ClassDef and cls is not gast.AsyncFunctionDef:
            attributes = statement.__dict__
            for field in _BLOCK_FIELDS:
                block = attributes.get(field)
                if block.__class__ is list and block and isinstance(block[0], gast.stmt):
                    stack.extend(block)
            for handler in attributes.get('handlers', ()):
                stack.extend(handler.body)
    return False


def _is_body_function(node) -> bool:
    return isinstance(node, gast.FunctionDef) and anno.hasanno(node, anno.BODY_FUNCTION)


class _Hoister:
    """One bottom-up pass: a function's nested functions are final before it gives up its helpers, so
    each node is read once (the names a finished function mentions are remembered)."""

    def __init__(self):
        self.mentioned: Dict[int, Set[str]] = {}   # id(finished function) -> every name in it

    def block(self, statements: List[gast.stmt]) -> List[gast.stmt]:
        """The block, each function in it (at any depth of this scope) finished, with the helpers a body
        function gives up placed right before it."""
        out: List[gast.stmt] = []
        for statement in statements:
            if isinstance(statement, gast.FunctionDef):
                statement.body = self.block(statement.body)
                names, bound, inner = self._read(statement)
                if _is_body_function(statement):
                    out.extend(self._give_up_helpers(statement, bound))
                for function in statement.body:
                    if id(function) in inner:
                        names |= self.mentioned[id(function)]
                        names.add(function.name)
                self.mentioned[id(statement)] = names
            elif not isinstance(statement, (gast.ClassDef, gast.AsyncFunctionDef)):
                for field in _BLOCK_FIELDS:
                    block = getattr(statement, field, None)
                    if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                        setattr(statement, field, self.block(block))
                for handler in getattr(statement, 'handlers', ()):
                    handler.body = self.block(handler.body)
            out.append(statement)
        return out

    def _give_up_helpers(self, function: gast.FunctionDef, bound: Set[str]) -> List[gast.stmt]:
        """Remove from ``function``'s body the body functions that use none of its locals; return them.
        ``bound``: the names its body binds in its own scope (``scopes.bound_names``)."""
        declared = {name for s in function.body if isinstance(s, (gast.Nonlocal, gast.Global)) for name in s.names}
        globals_ = {name for s in function.body if isinstance(s, gast.Global) for name in s.names}
        own = (bound | _parameters(function)) - declared
        moved, kept = [], []
        for statement in function.body:
            if _is_body_function(statement):
                used = self.mentioned[id(statement)] - {statement.name}
                own_globals = {name for s in statement.body if isinstance(s, gast.Global) for name in s.names}
                # A global declared here makes the helper's free uses of it global; elsewhere they might not be.
                if not used & (own - {statement.name}) and not (used & globals_) - own_globals:
                    own.discard(statement.name)
                    moved.append(statement)
                    continue
            kept.append(statement)
        function.body = kept or [gast.Pass()]
        return moved

    def _read(self, function: gast.FunctionDef):
        """One walk over ``function`` (its finished nested functions read from ``mentioned``):

        - every name mentioned in it (read, written, declared; nested scopes included), except in the
          finished functions that are statements of its body (the caller adds those it keeps);
        - the names its body binds in its own scope (what ``scopes.bound_names(function.body)`` says);
        - the ids of those finished functions of its body.
        """
        names: Set[str] = set()
        bound: Set[str] = set()
        inner: Set[int] = set()
        # (node, in the body's own scope, a statement of the body itself)
        stack = [(statement, True, True) for statement in function.body]
        stack += [(child, False, False) for child in nodes.children(function) if not _in(child, function.body)]
        mentioned = self.mentioned
        while stack:
            node, own, top = stack.pop()
            cls = node.__class__
            if cls is gast.Name:
                names.add(node.id)
                if own and isinstance(node.ctx, (gast.Store, gast.Del)):
                    bound.add(node.id)
                continue
            if cls is gast.FunctionDef and id(node) in mentioned:
                if own:
                    bound.add(node.name)
                if top:
                    inner.add(id(node))
                else:
                    names |= mentioned[id(node)]
                    names.add(node.name)
                continue
            if cls is gast.Nonlocal or cls is gast.Global:
                names.update(node.names)
                continue
            if own:
                if cls is gast.FunctionDef or cls is gast.AsyncFunctionDef or cls is gast.ClassDef:
                    bound.add(node.name)
                    own = False
                elif cls is gast.Lambda:
                    own = False
                elif cls is gast.alias:
                    bound.add((node.asname or node.name).split('.')[0])
            stack.extend((child, own, False) for child in nodes.children(node))
        return names, bound, inner


def _in(node, statements) -> bool:
    return any(node is statement for statement in statements)


def _parameters(function: gast.FunctionDef) -> Set[str]:
    args = function.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    return names | {a.id for a in (args.vararg, args.kwarg) if a is not None}
