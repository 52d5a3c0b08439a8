"""Reaching definitions: which names and symbols (``a.b``, ``a[0]``) may be assigned before each statement.

A name that no definition can reach at a statement is certainly undefined there; the control flow
converter initializes such state variables with ``ag__.Undefined``. Loops feed their body's
definitions back to their start. Requires activity annotations.

>>> from autograph_lite.pyct.parser import parse_str
>>> node = parse_str('def f(a):\\n    if a:\\n        b = 1\\n    c = b').body[0]
>>> from autograph_lite.pyct.static_analysis import activity
>>> _ = activity.analyze_function(node)
>>> analyze(node); sorted(anno.getanno(node.body[1], anno.DEFINED_IN))
['a', 'b']
"""
from typing import FrozenSet, Tuple

import gast

from autograph_lite.pyct import anno


def _assigned(node) -> FrozenSet[str]:
    # Composite symbols too ('box.value'): get_state must know whether one may not exist yet.
    return frozenset(qn.text for qn in anno.getanno(node, anno.ACTIVITY).modified)


def _is_placeholder(node) -> bool:
    """``x = ag__.Undefined('x')`` (converters/unbound_reads.py): binds ``x`` to no value of the user's."""
    value = getattr(node, 'value', None)
    return (isinstance(node, gast.Assign) and isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == 'Undefined' and isinstance(value.func.value, gast.Name)
            and value.func.value.id == 'ag__')


Defined = Tuple[FrozenSet[str], FrozenSet[str]]   # (may be defined, may hold a value the user's code assigned)


def _block(statements, defined: Defined) -> Defined:
    for statement in statements:
        anno.setanno(statement, anno.DEFINED_IN, defined[0])
        if isinstance(statement, (gast.While, gast.For)):
            anno.setanno(statement, anno.ASSIGNED_IN, defined[1])
        defined = _statement(statement, defined)
    return defined


def _statement(node, defined: Defined) -> Defined:
    assigned = _assigned(node)
    after = (defined[0] | assigned, defined[1] if _is_placeholder(node) else defined[1] | assigned)
    if isinstance(node, gast.If):
        _block(node.body, defined)
        _block(node.orelse, defined)
    elif isinstance(node, (gast.While, gast.For)):
        # A later iteration sees everything the body assigned in an earlier one.
        _block(node.body, after)
        _block(node.orelse, after)
    elif isinstance(node, gast.Try):
        _block(node.body, defined)
        for handler in node.handlers:
            _block(handler.body, after)
        _block(node.orelse, after)
        _block(node.finalbody, after)
    elif isinstance(node, gast.With):
        _block(node.body, after)
    return after


def analyze(function_node) -> None:
    """Annotate each statement of the function (and nested functions) with DEFINED_IN, and each loop with
    ASSIGNED_IN."""
    scope = anno.getanno(function_node, anno.SCOPE)
    params = frozenset(scope.params)
    _block(function_node.body, (params, params))
    for nested in scope.nested_functions:
        analyze(nested)
