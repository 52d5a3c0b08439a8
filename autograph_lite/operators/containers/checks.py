"""The checks of a staged if or loop on the Python lists, dicts and sets among its state, by the roles the converter
gave them (converters/containers): a construct that would replace a container by another object refuses where
something else may hold the old one (a StateError naming it and the fix), since that holder would silently keep
the old contents.

>>> check_loop_state(Roles({}, ['xs']), ('xs',), ([1],))   # a list no other name holds: nothing to refuse
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import runtime as rt
from autograph_lite.contract import ALIASED, BORROWED, PICKED, Roles
from autograph_lite.operators.containers.data_structures import stage_outer_list_change

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import dict, isinstance, len, list, map, next, set, tuple, type, zip


def check_loop_state(roles: Roles, names: Sequence[str], init: tuple) -> None:
    """Before a staged loop is traced: a dict among its state is carried as a structure (after the loop the
    name holds a new dict), and a change of a tensor list makes a new one, which another name would not see."""
    for name, value in zip(names, init):
        if type(value) is dict:
            check_not_aliased(roles, name, "loop", "dict", "makes it a new dict")
        elif isinstance(value, rt.TensorList):
            check_tensor_list_not_aliased(roles, name, "loop")


def check_if_state(roles: Roles, names: Sequence[str], init: tuple) -> None:
    """Before a staged if is traced (``names``: its outputs): a branch's change of a tensor list makes a new one,
    which another name would not see."""
    for name, value in zip(names, init):
        if isinstance(value, rt.TensorList):
            check_tensor_list_not_aliased(roles, name, "if")


def before_loop_tensor_list(roles: Roles, name: str, before: Any, element: Any) -> None:
    """A staged loop is about to carry its Python list ``name`` (``before``: the list before the loop) as a tensor
    list like ``element``: refused if another holder would keep the Python list; a loop or if around that carries
    the same list must make it a tensor list first."""
    check_not_aliased(roles, name, "loop")
    stage_outer_list_change(before, element)


def check_expression_picked(name: str, value: Any, other_value: Any, text: str) -> None:
    """``name = a if c else b`` with a tensor ``c``, where the function then changes ``name`` in place: the sides
    may not be two different lists, dicts or sets (see check_one_container_picked)."""
    check_one_container_picked(Roles({name: PICKED}, (name,)), name, value, other_value,
                               f"conditional expression (`{text}`)")


def check_not_aliased(roles: Roles, name: str, construct: str, kind: str = "list",
                      becomes: str = "makes it a tensor list") -> None:
    """Refuse to replace the Python list (or dict: ``kind``) ``name`` by another object (``becomes``) when
    another local may name the same one (role ``aliased``), or code outside this function may hold it (role
    ``borrowed``: the caller's list, an attribute's, one passed on; converters/containers/origins.py): that
    holder would keep the old object, without the ``construct``'s changes.

    >>> check_not_aliased(Roles({'xs': ALIASED}, ['xs']), 'xs', 'loop')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    runtime.core.errors.StateError: the list 'xs' is changed in a tensor-dependent loop ...
    """
    role = roles.of(name)
    if role == BORROWED:
        new_object = becomes if "new" in becomes else f"{becomes}, a new object"
        raise rt.errors.StateError(
            f"the {kind} '{name}' is changed in a tensor-dependent {construct} that {new_object}, but code "
            f"outside this function may hold the {kind}: it is a parameter (the caller's {kind}), or comes from an "
            f"attribute, a global, a call or another container, or was stored or passed elsewhere before the "
            f"{construct} ended. That holder would keep the old {kind} without the {construct}'s changes (their "
            f"values exist only in the graph, so they cannot be written back into it). Work on a copy, "
            f"`{name} = {kind}({name})` before the {construct}, and return it; or create the {kind} in this function")
    if role != ALIASED:
        return
    raise rt.errors.StateError(
        f"the {kind} '{name}' is changed in a tensor-dependent {construct} that {becomes}, but another name of "
        f"this function may refer to the same {kind} (an assignment such as `alias = {name}`), and that name "
        f"would keep the Python {kind} without the {construct}'s changes. Use one name for the {kind} (read and "
        f"change it as '{name}'), or give the other name a copy (`alias = {kind}({name})`)")


def check_tensor_list_not_aliased(roles: Roles, name: str, construct: str) -> None:
    """Refuse to change the tensor list ``name`` (an earlier tensor loop or if made it one) in a staged
    ``construct`` when another local may name the same one (role ``aliased``): the construct's change makes a
    new tensor list, bound to ``name`` only."""
    if roles.of(name) != ALIASED:
        return
    raise rt.errors.StateError(
        f"the list '{name}' is a tensor list here (an earlier tensor-dependent loop or if made it one), and the "
        f"tensor-dependent {construct} that changes it makes a new tensor list; another name of this function may "
        f"refer to the same list (an assignment such as `other = {name}`), and that name would keep the old "
        f"contents. Use one name for the list (read and change it as '{name}')")


_CONTAINER_KINDS = ((list, "list"), (rt.TensorList, "list"), (dict, "dict"), (set, "set"))


def check_one_container_picked(roles: Roles, name: str, value: Any, other_value: Any, construct: str) -> None:
    """Refuse a tensor-dependent ``construct`` (an if, a conditional expression) whose two paths bind ``name`` to
    two different lists, dicts or sets when the function then changes ``name`` in place (role ``picked``,
    given by the converter): the graph merges both into a new object, and the change would reach neither.
    Reading the picked container stays allowed (the converter gives no role then).

    >>> check_one_container_picked(Roles({'buf': PICKED}, ['buf']), 'buf', [1], [2], 'if')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    runtime.core.errors.StateError: 'buf' is one of two different lists picked by a tensor-dependent if, ...
    """
    if roles.of(name) != PICKED:
        return
    kind = _picked_kind(value, other_value)
    if kind is None:
        return
    raise rt.errors.StateError(
        f"'{name}' is one of two different {kind}s picked by a tensor-dependent {construct}, and this function then "
        f"changes '{name}' in place (e.g. `{name}.append(...)`). A tensor-dependent choice cannot pick one of two "
        f"{kind}s: the graph builds a new {kind} from both, so the change would reach neither of them. Change each "
        f"{kind} under its own condition instead (`if c: a.append(v)` / `else: b.append(v)`), or keep one list of "
        f"(key, value) pairs, or choose the values with rt.where")


def _picked_kind(value: Any, other_value: Any) -> Optional[str]:
    """The kind of container (``'list'``...) the two paths' values differ in, also inside tuples the paths
    give for ``buf, n = (a, 1) if c else (b, 2)``; None when they pick no two different containers."""
    if value is other_value:
        return None
    kinds = [kind for item in (value, other_value) for cls, kind in _CONTAINER_KINDS if isinstance(item, cls)]
    if kinds:
        return kinds[0]
    if isinstance(value, tuple) and isinstance(other_value, tuple) and len(value) == len(other_value):
        return next((kind for kind in map(_picked_kind, value, other_value) if kind is not None), None)
    return None
