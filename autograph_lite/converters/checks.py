"""Rejects what cannot be converted, with the construct, the user's line and the fix.

Runs first. Nested generator/async functions and classes are marked to be left exactly as written (calls
to them run them as they are, as calls from converted code to such top-level functions do).
"""
import gast

from autograph_lite.pyct.errors import ConversionError
from autograph_lite.pyct import anno, nodes
from autograph_lite.pyct.transformer import SKIP, contains

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
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
        generator = contains(node.body, (gast.Yield, gast.YieldFrom), stop_at=_SCOPES)
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
        for statement in node.finalbody:
            for kind, name in ((gast.Return, 'return'), (gast.Break, 'break'), (gast.Continue, 'continue')):
                stop = _SCOPES if kind is gast.Return else _SCOPES + _LOOPS
                jump = _find(statement, kind, stop)
                if jump is not None:
                    _fail(jump, f"'{name}' inside a 'finally' block cannot be converted: it would "
                          f"silently discard an exception in flight",
                          f"Move the '{name}' after the try statement.")
        self.generic_visit(node)

    def visit_Call(self, node):
        problem = _reads_own_frame(node)
        if problem is not None:
            _fail(node, f"{problem} cannot be converted: it reads the function's own local variables, and "
                  "converted code keeps them elsewhere (in generated functions and their closures), so it "
                  "would silently see other names and values",
                  'Pass the values explicitly (e.g. a dict, or eval/exec with explicit globals and locals), '
                  'or mark the function with @ag.do_not_convert.')
        self.generic_visit(node)


# Builtins that read the local variables of the frame that calls them (when given no namespace).
_NO_ARGUMENT_FRAME_READERS = ('locals', 'vars', 'dir')
_EVALUATORS = ('eval', 'exec')


def _reads_own_frame(call) -> 'str | None':
    """How ``call`` names a builtin reading its caller's locals (``locals()``, ``vars()``, ``dir()``,
    ``eval(s)``, ``exec(s)`` without explicit namespaces), else None. By name: a function of the user's
    called ``locals`` is refused too (it then runs as written, which is always right)."""
    if not isinstance(call.func, gast.Name):
        return None
    name = call.func.id
    if name in _NO_ARGUMENT_FRAME_READERS and not call.args and not call.keywords:
        return f'{name}()'
    if name in _EVALUATORS:
        # Without globals (or with None) they read the caller's frame: converted_call's, in converted code.
        if any(k.arg is None for k in call.keywords) or any(isinstance(a, gast.Starred) for a in call.args):
            return None   # namespaces passed as *args or **kwargs: cannot tell, so converted
        given = call.args[1:2] + [k.value for k in call.keywords if k.arg == 'globals']
        if not given or (isinstance(given[0], gast.Constant) and given[0].value is None):
            return f'{name}() without explicit globals'
    return None


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


def check(node) -> None:
    """Raise ConversionError for unsupported constructs in ``node``; mark nested parts to skip."""
    UnsupportedChecker(node).visit(node)
