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

from typing import Any, Optional

import numpy as np

from runtime.backends.xla import list_buffers, list_gradient_ops, split_pieces  # noqa: F401  (declares lowerings)
from runtime.backends.xla.list_buffers import (ElementProbe, ListBuffer, UnknownElements, each_array, list_name,
                                                structure_of)
from runtime.backends.xla.lowering import is_static
from runtime.backends.xla.split_pieces import Pieces
from runtime.core.dtypes import variant
from runtime.backends.xla.table import CHECKED, lowers
from runtime.ops.list_gradients import TENSOR_LIST_ADD_N, TENSOR_LIST_ZEROS_LIKE
from runtime.ops.list_ops import (TENSOR_LIST_CONCAT, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS,
                                  TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK)
from runtime.ops.tensor_array_ops import TENSOR_LIST_GATHER, TENSOR_LIST_RESERVE

_FIX = ("collect the values in a TensorArray of a fixed size (rt.TensorArray(dtype, size=n), n a Python int) "
        "written at the loop counter, or preallocate the result (rt.zeros([n, ...])) and assign x[i] = v; or use "
        "jit_compile='auto' to run this graph on the numpy executor")


def _element_shape(*candidates) -> Optional[tuple]:
    for shape in candidates:
        if shape is not None and None not in shape:
            return tuple(shape)
    return None


_UNKNOWN_ELEMENTS = ("the shape of the list's elements is not known when compiling (nothing was written to it yet), "
                     "and XLA needs it for the list's buffer; give element_shape= (a TensorArray) or elements of "
                     "one static shape")


def _static_length(ctx, op, value: ListBuffer) -> int:
    if value.growable:
        raise ctx.error(op, f"it reads list {list_name(op.inputs[0])} whole (its length or its elements' stacked "
                            "shape), but the list is grown in a tensor loop (this read is inside it) or was grown in "
                            "one whose number of appends or writes is known only when the graph runs (the loop may "
                            "stop early: a break, a condition besides its counter's, only maximum_iterations; or it "
                            "appends under an if; or a TensorArray of dynamic_size=True is written at an index other "
                            "than the loop counter), so the list's length is too; read it whole after a loop that "
                            "appends (or writes at its counter) once per iteration and has a trip count known when "
                            "compiling (for i in rt.range(n), n a Python int, without break), or " + _FIX)
    return value.length


_LIST_APPENDED = ("it appends a list to a list, and a list of lists compiles only as the accumulator of a gradient "
                  "through nested tensor loops, filled in a loop of a known bound; stack the inner values into one "
                  "tensor, or run this function with jit_compile=None or 'auto'")
_LIST_OF_LISTS = ("it reads a list of lists (the accumulator a gradient through nested tensor loops keeps), which "
                  "compiles only as the gradient pushes and pops it")


def _of_tensors(lowering: Any) -> Any:
    """``lowering``, refusing clearly a list of lists (only appends, pops and its length compile for those) and a
    list whose elements' shape is not known yet."""
    def lower(ctx, op, handle, *rest):
        if isinstance(handle, (UnknownElements, ElementProbe)):
            raise ctx.error(op, _UNKNOWN_ELEMENTS)
        if isinstance(handle, Pieces):   # a TensorArray split into pieces of different lengths
            return split_pieces.lower_on_pieces(ctx, op, handle, *rest)
        if handle.of_lists:
            raise ctx.error(op, _LIST_OF_LISTS)
        return lowering(ctx, op, handle, *rest)
    lower.__name__, lower.__doc__ = lowering.__name__, lowering.__doc__
    return lower


@lowers(TENSOR_LIST_RESERVE)
def _reserve(ctx, op, num_elements):
    size = int(ctx.static(num_elements, op, "size (a TensorArray's size must be a Python int for XLA)"))
    if size < 0:
        return ctx.error_from_kernel(op, [np.asarray(size)])
    shape = _element_shape(op.attrs["element_shape"], op.outputs[0].shape)
    if shape is None:   # the first write says (or the loop writing it: loops.py)
        return UnknownElements(op, size)
    dtype = op.attrs["element_dtype"]
    return ListBuffer(ctx.jnp.zeros((size,) + shape, dtype), ctx.jnp.zeros((size,), bool), np.int32(size))


@lowers(TENSOR_LIST_FROM_TENSORS)
def _from_tensors(ctx, op, *elements):
    if op.attrs["element_dtype"] == variant:
        if not elements:   # a gradient's accumulator of the inner loop's accumulators (nested tensor loops)
            return UnknownElements(op, 0)
        raise ctx.error(op, "it makes a list of lists, which compiles only as the accumulator of a gradient through "
                            "nested tensor loops; stack the inner values into one tensor, or run this function "
                            "with jit_compile=None or 'auto'")
    if not elements:
        shape = _element_shape(op.attrs["element_shape"], op.outputs[0].shape)
        if shape is None:
            return UnknownElements(op, 0)
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


