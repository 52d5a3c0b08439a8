"""Structural ``match`` patterns in converted code: ``ag__.matches(subject, '[x, *rest]')`` matches one case's
pattern in Python, with CPython's semantics, and keeps what it captured (converters/match_statements.py)::

    subject = ag__.match_subject(command)
    if ag__.matches(subject, 'Point(x=0, y=y)', lambda: Point):
        y = subject.captured[0]

The pattern arrives as its source text, and each name it looks up (a class, a dotted value, a mapping key)
as a no-argument function, called only when matching reaches it, as Python does. The checks and their
order are CPython's (the language reference and CPython 3.11 agree): a sequence is a type with CPython's
sequence flag (what ``collections.abc.Sequence`` registers; never str/bytes/bytearray), a mapping one with
the mapping flag; the length is checked first; items come from iterating, or by index when the star is
``*_``; mapping values from one ``.get(key, <sentinel>)`` per key, all before any sub-pattern; a class
pattern checks ``isinstance``, reads ``__match_args__`` (bool, int, str, ... match themselves for one
positional pattern) and fetches every attribute before matching any. Captures are kept only when the whole
pattern matches.

A symbolic tensor cannot be matched structurally while tracing (whether it matches would only be known
when the graph runs): a sequence or mapping pattern on one, or a value pattern inside a structure that
compares one, raises OperatorNotAllowedInGraphError saying what to do.

>>> subject = match_subject([1, 2, 3])
>>> matches(subject, '[first, *rest]'), subject.captured
(True, (1, [2, 3]))
>>> matches(subject, '{"k": v}'), subject.captured
(False, ())
"""
from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Tuple

import runtime as rt
from runtime.core.tensor import SymbolicTensor

from autograph_lite import contract

# Pinned at import: user code may replace these builtins.
from builtins import bool, dict, getattr, id, isinstance, len, list, str, tuple, type, zip

_SEQUENCE_FLAG = 1 << 5     # Py_TPFLAGS_SEQUENCE
_MAPPING_FLAG = 1 << 6      # Py_TPFLAGS_MAPPING
_MATCH_SELF_FLAG = 1 << 22  # bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple
_NOT_FOUND = object()
_STAGED = (SymbolicTensor, rt.TensorList, rt.TensorArray)


class MatchSubject:
    """The subject of a ``match`` statement, evaluated once, and what its last tried case captured."""

    __slots__ = ('value', 'matched', 'captured')

    def __init__(self, value: Any):
        self.value, self.matched, self.captured = value, False, ()


def match_subject(value: Any) -> MatchSubject:
    """The subject of a ``match`` statement with structural patterns.

    >>> match_subject(3).value
    3
    """
    return MatchSubject(value)


def matches(subject: MatchSubject, pattern: str, *lookups: Callable[[], Any]) -> bool:
    """Whether ``subject.value`` matches ``pattern`` (the source text of a case's pattern); on a match
    ``subject.captured`` holds the values of the names it binds, in ``contract.pattern_parts`` order.

    >>> subject = match_subject({'x': 1, 'y': 2})
    >>> matches(subject, '{"x": 1, **others}'), subject.captured
    (True, ({'y': 2},))
    """
    node, names, lookup_index = _parsed(pattern)
    captures: Dict[str, Any] = {}
    matched = _Matcher(lookups, lookup_index).match(node, subject.value, captures)
    subject.matched = matched
    subject.captured = tuple(captures[name] for name in names) if matched else ()
    return matched


_cache: Dict[str, Tuple[ast.AST, List[str], Dict[int, int]]] = {}


def _parsed(text: str):
    found = _cache.get(text)
    if found is None:
        node = ast.parse(f'match _:\n case {text}:\n  pass').body[0].cases[0].pattern
        names, lookups = contract.pattern_parts(node)
        values = {id(expression): index for index, expression in enumerate(lookups)}
        for part in ast.walk(node):   # literals (1, -2, 'k', 1 + 2j) once, not at each match
            for expression in ([part.value] if isinstance(part, ast.MatchValue) else
                               part.keys if isinstance(part, ast.MatchMapping) else []):
                if id(expression) not in values:
                    values[id(expression)] = _Literal(ast.literal_eval(expression))
        found = _cache[text] = (node, names, values)
    return found


class _Literal:
    __slots__ = ('value',)

    def __init__(self, value):
        self.value = value


