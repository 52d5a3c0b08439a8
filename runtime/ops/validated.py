"""``apply_validated``: run an op's shape/dtype inference before an eager call too.

Inference is where an op checks its inputs (dtypes, ranks, attrs). A graph checks every node when it
is built; eager calls skip inference, so ops declared with their checks in ``infer`` run it here first.
Bad input then fails the same way eagerly and while tracing, before a kernel runs:

>>> from runtime.ops.unary_ops import TANH
>>> from runtime.ops.convert import convert_to_tensor
>>> apply_validated(TANH, [convert_to_tensor([1])])
Traceback (most recent call last):
...
TypeError: Tanh: x must be a floating-point tensor, got int32; convert it with rt.cast(x, rt.float32)
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from runtime.core import context
from runtime.core.registry import OpDef, apply_op
from runtime.core.tensor import Tensor


def apply_validated(op_def: OpDef, inputs: Sequence[Tensor], attrs: Optional[Dict[str, Any]] = None,
                    name: Optional[str] = None):
    """``apply_op``, with ``op_def.infer`` checked first when running eagerly (errors name the op)."""
    attrs = attrs or {}
    if context.current_graph() is None:
        try:
            op_def.infer([(t.dtype, t.shape) for t in inputs], attrs)
        except (ValueError, TypeError) as error:
            raise type(error)(f"{op_def.name}: {error}") from None
    return apply_op(op_def, inputs, attrs, name=name)
