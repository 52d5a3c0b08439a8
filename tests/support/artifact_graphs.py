"""Small graphs built by hand (FuncGraph + graph_scope + registered ops), shared by the artifact tests.

They do not depend on the converter, so drawing, saving and exporting can be tested on their own.
"""
import numpy as np

import runtime as rt
from runtime.core.context import graph_scope
from runtime.core.graph import FuncGraph
from runtime.core.registry import get_op

from op_tracing import trace_graph


def dense_relu_graph() -> FuncGraph:
    """relu(x @ w + b) and a comparison: straight-line ops with constants."""
    graph = FuncGraph("dense_relu")
    with graph_scope(graph):
        x = graph.add_placeholder(rt.float32, (None, 3), name="x")
        w = rt.constant([[1.0], [2.0], [3.0]])
        y = rt.maximum(rt.matmul(x, w) + 0.5, 0.0)
        graph.outputs = [y, rt.greater(y, 1.0)]
        graph.structured_outputs = (y, graph.outputs[1])
    return graph


def _branch(outer: FuncGraph, name: str, build) -> FuncGraph:
    branch = FuncGraph(name, outer_graph=outer)
    with graph_scope(branch):
        x = branch.add_placeholder(rt.int32, (), name="x")
        branch.outputs = [build(x)]
    return branch


def simple_relu_graph() -> FuncGraph:
    """``x if x > 0 else 0`` with an If op, like the seeds' simple_relu."""
    graph = FuncGraph("simple_relu")
    with graph_scope(graph):
        x = graph.add_placeholder(rt.int32, (), name="x")
        predicate = rt.greater(x, 0)
        then_branch = _branch(graph, "cond_true", lambda v: rt.identity(v))
        else_branch = _branch(graph, "cond_false", lambda v: rt.constant(0) + v * 0)
        op = graph.create_op(get_op("If"), [predicate, x],
                             {"then_branch": then_branch, "else_branch": else_branch}, name="cond")
        graph.outputs = [op.outputs[0]]
    return graph


def countdown_graph(maximum_iterations=None) -> FuncGraph:
    """Halve ``x`` until it is below ``limit`` (captured into the loop); count the steps."""
    graph = FuncGraph("countdown")
    with graph_scope(graph):
        x = graph.add_placeholder(rt.float32, (), name="x")
        limit = graph.add_placeholder(rt.float32, (), name="limit")
        cond = FuncGraph("while_cond", outer_graph=graph)
        with graph_scope(cond):
            value = cond.add_placeholder(rt.float32, (), name="x")
            cond.add_placeholder(rt.int32, (), name="steps")
            bound = cond.add_placeholder(rt.float32, (), name="limit")
            cond.outputs = [rt.greater_equal(value, bound)]
        body = FuncGraph("while_body", outer_graph=graph)
        with graph_scope(body):
            value = body.add_placeholder(rt.float32, (), name="x")
            steps = body.add_placeholder(rt.int32, (), name="steps")
            body.add_placeholder(rt.float32, (), name="limit")
            body.outputs = [value * 0.5, steps + 1]
        op = graph.create_op(get_op("While"), [x, rt.constant(0), limit],
                             {"cond": cond, "body": body, "num_loop_vars": 2,
                              "maximum_iterations": maximum_iterations}, name="while")
        graph.outputs = list(op.outputs)
    return graph


def variable_graph(variable) -> FuncGraph:
    """``variable += x`` then return the variable's new value times two (stateful ops in order)."""
    graph = FuncGraph("accumulate")
    with graph_scope(graph):
        x = graph.add_placeholder(variable.dtype, variable.shape, name="x")
        variable.assign_add(x)
        graph.outputs = [variable.read_value() * 2]
    return graph


def run(graph: FuncGraph, *arrays):
    """Run a graph with the reference interpreter on numpy inputs."""
    from runtime.backends.interpreter import run_graph
    return run_graph(graph, [np.asarray(a, dtype=t.dtype) for a, t in zip(arrays, graph.inputs)])


def trace(python_function, *specs, name=None) -> FuncGraph:
    """Trace ``python_function`` on placeholders for ``specs`` (TensorSpecs) into a FuncGraph by hand;
    outputs that are placeholders or captured tensors go through an Identity."""
    return trace_graph(python_function, *specs, name=name, identity_outputs=True)
