"""The plain form of a converted function: its own statements as the user wrote them, for Python values.

Outside a graph every operator of the staged form (``ag__.if_stmt``, ``ag__.while_stmt``, ``ag__.and_``,
...) runs the plain Python statement it stands for, so the closures and calls of the staged form buy
nothing there. The plain form keeps ``if``/``while``/``for``/``break``/``continue``/``return``/
``and``/``or``/``not``/``a if c else b``/comprehensions/``assert`` as Python statements and keeps
only the rewrites that mean something without a graph:

* calls -> ``ag__.call_target(f)(...)`` (a called user function is converted: a closure it makes may be
  called later while tracing), called from the function's own frame (one frame per call, as in Python);
  a builtin called by its name, and a method of a builtin type on a name, are Python's own call while the
  name holds exactly that builtin or type (``builtin_len``, ``builtin_str``: free variables, see call_trees);
* ``x[i] = v`` -> ``x = ag__.set_item(x, i, v)`` (eager tensors are immutable);
* ``xs.append(v)`` / ``xs.pop()`` -> ``ag__.list_append`` / ``ag__.list_pop`` (a tensor list returns a
  new list);
* ``del x`` of a local, and reads of that ``x`` -> ``ag__.deleted`` / ``ag__.defined`` (converters/deletions.py),
  as in the staged form: a nested function (staged, see below) that deletes a nonlocal leaves an
  ``Undefined`` in it.

Nested functions, lambdas and classes are the staged form's own nodes (a closure made outside a graph
may be called while tracing), so they have only the staged form. The first statement dispatches: while a
graph is being built the staged form runs instead::

    def collatz_steps(n):                          def collatz_steps(n):
        steps = 0                                      if ag__.needs_staged_form():
        while n > 1:                        ->             return collatz_steps_staged(n)
            ...                                        steps = 0
                                                       while n > 1:
                                                           ...
"""
from typing import List, Optional, Sequence, Tuple

import gast

from autograph_lite import contract
from autograph_lite.converters import call_trees, deletions, lists, slices
from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import SKIP, Context
from autograph_lite.pyct.nodes import NESTED_SCOPES

# The scopes nested in the function: the plain form takes them from the staged form.
_KEY = 'plain_form_key'   # annotation: the position of a nested scope among the function's own ones
_Shape = Tuple[str, Optional[str], Optional[int]]


def _nested_scopes(function: gast.FunctionDef) -> List[Tuple[gast.AST, str, Optional[int]]]:
    """Where the scopes directly nested in ``function``'s body are, in source order: (parent node, field,
    index in that field's list or None)."""
    found = []

    def visit(parent):
        for field in parent._fields:
            value = getattr(parent, field, None)
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, NESTED_SCOPES):
                        found.append((parent, field, index))
                    elif isinstance(item, gast.AST):
                        visit(item)
            elif isinstance(value, NESTED_SCOPES):
                found.append((parent, field, None))
            elif isinstance(value, gast.AST):
                visit(value)

    for statement_index, statement in enumerate(function.body):
        if isinstance(statement, NESTED_SCOPES):
            found.append((function, 'body', statement_index))
        else:
            visit(statement)
    return found


def _get(place):
    parent, field, index = place
    return getattr(parent, field) if index is None else getattr(parent, field)[index]


def _shape(node) -> _Shape:
    return (type(node).__name__, getattr(node, 'name', None), getattr(node, 'lineno', None))


def mark_nested_scopes(function: gast.FunctionDef) -> Tuple[_Shape, ...]:
    """Number the scopes nested in the user's ``function`` (before conversion); returns what each is, so
    that a later parse of the same source can be checked against it."""
    shapes = []
    for key, place in enumerate(_nested_scopes(function)):
        node = _get(place)
        anno.setanno(node, _KEY, key)
        shapes.append(_shape(node))
    return tuple(shapes)


