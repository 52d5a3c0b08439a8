"""The gradient of ``If``: an ``If`` over the branches' gradients (the rule of the op declared in
``runtime.ops.control_flow_ops``, registered here because it builds graphs with the gradient pass).

Each gradient branch takes the forward branch's inputs and the output gradients, recomputes the
branch's forward ops (they are pure: a branch with side effects is refused) and back-propagates
through them, so the forward ``If`` needs no extra outputs. The same condition picks the branch. A
``Variable`` the branches read becomes an input of the forward ``If`` first (read just before it), so the
recomputation uses the value the branch read, not one assigned after the ``if``.

>>> import runtime as rt
>>> @rt.function
... def grad(x):
...     y = rt.cond(x > 0.0, lambda: x * x, lambda: -x)
...     return rt.gradients(y, x)[0]
>>> grad(rt.constant(3.0)), grad(rt.constant(-3.0))
(Tensor(6.0, shape=(), dtype=float32), Tensor(-1.0, shape=(), dtype=float32))
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from runtime.core import context
from runtime.core.graph import FuncGraph
from runtime.core.registry import register_gradient
from runtime.ops.control_flow_ops import IF
from runtime.ops.gradient_ops import carries_gradient
from runtime.ops.variables import READ_VARIABLE
from runtime.passes.gradients import backprop, input_gradient_requested, side_effects, zeros_gradient
from runtime.passes.graph_surgery import insert_before, pass_variable_in, variables_read
from runtime.passes.rewrite import copy_ops


def _check_pure(branch: FuncGraph) -> None:
    # Ifs and loops inside the branch are looked into: a tensor list made in a loop is no side effect.
    found = side_effects(branch)
    if found:
        raise NotImplementedError(
            f"gradient of a tensor-dependent if: branch {branch.name} has a side effect ({found[0].type}, node "
            f"{found[0].name}); its gradient would run it again. Move the side effect (print, assign, random draw, "
            "assert) out of the if, or wrap the if's result in rt.stop_gradient")


def _gradient_branch(branch: FuncGraph, outer: Any, inputs: List[Any], grads: List[Optional[Any]],
                     wanted: List[int], ops: Any) -> FuncGraph:
    """A graph (branch inputs, output grads) -> gradients of the ``wanted`` inputs, recomputing ``branch``."""
    _check_pure(branch)
    graph = FuncGraph(f"{branch.name}_grad", outer_graph=outer)
    with context.graph_scope(graph):
        copies: Dict[int, Any] = {}
        placeholders = [graph.add_placeholder(t.dtype, p.shape, name=p.op.name)
                        for t, p in zip(inputs, branch.inputs)]
        copies.update((id(p), q) for p, q in zip(branch.inputs, placeholders))
        seeds = [graph.add_placeholder(g.dtype, g.shape, name="output_grad") for g in grads if g is not None]
        copied_ops = copy_ops(branch.operations, graph, copies)
        targets = [copies[id(t)] for t, g in zip(branch.outputs, grads) if g is not None]
        found = backprop(copied_ops, targets, seeds, [placeholders[i] for i in wanted])
        graph.outputs = [found.get(id(placeholders[i])) for i in wanted]
        graph.outputs = [g if g is not None else zeros_gradient(placeholders[i])
                         for g, i in zip(graph.outputs, wanted)]
        graph.structured_outputs = list(graph.outputs)
    if graph.captures:
        raise AssertionError(f"gradient branch {graph.name} captured outer tensors")
    return graph


@register_gradient(IF)
def _if_gradient(op, grads, ops):
    for branch in (op.attrs["then_branch"], op.attrs["else_branch"]):
        _check_pure(branch)  # before passing variables in: nothing inside assigns the ones it reads
    for variable in variables_read(op):
        pass_variable_in(op, variable, insert_before(op, READ_VARIABLE, {"variable": variable},
                                                     f"{variable.name}_before_if"))
    cond, inputs = op.inputs[0], list(op.inputs[1:])
    wanted = [i for i, t in enumerate(inputs) if carries_gradient(t.dtype) and input_gradient_requested(1 + i)]
    if not wanted:
        return [None] * len(op.inputs)
    outer = context.current_graph()
    branches = [_gradient_branch(op.attrs[key], outer, inputs, grads, wanted, ops)
                for key in ("then_branch", "else_branch")]
    seeds = [g for g in grads if g is not None]
    grad_op = outer.create_op(IF, [cond, *inputs, *seeds], {"then_branch": branches[0], "else_branch": branches[1]},
                              name="cond_grad")
    results: List[Optional[Any]] = [None] * len(op.inputs)
    for position, index in enumerate(wanted):
        results[1 + index] = grad_op.outputs[position]
    return results


from runtime.passes import while_gradients  # noqa: E402,F401  (registers the gradient of While)
