"""Annotations: analysis results and bookkeeping attached to AST nodes.

>>> import gast
>>> node = gast.parse('x = 1').body[0]
>>> setanno(node, 'origin', 'user.py:3'); getanno(node, 'origin')
'user.py:3'
"""
from typing import Any

FIELD = _FIELD = '__ag_anno'   # the attribute of a node that holds its annotations
_MISSING = object()


def setanno(node, key: str, value: Any) -> None:
    """Attach ``value`` to ``node`` under ``key``."""
    attributes = node.__dict__   # (nodes keep their annotations there, as their fields)
    annos = attributes.get(_FIELD)
    if annos is None:
        attributes[_FIELD] = {key: value}
    else:
        annos[key] = value


def getanno(node, key: str, default: Any = _MISSING) -> Any:
    """Read an annotation; ``default`` if given and absent, else KeyError."""
    annos = getattr(node, _FIELD, None) or {}
    if key in annos:
        return annos[key]
    if default is _MISSING:
        raise KeyError(f'{type(node).__name__} node has no {key!r} annotation')
    return default


def hasanno(node, key: str) -> bool:
    """True if ``node`` carries an annotation ``key``."""
    return key in (getattr(node, _FIELD, None) or {})


# Keys used across modules, named once here.
ORIGIN = 'origin'            # origin_info.Origin of a node that came from user code
EXTRA_LOOP_TEST = 'extra_loop_test'  # expression: a loop may only start another iteration if true
ACTIVITY = 'activity'        # static_analysis.activity.Activity of a statement
LIVE_OUT = 'live_out'        # frozenset of names live after a statement
LOOP_HEAD_LIVE = 'loop_head_live'  # loops: names live where the test is evaluated
GEN = 'gen'                  # names a statement may read before assigning them
DEFINED_IN = 'defined_in'    # frozenset of names that may be defined before a statement
ASSIGNED_IN = 'assigned_in'  # loops: the names of DEFINED_IN that may hold a value (not an Undefined placeholder)
SCOPE = 'scope'              # static_analysis.activity.FunctionScope of a function node
BODY_FUNCTION = 'body_function'  # a helper function the control flow converter wrote (get_state, if_body, ...)
CONTAINER_ROLES = 'container_roles'  # an if/while/for (or `x = a if c else b`): roles of its locals (containers/)
GUARD_FLAG = 'guard_flag'    # an `if not <flag>:` that guards what follows a jump: the flag's name
USER_TEXT = 'user_text'      # an expression's text as the user wrote it (before any converter ran)
UNBOUND_CHECK = 'unbound_check'  # a read that may find its local unassigned: 'defined' or 'defined_free'
UNBOUND_INITS = 'unbound_inits'  # a function's names with such a read (each starts as ag__.Undefined)
IN_PLACE = 'in_place'      # a converter's statement for `xs[i] = v` / `xs.append(v)`...: the local it changes in place
PYTHON_TUPLE = 'python_tuple'  # an assignment whose value is always a Python tuple: unpacked as it is
