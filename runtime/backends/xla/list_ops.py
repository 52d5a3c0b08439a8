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
    """A list's elements in a buffer of ``buffer.shape[0]`` slots (a JAX pytree).

    ``length`` is usually a Python int, part of the pytree's structure: loops and branches carry the buffer,
    and a list whose length they change does not fit their carry. A list whose length a tensor loop changes
    (``values.append(x)``, a gradient's accumulators) is *growable* instead: its length is a traced int32 and its
    buffer has the slots the loop's bound allows (``runtime.backends.xla.loops``), written at ``length``."""

    __slots__ = ("buffer", "written", "length")

    def __init__(self, buffer: Any, written: Any, length: Any):
        self.buffer = buffer     # [slots, *element shape]
        self.written = written   # bool [slots]: which slots hold an element (a TensorArray may have unwritten ones)
        # the list's length (a TensorArray's size): a Python int, or a traced int32 scalar for a growable list
        self.length = int(length) if isinstance(length, (int, np.integer, np.ndarray)) else length

    @property
    def growable(self) -> bool:
        return not isinstance(self.length, int)

    @property
    def slots(self) -> int:
        return int(self.buffer.shape[0])

    def growable_with(self, jnp: Any, slots: int) -> "ListBuffer":
        """This list as a growable one of ``slots`` slots (its elements first, zeros after)."""
        if self.growable:
            length = self.length
            buffer, written = self.buffer, self.written
        else:
            length = np.int32(self.length)
            buffer, written = self.buffer[:self.length], self.written[:self.length]
        extra = slots - int(buffer.shape[0])
        if extra > 0:
            buffer = jnp.concatenate([buffer, jnp.zeros((extra,) + tuple(buffer.shape[1:]), buffer.dtype)])
            written = jnp.concatenate([written, jnp.zeros((extra,), bool)])
        return ListBuffer(buffer, written, jnp.asarray(length, np.int32))

    def with_static_length(self, length: int) -> "ListBuffer":
        """This growable list once its length is known when compiling (a loop of a known trip count grew it)."""
        return ListBuffer(self.buffer[:length], self.written[:length], length)


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
        raise ctx.error(op, "it makes a list of lists, which does not compile yet (a gradient through a tensor loop "
                            "nested in another keeps one, for the inner loop's values); take that gradient with "
                            "jit_compile=None or 'auto', or unroll one of the loops (a Python range)")
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
    if isinstance(element, ListBuffer):
        raise ctx.error(op, "it appends a list to a list, and a list of lists does not compile yet (a gradient "
                            "through a tensor loop nested in another keeps one); take that gradient with "
                            "jit_compile=None or 'auto'")
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
    return (lax.dynamic_update_index_in_dim(handle.buffer, element.astype(handle.buffer.dtype), position, 0),
            lax.dynamic_update_index_in_dim(handle.written, True, position, 0))


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
def _get_item(ctx, op, handle, index):
    array = op.attrs.get("array")
    position = _position(ctx, op, handle, index, array is None)
    if array is not None:
        ctx.check(handle.written[position], op)   # an element never written: the kernel's error
    return handle.buffer[position]


@lowers(TENSOR_LIST_SET_ITEM)
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
    if handle.growable:
        if not is_static(index) or int(index) != -1:
            raise ctx.error(op, f"it pops list {list_name(op.inputs[0])!r} at another index than the last, and "
                                "the list's length is known only when the graph runs; pop() the last element")
        ctx.check(handle.length > 0, op)   # popping an empty list: the kernel's error
        if handle.slots == 0:
            return handle, ctx.jnp.zeros(handle.buffer.shape[1:], handle.buffer.dtype)
        position = ctx.jnp.clip(handle.length - 1, 0, max(handle.slots - 1, 0))
        lax = ctx.lax
        return (ListBuffer(handle.buffer, lax.dynamic_update_index_in_dim(handle.written, False, position, 0),
                           handle.length - np.int32(1)),
                lax.dynamic_index_in_dim(handle.buffer, position, 0, keepdims=False))
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
    return handle.length if handle.growable else np.int32(handle.length)


def _all_written(ctx, op, handle: ListBuffer) -> None:
    if op.attrs.get("array") is not None:
        ctx.check(ctx.jnp.all(handle.written), op)


@lowers(TENSOR_LIST_STACK)
def _stack(ctx, op, handle):
    length = _static_length(ctx, op, handle)
    _all_written(ctx, op, handle)
    return handle.buffer[:length]


@lowers(TENSOR_LIST_CONCAT)
def _concat(ctx, op, handle):
    length = _static_length(ctx, op, handle)
    if length == 0:
        ctx.check(np.False_, op)
        return ctx.jnp.zeros(tuple(0 if d is None else d for d in op.outputs[0].shape), handle.buffer.dtype)
    _all_written(ctx, op, handle)
    return ctx.jnp.concatenate([handle.buffer[i] for i in range(length)], op.attrs["axis"])


@lowers(TENSOR_LIST_GATHER)
def _gather(ctx, op, handle, indices):
    indices = ctx.jnp.asarray(indices)
    ctx.check(ctx.jnp.all((indices >= 0) & (indices < handle.length)), op)
    positions = ctx.jnp.clip(indices, 0, max(handle.buffer.shape[0] - 1, 0))
    ctx.check(ctx.jnp.all(handle.written[positions]), op)
    return handle.buffer[positions]


@lowers(TENSOR_LIST_SCATTER)
def _scatter(ctx, op, handle, tensor, indices):
    if op.attrs["grow"]:
        raise ctx.error(op, "a scatter into a TensorArray of dynamic size may grow it, and XLA needs its size "
                            "when compiling; make it with a fixed size (rt.TensorArray(dtype, size=n))")
    indices = ctx.jnp.asarray(indices)
    ctx.check(ctx.jnp.all((indices >= 0) & (indices < handle.length)), op)
    positions = ctx.jnp.clip(indices, 0, max(handle.buffer.shape[0] - 1, 0))
    return ListBuffer(handle.buffer.at[positions].set(tensor), handle.written.at[positions].set(True), handle.length)


@lowers(TENSOR_LIST_ZEROS_LIKE)
def _zeros_like(ctx, op, handle):
    return ListBuffer(ctx.jnp.zeros_like(handle.buffer), handle.written, handle.length)


@lowers(TENSOR_LIST_ADD_N)
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
