"""Definite assignment: the reads of a function's locals that may find the variable with no value.

Python raises UnboundLocalError (NameError from a nested function) at such a read; converted code
keeps variables that some paths do not assign as ``ag__.Undefined`` values, and runs some reads in
generated functions, so such a read may need a check (converters/unbound_reads.py writes those that do). A name is
*definitely assigned* at a point when every path from the function's start
assigns it first; every other read of the name is marked. Runs on the user's own control flow (before
``break``/``continue``/``return`` become flags), where a jump simply ends its path.

Marks: ``anno.UNBOUND_CHECK`` on each such ``Name`` ('defined' when Python reads it as the function's
local, 'defined_free' when it reads it from a nested function, lambda or comprehension), and
``anno.UNBOUND_INITS`` on each function: its names that have such a read.

>>> from autograph_lite.pyct.parser import parse_str
>>> node = parse_str('def f(b):\\n    if b:\\n        x = 1\\n    y = x\\n    return x + y').body[0]
>>> analyze(node)
True
>>> anno.getanno(node, anno.UNBOUND_INITS)
['x']
>>> sorted((n.lineno, anno.getanno(n, anno.UNBOUND_CHECK, None)) for n in gast.walk(node)
...        if isinstance(n, gast.Name) and n.id == 'x')
[(3, None), (4, 'defined'), (5, 'defined')]

A ``with`` body may end early and execution go on after the statement (a context manager whose
``__exit__`` returns True, e.g. ``contextlib.suppress``, swallows the exception): a name the body assigns
first counts as assigned after it only on the path through the body's end, so its later reads are marked
unless it was assigned before the ``with``.
"""
from typing import Dict, FrozenSet, List, Optional

import gast

from autograph_lite.pyct import anno, nodes
from autograph_lite.pyct.scopes import Scope, owner_of, reads_as_local, scopes_of
from autograph_lite.pyct.transformer import SKIP

# The names definitely assigned at a point; None: no path reaches it (every name counts as assigned).
State = Optional[FrozenSet[str]]
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# Checks an earlier converter wrote (converters/deletions.py): their name is checked already.
_CHECKS = ('defined', 'defined_free', 'deleted')


def _join(*states: State) -> State:
    """Where paths meet: the names every reaching path assigned."""
    reaching = [s for s in states if s is not None]
    return frozenset.intersection(*reaching) if reaching else None


def _add(state: State, names) -> State:
    return None if state is None else state | frozenset(names)


def _is_check(node) -> bool:
    func = node.func
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == 'ag__'
            and func.attr in _CHECKS)


def _parameters(node) -> List[str]:
    arguments = node.args
    return [a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
            + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]]


