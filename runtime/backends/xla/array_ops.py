"""JAX lowerings of the shape, combining, ordering and creation ops (the indexing ops: ``index_ops``).

Sizes must be known when compiling (XLA's shapes are static): a ``Reshape`` target, ``Tile`` multiples, a
``Fill`` shape, pad amounts, a ``TopKV2`` k come from constants or static shapes, else ``ctx.static`` raises
a LoweringError naming the op. Indices are checked at run time as our kernels check them (an index out of
range is the numpy executor's ``InvalidArgumentError``, never JAX's silent clamping).
"""
from __future__ import annotations

from typing import List

import numpy as np

from runtime.backends.xla.lowering import READS_LAZY_RANGES, LazyRange, is_static
from runtime.backends.xla.table import CHECKED, NOT_LOWERED, lowers
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, SQUEEZE, TILE, TRANSPOSE
from runtime.ops.combine_ops import CONCAT, SELECT, STACK, WHERE
from runtime.ops.creation_ops import FILL, ONES_LIKE, RANGE, ZEROS_LIKE
from runtime.ops.einsum_ops import EINSUM
from runtime.ops.gradient_ops import BROADCAST_TO, SUM_TO_SHAPE
from runtime.ops.manipulation_ops import MIRROR_PAD, ONE_HOT, PAD, REPEAT, REVERSE
from runtime.ops.set_ops import UNIQUE, UNIQUE_WITH_COUNTS
from runtime.ops.shape_ops import RANK, SHAPE, SIZE
from runtime.ops.sort_ops import ARG_SORT, SORT, TOP_K
from runtime.ops.split_ops import SPLIT, UNSTACK


def static_ints(ctx, op, value, what: str) -> List[int]:
    """The ints of ``value``, which must be known when compiling (else ``ctx.static``'s LoweringError)."""
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


def range_element(ctx, op, lazy: LazyRange, index, wraps: bool = False):
    """Element ``index`` of a range never built (``start + delta * index``), checked to be in range."""
    known = ctx.value_range(index)   # (x[-1] of a subscript counts from the end: not a range of positions)
    known = known if known is None or known[0] >= 0 or not wraps else None
    index = ctx.jnp.asarray(index)
    if wraps:
        index = ctx.jnp.where(index < 0, index + lazy.length, index)
    if index.ndim:
        raise ctx.error(op, "it picks several elements of a range whose length is known only when the graph runs")
    if not (known is not None and known[0] >= 0 and known[1] < (ctx.value_range(lazy.length) or (0, 0))[0]):
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
    target = static_ints(ctx, op, shape, "target shape")
    if -1 in target and 0 in target:   # (JAX divides by the other sizes' product: a ZeroDivisionError)
        ctx.error_from_kernel(op, [np.broadcast_to(np.zeros((), x.dtype), x.shape), np.array(target)])
    return ctx.jnp.reshape(x, target)


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
    return ctx.jnp.tile(x, static_ints(ctx, op, multiples, "multiples"))


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
    return ctx.jnp.full(static_ints(ctx, op, dims, "shape"), value, dtype=op.outputs[0].dtype)


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
    return ctx.jnp.broadcast_to(x, static_ints(ctx, op, shape, "target shape"))


@lowers(SUM_TO_SHAPE)
def _sum_to_shape(ctx, op, x, shape):
    target = static_ints(ctx, op, shape, "target shape")
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


READS_LAZY_RANGES.add(SHAPE)
CHECKED.update({FILL, RANGE})
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