def _with_elements_like(ctx, op, handle: Any, element: Any) -> ListBuffer:
    """``handle`` as a buffer for elements like ``element`` (written to it), if its elements were unknown."""
    if not isinstance(handle, UnknownElements):
        return handle
    if isinstance(element, ListBuffer):
        raise ctx.error(op, _LIST_APPENDED)
    return handle.with_element(ctx.jnp, ctx.jnp.asarray(element, op.attrs["element_dtype"]))


@lowers(TENSOR_LIST_PUSH_BACK)
def _push_back(ctx, op, handle, element):
    jnp = ctx.jnp
    if isinstance(handle, ElementProbe):   # the body of a loop is lowered to learn what it appends (loops.py)
        handle.record(element)
        return handle
    handle = _with_elements_like(ctx, op, handle, element)
    if isinstance(element, ListBuffer) or handle.of_lists:
        if not (handle.growable and isinstance(element, ListBuffer) and handle.of_lists):
            raise ctx.error(op, _LIST_APPENDED)
        if structure_of(element) != structure_of(handle.buffer, leading=1):
            raise ctx.error(op, f"the lists appended to list {list_name(op.inputs[0])} differ in their sizes "
                                "between iterations (an inner loop's bound changes), and a buffer holds one; give "
                                "the inner loop a bound known when compiling (maximum_iterations=n)")
    else:
        element = jnp.asarray(element)
        if element.shape != handle.buffer.shape[1:]:
            raise ctx.error(op, "the appended element's shape differs from the list's other elements, and a list's "
                                "buffer holds one shape; " + _FIX)
    if handle.growable:   # written at its length, in a slot a loop's bound reserved
        if id(op) not in ctx.reserved_appends:   # (an append the loop did not count: checked here)
            ctx.check(handle.length < handle.slots, op, why=f"list {list_name(op.inputs[0])} has no slot left "
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
    if handle.of_lists:
        from jax import tree_util
        buffer = tree_util.tree_map(lambda a, e: ctx.with_element_at(a, e.astype(a.dtype), position), handle.buffer,
                                    element)
    else:
        buffer = ctx.with_element_at(handle.buffer, element.astype(handle.buffer.dtype), position)
    return buffer, ctx.with_element_at(handle.written, np.True_, position)


def _position(ctx, op, value: ListBuffer, index: Any, python_rules: bool):
    """``index`` as a position in the buffer, checked as the kernel checks it (raising its error), unless its range
    (``value_ranges``) keeps it in the list's shortest length."""
    jnp = ctx.jnp
    if ctx.always_within(index, 0, (value.length if not value.growable else
                                    (ctx.value_range(value.length) or (0, 0))[0]) - 1):
        return index
    index = jnp.asarray(index)
    if python_rules:  # a TensorList: negative counts from the end
        ctx.check((index >= -value.length) & (index < value.length), op)
        index = jnp.where(index < 0, index + value.length, index)
    else:             # a TensorArray: from 0, below its size
        ctx.check((index >= 0) & (index < value.length), op)
    return jnp.clip(index, 0, max(value.slots - 1, 0))


@lowers(TENSOR_LIST_GET_ITEM)
def _get_item(ctx, op, handle, index):
    if isinstance(handle, ElementProbe):   # (a read in a loop's body lowered to learn what it writes)
        element = handle.element_like(ctx.jnp)
        shape = _element_shape(op.outputs[0].shape)
        if element is None and shape is None:
            raise ctx.error(op, _UNKNOWN_ELEMENTS)
        return element if element is not None else ctx.jnp.zeros(shape, op.attrs["element_dtype"])
    return _get_tensor(ctx, op, handle, index)


@_of_tensors
def _get_tensor(ctx, op, handle, index):
    array = op.attrs.get("array")
    position = _position(ctx, op, handle, index, array is None)
    if not handle.slots:   # (in a loop over an empty tensor, compiled, never run: the check fails where it runs)
        return ctx.jnp.zeros(handle.buffer.shape[1:], handle.buffer.dtype)
    if array is not None:
        ctx.check(handle.written[position], op)   # an element never written: the kernel's error
    return handle.buffer[position]


@lowers(TENSOR_LIST_SET_ITEM)
def _set_item(ctx, op, handle, index, element):
    grows = op.attrs.get("grow")
    if grows and ctx.write_ranges is not None:   # a loop's body lowered to learn its writes (loops.py)
        ctx.write_ranges.record(op, ctx.sizing_range(index))
    if isinstance(handle, ElementProbe):
        handle.record(ctx.jnp.asarray(element, op.attrs["element_dtype"]))
        return handle
    handle = _with_elements_like(ctx, op, handle, element)
    if grows and (not is_static(index) or handle.growable):
        if not handle.growable:
            raise ctx.error(op, f"a write at a run-time index may grow TensorArray {list_name(op.inputs[0])} "
                                "(dynamic_size=True), and XLA needs its size when compiling: write it in a tensor "
                                "loop with a bound known when compiling (for i in rt.range(n), n a Python int, or "
                                "ag.set_loop_options(maximum_iterations=n)), or make it with a fixed size "
                                "(rt.TensorArray(dtype, size=n)), or run this function with jit_compile=None or "
                                "'auto'")
        return _grown_by_write(ctx, op, handle, index, element)
    return _write_tensor(ctx, op, handle, index, element)


@_of_tensors
def _write_tensor(ctx, op, handle, index, element):
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
    if not handle.slots:   # (as in _get_tensor)
        return handle
    return ListBuffer(*_written_at(ctx, handle, position, element), handle.length)


@_of_tensors
def _grown_by_write(ctx, op, handle, index, element):
    """A write to a TensorArray of ``dynamic_size=True`` in a tensor loop (a growable buffer, its slots from the
    loop's bound): at ``index``, its length becomes at least ``index + 1``. The slots hold every index when the
    index's range is known (a loop counter's); otherwise a check says so if a write falls past them."""
    jnp = ctx.jnp
    element = jnp.asarray(element)
    if element.shape != handle.buffer.shape[1:]:
        raise ctx.error(op, "the written element's shape differs from the array's other elements, and its buffer "
                            "holds one shape; give the TensorArray element_shape= or write elements of one shape")
    if not ctx.always_within(index, 0, handle.slots - 1):
        ctx.check(index >= 0, op)   # a negative index: the kernel's error
        ctx.check(index < handle.slots, op, why=f"TensorArray {list_name(op.inputs[0])} was written at an index "
                  f"past the {handle.slots} slots its loop's bound reserved (the loop's trip count times its writes "
                  "per iteration: write at the loop counter, or make the array with a fixed size)")
    index = jnp.asarray(index, np.int32)
    if handle.slots == 0:   # a loop that never runs (its body is compiled all the same)
        return ListBuffer(handle.buffer, handle.written, jnp.maximum(handle.length, index + 1))
    position = jnp.clip(index, 0, handle.slots - 1)
    return ListBuffer(*_written_at(ctx, handle, position, element), jnp.maximum(handle.length, index + 1))


@lowers(TENSOR_LIST_POP)
def _pop(ctx, op, handle, index):
    if isinstance(handle, (UnknownElements, ElementProbe)):
        raise ctx.error(op, _LIST_OF_LISTS if op.attrs["element_dtype"] == variant else _UNKNOWN_ELEMENTS)
    if handle.of_lists and not handle.growable:
        raise ctx.error(op, _LIST_OF_LISTS + " in a loop of a known bound")
    if handle.growable:
        if not is_static(index) or int(index) != -1:
            raise ctx.error(op, f"it pops list {list_name(op.inputs[0])} at another index than the last, and "
                                "the list's length is known only when the graph runs; pop() the last element")
        known = ctx.value_range(handle.length)   # (a loop that only pops it may say it is never empty here)
        if known is None or known[0] < 1:
            ctx.check(handle.length > 0, op)   # popping an empty list: the kernel's error
        if handle.slots == 0:
            return handle, each_array(lambda a: ctx.jnp.zeros(a.shape[1:], a.dtype), handle.buffer)
        length = handle.length - np.int32(1)
        if known is not None and known[0] >= 1 and known[1] <= handle.slots:
            position = length
            ctx.set_range(length, known[0] - 1, known[1] - 1)
        else:
            position = ctx.lax.clamp(np.int32(0), length, np.int32(max(handle.slots - 1, 0)))
        return (ListBuffer(handle.buffer, ctx.with_element_at(handle.written, np.False_, position), length),
                each_array(lambda a: ctx.element_at(a, position), handle.buffer))
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


def register_pytree() -> None:
    """Make the list values JAX pytrees (compiled.py calls it when JAX is first used)."""
    list_buffers.register_pytree()
    split_pieces.register_pytree()


def _numpy_list(handle: ListBuffer, length: int) -> Any:
    from runtime.ops.list_values import ListValue, wrap
    return wrap(ListValue([None] * length, length))


@lowers(TENSOR_LIST_LENGTH)
def _length(ctx, op, handle):
    if isinstance(handle, Pieces):
        return split_pieces.lower_on_pieces(ctx, op, handle)
    if isinstance(handle, (UnknownElements, ElementProbe)):
        return np.int32(handle.size) if isinstance(handle, UnknownElements) else ctx.jnp.asarray(handle.size,
                                                                                                np.int32)
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
    positions = _positions(ctx, op, handle, indices)
    ctx.check(ctx.jnp.all(handle.written[positions]), op)
    return handle.buffer[positions]


def _positions(ctx, op, handle: ListBuffer, indices: Any) -> Any:
    """``indices`` (of a TensorArray's gather or scatter) checked in ``[0, its size)``, unless their range is."""
    if not handle.growable and ctx.always_within(indices, 0, handle.length - 1):
        return indices
    indices = ctx.jnp.asarray(indices)
    ctx.check(ctx.jnp.all((indices >= 0) & (indices < handle.length)), op)
    return ctx.jnp.clip(indices, 0, max(handle.buffer.shape[0] - 1, 0))


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
                TENSOR_LIST_GATHER})
