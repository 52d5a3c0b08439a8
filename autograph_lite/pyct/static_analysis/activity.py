"""Activity analysis: which symbols each statement reads and modifies, and each function's scope.

Nested functions and lambdas are separate scopes: at the point where they are defined they count as
reading their free variables. Every statement gets an ``Activity`` annotation (compound statements
aggregate their children) and every function/lambda a ``FunctionScope``.

A local helper that rebinds one of our variables through ``nonlocal`` (itself or in its own nested
defs) rebinds it wherever it is called: a direct call of the helper by name reads and modifies those
variables, so loops and branches that call it carry them as state. A helper used as a value (``g = helper``,
``run(helper)``, ``[helper]``, or called from a lambda) may be called by any call: then every statement
with a call reads and modifies them (``ANY_CALL``).

>>> from autograph_lite.pyct.parser import parse_str
>>> node = parse_str('def f(a):\\n    b = a + c\\n').body[0]
>>> scope = analyze_function(node)
>>> sorted(scope.locals), sorted(scope.free_reads)
(['a', 'b'], ['c'])
"""
import weakref
from typing import Dict, FrozenSet, List, NamedTuple, Set

import gast

from autograph_lite.pyct import anno, nodes, qual_names
from autograph_lite.pyct.qual_names import QN

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
# In ``called``: the statement makes some call (which may call a helper used as a value).
ANY_CALL = '<a call>'
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class Activity(NamedTuple):
    reads: FrozenSet[str]        # plain names read (the root of `a.b` counts as read)
    modified: FrozenSet[QN]      # names and composite symbols (a.b, a[0]) assigned or deleted
    header_reads: FrozenSet[str]  # compound statements: names read by the test / iterable / items
    called: FrozenSet[str] = frozenset()  # plain names called directly: `f(...)`; ANY_CALL if any call
    in_place: FrozenSet[str] = frozenset()  # locals changed in place (anno.IN_PLACE: `xs[i] = v`, `xs.append(v)`)


class FunctionScope:
    """Names of one function scope."""

    def __init__(self, node):
        # Weak: the node holds this scope in its annotations, and a cycle would keep the whole converted
        # tree alive until the cyclic garbage collector runs (the node outlives every use of its scope).
        self._node = weakref.ref(node)
        self.params: Set[str] = set()
        self.assigned: Set[str] = set()
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()
        self.reads: Set[str] = set()
        self.called: Set[str] = set()        # plain names this scope calls directly
        self.values: Set[str] = set()        # names this scope or a nested one uses other than by calling them
        self.nested_free: Set[str] = set()   # free names of nested scopes
        self.nested_called: Set[str] = set()  # free names nested scopes call directly
        self.nested_rebinds: Set[str] = set()  # names nested scopes rebind outside themselves
        self.nested_functions: List = []     # directly nested FunctionDef nodes

    @property
    def node(self):
        """The function node of this scope."""
        return self._node()

    @property
    def locals(self) -> Set[str]:
        return (self.params | self.assigned) - self.globals - self.nonlocals

    @property
    def free_reads(self) -> Set[str]:
        """Names this scope (or a nested one) uses from outside, incl. nonlocal writes."""
        return ((self.reads | self.nested_free) - self.locals) | self.nonlocals

    @property
    def free_calls(self) -> Set[str]:
        """Names this scope (or a nested one) calls that are not its own locals."""
        return (self.called | self.nested_called) - self.locals

    @property
    def rebinds_outside(self) -> Set[str]:
        """Names of enclosing scopes this scope (or a nested one) declares ``nonlocal``."""
        return self.nonlocals | (self.nested_rebinds - self.locals)

    @property
    def captured(self) -> Set[str]:
        """Locals that nested scopes read or rebind: a closure may observe them at any time."""
        return self.nested_free & self.locals

    @property
    def always_live(self) -> Set[str]:
        """Names whose values may be observed outside the normal flow of this function."""
        return self.captured | self.globals | self.nonlocals


def _target_names(target) -> Set[str]:
    return {n.id for n in nodes.walk(target) if isinstance(n, gast.Name)}


