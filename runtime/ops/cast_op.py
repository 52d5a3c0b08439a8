"""``Cast``: a tensor converted to another dtype (its own module: shape arguments and creation ops need it).

>>> cast([1.7, -1.7], "int32")
Tensor([ 1 -1], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core import dtypes
from runtime.core.attrs import DTYPE
from runtime.core.registry import Algebra, apply_op, register_gradient, register_op
from runtime.core.tensor import Tensor
from runtime.ops.convert import convert_to_tensor


def _cast_kernel(x, *, dtype):
    with np.errstate(all="ignore"):  # nan/inf → int is undefined in TensorFlow too; no warning
        return x.astype(dtype, copy=False)


CAST = register_op("Cast", ("x",), lambda specs, attrs: [(attrs["dtype"], specs[0][1])], _cast_kernel,
                   doc="Converts to attr 'dtype' (floats → ints truncate toward zero, nonzero → True).",
                   algebra=Algebra(noop_when_same_dtype=True), attrs={"dtype": DTYPE})


def cast(x: Any, dtype: Any) -> Tensor:
    """``x`` converted to ``dtype``; always an op, even when the dtype already matches.

    >>> cast([1.7, -1.7], "int32")
    Tensor([ 1 -1], shape=(2,), dtype=int32)
    """
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    return apply_op(CAST, (x,), {"dtype": dtypes.as_dtype(dtype)})


@register_gradient(CAST)
def _cast_gradient(op, grads, ops):
    source = op.inputs[0]
    if source.dtype.kind != "f" or op.outputs[0].dtype.kind != "f":
        return [None]  # through integers or bools no gradient flows, as in TensorFlow
    return [cast(grads[0], source.dtype)]