class _Matcher:
    __slots__ = ('lookups', 'index')

    def __init__(self, lookups, index):
        self.lookups, self.index = lookups, index

    def value_of(self, expression) -> Any:
        found = self.index[id(expression)]
        return found.value if found.__class__ is _Literal else self.lookups[found]()

    def match(self, node, value, captures) -> bool:
        return getattr(self, '_' + type(node).__name__)(node, value, captures)

    def _MatchValue(self, node, value, captures):
        expected = self.value_of(node.value)
        result = value == expected
        if isinstance(result, _STAGED):
            raise rt.errors.OperatorNotAllowedInGraphError(
                f'the value pattern {ast.unparse(node)} inside a structural pattern compares a symbolic tensor '
                f'({_describe(value)}) while tracing, and the match is decided in Python. Capture it and '
                'compare in a guard instead (`case [x, y] if x == 0:`): a guard on a tensor becomes a graph '
                'conditional')
        return bool(result)

    def _MatchSingleton(self, node, value, captures):
        return value is node.value

    def _MatchAs(self, node, value, captures):
        if node.pattern is not None and not self.match(node.pattern, value, captures):
            return False
        if node.name is not None:
            captures[node.name] = value
        return True

    def _MatchOr(self, node, value, captures):
        for alternative in node.patterns:
            attempt = dict(captures)
            if self.match(alternative, value, attempt):
                captures.update(attempt)
                return True
        return False

    def _MatchSequence(self, node, value, captures):
        _refuse_staged(value, 'sequence', 'Index it instead (`t[0]`, `t[1:]`), or match a Python list or '
                                           'tuple of tensors')
        if not type(value).__flags__ & _SEQUENCE_FLAG:
            return False
        patterns = node.patterns
        star = next((i for i, p in enumerate(patterns) if isinstance(p, ast.MatchStar)), None)
        size = len(patterns)
        if star is None:
            if len(value) != size:
                return False
        elif size > 1 and len(value) < size - 1:
            return False
        if all(_is_wildcard(p) for p in patterns):
            return True
        if star is not None and patterns[star].name is None:   # `*_`: only the items needed, by index
            for position, pattern in enumerate(patterns):
                if position == star or _is_wildcard(pattern):
                    continue
                index = position if position < star else len(value) - (size - position)
                if not self.match(pattern, value[index], captures):
                    return False
            return True
        items = _unpacked(value, size, star)
        return all(self.match(pattern, item, captures) for pattern, item in zip(patterns, items))

    def _MatchStar(self, node, value, captures):
        if node.name is not None:
            captures[node.name] = value
        return True

    def _MatchMapping(self, node, value, captures):
        _refuse_staged(value, 'mapping', 'Match a Python dict of tensors')
        if not type(value).__flags__ & _MAPPING_FLAG:
            return False
        if not node.keys and node.rest is None:
            return True
        if node.keys and len(value) < len(node.keys):
            return False
        keys = [self.value_of(key) for key in node.keys]
        get, seen, values = value.get, set(), []
        for key in keys:
            if key in seen:
                raise ValueError(f'mapping pattern checks duplicate key ({key!r})')
            seen.add(key)
            item = get(key, _NOT_FOUND)
            if item is _NOT_FOUND:
                return False
            values.append(item)
        if not all(self.match(pattern, item, captures) for pattern, item in zip(node.patterns, values)):
            return False
        if node.rest is not None:
            rest = {}
            rest.update(value)
            for key in keys:
                del rest[key]
            captures[node.rest] = rest
        return True

    def _MatchClass(self, node, value, captures):
        cls = self.value_of(node.cls)
        if not isinstance(cls, type):
            raise TypeError('called match pattern must be a type')
        if not isinstance(value, cls):
            return False
        names = list(node.kwd_attrs)
        attributes = []
        positional = len(node.patterns)
        if positional:
            match_args = getattr(cls, '__match_args__', _NOT_FOUND)
            match_self = match_args is _NOT_FOUND and bool(cls.__flags__ & _MATCH_SELF_FLAG)
            if match_args is _NOT_FOUND:
                match_args = ()
            elif type(match_args) is not tuple:
                raise TypeError(f'{cls.__name__}.__match_args__ must be a tuple (got {type(match_args).__name__})')
            allowed = 1 if match_self else len(match_args)
            if allowed < positional:
                raise TypeError(f'{cls.__name__}() accepts {allowed} positional sub-pattern'
                                f'{"" if allowed == 1 else "s"} ({positional} given)')
            if match_self:
                attributes.append(value)
            else:
                names[:0] = match_args[:positional]
        seen = set()
        for position, name in enumerate(names):   # every attribute before any sub-pattern, as CPython
            if position < positional and type(name) is not str:
                raise TypeError(f'__match_args__ elements must be strings (got {type(name).__name__})')
            if name in seen:
                raise TypeError(f'{cls.__name__}() got multiple sub-patterns for attribute {name!r}')
            seen.add(name)
            attribute = getattr(value, name, _NOT_FOUND)
            if attribute is _NOT_FOUND:
                return False
            attributes.append(attribute)
        return all(self.match(pattern, attribute, captures)
                   for pattern, attribute in zip(node.patterns + node.kwd_patterns, attributes))


def _is_wildcard(pattern) -> bool:
    return isinstance(pattern, (ast.MatchAs, ast.MatchStar)) and pattern.name is None and getattr(
        pattern, 'pattern', None) is None


def _unpacked(value, size, star) -> list:
    """The items of ``value`` by iteration, as CPython's unpacking takes them (the star's as a list)."""
    items = list(iter(value))   # not list(value): that asks value for its length again
    if star is None:
        if len(items) != size:
            raise ValueError(f'too many values to unpack (expected {size})' if len(items) > size else
                             f'not enough values to unpack (expected {size}, got {len(items)})')
        return items
    after = size - star - 1
    if len(items) < size - 1:
        raise ValueError(f'not enough values to unpack (expected at least {size - 1}, got {len(items)})')
    return items[:star] + [items[star:len(items) - after]] + items[len(items) - after:]


def _describe(value) -> str:
    return getattr(value, 'name', None) or type(value).__name__


def _refuse_staged(value, kind: str, fix: str) -> None:
    if isinstance(value, _STAGED):
        what = ('a symbolic tensor' if isinstance(value, SymbolicTensor) else
                'a tensor list (a Python list that a tensor-dependent loop changed)')
        raise rt.errors.OperatorNotAllowedInGraphError(
            f'a {kind} pattern cannot match {what} ({_describe(value)}) while tracing: whether it '
            f'matches, and its items, are known only when the graph runs. {fix}.')
