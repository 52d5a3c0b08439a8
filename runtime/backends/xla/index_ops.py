"""JAX lowerings of the indexing ops: gathers, scatters, segment sums and subscripts (``x[key]``, ``x[key] = v``
and its gradient).

An index is checked at run time as our kernels check it (out of range: the numpy executor's
``InvalidArgumentError``, never JAX's silent clamping), except where its range keeps it in range: a loop
counter's, or one the value range analysis proves (``runtime.backends.xla.value_ranges``).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from runtime.backends.xla.array_ops import range_element, static_ints
from runtime.backends.xla.lowering import READS_LAZY_RANGES, LazyRange, is_static
from runtime.backends.xla.table import CHECKED, lowers
from runtime.ops.indexing import GATHER, STRIDED_SLICE, STRIDED_SLICE_GRAD, STRIDED_SLICE_UPDATE, UNSORTED_SEGMENT_SUM
from runtime.ops.scatter_ops import GATHER_ND, TENSOR_SCATTER_ADD, TENSOR_SCATTER_UPDATE


# --- gathering and scattering --------------------------------------------------------------------------------
def _in_range(ctx, indices, size):
    within = (indices >= 0) & (indices < size)
    return within if not np.ndim(indices) else ctx.jnp.all(within)


@lowers(GATHER)
def _gather(ctx, op, params, indices):
    if type(params) is LazyRange:
        return range_element(ctx, op, params, indices)
    axis, size = op.attrs["axis"], params.shape[op.attrs["axis"]]
    known = ctx.value_range(indices)   # (value_ranges, a loop counter's): its range may make the check needless
    indices = ctx.jnp.asarray(indices)
    if not (known is not None and 0 <= known[0] and known[1] < size):
        ctx.check(_in_range(ctx, indices, size), op)
    if size == 0:   # (a loop over an empty tensor: its body is compiled, never run)
        return ctx.jnp.zeros(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)
    within = known is not None and 0 <= known[0] <= known[1] < size
    if indices.ndim and within:   # (in range: no clamp, no select for negative indices either)
        return ctx.jnp.asarray(params).at[(slice(None),) * (axis % params.ndim) + (indices,)].get(
            mode="promise_in_bounds", wrap_negative_indices=False)
    if indices.ndim:
        return ctx.jnp.take(params, indices, axis=axis, mode="clip")
    progression = _progression(params) if within and is_static(params) else None
    if progression is not None:   # an element of a static range (for t in rt.range(a, b)): arithmetic, no table
        result = _progression_element(ctx, progression, indices, params.dtype)
    else:   # one index: a dynamic slice (a gather costs more, to compile and to run)
        index = indices if within else ctx.lax.clamp(np.zeros((), indices.dtype), indices,
                                                     np.asarray(size - 1, indices.dtype))
        result = ctx.element_at(ctx.jnp.asarray(params), index, axis)
    if within and is_static(params) and params.ndim == 1 and params.dtype.kind in "iu":
        picked = np.asarray(params)[known[0]:known[1] + 1]   # its bounds: index checks on it may be left out
        ctx.set_range(result, picked.min(), picked.max())
    return result


def _progression(params) -> Optional[Tuple[int, int]]:
    """(first, step) of a static 1-D signed integer array that is an arithmetic progression (a static ``Range``)."""
    values = np.asarray(params)
    if values.ndim != 1 or values.dtype.kind != "i" or not values.size:
        return None
    first = int(values[0])
    step = int(values[1]) - first if values.size > 1 else 0
    expected = first + step * np.arange(values.size, dtype=np.int64)
    return (first, step) if np.array_equal(expected, values) else None


def _progression_element(ctx, progression: Tuple[int, int], index, dtype):
    """``first + step * index`` in ``dtype`` (the element at ``index`` of the progression)."""
    lax = ctx.lax
    first, step = progression
    element = lax.convert_element_type(index, dtype)
    if step != 1:
        element = lax.mul(element, np.asarray(step, dtype))
    if first:
        element = lax.add(element, np.asarray(first, dtype))
    return element


def _index_rows(ctx, op, indices, shape):
    """``indices`` ([..., K]) as an advanced-indexing tuple of ``shape``'s first K axes, checked in range."""
    jnp = ctx.jnp
    known = ctx.value_range(indices)
    indices = jnp.asarray(indices)
    depth = indices.shape[-1]
    bounds = np.array(shape[:depth], dtype=np.int64)
    if depth and known is not None and 0 <= known[0] and known[1] < bounds.min():   # (no check, no clip)
        return tuple(jnp.moveaxis(indices, -1, 0))
    ctx.check(jnp.all((indices >= 0) & (indices < bounds)), op)
    clipped = jnp.clip(indices, 0, np.maximum(bounds - 1, 0))
    return tuple(jnp.moveaxis(clipped, -1, 0))


