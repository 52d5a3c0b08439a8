"""Nested Python structures (tuples, lists, dicts, namedtuples) flattened to leaves and rebuilt.

Functions and control-flow ops work on flat lists of tensors; users write nested structures.
Dicts are walked in sorted key order (insertion order if the keys cannot be sorted), so two dicts with
the same keys flatten the same way. ``None`` is structure, not a leaf: it has no tensor to carry.

>>> flatten({"b": 2, "a": (1, None)})
[1, 2]
>>> pack_sequence_as({"b": 0, "a": (0, None)}, [10, 20])
{'b': 20, 'a': (10, None)}
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Sequence

from runtime.core.tensor import EagerTensor, SymbolicTensor

# The leaves met most often, none of them composite: answered without hasattr, whose miss raises and
# clears an AttributeError inside (~0.4 us; tracing simple_relu asked about 30 times).
_PLAIN_LEAVES = frozenset({SymbolicTensor, EagerTensor, int, float, bool, str})


def _is_composite(value: Any) -> bool:
    """A value made of tensors plus static facts (a tensor list): flattened to ``__rt_components__()`` and
    rebuilt with ``__rt_from_components__(tensors)``, so loops and branches carry its tensors."""
    kind = type(value)
    return kind not in _PLAIN_LEAVES and hasattr(kind, "__rt_components__")


def _is_namedtuple(value: Any) -> bool:
    kind = type(value)
    return kind is not tuple and isinstance(value, tuple) and hasattr(kind, "_fields")


def sorted_keys(mapping: dict) -> list:
    try:
        return sorted(mapping)
    except TypeError:  # keys of mixed, unorderable types: keep insertion order
        return list(mapping)


def flatten(structure: Any) -> List[Any]:
    """The leaves of ``structure`` in a deterministic order."""
    leaves: List[Any] = []
    _flatten_into(structure, leaves)
    return leaves


def _flatten_into(value: Any, leaves: List[Any]) -> None:
    if value is None:
        return
    if isinstance(value, (tuple, list)):
        for item in value:
            _flatten_into(item, leaves)
    elif isinstance(value, dict):
        for key in sorted_keys(value):
            _flatten_into(value[key], leaves)
    elif _is_composite(value):
        leaves.extend(value.__rt_components__())
    else:
        leaves.append(value)


def pack_sequence_as(structure: Any, flat: Sequence[Any]) -> Any:
    """Rebuild ``structure`` with its leaves replaced, in order, by ``flat``."""
    items = iter(flat)
    result = _pack(structure, items)
    if next(items, _END) is not _END:
        raise ValueError(f"too many values to pack into {describe(structure)}")
    return result


_END = object()


def _pack(structure: Any, items: Iterator[Any]) -> Any:
    if structure is None:
        return None
    if isinstance(structure, (tuple, list)):
        return sequence_like(structure, [_pack(item, items) for item in structure])
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], items) for key in sorted_keys(structure)}
        return type(structure)((key, packed[key]) for key in structure)  # the user's key order
    if _is_composite(structure):
        parts = [next(items, _END) for _ in structure.__rt_components__()]
        if any(part is _END for part in parts):
            raise ValueError("not enough values to pack into the structure")
        return structure.__rt_from_components__(parts)
    value = next(items, _END)
    if value is _END:
        raise ValueError("not enough values to pack into the structure")
    return value


def sequence_like(sequence: Any, items: Sequence[Any]) -> Any:
    """A tuple, list or namedtuple of ``sequence``'s type holding ``items``.

    >>> import collections
    >>> sequence_like(collections.namedtuple("Pair", "a b")(1, 2), [3, 4])
    Pair(a=3, b=4)
    """
    if _is_namedtuple(sequence):
        return type(sequence)(*items)
    return type(sequence)(items)


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    """``structure`` with ``fn`` applied to every leaf."""
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])


def leaf_paths(structure: Any, prefix: str = "") -> List[str]:
    """A readable path for every leaf, in ``flatten`` order: ``'0'``, ``'1.x'``, ``'2['key']'``."""
    paths: List[str] = []
    _paths_into(structure, prefix, paths)
    return paths


def _paths_into(value: Any, prefix: str, paths: List[str]) -> None:
    if value is None:
        return
    if isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            _paths_into(item, f"{prefix}[{index}]", paths)
    elif isinstance(value, dict):
        for key in sorted_keys(value):
            _paths_into(value[key], f"{prefix}[{key!r}]", paths)
    elif _is_composite(value):
        paths.extend(prefix for _ in value.__rt_components__())
    else:
        paths.append(prefix)


def same_structure(a: Any, b: Any) -> bool:
    """True if ``a`` and ``b`` have the same containers (types, lengths, dict keys) and Nones."""
    if a is None or b is None:
        return a is None and b is None
    a_list, b_list = isinstance(a, (tuple, list)), isinstance(b, (tuple, list))
    if a_list or b_list:
        return (a_list and b_list and _is_namedtuple(a) == _is_namedtuple(b) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if _is_composite(a) or _is_composite(b):
        return type(a) is type(b)
    return True


def describe(structure: Any) -> str:
    """A short picture of a structure with leaves shown as ``*``: ``(*, [*, *], None)``."""
    if structure is None:
        return "None"
    if isinstance(structure, (tuple, list)):
        inner = ", ".join(describe(item) for item in structure)
        if isinstance(structure, list):
            return f"[{inner}]"
        return f"({inner},)" if len(structure) == 1 else f"({inner})"
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {describe(structure[k])}" for k in sorted_keys(structure)) + "}"
    return "*"
