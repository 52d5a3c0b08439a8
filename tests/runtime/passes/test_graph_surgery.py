"""graph_surgery.pass_variable_in gives a traced if/loop that reads a Variable the value as an input (so a tape
can send the variable's gradient out of it) by replacing the op's branch/body graphs with edited copies: the
graphs it had before are never edited, since other ops and traced functions may hold them too."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.core import context
from runtime.core.graph import FuncGraph
from runtime.backends import interpreter
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.core import IDENTITY
from runtime.ops.variables import READ_VARIABLE
from runtime.passes.graph_surgery import insert_before, pass_variable_in

S = rt.TensorSpec


def snapshot(graph):
    """Everything pass_variable_in used to edit: each op's def, inputs and attrs, at every depth."""
    return [(op.op_def, list(op.inputs), dict(op.attrs), [snapshot(sub) for sub in op.subgraphs()])
            for op in graph.operations], list(graph.inputs), dict(graph.captures)


def reads_of(graph, variable):
    return [op for op in graph.operations if op.op_def is READ_VARIABLE and op.attrs["variable"] is variable]


def test_a_tape_over_a_loop_reading_a_variable_leaves_the_old_body_unchanged():
    w = rt.Variable(1.5, name="w")
    seen = {}

    @ag.function
    def step(x, n):
        with rt.GradientTape() as tape:
            y = x
            for i in range(n):
                y = y * w
                if y > 4.0:          # an if inside the loop reads w too: the value is passed on to it
                    y = y - w
        loop = next(op for op in context.current_graph().operations if op.op_def is WHILE)
        seen["body"], seen["cond"] = loop.attrs["body"], loop.attrs["cond"]
        seen["before"] = snapshot(seen["body"]), snapshot(seen["cond"])
        grad = tape.gradient(y, w)
        seen["new_body"] = loop.attrs["body"]
        return y, grad

    y, grad = step(rt.constant(2.0), rt.constant(3))
    assert (snapshot(seen["body"]), snapshot(seen["cond"])) == seen["before"]
    assert len(reads_of(seen["body"], w)) == 1 and seen["new_body"] is not seen["body"]
    assert reads_of(seen["new_body"], w) == []   # the copy reads its new last input instead
    assert seen["new_body"].inputs[-1].op.name == "w_value"

    def plain(x, w_value, n):
        y = x
        for _ in range(n):
            y = y * w_value
            if y > 4.0:
                y = y - w_value
        return y
    eps = 1e-3
    assert float(y) == plain(2.0, 1.5, 3)
    assert float(grad) == pytest.approx((plain(2.0, 1.5 + eps, 3) - plain(2.0, 1.5 - eps, 3)) / (2 * eps), rel=1e-3)


def test_a_body_shared_by_two_loops_still_runs_right_after_the_gradient():
    """Two While ops hold one body graph (as a copied or inlined graph does); passing the variable into one
    must not change what the other computes."""
    v = rt.Variable(3.0, name="v")
    graph = FuncGraph("shared")
    with context.graph_scope(graph):
        x = graph.add_placeholder(rt.float32, (), name="x")
        (first,) = rt.while_loop(lambda y: y < 100.0, lambda y: (y * v,), [x])
        loop = first.op
        twin = graph.create_op(WHILE, list(loop.inputs), dict(loop.attrs), name="twin")
        pass_variable_in(loop, v, insert_before(loop, READ_VARIABLE, {"variable": v}, "v_read"))
        graph.outputs = [loop.outputs[0], twin.outputs[0]]
    assert loop.attrs["body"] is not twin.attrs["body"]
    assert len(loop.inputs) == len(twin.inputs) + 1
    assert [float(r) for r in interpreter.run_graph(graph, [np.float32(2.0)])] == [162.0, 162.0]
    v.assign(10.0)   # both loops still read the variable's value when they run (the edited one through v_read)
    assert [float(r) for r in interpreter.run_graph(graph, [np.float32(2.0)])] == [200.0, 200.0]


def test_if_branches_are_copied_with_the_value_as_their_last_input():
    v = rt.Variable(2.0, name="v")
    graph = FuncGraph("branches")
    with context.graph_scope(graph):
        x = graph.add_placeholder(rt.float32, (), name="x")
        result = rt.cond(x > 0.0, lambda: x * v, lambda: x)   # the else branch does not read v
        op = result.op
        then_before, else_before = op.attrs["then_branch"], op.attrs["else_branch"]
        snapshots = snapshot(then_before), snapshot(else_before)
        pass_variable_in(op, v, insert_before(op, READ_VARIABLE, {"variable": v}, "v_read"))
        graph.outputs = [result]
    assert op.op_def is IF and (snapshot(then_before), snapshot(else_before)) == snapshots
    for key in ("then_branch", "else_branch"):
        branch = op.attrs[key]
        assert branch.inputs[-1].op.name == "v_value" and branch.operations[0] is branch.inputs[-1].op
        assert reads_of(branch, v) == [] and not any(o.op_def is IDENTITY for o in branch.operations)
    assert [float(r) for r in interpreter.run_graph(graph, [np.float32(1.5)])] == [3.0]
    assert [float(r) for r in interpreter.run_graph(graph, [np.float32(-1.5)])] == [-1.5]
