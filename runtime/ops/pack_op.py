"""``Pack``: same-shaped tensors stacked along a new axis. Declared on its own because converting a list
that mixes tensors and numbers packs it (``runtime.ops.convert``), below the public ``stack``.

>>> import runtime as rt
>>> rt.stack([rt.constant(1), 2])
Tensor([1 2], shape=(2,), dtype=int32)
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from runtime.core import shapes
from runtime.core.attrs import INT
from runtime.core.registry import register_op


def merge_dims(a: Optional[int], b: Optional[int], what: str) -> Optional[int]:
    if a is None:
        return b
    if b is not None and a != b:
        raise ValueError(what)
    return a


def _stack_infer(specs, attrs):
    dtype = specs[0][0]
    known = [s for _, s in specs if s is not None]
    if not known:
        return [(dtype, None)]
    element: List[Optional[int]] = list(known[0])
    for shape in known:
        if len(shape) != len(element):
            raise ValueError(f"all values must have the same shape, got {shapes.format_shape(known[0])} and "
                             f"{shapes.format_shape(shape)}")
        element = [merge_dims(a, b, f"all values must have the same shape, got "
                               f"{shapes.format_shape(known[0])} and {shapes.format_shape(shape)}")
                   for a, b in zip(element, shape)]
    axis = shapes.normalize_axis(attrs["axis"], len(element) + 1, "Pack")
    return [(dtype, tuple(element[:axis]) + (len(specs),) + tuple(element[axis:]))]


STACK = register_op("Pack", ("*values",), _stack_infer, lambda *values, axis: np.stack(values, axis),
                    doc="Stacks same-shaped tensors along a new axis (attr 'axis').", attrs={"axis": INT})
