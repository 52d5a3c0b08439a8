"""Liveness: which plain names may still be read after each statement.

Works on structured code (the converters lower break/continue/return to flags first), so each
statement's effect is summarised as (gen, kill): names read before being assigned, and names
certainly assigned. Blocks compose those summaries bottom-up once; the live-out sets are then
pushed top-down once - linear in the size of the function. Requires activity annotations.

>>> from autograph_lite.pyct.parser import parse_str
>>> node = parse_str('def f(a):\\n    b = a\\n    if a:\\n        b = 1\\n    return b').body[0]
>>> from autograph_lite.pyct.static_analysis import activity
>>> _ = activity.analyze_function(node)
>>> analyze(node); sorted(anno.getanno(node.body[1], anno.LIVE_OUT))
['b']
"""
from typing import Dict, FrozenSet, Set, Tuple

import gast

from autograph_lite.pyct import anno, nodes

Summary = Tuple[FrozenSet[str], FrozenSet[str]]  # (gen, kill)
_EMPTY: FrozenSet[str] = frozenset()


class _Liveness:

    def __init__(self, always_live: Set[str]):
        self.always_live = frozenset(always_live)
        self.summaries: Dict[Tuple[int, bool], Summary] = {}

    def block_summary(self, statements, strict: bool = False) -> Summary:
        gen, kill = _EMPTY, _EMPTY
        for statement in reversed(statements):
            s_gen, s_kill = self.summary(statement, strict)
            gen = s_gen | (gen - s_kill)
            kill = s_kill | kill
        return gen, kill

    def summary(self, node, strict: bool = False) -> Summary:
        """``strict``: as if every ``with`` body ran to its end (see ``children``, loops)."""
        key = (id(node), strict)
        if key not in self.summaries:
            self.summaries[key] = self._summary(node, strict)
        return self.summaries[key]

    def _summary(self, node, strict: bool) -> Summary:
        activity = anno.getanno(node, anno.ACTIVITY)
        header = activity.header_reads
        cls = node.__class__   # (gast's node classes have no subclasses: compared by identity, per statement)
        if cls is gast.If:
            # A walrus in the test (`if (ys := xs):`) assigns before either branch runs.
            test = _walrus_targets(node.test)
            body, orelse = self.block_summary(node.body, strict), self.block_summary(node.orelse, strict)
            return header | ((body[0] | orelse[0]) - test), test | (body[1] & orelse[1])
        if cls is gast.While:
            test = _walrus_targets(node.test)   # evaluated before the body and before the else
            body, orelse = self.block_summary(node.body, strict), self.block_summary(node.orelse, strict)
            return header | ((body[0] | orelse[0]) - test), test | orelse[1]
        if cls is gast.For:
            before = _walrus_targets(node.iter)
            body, orelse = self.block_summary(node.body, strict), self.block_summary(node.orelse, strict)
            return header | ((body[0] - _names(node.target) | orelse[0]) - before), before | orelse[1]
        if cls is gast.Try:
            parts = [self.block_summary(b, strict) for b in [node.body, node.orelse, node.finalbody]]
            parts += [self.block_summary(h.body, strict) for h in node.handlers]
            return frozenset().union(*(p[0] for p in parts)) | header, parts[2][1]
        if cls is gast.With:
            # The body may stop anywhere and execution go on after the with (an exception its context
            # manager suppresses, e.g. contextlib.suppress): what it assigns is not certainly assigned.
            # So may the later items (the first item's context manager may suppress what they raise).
            body = self.block_summary(node.body, strict)
            as_names = frozenset().union(*(_names(i.optional_vars) for i in node.items if i.optional_vars))
            first = node.items[0].optional_vars
            certain = as_names if strict else (_names(first) if first is not None else _EMPTY)
            return header | (body[0] - as_names), certain | (body[1] if strict else _EMPTY)
        kill = frozenset(qn.text for qn in activity.modified if qn.is_simple)
        if cls is gast.Delete:
            kill = _EMPTY
        return activity.reads, kill

    def live_in(self, statements, live_out: FrozenSet[str]) -> FrozenSet[str]:
        gen, kill = self.block_summary(statements)
        return gen | (live_out - kill)

    def block(self, statements, live_out: FrozenSet[str], raised: FrozenSet[str] = _EMPTY) -> FrozenSet[str]:
        """``raised``: the names live where an exception raised in ``statements`` goes on (an enclosing
        ``except`` or ``finally``, or the code after a ``with`` whose context manager suppresses it)."""
        live = live_out | raised
        for statement in reversed(statements):
            anno.setanno(statement, anno.LIVE_OUT, live | self.always_live)
            self.children(statement, live, raised)
            gen, kill = self.summary(statement)
            anno.setanno(statement, anno.GEN, gen)
            live = gen | (live - kill) | raised
        return live

    def children(self, node, live: FrozenSet[str], raised: FrozenSet[str]) -> None:
        header = anno.getanno(node, anno.ACTIVITY).header_reads
        cls = node.__class__
        if cls is gast.If:
            self.block(node.body, live, raised)
            self.block(node.orelse, live, raised)
        elif cls is gast.While or cls is gast.For:
            target = _EMPTY
            if cls is gast.For:
                target = _names(node.target)
                header = _reads(anno.getanno(node, anno.EXTRA_LOOP_TEST, None))
            after = header | self.live_in(node.orelse, live)
            loop_head = after | (self.block_summary(node.body, strict=True)[0] - target)
            # A name the body assigns in a `with` and reads after it keeps the last iteration's value when
            # the context manager suppresses an exception first: carried when it may have a value before
            # the loop (reaching_definitions). One the loop assigns first is not: in a graph loop, whose body
            # is traced once for all iterations, its read would raise anyway, and carrying it costs a retrace
            # and a loop variable (the GradientTape idiom); a Python loop keeps it in the body's nonlocal
            # (its read is checked, so it starts as an Undefined in the function: unbound_reads.py).
            suppressed = (self.block_summary(node.body)[0] - target) - loop_head
            if suppressed:
                loop_head |= suppressed & anno.getanno(node, anno.ASSIGNED_IN, suppressed)
            anno.setanno(node, anno.LOOP_HEAD_LIVE, loop_head | self.always_live)
            self.block(node.body, loop_head, raised)
            self.block(node.orelse, live, raised)
        elif cls is gast.Try:
            after_final = self.live_in(node.finalbody, live)
            # What a handler or the finally reads must be live everywhere in the body: the exception may
            # leave it after any statement. An exception in a handler or the else goes to the finally too.
            caught = after_final.union(*(self.live_in(h.body, after_final) for h in node.handlers))
            finally_raised = raised | self.live_in(node.finalbody, raised)
            self.block(node.body, self.live_in(node.orelse, after_final), finally_raised | caught)
            for handler in node.handlers:
                self.block(handler.body, after_final, finally_raised)
            self.block(node.orelse, after_final, finally_raised)
            self.block(node.finalbody, live, raised)
        elif cls is gast.With:
            self.block(node.body, live, raised | live)   # a suppressed exception goes on after the with


