"""Ops the compiled executor writes as plain Python instead of a kernel call, with the kernel's exact values.

A kernel call costs a Python call, keyword attrs and the kernel's own generality (``StridedSlice``
decodes its key on every call: ~2.5 µs); in a loop body that runs thousands of times the plain
expression is what a person would write and what numpy runs fastest:

- a numpy function behind a Python operator: ``a + b`` for ``np.add`` (``OPERATOR_FORMS``);
- ``StridedSlice`` with a key of ints and slices: ``x[i, j]`` (all ints over every axis: a numpy
  scalar, as the compiled code keeps 0-d values) or ``_copy(x[1:n])`` (a copy, exactly the kernel's);
- a ``Cast``: ``x.astype(dtype, copy=False)`` (the kernel's call; warnings are already off);
- ``GatherV2`` of one index: ``(x[i] if 0 <= i < n else k_GatherV2(x, i, axis=0))``: an index out of
  range still goes to the kernel, which raises its ``InvalidArgumentError``; rows are copied (``np.take``
  copies too);
- ``ExpandDims``: ``x[:, None]`` (a view, like ``np.expand_dims``); ``ConcatV2``: ``np.concatenate``;
- the numpy method the kernel's numpy function dispatches to: ``x.sum(axis=..., dtype=..., keepdims=...)``,
  ``x.max(...)``, ``x.mean(...)`` (floats), ``x.transpose(perm)``, and ``SumToShape`` (a gradient's
  un-broadcast) with its axes worked out once from static shapes: ``x.sum(axis=(0,), ...).reshape(...)``;
- ``ReadVariableOp``: ``variable._array`` (its kernel's body); ``SelectV2``: ``np.where(c, t, e)``.
- ``ArgMax``/``ArgMin``: ``x.argmax(axis=0).astype(dtype)`` (the kernel's ``np.argmax`` dispatches to it);
- ``TensorListPushBack``: the kernel's append without wrapping the new version in a 0-d object array
  (``list_ops.push_back_unwrapped``; every list kernel takes the bare value, an output is wrapped);
- ``SplitV`` and ``Unpack`` with static sizes: views, ``(x[:, 0:128], x[:, 128:256])`` and ``(x[0], x[1])``
  (the kernels copy every piece; nothing writes into a piece or its input while it lives: the memory plan
  pools and updates in place only arrays whose readers all return new arrays). Pieces of a constant or an
  input are copied (a view of it returned to the caller could be changed).
- an update written in place (``runtime.backends.in_place``): ``d[i, j] = v``.

Dynamic indices must be scalar tensors of static shape ``()``; anything else keeps the kernel (which
checks it at run time). Out-of-range indices raise numpy's own ``IndexError`` with the kernel's message.

>>> index_text((("index", 1), ("slice", None, ("input", 0), None)), ["n"])
'1, :n'
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np

from runtime.core.graph import Operation
from runtime.ops.array_ops import EXPAND_DIMS, TRANSPOSE
from runtime.ops.cast_op import CAST
from runtime.ops.combine_ops import CONCAT, SELECT
from runtime.ops.core import CONST, PLACEHOLDER
from runtime.ops.gradient_ops import SUM_TO_SHAPE
from runtime.ops.indexing import GATHER, STRIDED_SLICE, STRIDED_SLICE_UPDATE
from runtime.ops.list_ops import TENSOR_LIST_PUSH_BACK, push_back_unwrapped
from runtime.ops.math_ops import MATMUL
from runtime.ops.reduction_ops import ARG_MAX, ARG_MIN, MAX, MEAN, MIN, SUM
from runtime.ops.split_ops import SPLIT, UNSTACK
from runtime.ops.variables import READ_VARIABLE

# A numpy function and the Python operator that calls exactly it on ndarrays and numpy scalars.
# (A fact about numpy, not a list of our ops: an op whose kernel *is* np.add is emitted as ``a + b``.)
OPERATOR_FORMS = {np.add: "{} + {}", np.subtract: "{} - {}", np.multiply: "{} * {}", np.matmul: "{} @ {}",
                  np.less: "{} < {}", np.less_equal: "{} <= {}", np.greater: "{} > {}",
                  np.greater_equal: "{} >= {}", np.equal: "{} == {}", np.not_equal: "{} != {}",
                  np.negative: "-{}", np.true_divide: "{} / {}", np.floor_divide: "{} // {}",
                  np.remainder: "{} % {}"}


def index_text(key: tuple, dynamic: Sequence[str]) -> Optional[str]:
    """The subscript text of an encoded ``StridedSlice`` key (``dynamic``: names of its index inputs), or
    None if it has a new axis or an ellipsis (the kernel handles those)."""
    parts: List[str] = []
    for item in key:
        if item[0] == "index":
            parts.append(_number(item[1], dynamic))
        elif item[0] == "slice":
            start, stop, step = (_number(v, dynamic) for v in item[1:])
            parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        else:
            return None
    return ", ".join(parts) if parts else None


def _number(value, dynamic: Sequence[str]) -> str:
    if value is None:
        return ""
    if type(value) is tuple:  # ("input", k): the k-th dynamic index
        return dynamic[value[1]]
    return repr(int(value))


def literal(value: object, bind: Callable[[object, str], str], hint: str) -> str:
    """Source text for an attr value: the literal of an int, bool, None or a tuple of those (text that
    ``repr`` makes from the number itself, never a string the value carries), else a bound name."""
    if _is_plain(value):
        return repr(value)
    return bind(value, hint)


def _is_plain(value: object) -> bool:
    if value is None or type(value) in (int, bool):
        return True
    return type(value) is tuple and all(_is_plain(v) for v in value)


def _static_scalar_indices(tensors) -> bool:
    return all(t.shape == () for t in tensors)


def expression(op: Operation, args: Sequence[str], bind: Callable[[object, str], str],
               view: bool = False) -> Optional[str]:
    """A Python expression computing ``op`` of ``args`` exactly like its kernel, or None for a kernel call.
    ``bind(value, hint)`` names a constant in the generated module; ``view``: a ``StridedSlice`` may be a
    view (the executor proved nothing writes into its input or exposes the result: ``slices_as_views``)."""
    op_def = op.op_def
    if op_def is STRIDED_SLICE and _static_scalar_indices(op.inputs[1:]):
        key = op.attrs["key"]
        subscript = index_text(key, args[1:])
        if subscript is None:
            return None
        rank = op.inputs[0].shape
        if rank is not None and len(key) == len(rank) and all(item[0] == "index" for item in key):
            return f"{args[0]}[{subscript}]"  # one element: a new numpy scalar
        if view:
            return f"{args[0]}[{subscript}]"
        return f"_copy({args[0]}[{subscript}])"  # a copy, not a view: tensors never share memory
    if op_def is CAST and op.outputs[0].dtype != op.inputs[0].dtype:
        return f"{args[0]}.astype({bind(op.attrs['dtype'], 'dtype')}, copy=False)"
    if op_def is GATHER and op.inputs[1].shape == () and op.inputs[0].shape and type(op.attrs["axis"]) is int:
        params, index = args
        shape = op.inputs[0].shape
        axis = op.attrs["axis"] % len(shape)
        size = shape[axis] if shape[axis] is not None else f"{params}.shape[{axis}]"
        picked = f"{params}[{', '.join([':'] * axis + [index])}]"
        if len(shape) > 1:
            picked = f"_copy({picked})"  # a copy of the row, as np.take makes
        kernel = bind(op_def.kernel, f"k_{op_def.name}")
        return f"({picked} if 0 <= {index} < {size} else {kernel}({params}, {index}, axis={axis}))"
    if op_def is EXPAND_DIMS and op.inputs[0].shape is not None and type(op.attrs["axis"]) is int:
        rank = len(op.inputs[0].shape)
        axis = op.attrs["axis"] % (rank + 1)
        return f"{args[0]}[{', '.join([':'] * axis + ['None'])}]"
    if op_def in (SUM, MAX, MIN) or (op_def is MEAN and op.inputs[0].dtype.kind == "f"):
        axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
        dtype = f", dtype={bind(op.inputs[0].dtype, 'dtype')}" if op_def is SUM else ""
        method = {SUM: "sum", MAX: "max", MIN: "min", MEAN: "mean"}[op_def]
        return (f"{args[0]}.{method}(axis={literal(axis, bind, 'axis')}{dtype}, "
                f"keepdims={literal(keepdims, bind, 'keepdims')})")
    if op_def is SUM_TO_SHAPE:
        return _sum_to_shape(op, args, bind)
    if op_def is TRANSPOSE:
        perm = op.attrs["perm"]
        return f"{args[0]}.transpose({'' if perm is None else literal(perm, bind, 'perm')})"
    if op_def is READ_VARIABLE:
        return f"{bind(op.attrs['variable'], 'variable')}._array"
    if op_def is SELECT:
        return f"np.where({', '.join(args)})"
    if op_def in (ARG_MAX, ARG_MIN):
        method = "argmax" if op_def is ARG_MAX else "argmin"
        return f"{args[0]}.{method}(axis={int(op.attrs['axis'])}).astype({bind(op.attrs['output_type'], 'dtype')})"
    if op_def is TENSOR_LIST_PUSH_BACK:
        return f"{bind(push_back_unwrapped, 'push_back')}({args[0]}, {args[1]})"
    if op_def in (SPLIT, UNSTACK):
        return _pieces(op, args[0])
    if op_def is CONCAT:
        axis = literal(op.attrs["axis"], bind, "axis")
        return f"np.concatenate(({', '.join(args)}{',' if len(args) == 1 else ''}), {axis})"
    return None


# Readers that neither keep nor expose their input: a view read only by them lives no longer than they do.
_READ_ONLY = (GATHER, SUM, MAX, MIN, MEAN, ARG_MAX, ARG_MIN, MATMUL, SELECT)


def slices_as_views(graph, ops: Sequence[Operation], owned_inputs) -> set:
    """Ids of the ``StridedSlice`` ops of ``graph`` (its needed ``ops``) that may return a view instead of a
    copy: the sliced array is a constant or an input this graph never updates in place (not in
    ``owned_inputs``, the positions of loop variables updated in place), and every reader of the slice only
    reads it (elementwise ops, gathers, reductions, matmul), so no view is written into, returned or kept.
    A row ``emissions[t]`` read by an add in a loop body is then not copied every iteration."""
    readers: dict = {}
    for op in ops:
        for t in op.inputs:
            readers.setdefault(id(t), []).append(op)
    outputs = {id(t) for t in graph.outputs}
    inputs = {id(t): position for position, t in enumerate(graph.inputs)}
    views = set()
    for op in ops:
        if op.op_def is not STRIDED_SLICE:
            continue
        source, result = op.inputs[0], op.outputs[0]
        position = inputs.get(id(source))
        if not (source.op.op_def is CONST or (position is not None and position not in owned_inputs)):
            continue
        users = readers.get(id(result), ())
        if users and id(result) not in outputs and all(
                user.op_def in _READ_ONLY or user.op_def.elementwise_ufunc is not None for user in users):
            views.add(id(op))
    return views


def _pieces(op: Operation, value: str) -> Optional[str]:
    """A split's or unstack's pieces as views of ``value`` (their sizes known while tracing), or None."""
    shape = op.inputs[0].shape
    if shape is None or op.inputs[0].op.op_def in (CONST, PLACEHOLDER):
        return None  # the caller's array or ours: pieces returned to the caller could change it
    axis = op.attrs["axis"] % len(shape)
    leading = ":, " * axis
    if op.op_def is UNSTACK:
        if shape[axis] != op.attrs["num"]:
            return None  # unknown size: the kernel checks it
        pieces = [f"{value}[{leading}{i}]" for i in range(op.attrs["num"])]
    else:
        sizes = [piece.shape[axis] if piece.shape is not None else None for piece in op.outputs]
        if shape[axis] is None or None in sizes or sum(sizes) != shape[axis]:
            return None
        bounds = [0]
        for size in sizes:
            bounds.append(bounds[-1] + size)
        pieces = [f"{value}[{leading}{lo}:{hi}]" for lo, hi in zip(bounds, bounds[1:])]
    return pieces[0] if len(pieces) == 1 else f"({', '.join(pieces)})"


def in_place_statement(op: Operation, args: Sequence[str]) -> Optional[str]:
    """``x[key] = value`` for an update the memory plan runs in place, or None for its in-place kernel."""
    if op.op_def is not STRIDED_SLICE_UPDATE or not _static_scalar_indices(op.inputs[2:]):
        return None
    subscript = index_text(op.attrs["key"], args[2:])
    return None if subscript is None else f"{args[0]}[{subscript}] = {args[1]}"


def _sum_to_shape(op: Operation, args: Sequence[str], bind: Callable[[object, str], str]) -> Optional[str]:
    """The kernel's sum over broadcast axes and reshape, with the axes decided now (static shapes)."""
    source, target = op.inputs
    if source.shape is None or None in source.shape or target.op.op_def is not CONST:
        return None
    shape = tuple(int(d) for d in target.op.attrs["value"].tolist())
    extra = len(source.shape) - len(shape)
    if extra < 0:
        return None
    axes = tuple(range(extra)) + tuple(extra + i for i, d in enumerate(shape)
                                       if d == 1 and source.shape[extra + i] != 1)
    summed = (f"{args[0]}.sum(axis={axes!r}, keepdims=True, dtype={bind(source.dtype, 'dtype')})"
              if axes else args[0])
    return f"{summed}.reshape({shape!r})"
