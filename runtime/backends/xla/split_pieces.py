"""``TensorArray.split(value, lengths)`` under ``jit_compile=True``, with lengths known when compiling (and its
relatives ``scatter(indices, value)`` and ``unstack(value)``: pieces of one row, below).

Pieces of one length are elements of one shape: they are written into the array's buffer (a ``ListBuffer``) like
any write, and the array compiles as usual afterwards. Pieces of different lengths are elements of different
shapes, which no single buffer holds: the array becomes ``Pieces``, its elements as separate arrays, each of a
shape known when compiling. Such an array can be read at a Python index, measured (``size()``), concatenated
(``concat()``), gathered and stacked where the elements picked agree in shape (else the numpy executor's error),
and carried unchanged through branches and loops; reading it at a run-time index or writing to it is a
``LoweringError`` naming the line. Lengths computed when the graph runs are one too.

Wrong lengths (negative, or not adding up to the value's rows) and pieces past a fixed size fail on every run:
they compile to a failed check, so the call raises the numpy executor's own error, and only when the split runs.

>>> Pieces((np.zeros((1, 2)), np.zeros((3, 2))), None).size
2
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from runtime.backends.xla.list_buffers import ElementProbe, ListBuffer, UnknownElements
from runtime.backends.xla.lowering import is_static
from runtime.backends.xla.table import CHECKED, lowers
from runtime.ops.list_ops import TENSOR_LIST_CONCAT, TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_STACK
from runtime.ops.tensor_array_ops import TENSOR_LIST_GATHER, TENSOR_LIST_SCATTER, TENSOR_LIST_SPLIT


class Pieces:
    """A TensorArray split into pieces of different lengths: ``pieces`` (elements 0..n-1, each its own array)
    and ``rest``, the array's elements after them (a ``ListBuffer``), or None when the pieces are all of it."""

    __slots__ = ("pieces", "rest")
    growable = False   # (asked of every list by the list lowerings: a split array's size is fixed)
    of_lists = False

    def __init__(self, pieces: Tuple[Any, ...], rest: Optional[ListBuffer]):
        self.pieces, self.rest = tuple(pieces), rest

    @property
    def size(self) -> int:
        return len(self.pieces) + (0 if self.rest is None else self.rest.length)


def _fail(ctx, op) -> None:
    """A check that fails whenever ``op`` runs: the call is rerun on the numpy executor, which raises its error."""
    ctx.check(np.False_, op)


@lowers(TENSOR_LIST_SPLIT)
def _split(ctx, op, handle, tensor, lengths):
    if not is_static(lengths):
        raise ctx.error(op, "its lengths are computed when the graph runs, and the pieces' shapes depend on them "
                            "(XLA fixes every shape when compiling); give the lengths as a Python list or from "
                            "static shapes, or write the pieces one by one at fixed lengths (ta.write(k, "
                            "value[a:b]) with Python a, b), or run this function with jit_compile=None or 'auto'")
    lengths = [int(n) for n in np.asarray(lengths).reshape(-1)]
    jnp = ctx.jnp
    tensor = jnp.asarray(tensor)
    if isinstance(handle, ElementProbe):   # a loop's body lowered to learn what it writes (loops.py)
        if len(set(lengths)) > 1:
            raise ctx.error(op, "it splits an array a tensor loop carries into pieces of different lengths, whose "
                                "elements differ in shape, and a loop carries one buffer; split into pieces of one "
                                "length, or into a new TensorArray in each iteration")
        if lengths and sum(lengths) == tensor.shape[0]:
            handle.record(tensor[:lengths[0]])
        return handle
    if isinstance(handle, Pieces) or (isinstance(handle, ListBuffer) and handle.growable):
        raise ctx.error(op, "it splits into an array that was split into pieces of different lengths before, or "
                            "that a tensor loop grows; split into a new TensorArray")
    size = handle.size if isinstance(handle, UnknownElements) else handle.length
    if any(n < 0 for n in lengths) or sum(lengths) != tensor.shape[0] or \
            (len(lengths) > size and not op.attrs["grow"]):
        _fail(ctx, op)   # the kernel's error on every run (bad lengths, or pieces past a fixed size)
        return handle
    starts = np.cumsum([0] + lengths)
    pieces = [tensor[int(a):int(b)] for a, b in zip(starts[:-1], starts[1:])]
    if len(set(lengths)) <= 1:
        written = _written(ctx, op, handle, pieces, tensor)
        if written is not None:
            return written
    rest = None
    if isinstance(handle, ListBuffer) and handle.length > len(pieces):
        rest = ListBuffer(handle.buffer[len(pieces):], handle.written[len(pieces):], handle.length - len(pieces))
    return Pieces(tuple(pieces), rest)