@lowers(GATHER_ND)
def _gather_nd(ctx, op, params, indices):
    jnp = ctx.jnp
    if indices.shape[-1] == 0:
        return jnp.broadcast_to(params, indices.shape[:-1] + params.shape)
    rows = _index_rows(ctx, op, indices, params.shape)
    depth = indices.shape[-1]
    if 0 in params.shape[:depth]:   # nothing to take; its check fails if it runs with an index (an empty loop)
        return jnp.zeros(indices.shape[:-1] + params.shape[depth:], params.dtype)
    return jnp.asarray(params)[rows]


@lowers(TENSOR_SCATTER_UPDATE, TENSOR_SCATTER_ADD)
def _scatter(ctx, op, tensor, indices, updates):
    jnp = ctx.jnp
    adding = op.op_def is TENSOR_SCATTER_ADD
    tensor = jnp.asarray(tensor)
    if tuple(updates.shape) != tuple(indices.shape[:-1]) + tuple(tensor.shape[indices.shape[-1]:]):
        # (shapes the graph left unknown): the kernel's error on every run, where JAX would broadcast the updates
        nothing = [np.broadcast_to(np.zeros((), a.dtype), a.shape) for a in (tensor, indices, updates)]
        return ctx.error_from_kernel(op, nothing)
    if indices.shape[-1] == 0:
        rows = jnp.reshape(updates, (-1,) + tensor.shape)
        if adding:
            return tensor + jnp.sum(rows, axis=0, dtype=tensor.dtype)
        return rows[-1] if rows.shape[0] else tensor
    at = tensor.at[_index_rows(ctx, op, indices, tensor.shape)]
    # repeated indices: the last update wins (numpy's assignment order), or they add up
    return at.add(updates) if adding else at.set(updates, unique_indices=False)


@lowers(UNSORTED_SEGMENT_SUM)
def _segment_sum(ctx, op, data, segment_ids, num_segments):
    count = int(ctx.static(num_segments, op, "num_segments"))
    known = ctx.value_range(segment_ids)   # (value_ranges: ids in range need no check)
    segment_ids = ctx.jnp.asarray(segment_ids)
    if not (known is not None and 0 <= known[0] and known[1] < count):
        ctx.check(_in_range(ctx, segment_ids, count), op)
    # ids of any rank name the leading dims of data, as the kernel's np.add.at reads them (JAX's take one dim)
    target = segment_ids.shape + data.shape[segment_ids.ndim:]
    if data.ndim > len(target) or any(d not in (1, t) for d, t in zip(data.shape[::-1], target[::-1])):
        ctx.check(np.False_, op)   # (shapes the graph left unknown): the kernel's error, after its check of the ids
        return ctx.jnp.zeros((count,) + data.shape[segment_ids.ndim:], data.dtype)
    rows = ctx.jnp.broadcast_to(data, target)
    rows = ctx.jnp.reshape(rows, (segment_ids.size,) + data.shape[segment_ids.ndim:])
    return ctx.jax.ops.segment_sum(rows, ctx.jnp.reshape(segment_ids, (-1,)), num_segments=count)


# --- subscripts (x[key], x[key] = v) ------------------------------------------------------------------------
def _subscript(ctx, op, shape, key, dynamic) -> tuple:
    """The index tuple of an encoded ``StridedSlice`` key, with dynamic ints as (checked) JAX scalars.

    Slice bounds must be known when compiling (the result's shape depends on them)."""
    jnp = ctx.jnp
    consumed = sum(1 for item in key if item[0] in ("index", "slice"))
    index, dim = [], 0
    for item in key:
        kind = item[0]
        if kind == "ellipsis":
            index.append(Ellipsis)
            dim += len(shape) - consumed
        elif kind == "newaxis":
            index.append(None)
        elif kind == "index":
            value, size = item[1], shape[dim]
            if type(value) is not tuple:
                # A Python int, out of range for some lengths of an axis the graph leaves unknown: JAX would clamp
                # it (a silently wrong element), the kernel raises
                ctx.check(np.bool_(-size <= value < size), op)
            else:
                value = dynamic[value[1]]
                if not ctx.always_within(value, 0, size - 1):   # (a loop counter's range may say it is)
                    needed = not ctx.always_within(value, -size, size - 1)
                    value = jnp.asarray(value)
                    if needed:
                        ctx.check((value >= -size) & (value < size), op)   # the kernel's IndexError
                    value = jnp.clip(jnp.where(value < 0, value + size, value), 0, max(size - 1, 0))
            index.append(value)
            dim += 1
        else:
            bounds = [None if b is None else int(b) if type(b) is not tuple else
                      int(ctx.static(dynamic[b[1]], op, "slice bounds")) for b in item[1:]]
            index.append(slice(*bounds))
            dim += 1
    return tuple(index)


