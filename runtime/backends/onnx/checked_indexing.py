"""ONNX converters for the ops whose kernels raise on an index out of range: ``GatherV2`` and
``UnsortedSegmentSum``. The exported graph fails there too, instead of answering something else.

ONNX ``Gather`` and ``ScatterND`` accept negative indices (counted from the end: ``-1`` is the last row),
and what they do with an index past the end is left to the runtime (onnxruntime raises; others may clamp or
read past the buffer). Our kernels raise ``InvalidArgumentError`` for any index outside ``[0, dim)``, so a
plain mapping would silently give another result for ``-1``. Each converter therefore routes the indices,
flattened, through a ``Reshape`` to ``[n + bad]`` where ``bad`` counts the indices outside ``[0, dim)``: with
none it is the identity, with any it asks ``n`` values to fill ``n + bad`` slots, which every ONNX runtime
must refuse (onnxruntime: "The input tensor cannot be reshaped to the requested shape", naming the node
``<op>/indices_in_range``). Fusing it with the flattening ``Reshape`` before it (an optimizer may) keeps the
impossible shape, so the check survives.

>>> import runtime as rt
>>> "GatherV2" in rt.export.exportable_op_types()
True
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import ExportError
from runtime.backends.onnx.ops import _converts, _int64


def _flat_in_range(b, indices: str, rank, upper: str, name: str) -> str:
    """``indices`` (int64) as a 1-D tensor; the node computing it fails unless every index is in
    ``[0, upper)`` (``upper``: an int64 tensor of shape [1])."""
    flat = indices if rank == 1 else b.one("Reshape", [indices, b.constant(np.array([-1], np.int64), name + "/flat")],
                                          name + "/flat_indices")
    outside = b.one("Or", [b.one("Less", [flat, b.constant(np.array(0, np.int64), name + "/zero")], name + "/below"),
                           b.one("GreaterOrEqual", [flat, upper], name + "/above")], name + "/outside")
    bad = b.one("ReduceSum", [b.one("Cast", [outside], name + "/outside_int64", to=b.onnx.TensorProto.INT64)],
                name + "/bad_count", keepdims=1)
    slots = b.one("Add", [b.one("Shape", [flat], name + "/count"), bad], name + "/slots")
    return b.one("Reshape", [flat, slots], name + "/indices_in_range")


@_converts("GatherV2")
def _gather(b, op, inputs):
    params, indices = inputs
    axis, rank = op.attrs["axis"], op.inputs[1].ndim
    name = op.name
    upper = b.one("Shape", [params], name + "/dim", start=axis, end=axis + 1)
    checked = _flat_in_range(b, _int64(b, indices, name + "/indices"), rank, upper, name)
    if rank == 1:
        return [b.one("Gather", [params, checked], name, axis=axis)]
    # Gather the flat indices, then give the result its shape: params' dims around axis, the indices' in place.
    gathered = b.one("Gather", [params, checked], name + "/gather", axis=axis)
    shape = b.one("Concat", [b.one("Shape", [params], name + "/outer_dims", end=axis),
                             b.one("Shape", [indices], name + "/index_dims"),
                             b.one("Shape", [params], name + "/inner_dims", start=axis + 1)], name + "/shape", axis=0)
    return [b.one("Reshape", [gathered, shape], name)]


@_converts("UnsortedSegmentSum")
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
    checked = _flat_in_range(b, _int64(b, ids, name + "/ids"), rank, rows, name)
    positions = b.one("Unsqueeze", [checked, b.constant(np.array([-1], np.int64), name + "/last")],
                      name + "/positions")
    if rank != 1:  # one data row per id, in the ids' (flattened) order
        data = b.one("Reshape", [data, b.one("Concat", [b.one("Shape", [checked], name + "/ids_count"), rest],
                                             name + "/rows_shape", axis=0)], name + "/data_rows")
    return [b.one("ScatterND", [zeros, positions, data], name, reduction="add")]
