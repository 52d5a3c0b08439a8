"""Graph plumbing ops: constants and placeholders (declared with the graph that makes them), identity."""
from __future__ import annotations

from runtime.core.graph import CONST, PLACEHOLDER  # noqa: F401  (re-exported: every op type has a home here)
from runtime.core.registry import Algebra, not_differentiable, register_gradient, register_op

IDENTITY = register_op(
    "Identity", ("input",), lambda specs, attrs: [specs[0]], kernel=lambda x: x,
    doc="Returns its input unchanged.", algebra=Algebra(noop_when_same_dtype=True))

not_differentiable(CONST, "it has no inputs")
not_differentiable(PLACEHOLDER, "it has no inputs (gradients with respect to it are what rt.gradients returns)")


@register_gradient(IDENTITY)
def _identity_gradient(op, grads, ops):
    return [grads[0]]
