"""Boolean logic: logical_and, logical_or, logical_not (bool tensors only, as in TensorFlow).

>>> logical_and(convert_to_tensor([True, False]), True)
Tensor([ True False], shape=(2,), dtype=bool)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core import dtypes
from runtime.core import shapes
from runtime.core.errors import in_users_words
from runtime.ops.convert import convert_operands, convert_to_tensor
from runtime.core.registry import OpDef, apply_op, not_differentiable, register_op
from runtime.core.tensor import Tensor


def _bool_only(specs, attrs):
    for dtype, _ in specs:
        if dtype != dtypes.bool:
            raise TypeError(f"logical ops need bool tensors, got {dtype.name}")
    return [(dtypes.bool, specs[0][1] if len(specs) == 1 else shapes.broadcast(specs[0][1], specs[1][1]))]


def _require_bool(op_name: str, arg: str, tensor: Tensor) -> None:
    if tensor.dtype != dtypes.bool:
        raise TypeError(in_users_words(f"{op_name}: {arg} must be a bool tensor, got {tensor.dtype.name}; compare "
                                       f"it first (e.g. x > 0) or use rt.cast({arg}, rt.bool)"))


LOGICAL_AND = register_op("LogicalAnd", ("x", "y"), _bool_only, np.logical_and, doc="x and y, elementwise.")
LOGICAL_OR = register_op("LogicalOr", ("x", "y"), _bool_only, np.logical_or, doc="x or y, elementwise.")
LOGICAL_NOT = register_op("LogicalNot", ("x",), _bool_only, np.logical_not, doc="not x, elementwise.")


def _logical_binary(op_def: OpDef, x: Any, y: Any) -> Tensor:
    x, y = convert_operands(x, y)
    _require_bool(op_def.name, "x", x)
    _require_bool(op_def.name, "y", y)
    return apply_op(op_def, (x, y))


def logical_and(x: Any, y: Any) -> Tensor:
    """Elementwise ``x and y`` of bool tensors, with broadcasting.

    >>> logical_and([True, True], [True, False])
    Tensor([ True False], shape=(2,), dtype=bool)
    """
    return _logical_binary(LOGICAL_AND, x, y)


def logical_or(x: Any, y: Any) -> Tensor:
    """Elementwise ``x or y`` of bool tensors, with broadcasting.

    >>> logical_or([True, False], False)
    Tensor([ True False], shape=(2,), dtype=bool)
    """
    return _logical_binary(LOGICAL_OR, x, y)


def logical_not(x: Any) -> Tensor:
    """Elementwise ``not x`` of a bool tensor.

    >>> logical_not([True, False])
    Tensor([False  True], shape=(2,), dtype=bool)
    """
    x = convert_to_tensor(x)
    _require_bool("LogicalNot", "x", x)
    return apply_op(LOGICAL_NOT, (x,))

for _logical in (LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT):
    not_differentiable(_logical, "bool inputs and result")
