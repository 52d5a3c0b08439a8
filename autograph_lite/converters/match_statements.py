"""``match`` statements whose patterns are values, ``None``/``True``/``False``, ``|``, ``as`` and ``_`` (with
guards) -> an ``if``/``elif`` chain, which the control flow converter then stages on a tensor subject:

    match command:                       if command == 'go' or command == 'run':
        case 'go' | 'run':                   ...
            ...                          elif command is None:
        case None:                 ->        ...
            ...                          else:
        case other if other > 0:             other = command
            ...                              if other > 0:
                                                 ...

A subject other than a plain name is evaluated once, into a fresh variable. As in Python, a value
pattern compares with ``==`` and ``None``/``True``/``False`` with ``is`` (a tensor is never ``True``). Sequence, mapping, class
and star patterns are not converted: ``convertible`` says so, and converters/checks.py names the
pattern and the line (a match on a symbolic tensor never runs as Python's own).
"""
from typing import Optional

import gast

from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import Transformer, propagate_origin

_SIMPLE = (gast.MatchValue, gast.MatchSingleton)
_KINDS = {gast.MatchSequence: 'sequence', gast.MatchMapping: 'mapping', gast.MatchClass: 'class',
          gast.MatchStar: 'star'}


def unsupported_pattern(node) -> Optional[gast.AST]:
    """The first pattern of match statement ``node`` that is not converted (None if all are)."""
    for case in node.cases:
        found = _unsupported(case.pattern, top=True, guarded=case.guard is not None)
        if found is not None:
            return found
    return None


def pattern_kind(pattern) -> str:
    if isinstance(pattern, gast.MatchAs):
        return "capture inside '|'" if pattern.pattern is None else "'as' with a guard"
    return _KINDS.get(type(pattern), type(pattern).__name__)


def _unsupported(pattern, top: bool, guarded: bool) -> Optional[gast.AST]:
    if isinstance(pattern, _SIMPLE):
        return None
    if isinstance(pattern, gast.MatchOr):
        return next((p for p in (_unsupported(p, False, guarded) for p in pattern.patterns) if p is not None), None)
    if isinstance(pattern, gast.MatchAs):
        if pattern.pattern is None:   # `_` or a capture: only at the top (inside `|` it binds per alternative)
            return None if top or pattern.name is None else pattern
        if pattern.name is not None and guarded:
            return pattern   # `case 1 | 2 as n if n > x:` binds n before a guard that may fail
        return _unsupported(pattern.pattern, top, guarded)
    return pattern


class MatchTransformer(Transformer):

    def visit_Match(self, node):
        node = self.generic_visit(node)
        prelude, subject = [], node.subject
        if not isinstance(subject, gast.Name):
            name = self.ctx.new_name('subject')
            prelude = templates.replace('name = value', name=name, value=subject)
            subject = gast.Name(name, gast.Load(), None, None)
        rest = []
        for case in reversed(node.cases):
            rest = self._case(case, subject, rest)
        return prelude + rest

    def _case(self, case, subject, rest):
        """The statements for ``case`` followed (when it does not match) by ``rest``."""
        origin = anno.getanno(case.pattern, anno.ORIGIN, None)
        test, name = _test(case.pattern, subject), _bound_name(case.pattern)
        bind = templates.replace('name = subject', name=name, subject=_copy(subject)) if name else []
        if test is None:   # irrefutable: `_`, `n`, `_ as n`
            if case.guard is None:
                statements = bind + case.body
            else:
                statements = bind + [gast.If(test=case.guard, body=case.body, orelse=rest)]
        else:
            if case.guard is not None:
                test = gast.BoolOp(op=gast.And(), values=[test, case.guard])
            statements = [gast.If(test=test, body=bind + case.body, orelse=rest)]
        if origin is not None:
            propagate_origin(statements, origin)
        return statements


def _test(pattern, subject):
    """The condition ``pattern`` matches ``subject`` under; None when it always does."""
    if isinstance(pattern, gast.MatchValue):
        return gast.Compare(left=_copy(subject), ops=[gast.Eq()], comparators=[pattern.value])
    if isinstance(pattern, gast.MatchSingleton):
        return gast.Compare(left=_copy(subject), ops=[gast.Is()], comparators=[gast.Constant(pattern.value, None)])
    if isinstance(pattern, gast.MatchOr):
        tests = [_test(p, subject) for p in pattern.patterns]
        if any(t is None for t in tests):
            return None
        return gast.BoolOp(op=gast.Or(), values=tests)
    if isinstance(pattern, gast.MatchAs):
        return None if pattern.pattern is None else _test(pattern.pattern, subject)
    raise AssertionError(f'unsupported pattern {pattern!r} (checks.py rejects it)')


def _bound_name(pattern) -> Optional[str]:
    return pattern.name if isinstance(pattern, gast.MatchAs) else None


def _copy(name):
    return gast.Name(name.id, gast.Load(), None, None)


def transform(node, ctx):
    """Rewrite the match statements of ``node`` (checks.py has rejected those it cannot convert)."""
    if gast.Match not in ctx.node_kinds:
        return node   # the user's code has none (the context saw every node of it)
    return MatchTransformer(ctx).visit(node)