def _names(target) -> FrozenSet[str]:
    return frozenset(n.id for n in nodes.walk(target) if isinstance(n, gast.Name))


def _walrus_targets(expression) -> FrozenSet[str]:
    """The names a walrus in ``expression`` certainly assigns: not one in an operand that may not be evaluated
    (of ``and``/``or`` after the first, a branch of ``a if c else b``, a later operand of a comparison chain)
    nor in a lambda or comprehension."""
    found = set()
    stack = [expression]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.NamedExpr) and isinstance(node.target, gast.Name):
            found.add(node.target.id)
        if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            continue
        if isinstance(node, gast.BoolOp):
            stack.append(node.values[0])
        elif isinstance(node, gast.IfExp):
            stack.append(node.test)
        elif isinstance(node, gast.Compare):
            stack += [node.left, node.comparators[0]]
        else:
            stack += list(nodes.children(node))
    return frozenset(found)


def _reads(expression) -> FrozenSet[str]:
    if expression is None:
        return _EMPTY
    return frozenset(n.id for n in nodes.walk(expression)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))


def analyze(function_node, always_live: FrozenSet[str] = _EMPTY) -> None:
    """Annotate each statement of the function (and of nested functions) with LIVE_OUT."""
    scope = anno.getanno(function_node, anno.SCOPE)
    _Liveness((scope.always_live | always_live) & scope.locals).block(function_node.body, _EMPTY)
    for nested in scope.nested_functions:
        analyze(nested, always_live)