def _empty_axes_indexed(key, shape) -> List[int]:
    """The axes of length 0 that ``key`` takes one element of (``x[i]`` in a loop over an empty tensor): such an
    op fails its check whenever it runs, and JAX refuses to index the axis even where it never runs."""
    consumed = sum(1 for item in key if item[0] in ("index", "slice"))
    axes, dim = [], 0
    for item in key:
        if item[0] == "ellipsis":
            dim += len(shape) - consumed
        elif item[0] in ("index", "slice"):
            if item[0] == "index" and shape[dim] == 0:
                axes.append(dim)
            dim += 1
    return axes


@lowers(STRIDED_SLICE)
def _strided_slice(ctx, op, x, *dynamic):
    key = op.attrs["key"]
    if type(x) is LazyRange:
        if len(key) != 1 or key[0][0] != "index":
            raise ctx.error(op, "it slices a range whose length is known only when the graph runs")
        index = key[0][1]
        return range_element(ctx, op, x, dynamic[index[1]] if type(index) is tuple else index, wraps=True)
    empty = _empty_axes_indexed(key, x.shape)
    if empty:   # never read (its check fails first): an element of a stand-in, of the result's shape
        ctx.check(np.bool_(False), op)   # the kernel's IndexError, if this op runs
        stand_in = ctx.jnp.zeros(tuple(1 if d in empty else n for d, n in enumerate(x.shape)), x.dtype)
        return stand_in[_subscript(ctx, op, stand_in.shape, key, dynamic)]
    return _picked(ctx, x, _subscript(ctx, op, x.shape, key, dynamic))


def _picked(ctx, x, index: tuple):
    """``x[index]``; a dynamic slice when ``index`` holds only ints (some traced: ``_subscript`` made them
    non-negative and in range) and whole slices, without the selects JAX's indexing adds for negative indices."""
    starts, sizes, picked = [], [], []
    for dim, size in enumerate(x.shape):
        item = index[dim] if dim < len(index) else slice(None)
        if isinstance(item, slice) and item == slice(None):
            starts.append(np.int32(0))
            sizes.append(size)
        elif item is None or item is Ellipsis or isinstance(item, slice) or np.ndim(item) or size == 0:
            return ctx.jnp.asarray(x)[index]
        else:
            if isinstance(item, (int, np.integer)):
                item = np.int32(item + size if item < 0 else item)
            starts.append(item)
            sizes.append(1)
            picked.append(dim)
    if len(index) > len(x.shape) or all(is_static(start) for start in starts):
        return ctx.jnp.asarray(x)[index]   # (static: a plain slice)
    lax = ctx.lax
    return lax.squeeze(lax.dynamic_slice(x, starts, sizes, allow_negative_indices=False), picked)


@lowers(STRIDED_SLICE_UPDATE)
def _strided_slice_update(ctx, op, x, value, *dynamic):
    if _empty_axes_indexed(op.attrs["key"], x.shape):
        ctx.check(np.bool_(False), op)   # the kernel's IndexError, if this op runs; nothing to update
        return ctx.jnp.asarray(x)
    return ctx.jnp.asarray(x).at[_subscript(ctx, op, x.shape, op.attrs["key"], dynamic)].set(value)


@lowers(STRIDED_SLICE_GRAD)
def _strided_slice_grad(ctx, op, shape, grad, *dynamic):
    declared = op.outputs[0].shape
    if not is_static(shape) and declared is not None and None not in declared:
        # The sliced tensor's shape, popped from a list in a loop's gradient (its forward iterations pushed it),
        # though the graph knows it: checked, as Fill's (above)
        ctx.check(ctx.jnp.all(ctx.jnp.asarray(shape) == np.asarray(declared, np.int64)), op,
                  why=f"its shape differs from the shape {tuple(declared)} the graph declared")
        target = [int(d) for d in declared]
    else:
        target = static_ints(ctx, op, shape, "shape")
    zeros = ctx.jnp.zeros(target, dtype=op.outputs[0].dtype)
    if _empty_axes_indexed(op.attrs["key"], target):
        ctx.check(np.bool_(False), op)   # (the forward slice failed first whenever this runs)
        return zeros
    return zeros.at[_subscript(ctx, op, target, op.attrs["key"], dynamic)].set(grad)


READS_LAZY_RANGES.update({GATHER, STRIDED_SLICE})
CHECKED.update({GATHER, GATHER_ND, TENSOR_SCATTER_UPDATE, TENSOR_SCATTER_ADD, STRIDED_SLICE, STRIDED_SLICE_UPDATE,
                STRIDED_SLICE_GRAD, UNSORTED_SEGMENT_SUM})
