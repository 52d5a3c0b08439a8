"""Python lists, dicts and sets that the branches of a tensor-dependent ``if`` change in place (``xs.append(v)``,
``xs[0] = v``, ``d['k'] = v``).

Both branches of a staged ``if`` are traced, one after the other, and each would change the same object.
So each branch starts from the contents before the ``if``, and what it leaves in the list or dict is taken
as a new one, the branch's value of that variable:

* both branches leave the same number of elements: the list stays a Python list; each element that
  differs between the branches becomes an output of the ``rt.cond``, and the merged contents are written
  back into the original list object (so every alias sees them, as in Python);
* the branches leave different numbers of elements: the ``if`` is traced again with the list as an
  ``rt.TensorList`` (its elements must then share one dtype), which the branches append to; after the
  ``if`` the variable is that tensor list, as after a tensor loop;
* a dict: like a list of its values, by key; the branches must leave the same keys (``StateError``
  otherwise, naming them). Without the copies the second branch started from what the first left, and
  the dict kept the first branch's values on both paths;
* a set: the branches must leave the same elements (``StateError`` otherwise).

>>> xs = [1]
>>> lists = BranchLists((xs,), 1)
>>> xs.append(2)
>>> branch_value = lists.captured((xs,))[0]
>>> branch_value, xs, branch_value is xs
([1, 2], [1], False)
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import runtime as rt
from autograph_lite.operators.containers.data_structures import tensor_list_from
from autograph_lite.operators.staging import Containers, Learned, NeedsTensorList

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import all, any, dict, enumerate, id, isinstance, len, list, set, sorted, str, tuple, type, zip


class BranchLists:
    """The Python lists among the first ``nouts`` state values before an ``if``, and their contents."""

    def __init__(self, init: tuple, nouts: int, names: Tuple[str, ...] = ()):
        self.originals: Dict[int, Any] = {index: value for index, value in enumerate(init[:nouts])
                                          if type(value) in (list, dict, set)}
        self.contents: Dict[int, Any] = {index: type(value)(value) for index, value in self.originals.items()}
        self.copies: List[Any] = []  # what captured() made of the lists and dicts the branches changed in place
        self.names = names

    def carried(self, learned: Learned) -> Containers:
        """The Python lists the if carries as they are (not yet as tensor lists: ``learned``), as
        staging.if_lists holds them: a construct inside that makes one a tensor list makes the if do so too."""
        return {id(value): (index, self.names[index], value) for index, value in self.originals.items()
                if type(value) is list and index not in learned.tensor_lists}

    def restore(self) -> None:
        """Put back every list's and dict's contents from before the ``if``."""
        for index, original in self.originals.items():
            if not _same_items(original, self.contents[index]):
                _refill(original, self.contents[index])

    def captured(self, raw: tuple) -> tuple:
        """A branch's state with each list it changed in place replaced by a new list of its contents; the
        original lists get their contents back (the other branch starts from them)."""
        values = list(raw)
        for index, original in self.originals.items():
            if values[index] is original and not _same_items(original, self.contents[index]):
                values[index] = type(original)(original)
                self.copies.append(values[index])
        self.restore()
        return tuple(values)

    def start_state(self, init: tuple, list_hints: Dict[int, Any], names: Tuple[str, ...]) -> tuple:
        """``init``, with the lists that ``list_hints`` names as tensor lists (see check_lengths)."""
        if not list_hints:
            return init
        values = list(init)
        for index, element in list_hints.items():
            values[index] = _as_tensor_list(names[index], self.contents[index], element)
        return tuple(values)

    def check_lengths(self, index: int, value: Any, other: Any, learned: Learned,
                      branches: Tuple[str, str] = ('one', 'other')) -> Optional[bool]:
        """For a list variable: True if both branches leave the same elements (nothing to merge), and
        ``NeedsTensorList`` for the if (``learned``) if they leave different numbers of elements: it is traced
        again with the list as a tensor list like one of the elements a branch added; None to merge as usual.
        ``branches`` names the branches that left ``value`` and ``other`` (for the error messages)."""
        if index not in self.originals or not (self._in_place(index, value) and self._in_place(index, other)):
            return None  # not a list changed in place (e.g. rebound to a new list): merged as usual
        if type(value) is dict:
            if value.keys() != other.keys():
                # Name each key with the branch that has it: a `del d[k]` in the if branch leaves k only after
                # the else branch, which is where the user should look for the difference.
                only = sorted((repr(key), branches[key not in value]) for key in value.keys() ^ other.keys())
                name = self.names[index] if index < len(self.names) else 'a dict'
                raise rt.errors.StateError(
                    f"the branches of a tensor-dependent if leave the dict '{name}' with different keys ("
                    + ', '.join(f'{key} only after the {branch} branch' for key, branch in only)
                    + "); the graph must give it the same keys on both paths: add and delete its keys alike in "
                    "both branches (or before or after the if)")
            return True if _same_items(value, other) else None
        if type(value) is set:
            if _same_items(value, other):
                return True
            name = self.names[index] if index < len(self.names) else 'a set'
            raise rt.errors.StateError(
                f"the branches of a tensor-dependent if leave the set '{name}' with different elements; a graph "
                "cannot hold a Python set whose elements depend on a tensor. Change the set the same way in both "
                "branches, or keep the values in a tensor (or a list both branches append to)")
        if len(value) != len(other):
            added = [item for branch in (value, other) for item in branch[len(self.contents[index]):]]
            raise NeedsTensorList(learned, index, added[-1] if added else (value or other)[-1])
        return True if _same_items(value, other) else None

    def _in_place(self, index: int, value: Any) -> bool:
        return value is self.originals[index] or any(value is copy for copy in self.copies)

    def settle(self, merged: tuple) -> tuple:
        """The state after the ``if``: a merged Python list or dict is written back into its original object."""
        values = list(merged)
        for index, original in self.originals.items():
            if type(values[index]) is type(original) and values[index] is not original:
                _refill(original, values[index])
                values[index] = original
        return tuple(values)


def _same_items(a: Any, b: Any) -> bool:
    if type(a) is set:   # tensors compare by identity (their == is a tensor), Python values by ==
        if any(isinstance(item, rt.Tensor) for item in (*a, *b)):
            return {id(item) for item in a} == {id(item) for item in b}
        return a == b
    if type(a) is dict:
        return len(a) == len(b) and all(key in b and a[key] is b[key] for key in a)
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _refill(original: Any, contents: Any) -> None:
    """Give ``original`` (a list, dict or set) the items of ``contents``, in place (aliases see them)."""
    if type(original) in (dict, set):
        original.clear()
        original.update(contents)
    else:
        original[:] = contents


def _as_tensor_list(name: str, values: list, element: Any) -> rt.TensorList:
    try:
        return tensor_list_from(name, values, element)
    except rt.errors.StateError as error:
        raise rt.errors.StateError(f"the branches of a tensor-dependent if leave the list '{name}' with different "
                                   f"numbers of elements, so it becomes a tensor list: {error}") from None
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"the branches of a tensor-dependent if leave the list '{name}' with different numbers of elements, "
            f"so it becomes a tensor list, which holds tensors of one dtype; but: {error}. Append the same number "
            "of elements in both branches (the list then stays a Python list), or only tensors and numbers"
        ) from None
