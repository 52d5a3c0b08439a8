"""``match`` statements -> an ``if``/``elif`` chain, which the control flow converter then stages where a
test is a symbolic tensor.

Value patterns (``0``, ``'go' | 'run'``, ``None``, ``Color.RED``), ``_`` and a capture compare the subject
with ``==`` (``None``/``True``/``False`` with ``is``), so a tensor subject gives graph conditionals::

    match command:                       if command == 'go' or command == 'run':
        case 'go' | 'run':                   ...
            ...                          elif command is None:
        case None:                 ->        ...
            ...                          else:
        case other if other > 0:             other = command
            ...                              if other > 0:
                                                 ...

Patterns with structure (sequence, mapping, class, a capture inside a pattern) are matched in Python by
``ag__.matches`` (operators/patterns.py: CPython's checks, in CPython's order), given the pattern's text
and a function for each name it looks up; the names it binds are assigned from ``subject.captured`` only
when it matched, and before the guard, as in Python::

    match shape:                         subject = ag__.match_subject(shape)
        case Point(x=0, y=y):            if ag__.matches(subject, 'Point(x=0, y=y)', lambda: Point):
            ...                              (y,) = subject.captured
        case [a, b] if a > b:      ->        ...
            ...                          else:
                                             if ag__.matches(subject, '[a, b]'):
                                                 (a, b) = subject.captured
                                             if subject.matched and a > b:
                                                 ...

The subject is evaluated once, into a fresh variable unless it is a name that no pattern or guard rebinds.
"""
import ast

import gast

from autograph_lite import contract
from autograph_lite.pyct import anno, python_ast, templates
from autograph_lite.pyct.transformer import Transformer, propagate_origin

_VALUES = (gast.MatchValue, gast.MatchSingleton)


def _is_value_pattern(pattern, top: bool = True, guarded: bool = False) -> bool:
    """True for patterns that compare the subject with ``==``/``is`` (stageable), binding at most the
    subject itself (``case 1 | 2 as n:``, ``case n:``; not before a guard when it may fail)."""
    if isinstance(pattern, _VALUES):
        return True
    if isinstance(pattern, gast.MatchOr):
        return all(_is_value_pattern(p, False) for p in pattern.patterns)
    if isinstance(pattern, gast.MatchAs):
        if pattern.pattern is None:
            return top or pattern.name is None
        return top and _is_value_pattern(pattern.pattern, False) and (pattern.name is None or not guarded)
    return False


class MatchTransformer(Transformer):

    def visit_Match(self, node):
        node = self.generic_visit(node)
        structural = not all(_is_value_pattern(c.pattern, guarded=c.guard is not None) for c in node.cases)
        subject = node.subject
        if structural:
            self.holder = self.ctx.new_name('subject')
            prelude = templates.replace('holder = ag__.match_subject(value)', holder=self.holder, value=subject)
            self.subject = f'{self.holder}.value'
        elif isinstance(subject, gast.Name) and not _rebinds(node, subject.id):
            prelude, self.subject = [], subject.id
        else:
            self.subject = self.ctx.new_name('subject')
            prelude = templates.replace('name = value', name=self.subject, value=subject)
        rest = []
        for case in reversed(node.cases):
            if _is_value_pattern(case.pattern, guarded=case.guard is not None):
                statements = self._value_case(case, rest)
            else:
                statements = self._structural_case(case, rest)
            origin = anno.getanno(case.pattern, anno.ORIGIN, None)
            if origin is not None:
                propagate_origin(statements, origin)
            rest = statements
        return prelude + rest

    def _value_case(self, case, rest):
        """The statements for ``case`` followed (when it does not match) by ``rest``."""
        test, name = _test(case.pattern, self.subject), _bound_name(case.pattern)
        bind = (templates.replace('name = subject', name=name, subject=templates.expression(self.subject))
                if name else [])
        if test is None:   # irrefutable: `_`, `n`, `_ as n`
            if case.guard is None:
                return bind + case.body
            return bind + [gast.If(test=case.guard, body=case.body, orelse=rest)]
        if case.guard is not None:
            test = gast.BoolOp(op=gast.And(), values=[test, case.guard])
        return [gast.If(test=test, body=bind + case.body, orelse=rest)]

    def _structural_case(self, case, rest):
        names, lookups = contract.pattern_parts(case.pattern)
        text = ast.unparse(python_ast.from_gast(case.pattern))
        thunks = [templates.replace_as_expression('lambda: value', value=lookup) for lookup in lookups]
        test = templates.replace_as_expression('ag__.matches(holder, text, thunks)', holder=self.holder,
                                               text=templates.literal(text), thunks=thunks)
        bind = []
        if names:
            bind = templates.replace('(names,) = holder.captured', names=names, holder=self.holder)
            anno.setanno(bind[0], anno.PYTHON_TUPLE, True)
        if case.guard is None:
            return [gast.If(test=test, body=bind + case.body, orelse=rest)]
        if not names:
            return [gast.If(test=gast.BoolOp(op=gast.And(), values=[test, case.guard]), body=case.body, orelse=rest)]
        # Python binds the names before it evaluates the guard (they stay bound if the guard fails).
        matched = templates.expression(f'{self.holder}.matched')
        return [gast.If(test=test, body=bind, orelse=[]),
                gast.If(test=gast.BoolOp(op=gast.And(), values=[matched, case.guard]), body=case.body, orelse=rest)]


def _rebinds(node, name: str) -> bool:
    """Whether a pattern or guard of match statement ``node`` may assign ``name`` before a later case reads it."""
    for case in node.cases:
        if name in contract.pattern_parts(case.pattern)[0]:
            return True
        if case.guard is not None and any(isinstance(n, gast.NamedExpr) and n.target.id == name
                                          for n in gast.walk(case.guard)):
            return True
    return False


def _test(pattern, subject: str):
    """The condition ``pattern`` matches ``subject`` under; None when it always does."""
    if isinstance(pattern, gast.MatchValue):
        return templates.replace_as_expression('subject == value', subject=templates.expression(subject),
                                               value=pattern.value)
    if isinstance(pattern, gast.MatchSingleton):
        return templates.replace_as_expression('subject is value', subject=templates.expression(subject),
                                               value=templates.literal(pattern.value))
    if isinstance(pattern, gast.MatchOr):
        tests = [_test(p, subject) for p in pattern.patterns]
        if any(t is None for t in tests):
            return None
        return gast.BoolOp(op=gast.Or(), values=tests)
    if isinstance(pattern, gast.MatchAs):
        return None if pattern.pattern is None else _test(pattern.pattern, subject)
    raise AssertionError(f'not a value pattern: {pattern!r}')


def _bound_name(pattern):
    return pattern.name if isinstance(pattern, gast.MatchAs) else None


def transform(node, ctx):
    """Rewrite the match statements of ``node``."""
    if gast.Match not in ctx.node_kinds:
        return node   # the user's code has none (the context saw every node of it)
    return MatchTransformer(ctx).visit(node)
