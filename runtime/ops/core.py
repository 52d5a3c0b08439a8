"""Graph plumbing ops: constants, placeholders, identity."""
from __future__ import annotations

from runtime.core.registry import not_differentiable, register_gradient, register_op

CONST = register_op(
    "Const", (), lambda specs, attrs: [(attrs["value"].dtype, attrs["value"].shape)],
    kernel=lambda *, value, dtype: value, doc="A constant value, stored in attr 'value'.")

PLACEHOLDER = register_op(
    "Placeholder", (), lambda specs, attrs: [(attrs["dtype"], attrs["shape"])], kernel=None,
    doc="A graph input; fed by the caller (its kernel never runs).")

IDENTITY = register_op(
    "Identity", ("input",), lambda specs, attrs: [specs[0]], kernel=lambda x: x,
    doc="Returns its input unchanged.")

not_differentiable(CONST, "it has no inputs")
not_differentiable(PLACEHOLDER, "it has no inputs (gradients with respect to it are what rt.gradients returns)")


@register_gradient(IDENTITY)
def _identity_gradient(op, grads, ops):
    return [grads[0]]