class _Function:
    """The flow of one function's own locals through its statements."""

    def __init__(self, node, scope_of: Dict[int, Scope]):
        self.node, self.scope_of = node, scope_of
        self.scope = scope_of[id(node.body[0])]
        self.unsafe: set = set()                 # names with a marked read
        self.breaks: List[List[State]] = []      # per enclosing loop: the states its breaks leave with
        self.nested_marked = False               # a nested function has a marked read of its own

    def run(self) -> bool:
        """Mark this function's reads (and its nested functions'); True if any read was marked."""
        self.block(self.node.body, frozenset(_parameters(self.node)))
        if self.unsafe:
            anno.setanno(self.node, anno.UNBOUND_INITS, sorted(self.unsafe))
        return bool(self.unsafe) or self.nested_marked

    # --- names -------------------------------------------------------------------------------------

    def _ours(self, name_node) -> bool:
        scope = self.scope_of.get(id(name_node))   # none: an annotation of a nested def's arguments
        return scope is not None and owner_of(name_node.id, scope) is self.scope

    def read(self, node, state: State) -> None:
        if state is None or node.id in state or not self._ours(node):
            return
        local = reads_as_local(self.scope_of[id(node)], self.scope)
        anno.setanno(node, anno.UNBOUND_CHECK, 'defined' if local else 'defined_free')
        self.unsafe.add(node.id)

    def later_reads(self, node, state: State) -> None:
        """Reads inside a nested function, lambda, class body or comprehension: they see this function's
        variables as they are when (if ever) that code runs; a name assigned here by then stays assigned."""
        stack = [node]
        while stack:
            child = stack.pop()
            if isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load):
                self.read(child, state)
            elif not (isinstance(child, gast.Call) and _is_check(child)):
                stack.extend(nodes.children(child))

    def target(self, node, state: State) -> State:
        """Assign to ``node`` (after the value is evaluated)."""
        if isinstance(node, gast.Name):
            return _add(state, [node.id]) if self._ours(node) else state
        if isinstance(node, (gast.Tuple, gast.List)):
            for element in node.elts:
                state = self.target(element, state)
            return state
        if isinstance(node, gast.Starred):
            return self.target(node.value, state)
        return self.expression(node, state)   # a.b / a[i]: reads a (and i)

    # --- expressions ---------------------------------------------------------------------------------

    def expression(self, node, state: State) -> State:
        """Check the reads of ``node`` in evaluation order; the state after it (walrus targets assigned)."""
        if node is None:
            return state
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                self.read(node, state)
            return state
        if isinstance(node, gast.NamedExpr):
            return self.target(node.target, self.expression(node.value, state))
        if isinstance(node, gast.BoolOp):
            first = state = self.expression(node.values[0], state)
            for value in node.values[1:]:
                state = self.expression(value, state)   # runs only if the ones before it did
            return first
        if isinstance(node, gast.Compare) and len(node.comparators) > 1:
            # `a < (y := b) < (z := c)`: each operand after the second runs only if the links before held.
            first = state = self.expression(node.comparators[0], self.expression(node.left, state))
            for value in node.comparators[1:]:
                state = self.expression(value, state)
            return first
        if isinstance(node, gast.IfExp):
            state = self.expression(node.test, state)
            return _join(self.expression(node.body, state), self.expression(node.orelse, state))
        if isinstance(node, _COMPREHENSIONS):
            state = self.expression(node.generators[0].iter, state)
            for part in [node.generators[0].target] + node.generators[0].ifs + node.generators[1:]:
                self.later_reads(part, state)
            for field in ('elt', 'key', 'value'):
                if getattr(node, field, None) is not None:
                    self.later_reads(getattr(node, field), state)
            return state
        if isinstance(node, gast.Lambda):
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                state = self.expression(default, state)
            self.later_reads(node.body, state)
            return state
        if isinstance(node, gast.Call) and _is_check(node):
            return state
        for child in nodes.children(node):
            state = self.expression(child, state)
        return state

    # --- statements ----------------------------------------------------------------------------------

    def block(self, statements, state: State) -> State:
        for statement in statements:
            state = self.statement(statement, state)
        return state

    def statement(self, node, state: State) -> State:
        method = getattr(self, 'visit_' + node.__class__.__name__, None)
        if method is not None:
            return method(node, state)
        for child in nodes.children(node):   # Expr, Assert, Pass, Global, ...
            state = self.expression(child, state)
        return state

    def visit_Assign(self, node, state):
        state = self.expression(node.value, state)
        for target in node.targets:
            state = self.target(target, state)
        return state

    def visit_AnnAssign(self, node, state):
        if node.value is None:
            return state if isinstance(node.target, gast.Name) else self.expression(node.target.value, state)
        return self.target(node.target, self.expression(node.value, state))

    def visit_AugAssign(self, node, state):
        if isinstance(node.target, gast.Name):
            target = gast.Name(node.target.id, gast.Load(), None, None)   # `x += 1` reads x first
            self.scope_of[id(target)] = self.scope_of[id(node.target)]
            self.read(target, state)
            if anno.hasanno(target, anno.UNBOUND_CHECK):
                anno.setanno(node.target, anno.UNBOUND_CHECK, anno.getanno(target, anno.UNBOUND_CHECK))
            return self.target(node.target, self.expression(node.value, state))
        return self.expression(node.value, self.expression(node.target, state))

    def visit_Delete(self, node, state):
        for target in node.targets:
            if isinstance(target, gast.Name):   # (converters/deletions.py rewrote those of locals)
                if state is not None and self._ours(target):
                    state = state - {target.id}
            else:
                state = self.expression(target, state)
        return state

    def visit_Import(self, node, state):
        return _add(state, [(alias.asname or alias.name).split('.')[0] for alias in node.names])

    visit_ImportFrom = visit_Import

    def visit_FunctionDef(self, node, state):
        for part in node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            state = self.expression(part, state)
        self.later_reads(node, state)
        if not anno.getanno(node, SKIP, False):
            self.nested_marked = _Function(node, self.scope_of).run() or self.nested_marked
        return self._binds(node.name, state)

    def visit_ClassDef(self, node, state):
        for part in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            state = self.expression(part, state)
        self.later_reads(node, state)
        return self._binds(node.name, state)

    def _binds(self, name: str, state: State) -> State:
        return _add(state, [name]) if owner_of(name, self.scope) is self.scope else state

    def visit_If(self, node, state):
        state = self.expression(node.test, state)
        return _join(self.block(node.body, state), self.block(node.orelse, state))

    def _loop(self, node, state: State, body_state: State, always_loops: bool) -> State:
        """A loop's body runs with what is assigned before its first iteration (later iterations only add
        names); it is left when the test fails (then the else) or by a break."""
        self.breaks.append([])
        self.block(node.body, body_state)
        breaks = self.breaks.pop()
        exit_state = None if always_loops else self.block(node.orelse, state)
        return _join(exit_state, *breaks)

    def visit_While(self, node, state):
        state = self.expression(node.test, state)
        always = isinstance(node.test, gast.Constant) and bool(node.test.value)
        return self._loop(node, state, state, always)

    def visit_For(self, node, state):
        state = self.expression(node.iter, state)
        return self._loop(node, state, self.target(node.target, state), False)

    def visit_Break(self, node, state):
        if self.breaks:
            self.breaks[-1].append(state)
        return None

    def visit_Continue(self, node, state):
        return None

    def visit_Return(self, node, state):
        self.expression(node.value, state)
        return None

    def visit_Raise(self, node, state):
        self.expression(node.cause, self.expression(node.exc, state))
        return None

    def visit_Try(self, node, state):
        # An exception may leave the body anywhere: handlers and finally see only what held before it.
        body = self.block(node.body, state)
        handlers = []
        for handler in node.handlers:
            handler_state = self.expression(handler.type, state)
            if handler.name is not None:
                handler_state = self.target(handler.name, handler_state)
            handlers.append(self.block(handler.body, handler_state))
        completed = _join(self.block(node.orelse, body), *handlers)
        final = self.block(node.finalbody, state)
        return None if completed is None or final is None else completed | final

    def visit_With(self, node, state):
        early = None
        for item in node.items:
            state = self.expression(item.context_expr, state)
            if item.optional_vars is not None:
                state = self.target(item.optional_vars, state)
            if early is None:
                early = state
        # An exception a context manager suppresses leaves the body anywhere (even past a return), or the
        # later items: `with suppress(E), opener() as f:` goes on without f if opener() raises E.
        return _join(early, self.block(node.body, state))


def analyze(function_node) -> bool:
    """Mark the reads of ``function_node``'s locals (and of its nested functions' locals) that may find
    no value, and record on each function the names that have such a read; True if any read was marked."""
    return _Function(function_node, scopes_of(function_node)).run()
