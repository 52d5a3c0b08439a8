"""The gradient ops of lists that move or resize elements, under ``jit_compile=True``: of ``TensorArray.concat``
(``TensorListSplitLike``), ``gather`` (``TensorListScatterAdd``), ``split`` (``TensorListResize``,
``TensorListInsertItem``) and of a list's ``pop(i)`` (``TensorListInsertItem``).

Each compiles on a list whose length is known when compiling (its positions, pieces and new size then are too);
``TensorListScatterAdd`` also on one a tensor loop grows (it keeps the length). On a list whose length is known
only when the graph runs, the others are a ``LoweringError`` naming the line. What fails on every run (an index
or size out of range, pieces that do not add up) is a check that fails when the op runs: the numpy executor's
own error.

>>> from runtime.ops.list_gradients import TENSOR_LIST_SPLIT_LIKE
>>> from runtime.backends.xla.table import has_lowering
>>> has_lowering(TENSOR_LIST_SPLIT_LIKE)
True
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.xla.list_buffers import ListBuffer
from runtime.backends.xla.lowering import is_static
from runtime.backends.xla.split_pieces import Pieces
from runtime.backends.xla.table import CHECKED, lowers
from runtime.ops.list_gradients import (TENSOR_LIST_INSERT, TENSOR_LIST_RESIZE, TENSOR_LIST_SCATTER_ADD,
                                        TENSOR_LIST_SPLIT_LIKE)

_RUN_TIME_LENGTH = ("it is a gradient op that moves or resizes the elements of a list whose length is known only "
                    "when the graph runs (grown in a tensor loop that may stop early or is only bounded), and XLA "
                    "fixes every buffer's size when compiling; give that loop a trip count known when compiling "
                    "(for i in rt.range(n), n a Python int, without break), or use a TensorArray of a fixed size, "
                    "or run this function with jit_compile=None or 'auto'")


def _list_of_tensors(ctx, op, handle: Any, static_length: bool) -> ListBuffer:
    """``handle``, refused clearly unless it is a list of tensors (of a length known when compiling, if asked)."""
    if isinstance(handle, Pieces):
        raise ctx.error(op, "it is a gradient op of a TensorArray split into pieces of different lengths, whose "
                            "elements differ in shape, and the gradient through it is not compiled; split into "
                            "pieces of one length, or run this function with jit_compile=None or 'auto'")
    if not isinstance(handle, ListBuffer) or handle.of_lists:
        raise ctx.error(op, "it is a gradient op of a list whose elements are lists, or differ in shape, or were "
                            "never written; only lists of tensors of one shape compile here: run this function "
                            "with jit_compile=None or 'auto'")
    if static_length and handle.growable:
        raise ctx.error(op, _RUN_TIME_LENGTH)
    return handle


def _fail(ctx, op, handle: ListBuffer) -> ListBuffer:
    """A check failing whenever ``op`` runs (the numpy executor's error); ``handle`` stands for the result."""
    ctx.check(np.False_, op)
    return handle


@lowers(TENSOR_LIST_SPLIT_LIKE)
def _split_like(ctx, op, handle, tensor):
    """``tensor`` cut along ``axis`` into pieces as long as the list's elements are along it."""
    handle = _list_of_tensors(ctx, op, handle, static_length=True)
    jnp, length = ctx.jnp, handle.length
    tensor = jnp.asarray(tensor)
    if length == 0:
        return ListBuffer(handle.buffer[:0], handle.written[:0], 0)
    axis = op.attrs["axis"] % tensor.ndim if tensor.ndim else 0
    piece = handle.buffer.shape[1 + axis] if handle.buffer.ndim > 1 + axis else -1
    if tensor.ndim == 0 or piece * length != tensor.shape[axis]:
        return _fail(ctx, op, handle)
    ctx.check(jnp.all(handle.written[:length]), op)   # an unwritten element: the kernel's error
    pieces = jnp.stack(jnp.split(tensor, length, axis=axis)) if length > 1 else jnp.expand_dims(tensor, 0)
    return ListBuffer(pieces, jnp.ones((length,), bool), length)


@lowers(TENSOR_LIST_SCATTER_ADD)
def _scatter_add(ctx, op, handle, tensor, indices):
    """Row k of ``tensor`` added to element ``indices[k]`` (repeated indices add up)."""
    handle = _list_of_tensors(ctx, op, handle, static_length=False)
    jnp = ctx.jnp
    indices = jnp.asarray(indices).reshape(-1)
    ctx.check(jnp.all((indices >= 0) & (indices < handle.length)), op)
    positions = jnp.clip(indices, 0, max(handle.slots - 1, 0))
    if handle.slots == 0:
        return handle
    buffer = handle.buffer.at[positions].add(jnp.asarray(tensor, handle.buffer.dtype))
    return ListBuffer(buffer, handle.written.at[positions].set(True), handle.length)


@lowers(TENSOR_LIST_RESIZE)
def _resize(ctx, op, handle, size):
    """The list cut to its first ``size`` elements, or padded with unwritten ones."""
    handle = _list_of_tensors(ctx, op, handle, static_length=True)
    if not is_static(size):
        raise ctx.error(op, _RUN_TIME_LENGTH)
    size, jnp = int(size), ctx.jnp
    if size < 0:
        return _fail(ctx, op, handle)
    buffer, written = handle.buffer[:min(size, handle.length)], handle.written[:min(size, handle.length)]
    extra = size - int(written.shape[0])
    if extra > 0:
        buffer = jnp.concatenate([buffer, jnp.zeros((extra,) + tuple(buffer.shape[1:]), buffer.dtype)])
        written = jnp.concatenate([written, jnp.zeros((extra,), bool)])
    return ListBuffer(buffer, written, size)


@lowers(TENSOR_LIST_INSERT)
def _insert(ctx, op, handle, index, element):
    """The list with ``element`` inserted so that it is at ``index`` of the result (an element of another shape
    at the front makes the list ``Pieces``: its elements are then read one by one, or concatenated)."""
    handle = _list_of_tensors(ctx, op, handle, static_length=True)
    if not is_static(index):
        raise ctx.error(op, "it inserts at an index known only when the graph runs (the gradient of a list's pop(i) "
                            "at a run-time i); pop() the last element, or run this function with jit_compile=None "
                            "or 'auto'")
    jnp, length = ctx.jnp, handle.length
    position = int(index)
    element = jnp.asarray(element, handle.buffer.dtype)
    if not -(length + 1) <= position < length + 1:
        return _fail(ctx, op, handle)
    if element.shape != handle.buffer.shape[1:]:
        if position % (length + 1) == 0:   # (the gradient of a split: no rows first, then the pieces' gradients)
            return Pieces((element,), handle)
        raise ctx.error(op, "the inserted element's shape differs from the list's other elements', and one buffer "
                            "holds one shape; run this function with jit_compile=None or 'auto'")
    position %= length + 1
    buffer = jnp.concatenate([handle.buffer[:position], element[None], handle.buffer[position:length]])
    written = jnp.concatenate([handle.written[:position], jnp.ones((1,), bool), handle.written[position:length]])
    return ListBuffer(buffer, written, length + 1)


CHECKED.update({TENSOR_LIST_SPLIT_LIKE, TENSOR_LIST_SCATTER_ADD, TENSOR_LIST_RESIZE, TENSOR_LIST_INSERT})
