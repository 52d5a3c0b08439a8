"""What a tensor-list handle holds while a graph runs, and the index and shape rules of its kernels.

A handle tensor (dtype ``variant``) holds a ``ListValue``. Versions of one list share a Python list of
arrays: a version sees ``items[:length]``, then ``size - length`` slots that were never written (a
``TensorArray`` of size 3 starts as ``ListValue([], 0, 3)``). Writing past the end of the newest version
appends to the shared storage in place (amortized O(1)); any other write copies first, so a version never
sees another version's elements. ``list_ops`` (TensorList, Python's list rules) and ``tensor_array_ops``
(TensorArray, TensorFlow's rules: no negative indices, a fixed or growing size, unwritten elements) use it.

>>> value = ListValue([], 0, size=3)
>>> newer = written(value, {0: np.array(1.0)}, None)
>>> newer.elements(), value.elements()
([array(1.), None, None], [None, None, None])
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from runtime.core import shapes
from runtime.core.errors import InvalidArgumentError
from runtime.core.tensor import Shape


class ListValue:
    """A version of a list: ``items[:length]`` of shared storage (``None`` there: an unwritten slot), then
    ``size - length`` unwritten slots. ``shape``: what the elements' shapes must fit (a TensorArray's
    declared element shape, made concrete by the first write when all elements share one shape)."""

    __slots__ = ("items", "length", "size", "shape")

    def __init__(self, items: List[Optional[np.ndarray]], length: int, size: Optional[int] = None,
                 shape: Shape = None):
        self.items, self.length = items, length
        self.size = length if size is None else size
        self.shape = shape

    def elements(self) -> List[Optional[np.ndarray]]:
        """A new Python list of the elements (None for unwritten ones)."""
        return self.items[:self.length] + [None] * (self.size - self.length)

    def element(self, position: int) -> Optional[np.ndarray]:
        return self.items[position] if position < self.length else None

    def __repr__(self) -> str:
        return f"ListValue(size={self.size})"


def wrap(value: ListValue) -> np.ndarray:
    handle = np.empty((), dtype=object)
    handle[()] = value
    return handle


def unwrap(handle: Any) -> ListValue:
    return handle[()] if type(handle) is np.ndarray else handle  # the compiled executor may pass it bare


def written(value: ListValue, updates: Dict[int, np.ndarray], shape: Shape) -> ListValue:
    """A new version of ``value`` with ``updates`` (position -> element) written; grows to fit them.

    Writes past the end of the newest version append in place; others copy the storage once.
    """
    items = value.items
    if not updates:
        return ListValue(items, value.length, value.size, shape)
    top = max(updates) + 1
    if min(updates) < value.length or len(items) != value.length:  # would change what another version sees
        items = items[:value.length]
    if top > len(items):
        items.extend([None] * (top - len(items)))
    for position, element in updates.items():
        items[position] = element
    return ListValue(items, max(value.length, top), max(value.size, top), shape)


def written_one(value: ListValue, position: int, element: np.ndarray, shape: Shape) -> ListValue:
    """``written(value, {position: element}, shape)``, faster: the write of every step of a loop."""
    items, length = value.items, value.length
    if position >= length and len(items) == length:  # past the end of the newest version: in place
        if position > length:
            items.extend([None] * (position - length))
        items.append(element)
        return ListValue(items, position + 1, max(value.size, position + 1), shape)
    return written(value, {position: element}, shape)


# --- TensorArray rules (attr ``array``: the array's name, "" when unnamed) ----------------------------
def label(array: str) -> str:
    return f"TensorArray '{array}'" if array else "TensorArray"


def array_position(value: ListValue, index: Any, array: str, action: str, grow: bool = False) -> int:
    """``index`` as a position of the array, checked: >= 0, and < size unless ``grow``."""
    position = int(index)
    if position < 0:
        raise InvalidArgumentError(f"{label(array)}: cannot {action} index {position}: TensorArray indices start "
                                   "at 0 (a negative index does not count from the end)")
    if position >= value.size and not grow:
        fixed = (" and a fixed size; make it with dynamic_size=True to let writes grow it"
                 if action == "write" else "")
        raise InvalidArgumentError(f"{label(array)}: cannot {action} index {position}: the array has size "
                                   f"{value.size}{fixed}")
    return position


def read_element(value: ListValue, position: int, array: str, action: str) -> np.ndarray:
    """The element at ``position``; an error naming the array when it was never written."""
    element = value.element(position)
    if element is None:
        raise InvalidArgumentError(
            f"{label(array)}: cannot {action} element {position}: it was never written (the array has size "
            f"{value.size}); write every element before reading it (TensorFlow would give zeros here when the "
            "element shape is known; autograph_lite refuses instead of inventing values)")
    return element


def all_elements(value: ListValue, array: Optional[str], action: str) -> List[np.ndarray]:
    """Every element, for stack/concat; for an array, an error naming the first unwritten one."""
    elements = value.elements()
    if array is not None:
        for position, element in enumerate(elements):
            if element is None:
                read_element(value, position, array, action)
    return elements


def checked_shape(value: ListValue, shape: tuple, array: str, position: int, same_shape: bool) -> Shape:
    """The array's element shape after writing an element of ``shape`` at ``position`` (an error if it does
    not fit: the declared shape, or with ``same_shape`` the shape of the elements already written)."""
    if value.shape == shape:
        return value.shape
    if not is_compatible(value.shape, shape):
        rule = ("with infer_shape=True all elements have one shape; make the array with infer_shape=False to "
                "allow different shapes (and concat() instead of stack())" if same_shape else
                "it does not fit the declared element_shape")
        raise InvalidArgumentError(f"{label(array)}: cannot write an element of shape {shapes.format_shape(shape)} "
                                   f"at index {position}: the array's elements have shape "
                                   f"{shapes.format_shape(value.shape)}; {rule}")
    return tuple(shape) if same_shape else value.shape


def is_compatible(a: Shape, b: Shape) -> bool:
    """True if some shape fits both (None dims and an unknown rank fit anything)."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def refined(a: Shape, b: Shape) -> Shape:
    """The most specific shape fitting both compatible shapes ``a`` and ``b``."""
    if a is None:
        return None if b is None else tuple(b)
    if b is None:
        return tuple(a)
    return tuple(x if x is not None else y for x, y in zip(a, b))
