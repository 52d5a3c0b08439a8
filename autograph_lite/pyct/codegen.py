"""Unparsing: gast tree -> readable source, plus the origin of every generated line.

Uses the standard library's precedence-aware unparser (fewer parentheses than astunparse), with
three readability tweaks: a blank line after a nested ``def`` block, parenthesized tuple targets
``(a, b) = vars_``, and long call lines wrapped at top-level commas.

>>> from autograph_lite.pyct.parser import parse_str
>>> source, origins = unparse(parse_str('if x:\\n    y = 1'))
>>> source
'if x:\\n    y = 1\\n'
"""
import ast
from typing import List, Optional, Tuple

import gast

from autograph_lite.pyct import anno, python_ast
from autograph_lite.pyct.origin_info import Origin

MAX_LINE = 88     # wrapped lines are filled up to this width
WRAP_OVER = 100   # only lines longer than this are wrapped
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Unparser(ast._Unparser):  # the stdlib unparser, present since Python 3.9

    def __init__(self, origins: Optional[List[Optional[Origin]]] = None, **kwargs):
        super().__init__(**kwargs)   # the stdlib re-instantiates it (with kwargs) for f-strings
        self._origins = origins or [None]
        self._current: Optional[Origin] = None
        self._line = 1
        self.line_origins: List[Optional[Origin]] = []

    def write(self, *text):
        for piece in text:
            if '\n' in piece:
                self._line += piece.count('\n')
        super().write(*text)

    def fill(self, text=''):
        super().fill(text)
        missing = self._line - len(self.line_origins)
        self.line_origins.extend([self._current] * missing)
        self.line_origins[self._line - 1] = self._current

    def traverse(self, node):
        if isinstance(node, list):
            previous = None
            for item in node:
                if isinstance(previous, _DEFS) and not isinstance(item, _DEFS):
                    self.write('\n')
                self.traverse(item)
                previous = item
            return
        if isinstance(node, ast.stmt):
            saved = self._current
            stamp = getattr(node, 'lineno', None)
            if stamp is not None and 0 <= stamp < len(self._origins) and self._origins[stamp]:
                self._current = self._origins[stamp]
            super().traverse(node)
            self._current = saved
        else:
            super().traverse(node)

    def visit_Assign(self, node):
        # `(a, b) = vars_` rather than `a, b = vars_`: the unpacking stays visible.
        self.fill()
        for target in node.targets:
            self.traverse(target)
            self.write(' = ')
        self.traverse(node.value)


def _to_python_ast(tree) -> Tuple[ast.AST, List[Optional[Origin]]]:
    """The stdlib tree of ``tree``; each statement's lineno is an index into the returned origins."""
    origins: List[Optional[Origin]] = [None]

    def stamp(gast_statement, python_statement):
        python_statement.lineno = len(origins)
        origins.append(anno.getanno(gast_statement, anno.ORIGIN, None))

    return python_ast.from_gast(tree, stamp), origins


def unparse(tree) -> Tuple[str, List[Optional[Origin]]]:
    """Source text of a gast tree (node or list of statements) and the origin of each line."""
    if isinstance(tree, list):
        tree = gast.Module(body=tree, type_ignores=[])
    python_tree, origins = _to_python_ast(tree)
    unparser = _Unparser(origins)
    text = unparser.visit(python_tree)
    lines = text.split('\n')
    line_origins = unparser.line_origins + [None] * (len(lines) - len(unparser.line_origins))
    out_lines: List[str] = []
    out_origins: List[Optional[Origin]] = []
    for line, origin in zip(lines, line_origins):
        for piece in _wrap(line):
            out_lines.append(piece)
            out_origins.append(origin)
    return '\n'.join(out_lines) + '\n', out_origins


def _wrap(line: str) -> List[str]:
    """Split a too-long line at the top-level commas of its outermost trailing call."""
    if len(line) <= WRAP_OVER or '"""' in line or "'''" in line:
        return [line]
    spans = _paren_spans(line)
    for open_at, close_at in spans:
        if close_at == len(line) - 1 and line[open_at] == '(':
            items = _split_commas(line, open_at + 1, close_at)
            if len(items) < 2:
                continue
            indent = ' ' * (open_at + 1)
            pieces, current = [], line[:open_at + 1] + items[0]
            for item in items[1:]:
                if len(current) + len(item) + 3 > MAX_LINE:
                    pieces.append(current + ',')
                    current = indent + item
                else:
                    current += ', ' + item
            pieces.append(current + ')')
            return pieces
    return [line]


def _scan(line: str):
    """Yield (index, char, depth) for characters outside string literals."""
    depth, quote, i = 0, None, 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == '\\':
                i += 1
            elif char == quote:
                quote = None
        elif char in '\'"':
            quote = char
        else:
            if char in '([{':
                depth += 1
            yield i, char, depth
            if char in ')]}':
                depth -= 1
        i += 1


def _paren_spans(line: str) -> List[Tuple[int, int]]:
    """(open, close) index pairs of brackets, outermost first."""
    stack, spans = [], []
    for i, char, _ in _scan(line):
        if char in '([{':
            stack.append(i)
        elif char in ')]}' and stack:
            spans.append((stack.pop(), i))
    return sorted(spans)


def _split_commas(line: str, start: int, end: int) -> List[str]:
    base = None
    cuts = [start]
    for i, char, depth in _scan(line):
        if i < start or i >= end:
            continue
        if base is None:
            base = depth if char not in '([{' else depth - 1
        if char == ',' and depth == base:
            cuts.append(i + 1)
    cuts.append(end)
    items = [line[a:b].strip().rstrip(',').strip() for a, b in zip(cuts, cuts[1:])]
    return [item for item in items if item]


def unparse_expression(node) -> str:
    """Source text of a single gast expression, e.g. ``'a if c else b'``."""
    return ast.unparse(python_ast.from_gast(node))