def _written(ctx, op, handle: Any, pieces: List[Any], tensor: Any) -> Optional[ListBuffer]:
    """``handle`` with the equal ``pieces`` written at 0..n-1 (grown to n if it is smaller: dynamic_size), or
    None if its other elements have another shape (infer_shape=False allows it: the array becomes ``Pieces``)."""
    jnp = ctx.jnp
    piece_shape = (0 if not pieces else pieces[0].shape[0],) + tuple(tensor.shape[1:])
    if isinstance(handle, UnknownElements):
        handle = ListBuffer(jnp.zeros((handle.size,) + piece_shape, tensor.dtype), jnp.zeros((handle.size,), bool),
                            handle.size)
    if not pieces:
        return handle
    if tuple(handle.buffer.shape[1:]) != piece_shape:
        if op.attrs["same_shape"]:   # the array's element shape (declared, or of its written elements) differs
            _fail(ctx, op)
            return handle
        return None
    extra = len(pieces) - handle.length
    buffer, written = handle.buffer, handle.written
    if extra > 0:
        buffer = jnp.concatenate([buffer, jnp.zeros((extra,) + piece_shape, buffer.dtype)])
        written = jnp.concatenate([written, jnp.zeros((extra,), bool)])
    count = len(pieces)
    buffer = buffer.at[:count].set(jnp.stack(pieces).astype(buffer.dtype))
    return ListBuffer(buffer, written.at[:count].set(True), max(handle.length, count))


@lowers(TENSOR_LIST_SCATTER)
def _scatter(ctx, op, handle, tensor, indices):
    """``ta.scatter(indices, value)``, ``ta.unstack(value)``: row k of ``value`` written at ``indices[k]``, checked
    as the kernel checks it. An array of unknown elements gets its buffer from the rows; one of ``dynamic_size``
    grows to the highest index when the indices are known when compiling (unstack's: a range of the rows)."""
    jnp = ctx.jnp
    tensor = jnp.asarray(tensor)
    if isinstance(handle, ElementProbe):   # a loop's body lowered to learn what it writes (loops.py)
        handle.record(jnp.zeros(tensor.shape[1:], op.attrs["element_dtype"]))
        return handle
    if isinstance(handle, Pieces):
        return lower_on_pieces(ctx, op, handle, tensor, indices)
    if isinstance(handle, UnknownElements):
        handle = handle.with_element(jnp, jnp.zeros(tensor.shape[1:], op.attrs["element_dtype"]))
    if handle.of_lists or (op.attrs["grow"] and (handle.growable or not is_static(indices))):
        raise ctx.error(op, "a scatter into a TensorArray of dynamic size at indices known only when the graph runs "
                            "may grow it, and XLA needs its size when compiling (a list of lists, or an array a "
                            "tensor loop grows, cannot be scattered into); make it with a fixed size "
                            "(rt.TensorArray(dtype, size=n)), or run this function with jit_compile=None or 'auto'")
    known = ctx.value_range(indices)   # (value_ranges: indices proved in range need no check)
    indices = indices.reshape(-1) if is_static(indices) else jnp.reshape(indices, (-1,))
    if tensor.ndim == 0 or indices.shape[0] != tensor.shape[0] or (
            tuple(tensor.shape[1:]) != tuple(handle.buffer.shape[1:]) and op.attrs["same_shape"]):
        _fail(ctx, op)   # (rows or their shape the graph left unknown): the kernel's error on every run
        return handle
    if tuple(tensor.shape[1:]) != tuple(handle.buffer.shape[1:]):
        raise ctx.error(op, "it scatters rows of another shape than the array's elements (infer_shape=False), and "
                            "a buffer holds one shape; write elements of one shape")
    length, buffer, written = handle.length, handle.buffer, handle.written
    if is_static(indices):   # (unstack's): a repeated index keeps its last row, as the kernel's writes in order
        last = {int(index): row for row, index in enumerate(indices)}
        if op.attrs["grow"] and last and min(last) >= 0 and max(last) >= handle.slots:
            extra = max(last) + 1 - handle.slots
            buffer = jnp.concatenate([buffer, jnp.zeros((extra,) + buffer.shape[1:], buffer.dtype)])
            written = jnp.concatenate([written, jnp.zeros((extra,), bool)])
            length = max(length, max(last) + 1)
        ctx.check(np.bool_(all(0 <= index < length for index in last)), op)
        if len(last) < tensor.shape[0]:
            indices, tensor = np.array(list(last), np.int32), tensor[np.array(list(last.values()), np.int64)]
    elif not (known is not None and 0 <= known[0] and known[1] < length):
        ctx.check(jnp.all((indices >= 0) & (indices < length)), op)
    if not buffer.shape[0] or not tensor.shape[0]:   # (nothing written, or never run: the check fails where it runs)
        return ListBuffer(buffer, written, length)
    positions = jnp.clip(indices, 0, buffer.shape[0] - 1)
    return ListBuffer(buffer.at[positions].set(tensor.astype(buffer.dtype)), written.at[positions].set(True), length)


