"""ONNX converters for the ops whose kernels raise on an index out of range: ``GatherV2``, ``GatherNd``,
``TensorScatterUpdate``/``TensorScatterAdd`` and ``UnsortedSegmentSum`` (and ``checked_python_index`` for a
run-time index of ``StridedSlice``, ``x[i]``). The exported graph fails there too, instead of answering
something else.

ONNX ``Gather``, ``GatherND`` and ``ScatterND`` accept negative indices (counted from the end: ``-1`` is the
last row), and what they do with an index past the end is left to the runtime (onnxruntime raises; others
may clamp or read past the buffer). Our kernels raise ``InvalidArgumentError`` for any index outside
``[0, dim)``, so a plain mapping would silently give another result for ``-1``. Each converter therefore
routes the indices, as ``[n, k]`` rows (k = 1 for a gather), through a ``Reshape`` to ``[n + bad, k + bad]``
where ``bad`` counts the entries outside ``[0, dim)``: with none it is the identity, with any it asks for more
values than there are, which every ONNX runtime must refuse (onnxruntime: "The input tensor cannot be
reshaped to the requested shape", naming the node ``<op>/indices_in_range``). Optimizers assume reshapes
succeed, so the check is built so that none can drop it: both dims of its shape are computed from data
(a shape with one unknown dim may be rewritten to -1), fusing it with the flattening ``Reshape`` before it
keeps the impossible shape, and the op reading it is never a Reshape. The tests run onnxruntime with all
graph optimizations on and off.

>>> import runtime as rt
>>> "GatherV2" in rt.export.exportable_op_types()
True
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import ExportError
from runtime.backends.onnx.ops import _converts, _int64
from runtime.ops.scatter_ops import TENSOR_SCATTER_ADD
from runtime.ops.indexing import GATHER, UNSORTED_SEGMENT_SUM
from runtime.ops.scatter_ops import GATHER_ND, TENSOR_SCATTER_UPDATE


def _rows_in_range(b, indices: str, rank, upper: str, name: str, rows_of: bool = False, lower: str = None) -> str:
    """``indices`` (int64) as ``[n, 1]``, or with ``rows_of`` as ``[n, k]`` rows (its last axis kept); the node
    computing it fails unless every entry is in ``[lower, upper)`` (``upper``: int64 ``[1]``, or ``[k]`` for
    rows: one bound per position in a row; ``lower``: 0 unless given, e.g. ``-dim`` for a Python index)."""
    if rows_of and rank == 2:
        rows = indices
    else:
        if rows_of:  # [prod(indices.shape[:-1]), k]: no -1, which is ambiguous for rows of no entries
            count = b.one("ReduceProd", [b.one("Shape", [indices], name + "/batch_dims", end=-1)], name + "/rows",
                          keepdims=1)
            shape = b.one("Concat", [count, b.one("Shape", [indices], name + "/row_length", start=-1)],
                          name + "/rows_shape", axis=0)
        else:
            shape = b.constant(np.array([-1, 1], np.int64), name + "/rows_shape")
        rows = b.one("Reshape", [indices, shape], name + "/rows")
    lower = lower or b.constant(np.array(0, np.int64), name + "/zero")
    outside = b.one("Or", [b.one("Less", [rows, lower], name + "/below"),
                           b.one("GreaterOrEqual", [rows, upper], name + "/above")], name + "/outside")
    bad = b.one("ReduceSum", [b.one("Cast", [outside], name + "/outside_int64", to=b.onnx.TensorProto.INT64)],
                name + "/bad_count", keepdims=0)
    # [n + bad, k + bad]: both dims grow, so no optimizer can turn one of them into -1 (onnxruntime's reshape
    # fusion does that to a shape with one unknown dim, assuming the reshape succeeds, and drops the check).
    grown = b.one("Add", [b.one("Shape", [rows], name + "/rows_dims"), bad], name + "/checked_shape")
    return b.one("Reshape", [rows, grown], name + "/indices_in_range")


def _row_bounds(b, shape_of: str, indices: str, name: str) -> str:
    """``shape_of``'s first k dims, k = the length of an index row: one upper bound per position in a row."""
    return b.one("Slice", [b.one("Shape", [shape_of], name + "/shape"), b.constant(np.array([0], np.int64),
                                                                               name + "/first"),
                           b.one("Shape", [indices], name + "/depth", start=-1)], name + "/bounds")


@_converts(GATHER)
def _gather(b, op, inputs):
    params, indices = inputs
    axis, name = op.attrs["axis"], op.name
    upper = b.one("Shape", [params], name + "/dim", start=axis, end=axis + 1)
    checked = _rows_in_range(b, _int64(b, indices, name + "/indices"), op.inputs[1].ndim, upper, name)
    # Gather the checked [n, 1] indices, then give the result its shape: params' dims around axis, the
    # indices' dims in place of axis. (The Gather between keeps the Reshapes apart: no fusion drops the check.)
    gathered = b.one("Gather", [params, checked], name + "/gather", axis=axis)
    shape = b.one("Concat", [b.one("Shape", [params], name + "/outer_dims", end=axis),
                             b.one("Shape", [indices], name + "/index_dims"),
                             b.one("Shape", [params], name + "/inner_dims", start=axis + 1)], name + "/shape", axis=0)
    return [b.one("Reshape", [gathered, shape], name)]


