"""Source map: from lines of generated code back to the user's file, line and function.

Every node parsed from user code is annotated with its ``Origin``; the unparser records, for each
generated line, the origin of the statement that produced it, and ``register`` keeps that table per
generated filename so that tracebacks through generated code can be mapped back.

>>> Origin('/u.py', 12, 'simple_relu', 'if x > 0:').format()
'File "/u.py", line 12, in simple_relu\\n  if x > 0:'
"""
import types
from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import gast

from autograph_lite.pyct import anno, nodes

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, getattr, int, len, str


class Origin(NamedTuple):
    filename: str
    lineno: int
    function_name: str
    source_line: str

    def format(self) -> str:
        return f'File "{self.filename}", line {self.lineno}, in {self.function_name}\n  {self.source_line}'


def resolve(tree, source_lines: Sequence[str], filename: str, first_line: int) -> None:
    """Annotate every node of ``tree`` (parsed from ``source_lines``) with its Origin.

    ``first_line`` is the line number, in ``filename``, of ``source_lines[0]``.
    """
    # One Origin per (line, function), shared by the nodes on that line (it is immutable).
    origins: Dict[Tuple[int, str], Origin] = {}
    count = len(source_lines)
    fields_of, located_fields = nodes.LOCATED_FIELDS, nodes.located_fields
    ast_node, leaves = gast.AST, nodes.CONTEXTS_AND_OPERATORS
    # Nodes to visit, each with the name of the function it is in (the walk's order does not matter).
    stack, names = [tree], [getattr(tree, 'name', '<lambda>')]
    while stack:
        node, function_name = stack.pop(), names.pop()
        cls = node.__class__
        if cls in leaves or not isinstance(node, ast_node):
            continue   # no location, no children; also None and the non-node items of lists (pushed unchecked)
        attributes = node.__dict__
        lineno = attributes.get('lineno')
        if lineno is not None and 0 < lineno <= count:
            origin = origins.get((lineno, function_name))
            if origin is None:
                origin = origins[lineno, function_name] = Origin(
                    filename, lineno + first_line - 1, function_name, source_lines[lineno - 1].strip())
            annotations = attributes.get(anno.FIELD)
            if annotations is None:
                attributes[anno.FIELD] = {anno.ORIGIN: origin}   # anno.setanno, inlined (every node)
            else:
                annotations[anno.ORIGIN] = origin
        if cls is gast.FunctionDef or cls is gast.AsyncFunctionDef:
            function_name = node.name
        elif cls is gast.Lambda:
            function_name = '<lambda>'
        for field in fields_of.get(cls) or located_fields(cls):   # nodes.children, inlined (no contexts, operators)
            value = attributes.get(field)
            if value.__class__ is list:
                stack.extend(value)
                names.extend([function_name] * len(value))
            elif value is not None:
                stack.append(value)
                names.append(function_name)


# generated filename -> per-line origins (index 0 is line 1)
_GENERATED: Dict[str, List[Optional[Origin]]] = {}
# generated filename -> its lines that are plumbing (the plain form's dispatch to the staged form): they
# map to the user's `def` like the rest of the function, but a traceback through them lists nothing.
_PLUMBING: Dict[str, FrozenSet[int]] = {}


def register(filename: str, line_origins: List[Optional[Origin]], plumbing: Iterable[int] = ()) -> None:
    """Remember the source map of the generated code compiled under ``filename`` (and, by line number,
    its ``plumbing`` lines)."""
    _GENERATED[filename] = line_origins
    plumbing = frozenset(plumbing)
    if plumbing:
        _PLUMBING[filename] = plumbing


def is_generated(filename: str) -> bool:
    """True if ``filename`` names code produced by the converter."""
    return filename in _GENERATED


def lookup(filename: str, lineno: int) -> Optional[Origin]:
    """The user origin of line ``lineno`` of generated file ``filename``, if known."""
    lines = _GENERATED.get(filename)
    if lines is None or not 0 < lineno <= len(lines):
        return None
    return lines[lineno - 1]


def is_plumbing(filename: str, lineno: int) -> bool:
    """True for a plumbing line of generated code (the plain form's dispatch to the staged form)."""
    return lineno in _PLUMBING.get(filename, ())


def user_frames(tb: Optional[types.TracebackType]) -> List[Origin]:
    """Origins of the traceback's frames that ran generated code, outermost first, deduplicated."""
    frames: List[Origin] = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        origin = lookup(filename, tb.tb_lineno)
        if origin is not None and is_plumbing(filename, tb.tb_lineno):
            origin = None
        if origin is not None and (not frames or frames[-1] != origin):
            frames.append(origin)
        tb = tb.tb_next
    return frames
