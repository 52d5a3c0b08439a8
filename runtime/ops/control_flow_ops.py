"""Functional control flow ops: ``If`` (two branch graphs) and ``While`` (cond and body graphs).

Their subgraphs are ``FuncGraph`` attrs, so the graph stays a flat list of ops that every tool can
walk; kernels run the subgraphs with the reference interpreter. Built by ``runtime.control_flow``.

``If``: inputs ``(cond, *branch_inputs)``; attrs ``then_branch``, ``else_branch`` (their ``inputs``
match ``branch_inputs`` one-to-one). ``While``: inputs ``(*loop_vars, *captured)``; attrs ``cond``,
``body``, ``num_loop_vars``, ``maximum_iterations``.
"""
from __future__ import annotations

from typing import Any, List, Optional

from runtime.ops.registry import OutputSpec, register_op
from runtime.ops.shapes import format_shape
from runtime.tensor import Shape


def most_specific_common_shape(a: Shape, b: Shape) -> Shape:
    """A shape both ``a`` and ``b`` fit: dims that differ become None, different ranks give None."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


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


def _if_kernel(cond, *inputs, then_branch, else_branch):
    from runtime.interpreter import run_graph  # the interpreter imports the registry: import lazily
    return tuple(run_graph(then_branch if bool(cond) else else_branch, inputs))


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


def _while_kernel(*inputs, cond, body, num_loop_vars: int, maximum_iterations: Optional[int]):
    from runtime.interpreter import run_graph
    loop_vars: List[Any] = list(inputs[:num_loop_vars])
    captured = list(inputs[num_loop_vars:])
    iterations = 0
    while maximum_iterations is None or iterations < maximum_iterations:
        if not bool(run_graph(cond, loop_vars + captured)[0]):
            break
        loop_vars = run_graph(body, loop_vars + captured)
        iterations += 1
    return tuple(loop_vars)


IF = register_op("If", ("cond",), _if_infer, _if_kernel,
                 doc="Runs then_branch or else_branch on the inputs, depending on a scalar bool.")
WHILE = register_op("While", (), _while_infer, _while_kernel,
                    doc="Runs body while cond holds (at most maximum_iterations times); outputs the loop vars.")