def _row_length(op) -> object:
    shape = op.inputs[1].shape
    return None if shape is None else shape[-1]


@_converts(GATHER_ND)
def _gather_nd(b, op, inputs):
    params, indices = inputs
    name, rank = op.name, op.inputs[1].ndim
    wide = _int64(b, indices, name + "/indices")
    if _row_length(op) == 0:  # rows of no entries name the whole of params: nothing can be out of range
        return [b.one("GatherND", [params, wide], name)]
    checked = _rows_in_range(b, wide, rank, _row_bounds(b, params, wide, name), name, rows_of=True)
    if rank == 2:
        return [b.one("GatherND", [params, checked], name)]
    gathered = b.one("GatherND", [params, checked], name + "/gather")
    shape = b.one("Concat", [b.one("Shape", [indices], name + "/index_dims", end=-1),
                             b.one("Shape", [gathered], name + "/slice_dims", start=1)], name + "/shape", axis=0)
    return [b.one("Reshape", [gathered, shape], name)]


@_converts(TENSOR_SCATTER_UPDATE, TENSOR_SCATTER_ADD)
def _scatter_nd(b, op, inputs):
    tensor, indices, updates = inputs
    name, rank = op.name, op.inputs[1].ndim
    reduction = "add" if op.op_def is TENSOR_SCATTER_ADD else "none"
    wide = _int64(b, indices, name + "/indices")
    if _row_length(op) == 0:
        return [b.one("ScatterND", [tensor, wide, updates], name, reduction=reduction)]
    if rank is None:
        raise ExportError(f"{name}: {op.type} with indices of unknown rank cannot be exported (its indices "
                          "could not be checked against the tensor's shape); give the indices a known rank")
    checked = _rows_in_range(b, wide, rank, _row_bounds(b, tensor, wide, name), name, rows_of=True)
    if rank != 2:  # one update per checked row, in the rows' order
        updates = b.one("Reshape", [updates, b.one("Concat", [b.one("Shape", [checked], name + "/rows", end=1),
                                                              b.one("Shape", [updates], name + "/slice_dims",
                                                                    start=rank - 1)], name + "/updates_shape",
                                                   axis=0)], name + "/updates")
    return [b.one("ScatterND", [tensor, checked, updates], name, reduction=reduction)]


@_converts(UNSORTED_SEGMENT_SUM)
def _unsorted_segment_sum(b, op, inputs):
    """Zeros of (num_segments, *rest) and ScatterND with reduction 'add' (repeated ids add up); ids outside
    ``[0, num_segments)`` make the graph fail, as our kernel raises."""
    data, ids, count = inputs
    rank = op.inputs[1].ndim
    if rank is None:
        raise ExportError(f"{op.name}: UnsortedSegmentSum with segment ids of unknown rank cannot be exported")
    name, dtype = op.name, op.outputs[0].dtype
    rows = b.one("Reshape", [_int64(b, count, name + "/count"), b.constant(np.array([1], np.int64), name + "/one")],
                 name + "/rows")
    rest = b.one("Shape", [data], name + "/rest", start=rank)
    zeros = b.one("ConstantOfShape", [b.one("Concat", [rows, rest], name + "/shape", axis=0)], name + "/zeros",
                  value=b.onnx.numpy_helper.from_array(np.zeros([1], dtype), name=b.fresh(name + "/zero")))
    positions = _rows_in_range(b, _int64(b, ids, name + "/ids"), rank, rows, name)  # [n, 1]
    if rank != 1:  # one data row per id, in the ids' (flattened) order
        data = b.one("Reshape", [data, b.one("Concat", [b.one("Shape", [positions], name + "/ids_count", end=1),
                                                        rest], name + "/data_shape", axis=0)], name + "/data_rows")
    return [b.one("ScatterND", [zeros, positions, data], name, reduction="add")]


def checked_python_index(b, value: str, index: str, axis: int, name: str) -> str:
    """``value[..., index, ...]`` (``index`` a run-time int scalar at ``axis``, negative counting from the end, as
    in Python and in our ``StridedSlice``); the graph fails unless ``-dim <= index < dim``. ONNX Gather takes
    the same range but leaves what happens outside it to the runtime."""
    dim = b.one("Shape", [value], name + "/dim", start=axis, end=axis + 1)
    checked = _rows_in_range(b, _int64(b, index, name + "/index"), 0, dim, name,
                             lower=b.one("Neg", [dim], name + "/minus_dim"))   # [1, 1]
    picked = b.one("Gather", [value, checked], name + "/gather", axis=axis)  # the axis becomes [1, 1]
    return b.one("Squeeze", [picked, b.constant(np.array([axis, axis + 1], np.int64), name + "/picked_axes")],
                 name + "/picked")
