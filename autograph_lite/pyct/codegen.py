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
import re
import sys
from typing import Callable, Dict, List, Optional, Tuple

import gast

from autograph_lite.pyct import anno, python_ast
from autograph_lite.pyct.origin_info import Origin

MAX_LINE = 88     # wrapped lines are filled up to this width
WRAP_OVER = 100   # only lines longer than this are wrapped
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


_Precedence = ast._Precedence


class _Unparser(ast._Unparser):  # the stdlib unparser, present since Python 3.9
    """The stdlib unparser, recording each line's origin, with faster versions of the visitors that
    converted code is made of (calls, defs, names, tuples, operators): the same text, without the
    stdlib's context managers and string-built method lookups (they were most of the unparsing time).

    It reads gast trees as they are (a copy into stdlib nodes cost as much as the unparsing): gast
    has the stdlib's node classes by name and field, and most of the stdlib's visitors read only
    fields. Where one tests a node's concrete class (docstrings, elif chains, ``1 .real``, ``x[a, b]``,
    ``(a): int``) or reads a field gast spells differently (arguments, ``except ... as e``, f-strings),
    it is given a stdlib twin of the node (``_twin``) or, for arguments and f-strings, a stdlib copy.
    """

    _methods: Dict[type, Callable] = {}   # node class -> visitor (one lookup per class, not per node)

    # 3.11 and 3.12 unparse an f-string's expressions with a new unparser made with _avoid_backslashes=True
    # (before PEP 701 they could hold no backslash); 3.13 has neither the flag nor the __init__ argument.
    _avoid_backslashes = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)   # the stdlib re-instantiates it (with kwargs) for f-strings
        self._current: Optional[Origin] = None
        self._line = 1
        self._counted = 0            # pieces of _source whose newlines _line already counts
        self.line_origins: List[Optional[Origin]] = []

    def fill(self, text=''):
        # Newlines are counted here, once per statement line, over the pieces written since the
        # last fill (docstrings and the blank line after a def can hold some too).
        source = self._source
        start = self._counted
        if source:
            source.append('\n')
        source.append('    ' * self._indent + text)
        self._line += ''.join(source[start:]).count('\n')
        self._counted = len(source)
        missing = self._line - len(self.line_origins)
        self.line_origins.extend([self._current] * missing)
        self.line_origins[self._line - 1] = self._current

    def traverse(self, node):
        if isinstance(node, list):
            previous = None
            for item in node:
                if isinstance(previous, _DEFS) and not isinstance(item, _DEFS):
                    self._source.append('\n')
                self.traverse(item)
                previous = item
            return
        cls = node.__class__
        method = self._methods.get(cls)
        if method is None:
            method = self._methods[cls] = getattr(type(self), 'visit_' + cls.__name__, type(self).generic_visit)
        if isinstance(node, ast.stmt):   # (gast's statement classes derive from ast.stmt)
            saved = self._current
            annotations = node.__dict__.get(anno.FIELD)
            origin = annotations.get(anno.ORIGIN) if annotations else None
            if origin:
                self._current = origin   # else the line belongs to the enclosing statement's origin
            method(self, node)
            self._current = saved
        else:
            method(self, node)

    # --- gast nodes where the stdlib expects its own ----------------------------------------------

    def get_raw_docstring(self, node):
        if node.__class__ in _WITH_DOCSTRING and node.body:
            first = node.body[0]
            if first.__class__ in _EXPR and first.value.__class__ in _CONSTANT and first.value.value.__class__ is str:
                return first.value
        return None

    def get_type_comment(self, node):
        # Converted code has no `# type: ignore` comments (the stdlib looks them up by line number).
        comment = getattr(node, 'type_comment', None)
        return None if comment is None else f' # type: {comment}'

    # (Each also gets stdlib nodes: the copy of a tree that gast nodes could not be unparsed from.)

    def visit_arguments(self, node):
        if node.__class__ is gast.arguments:   # gast's arguments are Names (ctx Param), the stdlib's are args
            node = _twin(node, posonlyargs=[_arg(a) for a in node.posonlyargs], args=[_arg(a) for a in node.args],
                         vararg=_arg(node.vararg), kwonlyargs=[_arg(a) for a in node.kwonlyargs],
                         kwarg=_arg(node.kwarg))
        super().visit_arguments(node)

    def visit_ExceptHandler(self, node):
        if node.__class__ is gast.ExceptHandler:   # gast's `as` name is a Name, the stdlib's a string
            node = _twin(node, name=None if node.name is None else node.name.id)
        super().visit_ExceptHandler(node)

    def visit_If(self, node):
        super().visit_If(_elif_chain(node) if len(node.orelse) == 1 and node.orelse[0].__class__ is gast.If else node)

    def visit_AnnAssign(self, node):
        super().visit_AnnAssign(_twin(node, target=_twin(node.target)) if node.target.__class__ is gast.Name else node)

    def visit_Attribute(self, node):
        super().visit_Attribute(_twin(node, value=_twin(node.value)) if node.value.__class__ is gast.Constant else node)

    def visit_Subscript(self, node):
        # (Before 3.11 the stdlib also tests the tuple's elements for Starred.)
        if node.slice.__class__ is gast.Tuple:
            elements = [_twin(e) if e.__class__ is gast.Starred else e for e in node.slice.elts]
            node = _twin(node, slice=_twin(node.slice, elts=elements))
        super().visit_Subscript(node)

    def visit_JoinedStr(self, node):
        if node.__class__ is gast.JoinedStr:
            node = python_ast.from_gast(node)
        text = self._fstring_quoted_apart(node) if _QUOTES_MAY_NEST else None
        if text is None:
            super().visit_JoinedStr(node)
        else:
            self._source.append(text)

    def _fstring_quoted_apart(self, node) -> Optional[str]:
        """The f-string as 3.11's stdlib writes it, or None where 3.11 could not (a backslash in an expression).

        From 3.12 on (PEP 701) an f-string's expressions may hold its own quote, and the stdlib then writes
        ``f'{d['key']}'``: the text of to_code would differ by version, and that line not run on 3.11. Here
        the f-string takes a quote none of its expressions hold, as before: ``f"{d['key']}"``.
        """
        quotes = list(_ALL_QUOTES)
        parts = []
        for value in node.values:
            with self.buffered() as buffer:
                self._write_fstring_inner(value)
            text = ''.join(buffer)
            is_constant = value.__class__ is ast.Constant
            if not is_constant and '\\' in text:
                return None
            text, possible = self._str_literal_helper(text, quote_types=quotes, escape_special_whitespace=is_constant)
            if set(possible).isdisjoint(quotes):
                return None   # (no quote fits every part: the stdlib's own way)
            quotes = possible
            parts.append(text)
        return f'f{quotes[0]}{"".join(parts)}{quotes[0]}'

    def visit_FormattedValue(self, node):   # (the stdlib's JoinedStr calls it on its own nodes)
        super().visit_FormattedValue(python_ast.from_gast(node) if node.__class__ is gast.FormattedValue else node)

    # --- readability -------------------------------------------------------------------------------

    def visit_Assign(self, node):
        # `(a, b) = vars_` rather than `a, b = vars_`: the unpacking stays visible.
        self.fill()
        for target in node.targets:
            self.traverse(target)
            self._source.append(' = ')
        self.traverse(node.value)

    # --- the stdlib's own output, faster ----------------------------------------------------------

    def visit_Name(self, node):
        self._source.append(node.id)

    def visit_Constant(self, node):
        value = node.value
        if value.__class__ in _PLAIN_CONSTANTS and node.kind is None and not (
                self._avoid_backslashes and value.__class__ is str):
            self._source.append(repr(value))
        else:
            super().visit_Constant(node)

    def _function_helper(self, node, fill_suffix):
        self.maybe_newline()
        for decorator in node.decorator_list:
            self.fill('@')
            self.traverse(decorator)
        self.fill(fill_suffix + ' ' + node.name)
        if getattr(node, 'type_params', None):   # def f[T](x: T), Python 3.12+ (PEP 695)
            self._type_params_helper(node.type_params)
        self._source.append('(')
        self.traverse(node.args)
        self._source.append(')')
        if node.returns:
            self._source.append(' -> ')
            self.traverse(node.returns)
        self._source.append(':')
        extra = self.get_type_comment(node)
        if extra:
            self._source.append(extra)
        self._indent += 1
        self._write_docstring_and_traverse_body(node)
        self._indent -= 1

    def visit_Call(self, node):
        self._precedences[node.func] = _Precedence.ATOM
        self.traverse(node.func)
        source = self._source
        source.append('(')
        comma = False
        for argument in node.args:
            if comma:
                source.append(', ')
            comma = True
            self.traverse(argument)
        for keyword in node.keywords:
            if comma:
                source.append(', ')
            comma = True
            self.traverse(keyword)
        source.append(')')

    def visit_Tuple(self, node):
        elements = node.elts
        parens = not elements or self._precedences.get(node, _Precedence.TEST) > _Precedence.TUPLE
        source = self._source
        if parens:
            source.append('(')
        if len(elements) == 1:
            self.traverse(elements[0])
            source.append(',')
        else:
            for i, element in enumerate(elements):
                if i:
                    source.append(', ')
                self.traverse(element)
        if parens:
            source.append(')')

    def visit_BinOp(self, node):
        operator = self.binop[node.op.__class__.__name__]
        precedence = self.binop_precedence[operator]
        parens = self._precedences.get(node, _Precedence.TEST) > precedence
        if parens:
            self._source.append('(')
        if operator in self.binop_rassoc:
            left, right = precedence.next(), precedence
        else:
            left, right = precedence, precedence.next()
        self._precedences[node.left] = left
        self.traverse(node.left)
        self._source.append(f' {operator} ')
        self._precedences[node.right] = right
        self.traverse(node.right)
        if parens:
            self._source.append(')')

    def visit_Compare(self, node):
        parens = self._precedences.get(node, _Precedence.TEST) > _Precedence.CMP
        if parens:
            self._source.append('(')
        inner = _Precedence.CMP.next()
        self._precedences[node.left] = inner
        for comparator in node.comparators:
            self._precedences[comparator] = inner
        self.traverse(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            self._source.append(' ' + self.cmpops[op.__class__.__name__] + ' ')
            self.traverse(comparator)
        if parens:
            self._source.append(')')

    def visit_Nonlocal(self, node):
        self.fill('nonlocal ' + ', '.join(node.names))

    def visit_Global(self, node):
        self.fill('global ' + ', '.join(node.names))


_PLAIN_CONSTANTS = frozenset([int, str, bool, type(None)])   # written as their repr by the stdlib
_QUOTES_MAY_NEST = sys.version_info >= (3, 12)   # an f-string's expressions may hold its own quote (PEP 701)
_ALL_QUOTES = ("'", '"', '"""', "'''")   # the order the stdlib prefers them in


_DEFS = _DEFS + (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
_WITH_DOCSTRING = frozenset([gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Module,
                             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module])
_EXPR = frozenset([gast.Expr, ast.Expr])
_CONSTANT = frozenset([gast.Constant, ast.Constant])


def _keep_origin(gast_statement, python_statement) -> None:
    python_statement.__dict__[anno.FIELD] = gast_statement.__dict__.get(anno.FIELD)


def _twin(node, **fields):
    """A node of the stdlib class named like gast ``node``'s, with its fields (the same children) and ``fields``."""
    cls = getattr(ast, node.__class__.__name__)
    twin = cls.__new__(cls)   # (not cls(): 3.13 warns of every required field not given to __init__)
    twin.__dict__.update(node.__dict__)   # (stdlib nodes keep their fields in their __dict__, as gast's do)
    twin.__dict__.update(fields)
    return twin


def _arg(name):
    if name is None:
        return None
    return ast.arg(arg=name.id, annotation=name.annotation, type_comment=name.type_comment)


def _elif_chain(node):
    """The twin of an ``if`` whose else is a single ``if`` (and so on down), written as ``elif``s."""
    orelse = node.orelse
    if len(orelse) == 1 and orelse[0].__class__ is gast.If:
        orelse = [_elif_chain(orelse[0])]
    return _twin(node, orelse=orelse)


def unparse(tree) -> Tuple[str, List[Optional[Origin]]]:
    """Source text of a gast tree (node or list of statements) and the origin of each line."""
    if isinstance(tree, list):
        tree = gast.Module(body=tree, type_ignores=[])
    unparser = _Unparser()
    try:
        text = unparser.visit(tree)
    except AttributeError:
        # A gast node without one of its optional fields (a template placeholder replaced by None
        # leaves it out), which a stdlib node has as None: unparse a stdlib copy of the tree.
        unparser = _Unparser()
        text = unparser.visit(python_ast.from_gast(tree, _keep_origin))
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
    brackets = _brackets(line)
    for open_at, close_at in _paren_spans(brackets):
        if close_at == len(line) - 1 and line[open_at] == '(':
            items = _split_commas(line, brackets, open_at, close_at)
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


# A string literal (its quote to the same unescaped quote, or to the end of the line), or a bracket
# or comma: the only characters the wrapping looks at, found without a Python loop per character.
_TOKENS = re.compile(r"""'(?:\\.?|[^'\\])*(?:'|$)|"(?:\\.?|[^"\\])*(?:"|$)|[()\[\]{},]""")


def _brackets(line: str) -> List[Tuple[int, str, int]]:
    """(index, char, depth) of the brackets and commas outside string literals; an opening bracket
    counts in its own depth, a closing one too (the depth drops after it)."""
    out, depth = [], 0
    for match in _TOKENS.finditer(line):
        char = match.group()
        if len(char) > 1 or char in '\'"':
            continue   # a string literal
        if char in '([{':
            depth += 1
        out.append((match.start(), char, depth))
        if char in ')]}':
            depth -= 1
    return out


def _paren_spans(brackets) -> List[Tuple[int, int]]:
    """(open, close) index pairs of brackets, outermost first."""
    stack, spans = [], []
    for i, char, _ in brackets:
        if char in '([{':
            stack.append(i)
        elif char in ')]}' and stack:
            spans.append((stack.pop(), i))
    return sorted(spans)


def _split_commas(line: str, brackets, open_at: int, close_at: int) -> List[str]:
    """The items between the brackets at ``open_at`` and ``close_at``, split at their own commas."""
    base = next(depth for i, _, depth in brackets if i == open_at)
    cuts = [open_at + 1]
    cuts += [i + 1 for i, char, depth in brackets if char == ',' and depth == base and open_at < i < close_at]
    cuts.append(close_at)
    items = [line[a:b].strip().rstrip(',').strip() for a, b in zip(cuts, cuts[1:])]
    return [item for item in items if item]


def unparse_expression(node) -> str:
    """Source text of a single gast expression, e.g. ``'a if c else b'``."""
    return ast.unparse(python_ast.from_gast(node))
