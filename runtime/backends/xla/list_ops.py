"""Tensor lists and TensorArrays under ``jit_compile=True``: a preallocated buffer.

XLA has no growable values, so a list is a ``ListBuffer``: its elements stacked in one array of a size fixed
when compiling, a ``written`` mask (a TensorArray's elements may be unwritten; reading one is the numpy
executor's error), and its length. That size must be known when compiling:

- a TensorArray of a static size (``rt.TensorArray(dtype, size=n)`` with a Python ``n``) written and read at
  run-time indices, also as the state of a tensor loop: the usual way to collect a loop's results;
- a Python list or TensorList built and changed where its length stays known (outside tensor loops, or read and
  assigned but not grown inside them).

A list whose length changes inside a tensor loop (``values.append(x)`` in a ``while`` on a tensor) has a length
known only when the graph runs, and so do its stacked result's shape: that is a LoweringError naming the op and
the fix (a TensorArray of fixed size written at the loop counter, or a preallocated tensor and ``x[i] = v``), and
``jit_compile='auto'`` runs such a graph on the numpy executor.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.xla.lowering import is_static
from runtime.core.dtypes import variant
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.backends.xla.table import CHECKED, NOT_LOWERED, lowers
from runtime.ops.list_gradients import (TENSOR_LIST_ADD_N, TENSOR_LIST_INSERT, TENSOR_LIST_RESIZE,
                                        TENSOR_LIST_SCATTER_ADD, TENSOR_LIST_SPLIT_LIKE, TENSOR_LIST_ZEROS_LIKE)
from runtime.ops.list_ops import (TENSOR_LIST_CONCAT, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS,
                                  TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK)
from runtime.ops.tensor_array_ops import (TENSOR_LIST_GATHER, TENSOR_LIST_RESERVE, TENSOR_LIST_SCATTER,
                                          TENSOR_LIST_SPLIT)

_FIX = ("collect the values in a TensorArray of a fixed size (rt.TensorArray(dtype, size=n), n a Python int) "
        "written at the loop counter, or preallocate the result (rt.zeros([n, ...])) and assign x[i] = v; or use "
        "jit_compile='auto' to run this graph on the numpy executor")


class ListBuffer:
    """A list's elements in a buffer of ``slots`` slots (a JAX pytree).

    ``length`` is usually a Python int, part of the pytree's structure: loops and branches carry the buffer,
    and a list whose length they change does not fit their carry. A list whose length a tensor loop changes
    (``values.append(x)``, a gradient's accumulators) is *growable* instead: its length is a traced int32 and its
    buffer has the slots the loop's bound allows (``runtime.backends.xla.loops``), written at ``length``.

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
            buffer, written = _each_array(lambda a: a[:self.length], self.buffer), self.written[:self.length]
        extra = slots - int(written.shape[0])
        if extra > 0:
            buffer = _each_array(lambda a: jnp.concatenate([a, jnp.zeros((extra,) + tuple(a.shape[1:]), a.dtype)]),
                                 buffer)
            written = jnp.concatenate([written, jnp.zeros((extra,), bool)])
        return ListBuffer(buffer, written, jnp.asarray(length, np.int32))

    def with_static_length(self, length: int) -> "ListBuffer":
        """This growable list once its length is known when compiling (a loop of a known trip count grew it)."""
        return ListBuffer(_each_array(lambda a: a[:length], self.buffer), self.written[:length], length)


class EmptyListOfLists:
    """The empty list a gradient's accumulator of lists starts as, before the loop that fills it: its elements'
    structure (the inner lists' slots, shapes, whether their lengths are known when compiling) is known only
    once the loop's body is lowered (``runtime.backends.xla.loops`` then makes it a growable ``ListBuffer``)."""

    __slots__ = ("op",)

    def __init__(self, op: Any):
        self.op = op   # the TensorListFromTensors that made it


class ElementProbe:
    """Stands for a list of lists while a loop's body is lowered once to learn what it appends (loops.py): an
    append records the element's structure (a pytree definition and each array's shape and dtype)."""

    __slots__ = ("elements",)

    def __init__(self) -> None:
        self.elements: list = []

    def record(self, element: Any) -> None:
        from jax import tree_util
        leaves, structure = tree_util.tree_flatten(element)
        self.elements.append((structure, tuple((tuple(leaf.shape), leaf.dtype) for leaf in leaves)))

    def empty_buffer(self, jnp: Any, slots: int) -> ListBuffer:
        """A growable list of ``slots`` slots for the elements recorded (all of one structure), none written."""
        from jax import tree_util
        structure, leaves = self.elements[0]
        buffer = tree_util.tree_unflatten(structure, [jnp.zeros((slots,) + shape, dtype) for shape, dtype in leaves])
        return ListBuffer(buffer, jnp.zeros((slots,), bool), jnp.asarray(0, np.int32))


def _each_array(function: Any, buffer: Any) -> Any:
    """``function`` applied to the buffer (an array), or to each array of a list of lists' stacked elements."""
    if isinstance(buffer, ListBuffer):
        from jax import tree_util
        return tree_util.tree_map(function, buffer)
    return function(buffer)


_registered = []


def _flatten(value: ListBuffer) -> tuple:
    if value.growable:
        return (value.buffer, value.written, value.length), None
    return (value.buffer, value.written), value.length


def _unflatten(length: Any, children: tuple) -> ListBuffer:
    return ListBuffer(*children) if length is None else ListBuffer(children[0], children[1], length)


def register_pytree() -> None:
    """Make ``ListBuffer`` a JAX pytree (once; when JAX is first used: importing this module needs no JAX)."""
    if not _registered:
        from jax import tree_util
        tree_util.register_pytree_node(ListBuffer, _flatten, _unflatten)
        tree_util.register_pytree_node(EmptyListOfLists, lambda v: ((), v.op), lambda op, _: EmptyListOfLists(op))
        _registered.append(True)


def _element_shape(ctx, op, *candidates) -> tuple:
    for shape in candidates:
        if shape is not None and None not in shape:
            return tuple(shape)
    raise ctx.error(op, "the shape of the list's elements is not fully known when compiling, and XLA needs it "
                        "for the list's buffer; give element_shape= (a TensorArray) or elements of one static shape")


def list_name(tensor: Any) -> str:
    """The name the user gave the list ``tensor`` holds (a loop variable's, a placeholder's), for messages."""
    while True:
        op = tensor.op
        if op.op_def is WHILE:
            return op.attrs["body"].inputs[tensor.index].op.name
        if op.inputs and op.inputs[0].dtype == variant and op.op_def is not IF:
            tensor = op.inputs[0]
            continue
        return op.name


def _static_length(ctx, op, value: ListBuffer) -> int:
    if value.growable:
        raise ctx.error(op, f"it reads list {list_name(op.inputs[0])!r} whole (its length or its elements' stacked "
                            "shape), but the list is grown in a tensor loop (this read is inside it) or was grown in "
                            "one whose number of appends is known only when the graph runs (the loop may stop early: "
                            "a break, a condition besides its counter's, only maximum_iterations; or it appends under "
                            "an if), so the list's length is too; read it whole after a loop that appends once per "
                            "iteration and has a trip count known when compiling (for i in rt.range(n), n a Python "
                            "int, without break), or " + _FIX)
    return value.length


_LIST_OF_LISTS = ("it reads a list of lists (the accumulator a gradient through nested tensor loops keeps), which "
                  "compiles only as the gradient pushes and pops it")


def _of_tensors(lowering: Any) -> Any:
    """``lowering``, refusing a list of lists clearly (only appends, pops and its length compile for those)."""
    def lower(ctx, op, handle, *rest):
        if isinstance(handle, EmptyListOfLists) or handle.of_lists:
            raise ctx.error(op, _LIST_OF_LISTS)
        return lowering(ctx, op, handle, *rest)
    lower.__name__, lower.__doc__ = lowering.__name__, lowering.__doc__
    return lower


@lowers(TENSOR_LIST_RESERVE)
def _reserve(ctx, op, num_elements):
    size = int(ctx.static(num_elements, op, "size (a TensorArray's size must be a Python int for XLA)"))
    if size < 0:
        return ctx.error_from_kernel(op, [np.asarray(size)])
    shape = _element_shape(ctx, op, op.attrs["element_shape"], op.outputs[0].shape)
    dtype = op.attrs["element_dtype"]
    return ListBuffer(ctx.jnp.zeros((size,) + shape, dtype), ctx.jnp.zeros((size,), bool), np.int32(size))


@lowers(TENSOR_LIST_FROM_TENSORS)
def _from_tensors(ctx, op, *elements):
    if op.attrs["element_dtype"] == variant:
        if not elements:   # a gradient's accumulator of the inner loop's accumulators (nested tensor loops)
            return EmptyListOfLists(op)
        raise ctx.error(op, "it makes a list of lists, which compiles only as the accumulator of a gradient through "
                            "nested tensor loops; stack the inner values into one tensor, or run this function "
                            "with jit_compile=None or 'auto'")
    if not elements:
        shape = _element_shape(ctx, op, op.attrs["element_shape"], op.outputs[0].shape)
        buffer = ctx.jnp.zeros((0,) + shape, op.attrs["element_dtype"])
    else:
        if len({tuple(np.shape(e)) for e in elements}) > 1:
            raise ctx.error(op, "its elements have different shapes, and a list's buffer holds one shape; " + _FIX)
        buffer = ctx.jnp.stack([ctx.jnp.asarray(e) for e in elements])
    return ListBuffer(buffer, ctx.jnp.ones((len(elements),), bool), np.int32(len(elements)))


@lowers(TENSOR_LIST_FROM_TENSOR)
def _from_tensor(ctx, op, tensor):
    tensor = ctx.jnp.asarray(tensor)
    return ListBuffer(tensor, ctx.jnp.ones((tensor.shape[0],), bool), np.int32(tensor.shape[0]))


@lowers(TENSOR_LIST_PUSH_BACK)
def _push_back(ctx, op, handle, element):
    jnp = ctx.jnp
    if isinstance(handle, ElementProbe):   # the body of a loop is lowered to learn what it appends (loops.py)
        handle.record(element)
        return handle
    if isinstance(element, ListBuffer) or isinstance(handle, EmptyListOfLists) or handle.of_lists:
        if not (handle.growable and isinstance(element, ListBuffer) and handle.of_lists):
            raise ctx.error(op, "it appends a list to a list, and a list of lists compiles only as the accumulator "
                                "of a gradient through nested tensor loops, filled in a loop of a known bound; "
                                "stack the inner values into one tensor, or run this function with "
                                "jit_compile=None or 'auto'")
        if _structure(element) != _structure(handle.buffer, leading=1):
            raise ctx.error(op, f"the lists appended to list {list_name(op.inputs[0])!r} differ in their sizes "
                                "between iterations (an inner loop's bound changes), and a buffer holds one; give "
                                "the inner loop a bound known when compiling (maximum_iterations=n)")
    else:
        element = jnp.asarray(element)
        if element.shape != handle.buffer.shape[1:]:
            raise ctx.error(op, "the appended element's shape differs from the list's other elements, and a list's "
                                "buffer holds one shape; " + _FIX)
    if handle.growable:   # written at its length, in a slot a loop's bound reserved
        if id(op) not in ctx.reserved_appends:   # (an append the loop did not count: checked here)
            ctx.check(handle.length < handle.slots, op, why=f"list {list_name(op.inputs[0])!r} has no slot left "
                      f"for this append (its loop reserved {handle.slots})")
        if handle.slots == 0:   # a loop that never runs (its body is compiled all the same)
            return ListBuffer(handle.buffer, handle.written, handle.length + np.int32(1))
        position = jnp.minimum(handle.length, handle.slots - 1)
        return ListBuffer(*_written_at(ctx, handle, position, element), handle.length + np.int32(1))
    length = handle.length
    buffer = jnp.concatenate([handle.buffer[:length], element[None]], 0)
    return ListBuffer(buffer, jnp.ones((length + 1,), bool), np.int32(length + 1))


def _written_at(ctx, handle: ListBuffer, position: Any, element: Any) -> tuple:
    """(buffer, written) with ``element`` in slot ``position``: a dynamic-update-slice, which XLA does in place
    (``.at[position].set`` is a scatter: several times slower per loop iteration on a CPU)."""
    lax = ctx.lax
    if handle.of_lists:
        from jax import tree_util
        buffer = tree_util.tree_map(lambda a, e: lax.dynamic_update_index_in_dim(a, e.astype(a.dtype), position, 0),
                                    handle.buffer, element)
    else:
        buffer = lax.dynamic_update_index_in_dim(handle.buffer, element.astype(handle.buffer.dtype), position, 0)
    return buffer, lax.dynamic_update_index_in_dim(handle.written, True, position, 0)


def _structure(value: Any, leading: int = 0) -> tuple:
    """A list's (or an element's) pytree definition and its arrays' shapes and dtypes, without ``leading`` axes."""
    from jax import tree_util
    leaves, definition = tree_util.tree_flatten(value)
    return definition, tuple((tuple(leaf.shape[leading:]), leaf.dtype) for leaf in leaves)


def _position(ctx, op, value: ListBuffer, index: Any, python_rules: bool):
    """``index`` as a position in the buffer, checked as the kernel checks it (raising its error)."""
    jnp = ctx.jnp
    index = jnp.asarray(index)
    if python_rules:  # a TensorList: negative counts from the end
        ctx.check((index >= -value.length) & (index < value.length), op)
        index = jnp.where(index < 0, index + value.length, index)
    else:             # a TensorArray: from 0, below its size
        ctx.check((index >= 0) & (index < value.length), op)
    return jnp.clip(index, 0, max(value.buffer.shape[0] - 1, 0))


@lowers(TENSOR_LIST_GET_ITEM)
@_of_tensors
def _get_item(ctx, op, handle, index):
    array = op.attrs.get("array")
    position = _position(ctx, op, handle, index, array is None)
    if array is not None:
        ctx.check(handle.written[position], op)   # an element never written: the kernel's error
    return handle.buffer[position]


@lowers(TENSOR_LIST_SET_ITEM)
@_of_tensors
def _set_item(ctx, op, handle, index, element):
    if op.attrs.get("grow") and (not is_static(index) or handle.growable):
        raise ctx.error(op, "a write at a run-time index may grow this TensorArray (dynamic_size=True), and XLA "
                            "needs its size when compiling; make it with a fixed size (rt.TensorArray(dtype, "
                            "size=n))")
    if op.attrs.get("grow") and int(index) >= handle.buffer.shape[0]:
        grown = int(index) + 1 - handle.buffer.shape[0]
        handle = ListBuffer(ctx.jnp.concatenate([handle.buffer, ctx.jnp.zeros((grown,) + handle.buffer.shape[1:],
                                                                              handle.buffer.dtype)]),
                            ctx.jnp.concatenate([handle.written, ctx.jnp.zeros((grown,), bool)]),
                            np.int32(handle.buffer.shape[0] + grown))
    position = _position(ctx, op, handle, index, op.attrs.get("array") is None)
    element = ctx.jnp.asarray(element)
    if element.shape != handle.buffer.shape[1:]:
        raise ctx.error(op, "the written element's shape differs from the list's buffer; " + _FIX)
    return ListBuffer(*_written_at(ctx, handle, position, element), handle.length)


@lowers(TENSOR_LIST_POP)
def _pop(ctx, op, handle, index):
    if isinstance(handle, EmptyListOfLists) or (handle.of_lists and not handle.growable):
        raise ctx.error(op, _LIST_OF_LISTS + " in a loop of a known bound")
    if handle.growable:
        if not is_static(index) or int(index) != -1:
            raise ctx.error(op, f"it pops list {list_name(op.inputs[0])!r} at another index than the last, and "
                                "the list's length is known only when the graph runs; pop() the last element")
        ctx.check(handle.length > 0, op)   # popping an empty list: the kernel's error
        lax = ctx.lax
        if handle.slots == 0:
            return handle, _each_array(lambda a: ctx.jnp.zeros(a.shape[1:], a.dtype), handle.buffer)
        position = ctx.jnp.clip(handle.length - 1, 0, max(handle.slots - 1, 0))
        return (ListBuffer(handle.buffer, lax.dynamic_update_index_in_dim(handle.written, False, position, 0),
                           handle.length - np.int32(1)),
                _each_array(lambda a: lax.dynamic_index_in_dim(a, position, 0, keepdims=False), handle.buffer))
    length = _static_length(ctx, op, handle)
    if length == 0 or not is_static(index):
        if length == 0:
            ctx.check(np.False_, op)
            return handle, ctx.jnp.zeros(handle.buffer.shape[1:], handle.buffer.dtype)
        raise ctx.error(op, "it pops at an index known only when the graph runs (the list's shape after it "
                            "depends on it); pop() the last element or use a TensorArray")
    position = int(index)
    if not -length <= position < length:
        return ctx.error_from_kernel(op, [_numpy_list(handle, length), np.asarray(position)])
    position %= length
    kept = [i for i in range(length) if i != position]
    jnp = ctx.jnp
    return (ListBuffer(handle.buffer[np.array(kept, np.int32)] if kept else handle.buffer[:0],
                       jnp.ones((len(kept),), bool), np.int32(len(kept))), handle.buffer[position])


def _numpy_list(handle: ListBuffer, length: int) -> Any:
    from runtime.ops.list_values import ListValue, wrap
    return wrap(ListValue([None] * length, length))


@lowers(TENSOR_LIST_LENGTH)
def _length(ctx, op, handle):
    if isinstance(handle, EmptyListOfLists):
        return np.int32(0)
    return handle.length if handle.growable else np.int32(handle.length)


def _all_written(ctx, op, handle: ListBuffer) -> None:
    if op.attrs.get("array") is not None:
        ctx.check(ctx.jnp.all(handle.written), op)


@lowers(TENSOR_LIST_STACK)
@_of_tensors
def _stack(ctx, op, handle):
    length = _static_length(ctx, op, handle)
    _all_written(ctx, op, handle)
    return handle.buffer[:length]


@lowers(TENSOR_LIST_CONCAT)
@_of_tensors
def _concat(ctx, op, handle):
    length = _static_length(ctx, op, handle)
    if length == 0:
        ctx.check(np.False_, op)
        return ctx.jnp.zeros(tuple(0 if d is None else d for d in op.outputs[0].shape), handle.buffer.dtype)
    _all_written(ctx, op, handle)
    return ctx.jnp.concatenate([handle.buffer[i] for i in range(length)], op.attrs["axis"])


@lowers(TENSOR_LIST_GATHER)
@_of_tensors
def _gather(ctx, op, handle, indices):
    indices = ctx.jnp.asarray(indices)
    ctx.check(ctx.jnp.all((indices >= 0) & (indices < handle.length)), op)
    positions = ctx.jnp.clip(indices, 0, max(handle.buffer.shape[0] - 1, 0))
    ctx.check(ctx.jnp.all(handle.written[positions]), op)
    return handle.buffer[positions]


@lowers(TENSOR_LIST_SCATTER)
@_of_tensors
def _scatter(ctx, op, handle, tensor, indices):
    if op.attrs["grow"]:
        raise ctx.error(op, "a scatter into a TensorArray of dynamic size may grow it, and XLA needs its size "
                            "when compiling; make it with a fixed size (rt.TensorArray(dtype, size=n))")
    indices = ctx.jnp.asarray(indices)
    ctx.check(ctx.jnp.all((indices >= 0) & (indices < handle.length)), op)
    positions = ctx.jnp.clip(indices, 0, max(handle.buffer.shape[0] - 1, 0))
    return ListBuffer(handle.buffer.at[positions].set(tensor), handle.written.at[positions].set(True), handle.length)


@lowers(TENSOR_LIST_ZEROS_LIKE)
@_of_tensors
def _zeros_like(ctx, op, handle):
    return ListBuffer(ctx.jnp.zeros_like(handle.buffer), handle.written, handle.length)


@lowers(TENSOR_LIST_ADD_N)
@_of_tensors
def _add_n(ctx, op, a, b):
    if a.buffer.shape != b.buffer.shape:
        raise ctx.error(op, "the two lists' buffers differ in size")
    return ListBuffer(a.buffer + b.buffer, a.written | b.written, a.length)


CHECKED.update({TENSOR_LIST_PUSH_BACK, TENSOR_LIST_GET_ITEM, TENSOR_LIST_SET_ITEM, TENSOR_LIST_POP,
                TENSOR_LIST_STACK, TENSOR_LIST_CONCAT,
                TENSOR_LIST_GATHER, TENSOR_LIST_SCATTER})
_GRADIENT = ("a gradient op of lists whose pieces or positions change the list's length: its buffer's size would "
             "be known only when the graph runs; ")
NOT_LOWERED.update({
    TENSOR_LIST_SPLIT: "a TensorArray split into pieces of run-time lengths gives elements of different shapes, "
                       "and a buffer holds one shape; " + _FIX,
    TENSOR_LIST_SCATTER_ADD: _GRADIENT + _FIX,
    TENSOR_LIST_INSERT: _GRADIENT + _FIX,
    TENSOR_LIST_RESIZE: _GRADIENT + _FIX,
    TENSOR_LIST_SPLIT_LIKE: _GRADIENT + _FIX,
})
