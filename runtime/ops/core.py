"""Graph plumbing ops: constants, placeholders, identity."""
from __future__ import annotations

from runtime.core.registry import register_op

CONST = register_op(
    "Const", (), lambda specs, attrs: [(attrs["value"].dtype, attrs["value"].shape)],
    kernel=lambda *, value, dtype: value, doc="A constant value, stored in attr 'value'.")

PLACEHOLDER = register_op(
    "Placeholder", (), lambda specs, attrs: [(attrs["dtype"], attrs["shape"])], kernel=None,
    doc="A graph input; fed by the caller (its kernel never runs).")

IDENTITY = register_op(
    "Identity", ("input",), lambda specs, attrs: [specs[0]], kernel=lambda x: x,
    doc="Returns its input unchanged.")