def _called_name(call: gast.Call):
    """The plain name a call invokes, also once the call_trees converter made it a converted_call."""
    func = call.func
    if (isinstance(func, gast.Attribute) and func.attr == 'converted_call'
            and isinstance(func.value, gast.Name) and func.value.id == 'ag__' and call.args):
        func = call.args[0]   # ag__.converted_call(f, args, kwargs) calls f
    return func.id if isinstance(func, gast.Name) else None


class _Scanner:
    """Collects reads and modifications of an expression or simple statement (not nested scopes).

    Visits as ``gast.NodeVisitor`` does (``visit_<Class>``, else every child in field order), with the
    method of each node class looked up once and without the per-field generators (every converted
    statement is scanned)."""

    _methods: Dict[type, object] = {}

    def visit(self, node) -> None:
        method = self._methods.get(node.__class__)
        if method is None:
            method = self._methods[node.__class__] = getattr(_Scanner, 'visit_' + node.__class__.__name__,
                                                             _Scanner.generic_visit)
        method(self, node)

    def generic_visit(self, node) -> None:
        for child in nodes.children(node):
            self.visit(child)

    def __init__(self, scope: FunctionScope):
        self.scope = scope
        self.reads: Set[str] = set()
        self.modified: Set[QN] = set()
        self.called: Set[str] = set()
        self.values: Set[str] = set()   # names read other than as the function of a direct call
        # Names a walrus has surely bound earlier in the same expression: `(t := x) + t` does not
        # read t before writing it. Not under `and`/`or`/`if-else`, which may skip the walrus.
        self.walrus_bound: Set[str] = set()
        self.conditional = 0

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        self.modified.add(qual_names.simple(node.target.id))
        if not self.conditional:
            self.walrus_bound.add(node.target.id)

    def visit_BoolOp(self, node):
        self.visit(node.values[0])
        self.conditional += 1
        for value in node.values[1:]:
            self.visit(value)
        self.conditional -= 1

    def visit_IfExp(self, node):
        self.visit(node.test)
        self.conditional += 1
        self.visit(node.body)
        self.visit(node.orelse)
        self.conditional -= 1

    def visit_Call(self, node):
        self.called.add(ANY_CALL)
        name = _called_name(node)
        if name is None:
            self.generic_visit(node)
            return
        self.called.add(name)
        callee = node.func if isinstance(node.func, gast.Name) else node.args[0]
        if callee.id not in self.walrus_bound:
            self.reads.add(callee.id)   # read, not used as a value
        for child in nodes.children(node):
            if child is not callee:
                self.visit(child)

    def visit_Name(self, node):
        context = node.ctx.__class__
        if context is gast.Load:
            self.values.add(node.id)
            if node.id not in self.walrus_bound:
                self.reads.add(node.id)
        elif context is gast.Store or context is gast.Del:
            self.modified.add(qual_names.simple(node.id))
            if context is gast.Del:
                self.reads.add(node.id)

    def _composite(self, node):
        qn = qual_names.qn_of(node)
        if qn is not None and not isinstance(node.ctx, gast.Load):
            self.modified.add(qn)
        # The base object (and any index) is read either way.
        self.visit(node.value)
        if isinstance(node, gast.Subscript):
            self.visit(node.slice)

    visit_Attribute = _composite
    visit_Subscript = _composite

    def _nested(self, node):
        nested = analyze_function(node)
        self.reads |= nested.free_reads
        self.values |= nested.free_reads   # a lambda is a value: whoever calls it calls what it calls
        self.scope.nested_free |= nested.free_reads
        self.scope.nested_called |= nested.free_calls

    def visit_Lambda(self, node):
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        self._nested(node)

    def _comprehension(self, node):
        inner = _Scanner(self.scope)
        targets: Set[str] = set()
        for i, generator in enumerate(node.generators):
            (self if i == 0 else inner).visit(generator.iter)
            targets |= _target_names(generator.target)
            for condition in generator.ifs:
                inner.visit(condition)
        for field in ('elt', 'key', 'value'):
            if hasattr(node, field):
                inner.visit(getattr(node, field))
        self.reads |= inner.reads - targets
        self.values |= inner.values - targets
        self.modified |= {qn for qn in inner.modified if qn.root not in targets}
        self.called |= inner.called - targets

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


