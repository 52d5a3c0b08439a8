"""Qualified names: ``a``, ``a.b`` and ``a[0]`` as symbols that can carry state.

>>> qn_of(gast.parse('self.x').body[0].value)
QN('self.x')
"""
from typing import Optional

import gast


class QN:
    """A symbol: a plain name or an attribute/constant-subscript path rooted at a name."""

    __slots__ = ('text', 'root', 'parent')

    def __init__(self, text: str, root: str, parent: Optional['QN'] = None):
        self.text = text
        self.root = root
        self.parent = parent

    @property
    def is_simple(self) -> bool:
        return self.parent is None

    def __eq__(self, other):
        return isinstance(other, QN) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __lt__(self, other):
        return self.text < other.text

    def __str__(self):
        return self.text

    def __repr__(self):
        return f'QN({self.text!r})'


def simple(name: str) -> QN:
    """The QN of a plain name."""
    return QN(name, name)


def qn_of(node) -> Optional[QN]:
    """QN of ``a``, ``a.b``, ``a[0]``, ``a['k']`` (nested freely); None for anything else."""
    if isinstance(node, gast.Name):
        return simple(node.id)
    if isinstance(node, gast.Attribute):
        parent = qn_of(node.value)
        return None if parent is None else QN(f'{parent.text}.{node.attr}', parent.root, parent)
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
        key = node.slice.value
        if isinstance(key, (int, str)) and not isinstance(key, bool):
            parent = qn_of(node.value)
            if parent is not None:
                return QN(f'{parent.text}[{key!r}]', parent.root, parent)
    return None
