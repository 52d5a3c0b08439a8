"""Rejects what cannot be converted, with the construct, the user's line and the fix.

Runs first. Nested generator/async functions and classes are marked to be left exactly as written (calls
to them run them as they are, as calls from converted code to such top-level functions do). What reads the
caller's frame: frame_readers.py.
"""
import gast

from autograph_lite.converters import frame_readers
from autograph_lite.pyct.errors import ConversionError
from autograph_lite.pyct import anno, nodes, scopes
from autograph_lite.pyct.transformer import SKIP, contains
from autograph_lite.pyct.nodes import NESTED_SCOPES

_LOOPS = (gast.While, gast.For)


def _location(node) -> str:
    origin = anno.getanno(node, anno.ORIGIN, None)
    return origin.format() if origin else ''


def _fail(node, problem: str, fix: str):
    raise ConversionError(problem, _location(node), fix)


class UnsupportedChecker:
    """Visits the function being converted (the root) and everything converted with it, depth first
    in field order (``gast.NodeVisitor``'s order, without its per-field generators)."""

    _methods = {}   # node class -> visitor method, or None for generic_visit

    def __init__(self, root):
        self.root = root
        self.scope_of = None   # scopes.scopes_of(root), made when a frame-dependent builtin needs it

    def visit(self, node):
        cls = node.__class__
        try:
            method = self._methods[cls]
        except KeyError:
            method = self._methods[cls] = getattr(UnsupportedChecker, 'visit_' + cls.__name__, None)
        if method is None:
            for child in nodes.children(node):
                self.visit(child)
        else:
            method(self, node)

    def generic_visit(self, node):
        for child in nodes.children(node):
            self.visit(child)

    def visit_FunctionDef(self, node):
        generator = contains(node.body, (gast.Yield, gast.YieldFrom), stop_at=NESTED_SCOPES)
        if node is not self.root and generator:
            anno.setanno(node, SKIP, True)
            return
        if generator:
            statement = next(n for n in nodes.walk(node) if isinstance(n, (gast.Yield, gast.YieldFrom)))
            _fail(statement, f'generator function {node.name!r} cannot be converted: it uses '
                  f'{"yield from" if isinstance(statement, gast.YieldFrom) else "yield"}',
                  'Call the generator from a converted function (it then runs as plain Python), '
                  'or mark it with @ag.do_not_convert.')
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node):
        anno.setanno(node, SKIP, True)

    def visit_ClassDef(self, node):
        anno.setanno(node, SKIP, True)

    def visit_Await(self, node):
        _fail(node, 'await cannot be converted', 'Convert a regular (non-async) function instead.')

    def visit_Try(self, node):
        # (A `return` in `finally` is converted with Python's meaning: converters/return_statements.py.)
        for statement in node.finalbody:
            for kind, name in ((gast.Break, 'break'), (gast.Continue, 'continue')):
                jump = _find(statement, kind, NESTED_SCOPES + _LOOPS)
                if jump is not None:
                    _fail(jump, f"'{name}' inside a 'finally' block cannot be converted: it would "
                          f"silently discard an exception in flight",
                          f"Move the '{name}' after the try statement.")
        self.generic_visit(node)

    def visit_Call(self, node):
        name = frame_readers.builtin_named(node.func)
        if name is None or self._users_own(node.func):
            self.generic_visit(node)
            return
        problem = frame_readers.reads_own_frame(node, name)
        if problem is not None:
            _fail(node, f"{problem} cannot be converted: it reads the function's own local variables, and "
                  "converted code keeps them elsewhere (in generated functions and their closures), so it "
                  "would silently see other names and values",
                  'Pass the values explicitly (e.g. a dict, or eval/exec with explicit globals and locals), '
                  'or mark the function with @ag.do_not_convert.')
        if isinstance(node.func, gast.Attribute) and (name == 'globals' or (name == 'super' and not node.args)):
            # Only calls by the bare name stay in the function's own frame (call_trees.py).
            _fail(node, f"builtins.{name}() cannot be converted: converted code calls it through "
                  "ag__.converted_call, whose frame it would read instead of the function's own",
                  f'Call {name}() by its own name, or mark the function with @ag.do_not_convert.')
        if name == 'super' and not node.args and not node.keywords:
            self._check_super_frame(node)
        for child in node.args + node.keywords:   # not the function: called by its name, checked above
            self.visit(child)

    def visit_Name(self, node):
        if node.id in frame_readers.FRAME_DEPENDENT and isinstance(node.ctx, gast.Load) and not self._users_own(node):
            self._used_as_value(node, node.id)

    def visit_Attribute(self, node):
        name = frame_readers.builtin_named(node)
        if name is not None:
            self._used_as_value(node, f'builtins.{name}')
        self.generic_visit(node)

    def _used_as_value(self, node, shown: str):
        _fail(node, f"{shown} used as a value cannot be converted: what calls it later runs it in another frame "
              "than the function's own (converted code calls through ag__.converted_call and keeps variables in "
              "generated functions), so it would silently read other names and values",
              'Call it directly by its name (eval/exec with explicit globals and locals), or mark the function '
              'with @ag.do_not_convert.')

    def _check_super_frame(self, call):
        scope = scopes.frame_of(self._scope_of()[id(call.func)])
        if scopes.is_comprehension(scope.node):
            kind = 'generator expression' if isinstance(scope.node, gast.GeneratorExp) else 'comprehension'
            _fail(call, f"super() without arguments inside a {kind} cannot be converted: Python runs it in the "
                  f"{kind}'s own frame, whose first argument is its iterator, not the method's (so it raises "
                  "TypeError there), and converted code would use the method's first argument instead",
                  f'Bind `parent = super()` before the {kind} and use `parent` in it, or mark the function '
                  'with @ag.do_not_convert.')

    def _scope_of(self):
        if self.scope_of is None:
            self.scope_of = scopes.scopes_of(self.root)
        return self.scope_of

    def _users_own(self, node) -> bool:
        """True if ``node`` is a name the function itself binds (a parameter ``dir``), not a builtin."""
        if not isinstance(node, gast.Name):
            return False
        scope = self._scope_of().get(id(node))
        return scope is not None and scopes.owner_of(node.id, scope) is not None


def _find(node, kind, stop_at):
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            return current
        if isinstance(current, stop_at):
            continue
        stack.extend(nodes.children(current))
    return None


# The node classes the checker acts on (besides the names of frame_readers.FRAME_DEPENDENT).
_CHECKED_KINDS = frozenset([gast.Yield, gast.YieldFrom, gast.AsyncFunctionDef, gast.ClassDef, gast.Await, gast.Try])


def check(node, ctx=None) -> None:
    """Raise ConversionError for unsupported constructs in ``node``; mark nested parts to skip.

    With the conversion's ``ctx`` (its census of ``node``), a function with nothing the checker acts on
    (no nested def, generator, class, await, try, or name of a frame-dependent builtin) is not walked."""
    if ctx is not None and ctx.function_defs <= 1 and ctx.node_kinds.isdisjoint(_CHECKED_KINDS) and (
            frame_readers.FRAME_DEPENDENT.isdisjoint(ctx.used_names)
            and frame_readers.FRAME_DEPENDENT.isdisjoint(ctx.attribute_names)):
        return
    UnsupportedChecker(node).visit(node)
