"""The keys of dicts that tensor-dependent loops carry: a loop's state keeps one structure in every iteration, so
a key the loop adds is either a variable the loop creates (staged_loops.py carries it: ``with_keys``,
``without_keys``, ``added_keys``) or a StateError at the user's statement that names the dict, the key and the fix.

>>> added_keys({'a': 1}, {'a': 1, 'b': 2})
['b']
>>> without_keys({'a': 1, 'b': 2}, ['b'])
{'a': 1}
"""
from __future__ import annotations

from typing import Any

import runtime as rt

# Pinned at import, as in data_structures.py: user code may replace these builtins
from builtins import dict, type


def refuse_added_key(name: str, key: Any, why: str) -> None:
    """The StateError for ``name[key] = ...`` adding a key in a tensor-dependent loop that cannot carry it."""
    raise rt.errors.StateError(
        f"'{name}[{key!r:.40}] = ...' adds the key {key!r:.40} to the dict '{name}' in a tensor-dependent loop, "
        f"{why}. Give '{name}' all its keys before the loop and only assign them in it (or add the key after the "
        f"loop)")


def added_keys(before: Any, after: Any) -> list:
    """The keys the dict ``after`` has beyond those of the dict ``before`` (which it keeps), else []."""
    if type(before) is not dict or type(after) is not dict or not before.keys() <= after.keys():
        return []
    return [key for key in after if key not in before]


def with_keys(value: Any, extra: dict) -> Any:
    """The dict ``value`` with the items of ``extra`` added (a new dict)."""
    return {**value, **extra}


def without_keys(value: Any, keys: Any) -> Any:
    """The dict ``value`` without ``keys`` (a new dict), what a loop body starts from before it sets them."""
    return {key: item for key, item in value.items() if key not in keys}


def check_loop_dict_keys(name: str, what: str, added: list, removed: list) -> None:
    """A StateError at the user's line for ``what``, which adds or removes keys of the dict ``name`` that a
    tensor-dependent loop carries: the loop would only find the changed structure after tracing its body,
    at the loop's line, without saying which statement changed it."""
    if added or removed:
        change = f"adds the key {added[0]!r} to" if added else f"removes the key {removed[0]!r} from"
        raise rt.errors.StateError(
            f"'{what}' {change} the dict '{name}' in a tensor-dependent loop, whose state must keep the same keys "
            f"in every iteration. Give '{name}' all its keys before the loop and only assign them in it (or "
            f"add and remove keys after the loop)")
