"""``CustomGradient``: the op a traced ``rt.custom_gradient`` call leaves in the graph.

Its first ``num_outputs`` inputs are the values the user's function computed; the op returns them
unchanged (so the forward pass is the function's own ops). The other inputs are what its gradient reads:
the function's tensor arguments (``num_inputs`` of them), then the values of the Variables it read
(``num_variables``), then the tensors the user's gradient function read from the forward pass. Attr
``gradient`` holds that gradient function traced into a graph (``GradientFunction``): inputs are one
output gradient per output, then those read tensors; outputs are the gradients the function returned,
where ``gradient_returns`` is True (False: it returned None there). Gradients never flow into the
function's own ops: the op's rule (``runtime.tracing.custom_gradient``) copies the gradient graph in.

The gradient graph is held in a ``GradientFunction``, not as a plain subgraph attr, because it is not
part of the forward computation: passes, executors and exporters treat ``CustomGradient`` as the plain
identity it is, and only saving, loading and the gradient read the graph.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from runtime.core.graph import FuncGraph
from runtime.core.attrs import BOOLS, COUNT, TEXT, instance_of
from runtime.core.registry import register_op


class GradientFunction:
    """A user's gradient function traced into ``graph`` (a FuncGraph with no captures: what it read from
    the forward pass are inputs of its own)."""

    __slots__ = ("graph",)

    def __init__(self, graph: FuncGraph):
        self.graph = graph

    def __repr__(self) -> str:
        return f"GradientFunction({self.graph.name!r})"


def _custom_gradient_infer(specs, attrs):
    return list(specs[:attrs["num_outputs"]])


def _custom_gradient_kernel(*arrays: Any, num_outputs, num_inputs, num_variables, gradient, gradient_returns,
                            function):
    values = tuple(arrays[:num_outputs])
    return values if num_outputs != 1 else values[0]


def _custom_gradient_check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    graph = attrs["gradient"].graph
    named = attrs["num_outputs"] + attrs["num_inputs"] + attrs["num_variables"]
    if named > input_count:
        return f"attrs name {named} input(s), but the node has {input_count}"
    if len(attrs["gradient_returns"]) != attrs["num_inputs"] + attrs["num_variables"]:
        return "attr 'gradient_returns' needs one entry per tensor argument and variable"
    if len(graph.inputs) != attrs["num_outputs"] + input_count - named:
        return f"the gradient graph takes {len(graph.inputs)} input(s), the node gives it a different number"
    if len(graph.outputs) != sum(attrs["gradient_returns"]):
        return f"the gradient graph returns {len(graph.outputs)} gradient(s), attr 'gradient_returns' says otherwise"
    return None


CUSTOM_GRADIENT = register_op(
    "CustomGradient", ("*inputs",), _custom_gradient_infer, _custom_gradient_kernel,
    doc="Its first attr 'num_outputs' inputs, unchanged; their gradient is the traced function in attr 'gradient' "
        "(rt.custom_gradient).",
    attrs={"num_outputs": COUNT, "num_inputs": COUNT, "num_variables": COUNT,
           "gradient": instance_of(GradientFunction, "a gradient function graph"), "gradient_returns": BOOLS,
           "function": TEXT},
    attrs_check=_custom_gradient_check)
