"""Python's private name mangling, applied to code that is compiled outside its class.

Inside a class body (methods and functions nested in them included), Python compiles ``__name``
as ``_Class__name``: ``self.__chain()`` reads the attribute ``_SequenceMatcher__chain``. Converted
code is compiled at module level, so the converter applies the rule itself, first.

>>> enclosing_class('SequenceMatcher.set_seqs')
'SequenceMatcher'
>>> mangled('__chain', 'SequenceMatcher')
'_SequenceMatcher__chain'
"""
from typing import Optional

import gast

_LOCALS = '<locals>'


def enclosing_class(qualname: str) -> Optional[str]:
    """The name of the class whose body (directly or through functions) holds the function ``qualname``.

    >>> enclosing_class('A.method.<locals>.helper'), enclosing_class('f.<locals>.g')
    ('A', None)
    """
    parts = qualname.split('.')[:-1]   # the enclosing scopes, outermost first
    while parts:
        if parts[-1] == _LOCALS:       # `f.<locals>`: a function scope, look further out
            parts = parts[:-2]
            continue
        return parts[-1]
    return None


def lexical_qualname(function) -> str:
    """Where ``function`` is written in its source: its code's qualified name (Python 3.11+).

    Mangling follows the source, not ``__qualname__``, which decorators overwrite: a wrapper
    written in class ``argmap`` that takes the decorated function's ``__qualname__`` still
    compiles ``__wrapper`` as ``_argmap__wrapper``. Before 3.11 code has no qualified name and
    ``__qualname__`` is all there is.

    >>> def f():
    ...     pass
    >>> f.__qualname__ = 'Other.f'
    >>> lexical_qualname(f)
    'f'
    """
    return getattr(function.__code__, 'co_qualname', None) or function.__qualname__


def mangled(name: str, class_name: str) -> str:
    """``name`` as Python compiles it inside class ``class_name``."""
    stripped = class_name.lstrip('_')
    if not stripped or not name.startswith('__') or name.endswith('__') or '.' in name:
        return name
    return f'_{stripped}{name}'


class _Mangler(gast.NodeVisitor):

    def __init__(self, class_name: str, root):
        self.class_name, self.root = class_name, root

    def _rename(self, name):
        return None if name is None else mangled(name, self.class_name)

    def visit_Name(self, node):
        node.id = self._rename(node.id)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        node.attr = self._rename(node.attr)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        if node is not self.root:   # the converted function itself keeps its own name
            node.name = self._rename(node.name)
        self.generic_visit(node)

    def visit_alias(self, node):
        if node.asname is not None:
            node.asname = self._rename(node.asname)
        else:
            node.name = self._rename(node.name)

    def visit_Global(self, node):
        node.names = [self._rename(name) for name in node.names]

    visit_Nonlocal = visit_Global

    def visit_ClassDef(self, node):
        # A nested class mangles its own body with its own name (Python does that when it runs);
        # what the outer scope evaluates - name, bases, decorators - is ours.
        node.name = self._rename(node.name)
        for child in node.bases + node.decorator_list + [k.value for k in node.keywords]:
            self.visit(child)


def mangle_private_names(node, qualname: str) -> None:
    """Rename, in place, every ``__name`` in function or lambda ``node`` as Python does in its class.

    Keyword names of calls stay as written (Python does not mangle them either).
    """
    class_name = enclosing_class(qualname)
    if class_name is not None:
        _Mangler(class_name, node).visit(node)
