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
        self.summaries: Dict[int, Summary] = {}

    def block_summary(self, statements) -> Summary:
        gen, kill = _EMPTY, _EMPTY
        for statement in reversed(statements):
            s_gen, s_kill = self.summary(statement)
            gen = s_gen | (gen - s_kill)
            kill = s_kill | kill
        return gen, kill

    def summary(self, node) -> Summary:
        key = id(node)
        if key not in self.summaries:
            self.summaries[key] = self._summary(node)
        return self.summaries[key]

    def _summary(self, node) -> Summary:
        activity = anno.getanno(node, anno.ACTIVITY)
        header = activity.header_reads
        if isinstance(node, gast.If):
            body, orelse = self.block_summary(node.body), self.block_summary(node.orelse)
            return header | body[0] | orelse[0], body[1] & orelse[1]
        if isinstance(node, gast.While):
            body, orelse = self.block_summary(node.body), self.block_summary(node.orelse)
            return header | body[0] | orelse[0], orelse[1]
        if isinstance(node, gast.For):
            body, orelse = self.block_summary(node.body), self.block_summary(node.orelse)
            return header | (body[0] - _names(node.target)) | orelse[0], orelse[1]
        if isinstance(node, gast.Try):
            parts = [self.block_summary(b) for b in [node.body, node.orelse, node.finalbody]]
            parts += [self.block_summary(h.body) for h in node.handlers]
            return frozenset().union(*(p[0] for p in parts)) | header, parts[2][1]
        if isinstance(node, gast.With):
            body = self.block_summary(node.body)
            as_names = frozenset().union(*(_names(i.optional_vars) for i in node.items if i.optional_vars))
            return header | (body[0] - as_names), body[1] | as_names
        kill = frozenset(qn.text for qn in activity.modified if qn.is_simple)
        if isinstance(node, gast.Delete):
            kill = _EMPTY
        return activity.reads, kill

    def live_in(self, statements, live_out: FrozenSet[str]) -> FrozenSet[str]:
        gen, kill = self.block_summary(statements)
        return gen | (live_out - kill)

    def block(self, statements, live_out: FrozenSet[str]) -> FrozenSet[str]:
        live = live_out
        for statement in reversed(statements):
            anno.setanno(statement, anno.LIVE_OUT, live | self.always_live)
            self.children(statement, live)
            gen, kill = self.summary(statement)
            anno.setanno(statement, anno.GEN, gen)
            live = gen | (live - kill)
        return live

    def children(self, node, live: FrozenSet[str]) -> None:
        header = anno.getanno(node, anno.ACTIVITY).header_reads
        if isinstance(node, gast.If):
            self.block(node.body, live)
            self.block(node.orelse, live)
        elif isinstance(node, (gast.While, gast.For)):
            body_gen = self.block_summary(node.body)[0]
            if isinstance(node, gast.For):
                body_gen = body_gen - _names(node.target)
                extra = anno.getanno(node, anno.EXTRA_LOOP_TEST, None)
                header = _reads(extra)
            loop_head = header | body_gen | self.live_in(node.orelse, live)
            anno.setanno(node, anno.LOOP_HEAD_LIVE, loop_head | self.always_live)
            self.block(node.body, loop_head)
            self.block(node.orelse, live)
        elif isinstance(node, gast.Try):
            after_final = self.live_in(node.finalbody, live)
            handlers_gen = frozenset().union(*(self.block_summary(h.body)[0] for h in node.handlers))
            self.block(node.body, after_final | handlers_gen | self.live_in(node.orelse, after_final))
            for handler in node.handlers:
                self.block(handler.body, after_final)
            self.block(node.orelse, after_final)
            self.block(node.finalbody, live)
        elif isinstance(node, gast.With):
            self.block(node.body, live)


def _names(target) -> FrozenSet[str]:
    return frozenset(n.id for n in nodes.walk(target) if isinstance(n, gast.Name))


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
