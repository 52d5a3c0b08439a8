"""The distinct values of a vector: ``unique`` and ``unique_with_counts``, in order of first appearance.

As TensorFlow's ops: ``y`` lists each distinct value once, where it first appears; ``idx`` says, for each
entry of ``x``, its value's position in ``y``; NaNs are all distinct (NaN != NaN). The results are
namedtuples (``result.y``, ``result.idx``, ``result.count``). The length of ``y`` depends on the data, so
inside a graph its static shape is ``(None,)``.

>>> unique([4, 1, 4, 2, 1])
Unique(y=Tensor([4 1 2], shape=(3,), dtype=int32), idx=Tensor([0 1 0 2 1], shape=(5,), dtype=int32))
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from runtime.core import dtypes, shapes
from runtime.core.attrs import DTYPE
from runtime.core.registry import not_differentiable, register_op
from runtime.core.tensor import Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.validated import apply_validated

_INDEX_TYPES = (dtypes.int32, dtypes.int64)


class Unique(NamedTuple):
    """What ``unique`` returns, as TensorFlow's namedtuple."""
    y: Tensor
    idx: Tensor


class UniqueWithCounts(NamedTuple):
    """What ``unique_with_counts`` returns, as TensorFlow's namedtuple."""
    y: Tensor
    idx: Tensor
    count: Tensor


def _infer(with_counts: bool):
    def infer(specs, attrs):
        ((dtype, shape),) = specs
        if shape is not None and len(shape) != 1:
            raise ValueError(f"x must be a vector (rank 1), got shape {shapes.format_shape(shape)}")
        index_type = attrs["out_idx"]
        outputs = [(dtype, (None,)), (index_type, shape if shape is not None else (None,))]
        return outputs + [(index_type, (None,))] if with_counts else outputs
    return infer


def _first_appearance(x: np.ndarray, out_idx: np.dtype):
    """(y, idx, count) with y in order of first appearance; NaNs never equal each other (as in TensorFlow)."""
    if x.dtype.kind in "fc":
        values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                                   equal_nan=False)
    else:
        values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    idx = position[inverse.reshape(-1)].astype(out_idx)
    return values[order].copy(), idx, counts[order].astype(out_idx)


def _unique_kernel(x, *, out_idx):
    y, idx, _ = _first_appearance(x, out_idx)
    return y, idx


def _unique_with_counts_kernel(x, *, out_idx):
    return _first_appearance(x, out_idx)


UNIQUE = register_op("Unique", ("x",), _infer(False), _unique_kernel,
                     doc="The distinct entries of a vector in order of first appearance, and each entry's position.",
                     attrs={"out_idx": DTYPE})
UNIQUE_WITH_COUNTS = register_op("UniqueWithCounts", ("x",), _infer(True), _unique_with_counts_kernel,
                                 doc="unique, and how often each distinct entry appears.", attrs={"out_idx": DTYPE})
not_differentiable(UNIQUE, "its outputs are values picked from x and integer positions")
not_differentiable(UNIQUE_WITH_COUNTS, "its outputs are values picked from x and integer counts")


def _apply(op_def, x: Any, out_idx: Any):
    index_type = dtypes.as_dtype(out_idx)
    if index_type not in _INDEX_TYPES:
        raise TypeError(f"{op_def.name}: out_idx must be rt.int32 or rt.int64, got {index_type.name}")
    return apply_validated(op_def, (convert_to_tensor(x),), {"out_idx": index_type})


def unique(x: Any, out_idx: Any = dtypes.int32, name: Any = None) -> Unique:
    """The distinct entries of the vector ``x`` in order of first appearance (``y``), and for each entry of
    ``x`` the position of its value in ``y`` (``idx``): ``x == gather(y, idx)``.

    >>> unique([3.0, 3.0, 1.0]).y
    Tensor([3. 1.], shape=(2,), dtype=float32)
    """
    return Unique(*_apply(UNIQUE, x, out_idx))


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32, name: Any = None) -> UniqueWithCounts:
    """``unique``, and how often each distinct entry appears (``count``).

    >>> unique_with_counts([5, 7, 5]).count
    Tensor([2 1], shape=(2,), dtype=int32)
    """
    return UniqueWithCounts(*_apply(UNIQUE_WITH_COUNTS, x, out_idx))
