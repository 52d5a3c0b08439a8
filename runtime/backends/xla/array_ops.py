"""JAX lowerings of the shape, indexing, combining, ordering and creation ops.

Sizes must be known when compiling (XLA's shapes are static): a ``Reshape`` target, ``Tile`` multiples, a
``Fill`` shape, pad amounts, a ``TopKV2`` k come from constants or static shapes, else ``ctx.static`` raises
a LoweringError naming the op. Indices are checked at run time as our kernels check them (an index out of
range is the numpy executor's ``InvalidArgumentError``, never JAX's silent clamping).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from runtime.backends.xla.lowering import READS_LAZY_RANGES, LazyRange, is_static
from runtime.backends.xla.table import CHECKED, NOT_LOWERED, lowers
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, SQUEEZE, TILE, TRANSPOSE
from runtime.ops.combine_ops import CONCAT, SELECT, STACK, WHERE
from runtime.ops.creation_ops import FILL, ONES_LIKE, RANGE, ZEROS_LIKE
from runtime.ops.einsum_ops import EINSUM
from runtime.ops.gradient_ops import BROADCAST_TO, SUM_TO_SHAPE
from runtime.ops.indexing import (
    GATHER,
    STRIDED_SLICE,
    STRIDED_SLICE_GRAD,
    STRIDED_SLICE_UPDATE,
    UNSORTED_SEGMENT_SUM,
)
from runtime.ops.manipulation_ops import MIRROR_PAD, ONE_HOT, PAD, REPEAT, REVERSE
from runtime.ops.set_ops import UNIQUE, UNIQUE_WITH_COUNTS
from runtime.ops.scatter_ops import GATHER_ND, TENSOR_SCATTER_ADD, TENSOR_SCATTER_UPDATE
from runtime.ops.shape_ops import RANK, SHAPE, SIZE
from runtime.ops.sort_ops import ARG_SORT, SORT, TOP_K
from runtime.ops.split_ops import SPLIT, UNSTACK


def _ints(ctx, op, value, what: str) -> List[int]:
    return [int(v) for v in np.reshape(ctx.static(value, op, what), -1)]


@lowers(SHAPE)
def _shape(ctx, op, x):
    if type(x) is LazyRange:
        shape = ctx.jnp.reshape(x.length, (1,)).astype(op.attrs["out_type"])
        known = ctx.value_range(x.length)
        if known is not None:   # (the length's range: a nested loop over it has a bound, loop_bounds)
            ctx.set_range(shape, *known)
        return shape
    return np.array(x.shape, dtype=op.attrs["out_type"])   # static in a compiled program


def _range_element(ctx, op, lazy: LazyRange, index, wraps: bool = False):
    index = ctx.jnp.asarray(index)
    if wraps:  # x[-1] of a subscript counts from the end
        index = ctx.jnp.where(index < 0, index + lazy.length, index)
    if index.ndim:
        raise ctx.error(op, "it picks several elements of a range whose length is known only when the graph runs")
    known = ctx.value_range(index)
    ctx.check((index >= 0) & (index < lazy.length), op)
    element = (lazy.start + lazy.delta * index.astype(lazy.dtype)).astype(lazy.dtype)
    if known is not None and is_static(lazy.start) and is_static(lazy.delta) and lazy.dtype.kind in "iu":
        ends = [int(lazy.start) + int(lazy.delta) * bound for bound in known]   # the counter's range, mapped
        ctx.set_range(element, min(ends), max(ends))
    return element


@lowers(SIZE)
def _size(ctx, op, x):
    return np.array(int(np.prod(x.shape, dtype=np.int64)), dtype=op.attrs["out_type"])


@lowers(RANK)
def _rank(ctx, op, x):
    return np.array(len(x.shape), dtype=np.int32)


@lowers(RESHAPE)
def _reshape(ctx, op, x, shape):
    return ctx.jnp.reshape(x, _ints(ctx, op, shape, "target shape"))


@lowers(TRANSPOSE)
def _transpose(ctx, op, x):
    return ctx.jnp.transpose(x, op.attrs["perm"])


@lowers(EXPAND_DIMS)
def _expand_dims(ctx, op, x):
    return ctx.jnp.expand_dims(x, op.attrs["axis"])


@lowers(SQUEEZE)
def _squeeze(ctx, op, x):
    return ctx.jnp.squeeze(x, op.attrs["axis"])


@lowers(TILE)
def _tile(ctx, op, x, multiples):
    return ctx.jnp.tile(x, _ints(ctx, op, multiples, "multiples"))


@lowers(CONCAT)
def _concat(ctx, op, *values):
    return ctx.jnp.concatenate(values, op.attrs["axis"])


@lowers(STACK)
def _stack(ctx, op, *values):
    return ctx.jnp.stack(values, op.attrs["axis"])


@lowers(UNSTACK)
def _unstack(ctx, op, x):
    axis = op.attrs["axis"]
    if x.shape[axis] != op.attrs["num"]:   # (a dim the graph left unknown): num elements of another length
        ctx.error_from_kernel(op, [np.zeros(x.shape, x.dtype)])
    return tuple(ctx.jnp.take(x, i, axis=axis) for i in range(op.attrs["num"]))


@lowers(SPLIT)
def _split(ctx, op, x):
    # The sizes are checked against x's shape here, known when compiling (the graph may have left it unknown,
    # and the pieces' sizes known: [1, 2] of a [None] vector): pieces that do not add up to it fail on every call
    # of this shape, with the kernel's error, as on the numpy executor (jnp.split would cut other pieces).
    axis_size, requested = x.shape[op.attrs["axis"]], op.attrs["sizes"]
    if requested is None:
        sizes = [axis_size // op.attrs["num"]] * op.attrs["num"]
    else:
        sizes = [int(s) for s in _resolved_sizes(requested, axis_size)]
    if sum(sizes) != axis_size or min(sizes, default=0) < 0:
        ctx.error_from_kernel(op, [np.zeros(x.shape, x.dtype)])
    return tuple(ctx.jnp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=op.attrs["axis"]))


def _resolved_sizes(sizes, axis_size: int) -> List[int]:
    sizes = list(sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = axis_size - sum(s for s in sizes if s != -1)
    return sizes


@lowers(SELECT)
def _select(ctx, op, condition, x, y):
    if np.shape(condition) == np.shape(x) == np.shape(y) and x.dtype == y.dtype and condition.dtype == np.bool_:
        return ctx.lax.select(condition, x, y)   # (jnp.where broadcasts and promotes: a nested jit)
    return ctx.jnp.where(condition, x, y)


@lowers(REVERSE)
def _reverse(ctx, op, x):
    return ctx.lax.rev(x, tuple(axis % x.ndim for axis in op.attrs["axis"]))


@lowers(FILL)
def _fill(ctx, op, dims, value):
    declared = op.outputs[0].shape
    if not is_static(dims) and declared is not None and None not in declared:
        # A shape the graph knows though its value is computed (the gradient of a loop pops the shapes of its
        # forward iterations from a list to make zeros): checked, never trusted blindly
        ctx.check(ctx.jnp.all(ctx.jnp.asarray(dims) == np.asarray(declared, np.int64)), op,
                  why=f"its shape differs from the shape {tuple(declared)} the graph declared")
        return ctx.jnp.full(tuple(declared), value, dtype=op.outputs[0].dtype)
    return ctx.jnp.full(_ints(ctx, op, dims, "shape"), value, dtype=op.outputs[0].dtype)


@lowers(ZEROS_LIKE)
def _zeros_like(ctx, op, x):
    return ctx.jnp.zeros_like(x)


@lowers(ONES_LIKE)
def _ones_like(ctx, op, x):
    return ctx.jnp.ones_like(x)


def _int_range(ctx, value) -> tuple:
    """(lowest, highest) of an int scalar known when compiling or of a declared range; () if neither."""
    if is_static(value):
        return (int(value), int(value)) if np.ndim(value) == 0 and np.asarray(value).dtype.kind in "iu" else ()
    return ctx.value_range(value) or ()


@lowers(RANGE)
def _range(ctx, op, start, limit, delta):
    length = op.attrs.get("static_length")
    dtype = op.attrs["dtype"]
    if length is None:   # known only when the graph runs: a LazyRange, read by a loop over it
        jnp = ctx.jnp
        ctx.check(delta != 0 if is_static(delta) else jnp.asarray(delta) != 0, op)   # (no check for a constant)
        span = jnp.asarray(limit) if is_static(start) and start == 0 else jnp.asarray(limit) - jnp.asarray(start)
        if dtype.kind == "f":
            steps = jnp.ceil(span / delta)
        elif is_static(delta) and delta == 1:
            steps = span
        else:   # ceil(span / delta), as integers (a constant step: no select for a step of 0, checked above)
            steps = -((-span) // (delta if is_static(delta) and delta != 0 else jnp.where(delta == 0, 1, delta)))
        length = jnp.maximum(steps, 0).astype(np.int32)
        limits, starts = (_int_range(ctx, v) for v in (limit, start))
        if limits and starts and is_static(delta) and dtype.kind in "iu" and int(delta) != 0:
            # ceil((limit - start) / delta), monotonic in both: its extremes are at the ranges' ends
            ends = [max(-((s - bound) // int(delta)), 0) for bound in limits for s in starts]
            ctx.set_range(length, min(ends), max(ends))
        return LazyRange(*(v if is_static(v) else jnp.asarray(v) for v in (start, delta)), length, dtype)
    steps = ctx.jnp.arange(length, dtype=np.float64 if dtype.kind == "f" else np.int64)
    return (start + delta * steps).astype(dtype)


@lowers(BROADCAST_TO)
def _broadcast_to(ctx, op, x, shape):
    return ctx.jnp.broadcast_to(x, _ints(ctx, op, shape, "target shape"))


@lowers(SUM_TO_SHAPE)
def _sum_to_shape(ctx, op, x, shape):
    target = _ints(ctx, op, shape, "target shape")
    extra = x.ndim - len(target)
    axes = tuple(range(extra)) + tuple(extra + i for i, d in enumerate(target) if d == 1 and x.shape[extra + i] != 1)
    summed = ctx.jnp.sum(x, axis=axes, keepdims=True, dtype=x.dtype) if axes else x
    return ctx.jnp.reshape(summed, target)


@lowers(EINSUM)
def _einsum(ctx, op, *arrays):
    return ctx.jnp.einsum(op.attrs["equation"], *arrays)


@lowers(ONE_HOT)
def _one_hot(ctx, op, indices, depth, on_value, off_value):
    count = int(ctx.static(depth, op, "depth"))
    hot = ctx.jnp.asarray(indices)[..., None] == ctx.jnp.arange(count)   # out of range: all off
    dtype = op.outputs[0].dtype
    if is_static(on_value) and is_static(off_value) and on_value == 1 and off_value == 0:
        out = ctx.lax.convert_element_type(hot, dtype)   # (the usual one-hot: no select)
    else:
        out = ctx.jnp.where(hot, on_value, off_value).astype(dtype)
    axis = op.attrs["axis"]
    return out if axis == -1 else ctx.jnp.moveaxis(out, -1, axis)


@lowers(PAD, MIRROR_PAD)
def _pad(ctx, op, x, paddings, constant_values=None):
    amounts = ctx.static(paddings, op, "paddings")
    mode = op.attrs["mode"]
    # A mirror takes at most the axis' length less its edge (REFLECT) or all of it (SYMMETRIC); jnp.pad would
    # mirror again past it where the kernel raises (the axis' length left unknown by the graph)
    most = np.array([size - (mode == "REFLECT") for size in x.shape]) if mode != "CONSTANT" else None
    if amounts.shape != (x.ndim, 2) or (amounts < 0).any() or (most is not None and (amounts > most[:, None]).any()):
        return ctx.error_from_kernel(op, [np.zeros(x.shape, x.dtype), amounts] +
                                     ([] if constant_values is None else [np.zeros((), x.dtype)]))
    pairs = [tuple(int(v) for v in row) for row in amounts]
    if mode == "CONSTANT":
        return ctx.jnp.pad(x, pairs, mode="constant", constant_values=constant_values)
    return ctx.jnp.pad(x, pairs, mode="reflect" if mode == "REFLECT" else "symmetric")


@lowers(REPEAT)
def _repeat(ctx, op, x, repeats):
    counts = ctx.static(repeats, op, "repeats")
    axis = op.attrs["axis"]
    total = int(np.sum(np.broadcast_to(counts, (x.shape[axis] if axis is not None else x.size,))))
    return ctx.jnp.repeat(x, counts, axis=axis, total_repeat_length=total)


# --- ordering ----------------------------------------------------------------------------------------------
def _stable_order(ctx, x, axis: int, descending: bool):
    jnp = ctx.jnp
    if not descending:
        return jnp.argsort(x, axis=axis, stable=True)
    last = x.shape[axis] - 1   # stable descending, as our kernel: the reversed axis' ascending order, mirrored
    return last - jnp.flip(jnp.argsort(jnp.flip(x, axis), axis=axis, stable=True), axis)


@lowers(SORT)
def _sort(ctx, op, x):
    ascending = ctx.jnp.sort(x, axis=op.attrs["axis"])
    return ctx.jnp.flip(ascending, op.attrs["axis"]) if op.attrs["direction"] == "DESCENDING" else ascending


@lowers(ARG_SORT)
def _arg_sort(ctx, op, x):
    order = _stable_order(ctx, x, op.attrs["axis"], op.attrs["direction"] == "DESCENDING")
    return order.astype(op.outputs[0].dtype)


@lowers(TOP_K)
def _top_k(ctx, op, x, k):
    count = int(ctx.static(k, op, "k"))
    if not 0 <= count <= x.shape[-1]:
        return ctx.error_from_kernel(op, [np.zeros(x.shape, x.dtype), np.asarray(count)])
    indices = _stable_order(ctx, x, -1, descending=True)[..., :count]
    return ctx.jnp.take_along_axis(x, indices, -1), indices.astype(op.attrs["index_type"])


# --- gathering and scattering --------------------------------------------------------------------------------
def _in_range(ctx, indices, size):
    within = (indices >= 0) & (indices < size)
    return within if not np.ndim(indices) else ctx.jnp.all(within)


@lowers(GATHER)
def _gather(ctx, op, params, indices):
    if type(params) is LazyRange:
        return _range_element(ctx, op, params, indices)
    axis, size = op.attrs["axis"], params.shape[op.attrs["axis"]]
    known = ctx.value_range(indices)   # a loop counter: its range may make the check needless
    indices = ctx.jnp.asarray(indices)
    if not (known is not None and 0 <= known[0] and known[1] < size):
        ctx.check(_in_range(ctx, indices, size), op)
    if size == 0:   # (a loop over an empty tensor: its body is compiled, never run)
        return ctx.jnp.zeros(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)
    within = known is not None and 0 <= known[0] <= known[1] < size
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
    indices = jnp.asarray(indices)
    depth = indices.shape[-1]
    bounds = np.array(shape[:depth], dtype=np.int64)
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
    ctx.check(_in_range(ctx, ctx.jnp.asarray(segment_ids), count), op)
    return ctx.jax.ops.segment_sum(data, segment_ids, num_segments=count)


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
        return _range_element(ctx, op, x, dynamic[index[1]] if type(index) is tuple else index, wraps=True)
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
        target = _ints(ctx, op, shape, "shape")
    zeros = ctx.jnp.zeros(target, dtype=op.outputs[0].dtype)
    if _empty_axes_indexed(op.attrs["key"], target):
        ctx.check(np.bool_(False), op)   # (the forward slice failed first whenever this runs)
        return zeros
    return zeros.at[_subscript(ctx, op, target, op.attrs["key"], dynamic)].set(grad)


READS_LAZY_RANGES.update({SHAPE, GATHER, STRIDED_SLICE})
CHECKED.update({FILL, GATHER, GATHER_ND, TENSOR_SCATTER_UPDATE, TENSOR_SCATTER_ADD, RANGE, STRIDED_SLICE,
                STRIDED_SLICE_UPDATE, STRIDED_SLICE_GRAD, UNSORTED_SEGMENT_SUM})
_DATA_DEPENDENT = "is known only when the graph runs, and XLA needs every shape when compiling; "
_AUTO = "or use jit_compile='auto' to run this graph on the numpy executor"
NOT_LOWERED.update({
    WHERE: "the number of true elements (its result's length) " + _DATA_DEPENDENT + "select with the three-argument "
           "rt.where(condition, x, y), or count with rt.reduce_sum(rt.cast(condition, rt.int32)), " + _AUTO,
    UNIQUE: "the number of distinct values (its result's length) " + _DATA_DEPENDENT + "call rt.unique outside the "
            "jit_compile=True function (on its result), " + _AUTO,
    UNIQUE_WITH_COUNTS: "the number of distinct values (its results' length) " + _DATA_DEPENDENT + "call "
                        "rt.unique_with_counts outside the jit_compile=True function, " + _AUTO,
})