# Statements with parts that ``_header``/``_bodies`` pick out; the others are scanned whole.
_WITH_PARTS = frozenset([gast.If, gast.While, gast.For, gast.With, gast.Try, gast.FunctionDef, gast.ClassDef])
# Statements without parts that ``statement`` looks at further.
_SIMPLE_WITH_EFFECTS = frozenset([gast.Import, gast.ImportFrom, gast.Global, gast.Nonlocal, gast.AugAssign])


class _Analyzer:

    def __init__(self, scope: FunctionScope):
        self.scope = scope
        self.statements: List = []   # every statement of this scope, to add helper calls' effects

    def scan(self, *nodes):
        scanner = _Scanner(self.scope)
        for node in nodes:
            if node is not None:
                scanner.visit(node)
        self.scope.values |= scanner.values
        return scanner

    def block(self, statements) -> Activity:
        reads: Set[str] = set()
        modified: Set[QN] = set()
        called: Set[str] = set()
        in_place: Set[str] = set()
        for statement in statements:
            activity = self.statement(statement)
            reads |= activity.reads
            modified |= activity.modified
            called |= activity.called
            in_place |= activity.in_place
        return Activity(frozenset(reads), frozenset(modified), frozenset(), frozenset(called), frozenset(in_place))

    def statement(self, node) -> Activity:
        cls = node.__class__
        simple = cls not in _WITH_PARTS   # most statements: one expression scan, no nested blocks
        header = self.scan(node) if simple else self.scan(*self._header(node))
        reads, modified, called = set(header.reads), set(header.modified), set(header.called)
        annotations = node.__dict__.get(anno.FIELD)   # anno.getanno, inlined (every statement)
        in_place = {annotations[anno.IN_PLACE]} if annotations and anno.IN_PLACE in annotations else set()
        for body in () if simple else self._bodies(node):
            activity = self.block(body)
            reads |= activity.reads
            modified |= activity.modified
            called |= activity.called
            in_place |= activity.in_place
        if simple and cls not in _SIMPLE_WITH_EFFECTS:
            pass   # an assignment, a call, a return...: its scan says it all
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            if isinstance(node, gast.FunctionDef):
                self.scope.nested_functions.append(node)
                nested = analyze_function(node)
                reads |= nested.free_reads
                self.scope.nested_free |= nested.free_reads
                self.scope.nested_called |= nested.free_calls
                self.scope.nested_rebinds |= nested.rebinds_outside
                self.scope.values |= nested.values - nested.locals
            modified.add(qual_names.simple(node.name))
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            modified |= {qual_names.simple((a.asname or a.name).split('.')[0]) for a in node.names}
        elif isinstance(node, gast.Global):
            self.scope.globals |= set(node.names)
        elif isinstance(node, gast.Nonlocal):
            self.scope.nonlocals |= set(node.names)
        elif isinstance(node, gast.Try):
            modified |= {qual_names.simple(h.name.id) for h in node.handlers if h.name is not None}
        elif isinstance(node, gast.AugAssign):
            qn = qual_names.qn_of(node.target)
            if qn is not None:
                reads.add(qn.root)
        self.scope.reads |= reads
        self.scope.called |= called
        self.scope.assigned |= {qn.text for qn in modified if qn.is_simple}
        activity = Activity(frozenset(reads), frozenset(modified), frozenset(header.reads), frozenset(called),
                            frozenset(in_place))
        anno.setanno(node, anno.ACTIVITY, activity)
        self.statements.append(node)
        return activity

    def add_helper_effects(self) -> None:
        """A call of a local helper reads and rebinds the variables it declares nonlocal.

        Runs once the whole scope is known, so a helper defined below a call (later in a loop
        body) still counts; each statement's ``called`` already includes its children's calls.
        """
        effects = _helper_effects(self.scope)
        if not effects:
            return
        for node in self.statements:
            activity = anno.getanno(node, anno.ACTIVITY)
            # A while test's calls count too: a staged loop then refuses a test that rebinds state.
            names = set().union(*(effects.get(name, ()) for name in activity.called))
            if names:
                anno.setanno(node, anno.ACTIVITY, activity._replace(
                    reads=activity.reads | names,
                    modified=activity.modified | {qual_names.simple(n) for n in names}))

    @staticmethod
    def _header(node):
        """Expressions a statement evaluates itself (not in its nested blocks)."""
        if isinstance(node, (gast.If, gast.While)):
            return [node.test, anno.getanno(node, anno.EXTRA_LOOP_TEST, None)]
        if isinstance(node, gast.For):
            return [node.iter, node.target, anno.getanno(node, anno.EXTRA_LOOP_TEST, None)]
        if isinstance(node, gast.With):
            return [part for item in node.items for part in (item.context_expr, item.optional_vars)]
        if isinstance(node, gast.Try):
            return [h.type for h in node.handlers]
        if isinstance(node, gast.FunctionDef):
            args = node.args
            return node.decorator_list + args.defaults + [d for d in args.kw_defaults if d is not None]
        if isinstance(node, gast.ClassDef):
            return node.decorator_list + node.bases + [k.value for k in node.keywords]
        return [node]

    @staticmethod
    def _bodies(node):
        if isinstance(node, (gast.If, gast.While, gast.For)):
            return [node.body, node.orelse]
        if isinstance(node, gast.With):
            return [node.body]
        if isinstance(node, gast.Try):
            return [node.body, node.orelse, node.finalbody] + [h.body for h in node.handlers]
        return []


