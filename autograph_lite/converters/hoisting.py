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
>>> tree = parser.parse_str('def f():\\n    def body():\\n        def inner():\\n            return x\\n'
...                         '        inner()\\n    body()')
>>> for helper in (tree.body[0], tree.body[0].body[0]): anno.setanno(helper, anno.BODY_FUNCTION, True)
>>> print(codegen.unparse(hoist_body_functions(tree))[0].strip())
def f():
<BLANKLINE>
    def inner():
        return x
<BLANKLINE>
    def body():
        inner()
    body()
"""
from typing import List, Set

import gast

from autograph_lite.pyct import anno
from autograph_lite.pyct.scopes import bound_names

_BLOCK_FIELDS = ('body', 'orelse', 'finalbody')
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def hoist_body_functions(node):
    """Move body functions out of the body functions that contain them wherever names allow."""
    if isinstance(node, gast.FunctionDef):
        node.body = _hoisted_block(node.body)
    return node


def _is_body_function(node) -> bool:
    return isinstance(node, gast.FunctionDef) and anno.hasanno(node, anno.BODY_FUNCTION)


def _hoisted_block(statements: List[gast.stmt]) -> List[gast.stmt]:
    """The block with every body function in it (at any depth of this scope) hoisted internally, and the
    helpers each can give up placed right before it."""
    out: List[gast.stmt] = []
    for statement in statements:
        if _is_body_function(statement):
            statement.body = _hoisted_block(statement.body)
            out.extend(_give_up_helpers(statement))
        elif isinstance(statement, gast.FunctionDef):
            statement.body = _hoisted_block(statement.body)   # a user's function: its own scope
        elif not isinstance(statement, (gast.ClassDef, gast.AsyncFunctionDef)):
            for field in _BLOCK_FIELDS:
                block = getattr(statement, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                    setattr(statement, field, _hoisted_block(block))
            for handler in getattr(statement, 'handlers', ()):
                handler.body = _hoisted_block(handler.body)
        out.append(statement)
    return out


def _give_up_helpers(function: gast.FunctionDef) -> List[gast.stmt]:
    """Remove from ``function``'s body the body functions that use none of its locals; return them."""
    declared = {name for s in function.body if isinstance(s, (gast.Nonlocal, gast.Global)) for name in s.names}
    globals_ = {name for s in function.body if isinstance(s, gast.Global) for name in s.names}
    own = (bound_names(function.body) | _parameters(function)) - declared
    moved, kept = [], []
    for statement in function.body:
        if _is_body_function(statement):
            used = _names_used(statement)
            own_globals = {name for s in statement.body if isinstance(s, gast.Global) for name in s.names}
            # A global declared here makes the helper's free uses of it global; elsewhere they might not be.
            if not used & (own - {statement.name}) and not (used & globals_) - own_globals:
                own.discard(statement.name)
                moved.append(statement)
                continue
        kept.append(statement)
    function.body = kept or [gast.Pass()]
    return moved


def _parameters(function: gast.FunctionDef) -> Set[str]:
    args = function.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    return names | {a.id for a in (args.vararg, args.kwarg) if a is not None}


def _names_used(node) -> Set[str]:
    """Every name mentioned anywhere in ``node`` (read, written, declared; nested scopes included)."""
    names: Set[str] = set()
    for child in gast.walk(node):
        if isinstance(child, gast.Name):
            names.add(child.id)
        elif isinstance(child, (gast.Nonlocal, gast.Global)):
            names.update(child.names)
    names.discard(node.name)
    return names
