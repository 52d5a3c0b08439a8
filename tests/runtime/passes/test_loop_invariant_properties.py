"""Loop-invariant code motion on random loop bodies (invariant and changing computations mixed, in the body
and in the branches of an if): eager == the traced graph interpreted == the optimized graph interpreted and
compiled, bit for bit; and the broadcast rule that decides when an op with unknown dims cannot fail."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.backends import interpreter
from runtime.backends.executor import make_callable
from runtime.core.context import graph_scope
from runtime.ops.control_flow_ops import WHILE
from runtime.passes import optimize_graph
from runtime.passes.analysis import broadcast_cannot_fail
from test_optimize_properties import FLOAT_BINARY, FLOAT_CONSTANTS, run_program, steps


@pytest.mark.parametrize("shapes,safe", [
    ([(None, 3), (3,)], True), ([(None,), (None,)], False), ([(None,), (1,)], True), ([(None,), (4,)], False),
    ([(), (None, None)], True), ([None, (3,)], False), ([(2, None), (2, 1)], True), ([(None, 1), (1, None)], True),
    ([(None, 2), (None, 1)], False), ([None], True)])
def test_broadcast_cannot_fail_only_when_no_unknown_dim_can_disagree(shapes, safe):
    assert broadcast_cannot_fail(shapes) is safe




def random_loop(program, x, y, n):
    def body(i, s, p):
        invariant, middle = run_program(program, x, y, FLOAT_BINARY, FLOAT_CONSTANTS)      # reads x, y only
        changing, _ = run_program(program, s, p, FLOAT_BINARY, FLOAT_CONSTANTS)
        branch = rt.cond(rt.equal(rt.mod(i, 2), 0),
                         lambda: run_program(program, p, x, FLOAT_BINARY, FLOAT_CONSTANTS)[0] + s,  # invariant + s
                         lambda: s - middle)
        return i + 1, rt.maximum(rt.minimum(branch + invariant * 0.25 + changing * 0.0, 1e6), -1e6), p
    return rt.while_loop(lambda i, s, p: i < n, body, [rt.constant(0), x * 1.0, y])[1]


@settings(max_examples=60, deadline=None)
@given(steps(FLOAT_BINARY), hnp.arrays(np.float32, (2, 3), elements=st.floats(-100, 100, width=32)),
       hnp.arrays(np.float32, (3,), elements=st.floats(-100, 100, width=32)), st.integers(0, 3))
def test_random_loops_agree_with_eager_and_the_interpreter_bit_for_bit(program, x, y, n):
    with np.errstate(all="ignore"):
        eager = random_loop(program, rt.constant(x), rt.constant(y), rt.constant(n)).numpy()
        graph = rt.FuncGraph("loop")
        with graph_scope(graph):
            inputs = [graph.add_placeholder(rt.float32, (2, 3), name="x"),
                      graph.add_placeholder(rt.float32, (3,), name="y"), graph.add_placeholder(rt.int32, (), name="n")]
            graph.outputs = [random_loop(program, *inputs)]
        optimized = optimize_graph(graph)
        results = [interpreter.make_callable(graph)(x, y, np.int32(n))[0],
                   interpreter.make_callable(optimized)(x, y, np.int32(n))[0],
                   make_callable(optimized)(x, y, np.int32(n))[0]]
    for got in results:
        assert np.asarray(got).dtype == eager.dtype and np.asarray(got).shape == eager.shape
        np.testing.assert_array_equal(got, eager)
    (loop,) = [op for op in optimized.operations if op.op_def is WHILE]
    assert loop.attrs["num_loop_vars"] == 3 and [t.dtype for t in loop.outputs] == [rt.int32, rt.float32, rt.float32]