def _helper_effects(scope: FunctionScope) -> Dict[str, Set[str]]:
    """Local function name -> this scope's variables a call of it may rebind (directly, through
    its nested defs, or through other local helpers it calls).

    Flow-insensitive: if a name is bound to a rebinding def anywhere in the scope, every direct
    call of that name here may be that def (carrying an unchanged variable is harmless; missing a
    rebound one would silently freeze it at its trace-time value). ``ANY_CALL`` -> what the helpers
    used as values may rebind (any call may be one of them).
    """
    rebinds: Dict[str, Set[str]] = {}
    calls: Dict[str, Set[str]] = {}
    for function in scope.nested_functions:
        nested = anno.getanno(function, anno.SCOPE)
        rebinds.setdefault(function.name, set()).update(nested.rebinds_outside)
        calls.setdefault(function.name, set()).update(nested.free_calls)
    escaped = scope.values & rebinds.keys()
    changed = True
    while changed:   # helpers calling helpers: propagate until nothing new (a few rounds at most)
        changed = False
        anything = set().union(*(rebinds[name] for name in escaped))
        for name, callees in calls.items():
            before = len(rebinds[name])
            for callee in callees & rebinds.keys():
                rebinds[name] |= rebinds[callee]
            if ANY_CALL in callees:
                rebinds[name] |= anything
            changed = changed or len(rebinds[name]) != before
    ours = scope.locals | scope.nonlocals
    effects = {name: names & ours for name, names in rebinds.items() if names & ours}
    anything = set().union(*(rebinds[name] for name in escaped)) & ours
    if anything:
        effects[ANY_CALL] = anything
    return effects


def analyze_function(node) -> FunctionScope:
    """Annotate every statement of function/lambda ``node`` with its Activity; returns its scope."""
    scope = FunctionScope(node)
    args = node.args
    every_arg = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    scope.params = {arg.id for arg in every_arg}
    analyzer = _Analyzer(scope)
    if isinstance(node, gast.Lambda):
        body = analyzer.scan(node.body)
        scope.reads |= body.reads
        scope.called |= body.called
    else:
        analyzer.block(node.body)
        analyzer.add_helper_effects()
    anno.setanno(node, anno.SCOPE, scope)
    return scope
