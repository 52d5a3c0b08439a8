"""Functional control flow ops: ``If`` (two branch graphs) and ``While`` (cond and body graphs).

Their subgraphs are ``FuncGraph`` attrs, so the graph stays a flat list of ops that every tool can
walk. They have no kernel: each backend runs the subgraphs its own way. Built by ``runtime.tracing.control_flow``.

``If``: inputs ``(cond, *branch_inputs)``; attrs ``then_branch``, ``else_branch`` (their ``inputs``
match ``branch_inputs`` one-to-one). ``While``: inputs ``(*loop_vars, *captured)``; attrs ``cond``,
``body``, ``num_loop_vars``, ``maximum_iterations``.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional

from runtime.core.attrs import COUNT, OPTIONAL_COUNT, instance_of, omittable
from runtime.core.graph import Graph
from runtime.core.registry import OutputSpec, register_op
from runtime.core.shapes import format_shape, most_specific_common_shape


def _check_inputs(graph, specs: List[OutputSpec], op: str, role: str) -> None:
    if len(graph.inputs) != len(specs):
        raise ValueError(f"{op}: {role} graph '{graph.name}' takes {len(graph.inputs)} inputs, "
                         f"but the op has {len(specs)}")
    for placeholder, (dtype, _) in zip(graph.inputs, specs):
        if placeholder.dtype != dtype:
            raise TypeError(f"{op}: {role} graph '{graph.name}' input {placeholder.op.name} is "
                            f"{placeholder.dtype.name}, but it is fed a {dtype.name} tensor")


def _if_infer(specs: List[OutputSpec], attrs) -> List[OutputSpec]:
    then_graph, else_graph = attrs["then_branch"], attrs["else_branch"]
    cond_dtype, cond_shape = specs[0]
    if cond_dtype.kind != "b":
        raise TypeError(f"the condition must be a bool tensor, got {cond_dtype.name}")
    if cond_shape is not None and len(cond_shape) != 0:
        raise ValueError(f"the condition must be a scalar, got shape {format_shape(cond_shape)}")
    _check_inputs(then_graph, specs[1:], "If", "then")
    _check_inputs(else_graph, specs[1:], "If", "else")
    if len(then_graph.outputs) != len(else_graph.outputs):
        raise ValueError(f"the branches return {len(then_graph.outputs)} and {len(else_graph.outputs)} tensors")
    outputs = []
    for index, (t, e) in enumerate(zip(then_graph.outputs, else_graph.outputs)):
        if t.dtype != e.dtype:
            raise TypeError(f"output {index} is {t.dtype.name} in the then branch but {e.dtype.name} in the "
                            "else branch")
        outputs.append((t.dtype, most_specific_common_shape(t.shape, e.shape)))
    return outputs


def _while_infer(specs: List[OutputSpec], attrs) -> List[OutputSpec]:
    cond_graph, body_graph, count = attrs["cond"], attrs["body"], attrs["num_loop_vars"]
    _check_inputs(cond_graph, specs, "While", "cond")
    _check_inputs(body_graph, specs, "While", "body")
    if len(cond_graph.outputs) != 1 or cond_graph.outputs[0].dtype.kind != "b":
        raise TypeError(f"the cond graph '{cond_graph.name}' must return one bool tensor")
    if len(body_graph.outputs) != count:
        raise ValueError(f"the body returns {len(body_graph.outputs)} tensors for {count} loop variables")
    for index, (placeholder, output) in enumerate(zip(body_graph.inputs, body_graph.outputs)):
        if placeholder.dtype != output.dtype:
            raise TypeError(f"loop variable {index} enters the body as {placeholder.dtype.name} but leaves it "
                            f"as {output.dtype.name}")
    return [(p.dtype, p.shape) for p in body_graph.inputs[:count]]


def _while_check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    if attrs["num_loop_vars"] > input_count:
        return f"attr 'num_loop_vars' is {attrs['num_loop_vars']}, but the node has {input_count} input(s)"
    return None


GRAPH = instance_of(Graph, "a graph")
# The gradient of If is registered by runtime.passes.control_flow_gradients (it builds graphs).
IF = register_op("If", ("cond",), _if_infer, None,
                 doc="Runs then_branch or else_branch on the inputs, depending on a scalar bool.",
                 attrs={"then_branch": GRAPH, "else_branch": GRAPH}, variadic=True)
WHILE = register_op("While", (), _while_infer, None,
                    doc="Runs body while cond holds (at most maximum_iterations times); outputs the loop vars.",
                    attrs={"cond": GRAPH, "body": GRAPH, "num_loop_vars": COUNT,
                           "maximum_iterations": omittable(OPTIONAL_COUNT)},
                    attrs_check=_while_check, variadic=True)
