"""Is a function's code still what its source says? Decorators that recompile a function
(typeguard's ``@typechecked`` inserts type checks) leave source that no longer describes the
code: converting that source would silently drop what the decorator added.

The test is on names: every name the live code uses must appear in the source. Names the
compiler makes up itself (``.0`` of a comprehension, dunders such as ``__class__`` for
``super()``; pytest's rewrites of ``assert`` in test modules) do not count.

>>> import gast
>>> def f(x):
...     return x + 1
>>> source = gast.parse('def f(x):\\n    return x + 1\\n').body[0]
>>> names_not_in_source(f.__code__, source)
[]
"""
import builtins
import sys
from typing import Dict, List, Optional, Set, Tuple

import gast

from autograph_lite.pyct import nodes

# module: `from a.b import c`; rest: `case {'k': v, **rest}` (the only name a match mapping binds
# that is not a node of its own)
_NAME_FIELDS = ('id', 'attr', 'name', 'asname', 'arg', 'module', 'rest')


_NAME_FIELDS_OF: Dict[type, Tuple[str, ...]] = {}   # node class -> those of _NAME_FIELDS it has


def add_source_names(node, names: Set[str]) -> None:
    """Add the names ``node`` itself spells (not those of its children) to ``names``."""
    cls = node.__class__
    fields = _NAME_FIELDS_OF.get(cls)
    if fields is None:
        fields = _NAME_FIELDS_OF[cls] = tuple(f for f in _NAME_FIELDS if f in cls._fields)
    attributes = node.__dict__
    for field in fields:
        value = attributes.get(field)
        if isinstance(value, str):
            names.add(value)
            if '.' in value:
                names.update(value.split('.'))   # `import a.b` uses both 'a.b' and 'a'
    if cls is gast.Global or cls is gast.Nonlocal:
        names.update(node.names)


def _source_names(node) -> Set[str]:
    names: Set[str] = set()
    for child in nodes.walk(node):
        add_source_names(child, names)
    return names


def _code_names(code) -> Set[str]:
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars) | set(code.co_cellvars)
    for constant in code.co_consts:
        if hasattr(constant, 'co_names'):
            names |= _code_names(constant)
    return names


def _made_by_the_compiler(name: str) -> bool:
    # '': the module of `from . import x`
    return not name or name.startswith(('.', '@')) or (name.startswith('__') and name.endswith('__'))


def _pytest_assert_helpers(names: Set[str]) -> Set[str]:
    """pytest rewrites the asserts of test modules (same meaning, longer messages): its code reads
    ``@pytest_ar`` (its helper module) and ``@py_builtins``, their attributes, ``AssertionError``."""
    if '@pytest_ar' not in names:
        return set()
    modules = [sys.modules.get('_pytest.assertion.rewrite'), builtins]
    return {n for n in names if n == 'AssertionError' or any(hasattr(m, n) for m in modules if m is not None)}


def names_not_in_source(code, node, source_names: Optional[Set[str]] = None) -> List[str]:
    """The names ``code`` uses that the (already mangled) source ``node`` never mentions, sorted
    (``source_names``: what ``add_source_names`` collected over all of ``node``'s nodes, when known)."""
    used = _code_names(code)
    added = used - (_source_names(node) if source_names is None else source_names) - _pytest_assert_helpers(used)
    return sorted(n for n in added if not _made_by_the_compiler(n))
