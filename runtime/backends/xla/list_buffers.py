"""The values a tensor list or TensorArray is under ``jit_compile=True``: a buffer of a size fixed when compiling.

XLA has no growable values, so a list is a ``ListBuffer``: its elements stacked in one array, a ``written`` mask
(a TensorArray's elements may be unwritten; reading one is the numpy executor's error) and its length. Before
anything is written, a list whose elements' shape the graph does not give (a TensorArray made without
``element_shape``, the empty accumulator a gradient through nested loops fills with the inner loop's lists) is
``UnknownElements``: the first write, or the loop that fills it (``runtime.backends.xla.loops``, lowering its
body once abstractly with an ``ElementProbe`` in the list's place), says what its buffer holds.

>>> import numpy as np
>>> ListBuffer(np.zeros((3, 2)), np.zeros(3, bool), 3).slots
3
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import numpy as np

from runtime.core.dtypes import variant
from runtime.core.graph import PLACEHOLDER
from runtime.core.source_locations import resolve
from runtime.ops.control_flow_ops import IF, WHILE


class ListBuffer:
    """A list's elements in a buffer of ``slots`` slots (a JAX pytree).

    ``length`` is usually a Python int, part of the pytree's structure: loops and branches carry the buffer,
    and a list whose length they change does not fit their carry. A list whose length a tensor loop changes
    (``values.append(x)``, a gradient's accumulators, a TensorArray of ``dynamic_size=True`` written at run-time
    indices) is *growable* instead: its length is a traced int32 and its buffer has the slots the loop's bound
    allows (``runtime.backends.xla.loops``).

    The elements are tensors (``buffer`` is one array, [slots, *element shape]) or, for the accumulator of a
    gradient through a tensor loop nested in another (which keeps the inner loop's accumulators, one per outer
    iteration), lists: ``buffer`` is then a ``ListBuffer`` whose every array has a leading axis of ``slots``
    (the inner lists' buffers stacked: [outer slots, inner slots, ...], their lengths [outer slots])."""

    __slots__ = ("buffer", "written", "length")

    def __init__(self, buffer: Any, written: Any, length: Any):
        self.buffer = buffer     # [slots, *element shape], or the elements (lists) stacked on a first axis
        self.written = written   # bool [slots]: which slots hold an element (a TensorArray may have unwritten ones)
        # the list's length (a TensorArray's size): a Python int, or a traced int32 scalar for a growable list
        self.length = int(length) if isinstance(length, (int, np.integer, np.ndarray)) else length

    @property
    def growable(self) -> bool:
        return not isinstance(self.length, int)

    @property
    def of_lists(self) -> bool:
        return isinstance(self.buffer, ListBuffer)

    @property
    def slots(self) -> int:
        return int(self.written.shape[0])

    def growable_with(self, jnp: Any, slots: int) -> "ListBuffer":
        """This list as a growable one of ``slots`` slots (its elements first, zeros after)."""
        if self.growable:
            length = self.length
            buffer, written = self.buffer, self.written
        else:
            length = np.int32(self.length)
            buffer, written = each_array(lambda a: a[:self.length], self.buffer), self.written[:self.length]
        extra = slots - int(written.shape[0])
        if extra > 0:
            buffer, written = each_array(lambda a: _padded(jnp, a, extra), buffer), _padded(jnp, written, extra)
        return ListBuffer(buffer, written, jnp.asarray(length, np.int32))

    def with_static_length(self, length: int) -> "ListBuffer":
        """This growable list once its length is known when compiling (a loop of a known trip count grew it)."""
        if length > self.slots:   # (never: the slots hold every length the loop's bound allows)
            raise AssertionError(f"a list of {self.slots} slots cannot have length {length}")
        return ListBuffer(each_array(lambda a: a[:length], self.buffer), self.written[:length], length)


def _padded(jnp: Any, array: Any, extra: int) -> Any:
    """``array`` with ``extra`` rows of zeros after its rows (only zeros if it has none: no concatenation)."""
    zeros = jnp.zeros((extra,) + tuple(array.shape[1:]), array.dtype)
    return zeros if array.shape[0] == 0 else jnp.concatenate([array, zeros])


class UnknownElements:
    """A list of ``size`` unwritten elements whose shape (or structure: lists of lists) nothing has said yet."""

    __slots__ = ("op", "size")

    def __init__(self, op: Any, size: int):
        self.op = op       # the op that made it (TensorListReserve, TensorListFromTensors)
        self.size = size

    def with_element(self, jnp: Any, element: Any) -> ListBuffer:
        """The list as a buffer of elements like ``element`` (an array, or a list for a list of lists)."""
        return empty_buffer(jnp, structure_of(element), self.size, self.size)


class ElementProbe:
    """Stands for a list while a loop's body is lowered once to learn what it appends or writes
    (``runtime.backends.xla.loops``): each write records the element's structure."""

    __slots__ = ("size", "structures")

    def __init__(self, size: int):
        self.size = size   # the list's length before the loop
        self.structures: List[tuple] = []

    def record(self, element: Any) -> None:
        self.structures.append(structure_of(element))

    def element_like(self, jnp: Any) -> Optional[Any]:
        """Zeros shaped like the elements written so far (None if nothing was)."""
        if not self.structures:
            return None
        from jax import tree_util
        definition, leaves = self.structures[0]
        return tree_util.tree_unflatten(definition, [jnp.zeros(shape, dtype) for shape, dtype in leaves])


class WriteRanges:
    """What a probe of a loop's body learns of its growing writes (``TensorListSetItem`` with ``grow``): the
    highest index each may write, when the index's range is known (a loop counter), else None."""

    def __init__(self) -> None:
        self.highest: Dict[int, Optional[int]] = {}

    def record(self, op: Any, known_range: Optional[tuple]) -> None:
        self.highest[id(op)] = None if known_range is None else int(known_range[1])


def structure_of(value: Any, leading: int = 0) -> tuple:
    """A value's pytree definition and its arrays' shapes and dtypes, without ``leading`` axes."""
    from jax import tree_util
    leaves, definition = tree_util.tree_flatten(value)
    return definition, tuple((tuple(leaf.shape[leading:]), leaf.dtype) for leaf in leaves)


def empty_buffer(jnp: Any, structure: tuple, slots: int, length: Any) -> ListBuffer:
    """A list of ``length`` unwritten elements of ``structure`` in ``slots`` slots (``length`` a traced int32:
    a growable list)."""
    from jax import tree_util
    definition, leaves = structure
    buffer = tree_util.tree_unflatten(definition, [jnp.zeros((slots,) + shape, dtype) for shape, dtype in leaves])
    return ListBuffer(buffer, jnp.zeros((slots,), bool), length)


def each_array(function: Any, buffer: Any) -> Any:
    """``function`` applied to the buffer (an array), or to each array of a list of lists' stacked elements."""
    if isinstance(buffer, ListBuffer):
        from jax import tree_util
        return tree_util.tree_map(function, buffer)
    return function(buffer)


def _flatten(value: ListBuffer) -> tuple:
    if value.growable:
        return (value.buffer, value.written, value.length), None
    return (value.buffer, value.written), value.length


def _unflatten(length: Any, children: tuple) -> ListBuffer:
    return ListBuffer(*children) if length is None else ListBuffer(children[0], children[1], length)


_registered: List[bool] = []


def register_pytree() -> None:
    """Make the list values JAX pytrees (once; when JAX is first used: importing this module needs no JAX)."""
    if not _registered:
        from jax import tree_util
        tree_util.register_pytree_node(ListBuffer, _flatten, _unflatten)
        tree_util.register_pytree_node(UnknownElements, lambda v: ((), (v.op, v.size)),
                                       lambda aux, _: UnknownElements(*aux))
        # (a probe is carried whole through the branches of an If in the body it probes: no arrays)
        tree_util.register_pytree_node(ElementProbe, lambda probe: ((), probe), lambda probe, _: probe)
        _registered.append(True)


def list_name(tensor: Any) -> str:
    """How messages name the list ``tensor`` holds: the name the user gave it, quoted (a loop variable's, a
    placeholder's, a TensorArray's ``name=``), else where it was made (``created at train.py:12``: the op that made
    an unnamed TensorArray or list is ours, ``TensorListReserve``, a name the user never wrote)."""
    while True:
        op = tensor.op
        if op.op_def is WHILE:
            return repr(op.attrs["body"].inputs[tensor.index].op.name)
        if op.inputs and op.inputs[0].dtype == variant and op.op_def is not IF:
            tensor = op.inputs[0]
            continue
        if op.attrs.get("array"):
            return repr(op.attrs["array"])
        if op.op_def is PLACEHOLDER or op.creation_site is None:
            return repr(op.name)
        made = resolve(op.creation_site)
        return f"created at {os.path.basename(made.filename)}:{made.lineno}"