# --- what compiles on an array split into pieces of different lengths --------------------------------------
def _elements(ctx, op, value: Pieces, positions: List[int]) -> Optional[List[Any]]:
    """The elements at the static ``positions``, or None after a failed check (an index past the size, an
    element never written: the numpy executor's error when the op runs)."""
    found = []
    for position in positions:
        if not 0 <= position < value.size:
            _fail(ctx, op)
            return None
        if position < len(value.pieces):
            found.append(value.pieces[position])
        else:
            ctx.check(value.rest.written[position - len(value.pieces)], op)
            found.append(value.rest.buffer[position - len(value.pieces)])
    return found


def _placeholder(ctx, op) -> Any:
    """Zeros of the op's declared output shape (its unknown dims 0): the value after a check that fails."""
    tensor = op.outputs[0]
    return ctx.jnp.zeros(tuple(0 if d is None else d for d in (tensor.shape or ())), tensor.dtype)


def _read_at_run_time(ctx, op, value: Pieces) -> Any:
    return ctx.error(op, "it reads an array split into pieces of different lengths at an index known only when the "
                         "graph runs, and the element's shape depends on it (XLA fixes every shape when "
                         "compiling); read it at a Python index, concat() it, or split it into pieces of one length, "
                         "or run this function with jit_compile=None or 'auto'")


def lower_on_pieces(ctx, op, value: Pieces, *inputs: Any) -> Any:
    """``op`` (a list op) on an array split into pieces of different lengths."""
    op_def, jnp = op.op_def, ctx.jnp
    if op_def is TENSOR_LIST_LENGTH:
        return np.int32(value.size)
    if op_def is TENSOR_LIST_GET_ITEM or op_def is TENSOR_LIST_GATHER:
        (index,) = inputs
        if not is_static(index):
            raise _read_at_run_time(ctx, op, value)
        positions = [int(i) for i in np.asarray(index).reshape(-1)]
        elements = _elements(ctx, op, value, positions)
        if elements is None:
            return _placeholder(ctx, op)
        if op_def is TENSOR_LIST_GET_ITEM:
            return elements[0]
        if len({tuple(e.shape) for e in elements}) > 1:   # stacking pieces of different lengths: its error
            _fail(ctx, op)
            return _placeholder(ctx, op)
        return jnp.stack(elements) if elements else _placeholder(ctx, op)
    if op_def is TENSOR_LIST_CONCAT or op_def is TENSOR_LIST_STACK:
        elements = _elements(ctx, op, value, list(range(value.size)))
        if elements is None:
            return _placeholder(ctx, op)
        if op_def is TENSOR_LIST_STACK:   # the pieces differ in shape: the numpy executor's error
            _fail(ctx, op)
            return _placeholder(ctx, op)
        return jnp.concatenate(elements, op.attrs["axis"])
    raise ctx.error(op, "it changes or reads whole an array split into pieces of different lengths, whose elements "
                        "differ in shape and so are not one buffer; only read(k) at a Python k, gather at Python "
                        "indices, size() and concat() compile on it: split into pieces of one length, or into a "
                        "new TensorArray, or run this function with jit_compile=None or 'auto'")


CHECKED.update({TENSOR_LIST_SPLIT, TENSOR_LIST_SCATTER})


_registered: List[bool] = []


def register_pytree() -> None:
    """Make ``Pieces`` a JAX pytree (branches and loops carry it unchanged); once, when JAX is first used."""
    if not _registered:
        from jax import tree_util
        tree_util.register_pytree_node(Pieces, lambda v: ((v.pieces, v.rest), None),
                                       lambda _, children: Pieces(*children))
        _registered.append(True)