def staged_nested_scopes(staged: gast.AST, count: int) -> Optional[Tuple[gast.AST, ...]]:
    """The converted nodes of the ``count`` scopes ``mark_nested_scopes`` numbered, found in the staged
    tree; None if one of them is missing (then the function gets no plain form)."""
    if not count:
        return ()   # nothing to look for: no walk of the (large) staged tree
    found = {}
    stack = [staged]
    while stack:
        node = stack.pop()
        key = anno.getanno(node, _KEY, None)
        if key is not None and isinstance(node, NESTED_SCOPES):
            found.setdefault(key, node)
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(item for item in reversed(value) if isinstance(item, gast.AST))
            elif isinstance(value, gast.AST):
                stack.append(value)
    if len(found) != count:
        return None
    return tuple(found[key] for key in range(count))


def plain_tree(function: gast.FunctionDef, shapes: Sequence[_Shape], staged_nested: Sequence[gast.AST],
               filename: str) -> Optional[Tuple[gast.FunctionDef, str, Tuple[Tuple[str, str], ...]]]:
    """The plain form of the user's ``function`` (a fresh parse of the source the staged form came from),
    the name under which it calls the staged form, and the (free variable, builtin name) pairs of the
    builtins it reads from its closure (``call_trees``); None if the source no longer matches ``shapes``."""
    if tuple(_shape(_get(place)) for place in _nested_scopes(function)) != tuple(shapes):
        return None   # the file changed since the staged form was made
    ctx = Context(function, filename)
    if not ctx.node_kinds.isdisjoint((gast.Del, gast.ExceptHandler)):
        # As in the staged form, and for the same nested functions: a staged nested function that deletes a
        # nonlocal leaves an Undefined in it, which reads of it here must treat as deleted.
        function = deletions.transform(function, ctx)
    places = _nested_scopes(function)
    if len(places) != len(staged_nested):
        return None
    for place, converted in zip(places, staged_nested):
        parent, field, index = place
        anno.setanno(converted, SKIP, True)   # converted already: the converters below leave it alone
        if index is None:
            setattr(parent, field, converted)
        else:
            getattr(parent, field)[index] = converted
    for transformer in (lists.ListTransformer, slices.SliceTransformer):
        function = transformer(ctx).visit(function)
    calls = call_trees.CallTreeTransformer(ctx, direct=True)
    function = calls.visit(function)
    staged_name = ctx.new_name(function.name + contract.STAGED_FORM_SUFFIX)
    _insert_dispatch(function, staged_name)
    return function, staged_name, tuple((name, builtin) for builtin, name in calls.pinned.items())


def _insert_dispatch(function: gast.FunctionDef, staged_name: str) -> None:
    """``if ag__.needs_staged_form(): return <staged>(<every parameter>)`` first (after the docstring)."""
    arguments = function.args
    positional = [gast.Name(id=a.id, ctx=gast.Load(), annotation=None, type_comment=None)
                  for a in arguments.posonlyargs + arguments.args]
    if arguments.vararg is not None:
        positional.append(gast.Starred(value=gast.Name(id=arguments.vararg.id, ctx=gast.Load(), annotation=None,
                                                       type_comment=None), ctx=gast.Load()))
    keywords = [gast.keyword(arg=a.id, value=gast.Name(id=a.id, ctx=gast.Load(), annotation=None, type_comment=None))
                for a in arguments.kwonlyargs]
    if arguments.kwarg is not None:
        keywords.append(gast.keyword(arg=None, value=gast.Name(id=arguments.kwarg.id, ctx=gast.Load(),
                                                               annotation=None, type_comment=None)))
    call = gast.Call(func=gast.Name(id=staged_name, ctx=gast.Load(), annotation=None, type_comment=None),
                     args=positional, keywords=keywords)
    dispatch = templates.replace(f'if ag__.{contract.DISPATCH_OPERATOR}():\n    return call', call=call)
    body = function.body
    has_docstring = (body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant)
                     and isinstance(body[0].value.value, str))
    position = 1 if has_docstring else 0
    function.body = body[:position] + dispatch + body[position:]


def dispatch_lines(source: str) -> range:
    """The (0-based) lines of the dispatch in the unparsed plain form ``source``: plumbing, not user code
    (a traceback through them would otherwise list the ``def`` line, whose origin they inherit)."""
    lines = source.split('\n')
    first = lines.index(f'    if ag__.{contract.DISPATCH_OPERATOR}():')
    end = first + 1   # past the `return` (which a long argument list wraps over several lines)
    while end < len(lines) and lines[end].startswith('     '):
        end += 1
    return range(first, end)
