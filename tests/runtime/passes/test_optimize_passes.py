"""Optimizer passes on small hand-traced graphs: node counts before/after, and unchanged results."""
import functools

import numpy as np
import pytest

import runtime as rt
from runtime.backends import interpreter
from runtime.core.errors import InvalidArgumentError
from runtime.backends.executor import make_callable
from runtime.passes import (eliminate_common_subexpressions, fold_constants, optimize_graph, prune,
                              simplify_arithmetic)
from runtime.passes.constant_folding import MAX_FOLDED_ELEMENTS

from op_tracing import trace_graph


trace = functools.partial(trace_graph, placeholder_prefix="x")  # the tests name the inputs x0, x1, ...


def types(graph):
    return [op.type for op in graph.operations]


def run_both(graph, *arrays):
    """Interpreter on the traced graph, and the compiled optimized graph: must agree exactly."""
    expected = interpreter.run_graph(graph, arrays)
    got = make_callable(optimize_graph(graph))(*arrays)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e, g)
    return got


# --- prune ------------------------------------------------------------------------------------------

def test_prune_drops_what_no_output_needs():
    def f(x):
        rt.multiply(x, x)  # unused
        rt.exp(rt.add(x, 2.0))  # unused chain
        return rt.add(x, 1.0)
    graph = trace(f, (rt.float32, (3,)))
    assert types(graph) == ["Placeholder", "Mul", "Const", "AddV2", "Exp", "Const", "AddV2"]
    assert types(prune(graph)) == ["Placeholder", "Const", "AddV2"]


def test_prune_keeps_stateful_ops_and_what_they_read_in_order():
    v = rt.Variable(0)

    def f(x):
        v.assign_add(rt.multiply(x, 2))  # result unused, but it is a side effect
        rt.print(x)
        rt.negative(x)  # unused, pure
        return x
    graph = trace(f, (rt.int32, ()))
    pruned = prune(graph)
    assert types(pruned) == ["Placeholder", "Const", "Mul", "AssignAddVariableOp", "PrintV2"]
    assign, printer = pruned.operations[3], pruned.operations[4]
    assert printer.control_inputs == [assign]  # program order kept
    make_callable(optimize_graph(graph))(np.array(5, dtype=np.int32))
    assert v.numpy() == 10


def test_prune_keeps_every_input_placeholder():
    graph = trace(lambda x, y: rt.add(x, 1), (rt.int32, ()), (rt.int32, ()))
    pruned = prune(graph)
    assert [t.op.name for t in pruned.inputs] == ["x0", "x1"]
    assert make_callable(pruned)(np.array(1, np.int32), np.array(7, np.int32))[0] == 2


def test_prune_inside_if_branches():
    def f(x):
        def then():
            rt.multiply(x, 3)  # unused inside the branch
            return rt.add(x, 1)
        return rt.cond(rt.greater(x, 0), then, lambda: rt.subtract(x, 1))
    graph = trace(f, (rt.int32, ()))
    if_op = next(op for op in prune(graph).operations if op.type == "If")
    assert "Mul" in types(next(op for op in graph.operations if op.type == "If").attrs["then_branch"])
    assert "Mul" not in types(if_op.attrs["then_branch"])
    run_both(graph, np.array(4, np.int32))
    run_both(graph, np.array(-4, np.int32))


def test_prune_inside_while_body():
    def f(n):
        def body(i, s):
            rt.multiply(i, i)  # unused inside the loop
            return rt.add(i, 1), rt.add(s, i)
        return rt.while_loop(lambda i, s: rt.less(i, n), body, [0, 0])
    graph = trace(f, (rt.int32, ()))
    while_op = next(op for op in prune(graph).operations if op.type == "While")
    assert "Mul" not in types(while_op.attrs["body"])
    assert [int(a) for a in run_both(graph, np.array(5, np.int32))] == [5, 10]


def test_unneeded_failing_op_does_not_raise_needed_one_does():
    def f(x):
        rt.gather(x, 7)  # out of range, but nothing needs it
        return rt.add(x, 1)
    graph = trace(f, (rt.int32, (3,)))
    assert list(run_both(graph, np.arange(3, dtype=np.int32))[0]) == [1, 2, 3]

    needed = trace(lambda x: rt.gather(x, 7), (rt.int32, (3,)))
    with pytest.raises(InvalidArgumentError, match="GatherV2"):
        make_callable(optimize_graph(needed))(np.arange(3, dtype=np.int32))


# --- constant folding -------------------------------------------------------------------------------

def test_eye_in_power_becomes_one_constant():
    def power(x):
        result = rt.eye(10, dtype=rt.int32)
        for _ in range(3):
            result = rt.matmul(x, result)
        return result
    graph = trace(power, (rt.int32, (10, 10)))
    assert types(optimize_graph(graph)) == ["Placeholder", "Const", "MatMul", "MatMul", "MatMul"]
    x = np.random.default_rng(0).integers(-1, 2, (10, 10)).astype(np.int32)
    np.testing.assert_array_equal(run_both(graph, x)[0], x @ x @ x)


def test_folds_chains_of_constants_into_one():
    graph = trace(lambda x: rt.add(x, rt.multiply(rt.add(rt.constant(2), 3), 4)), (rt.int32, ()))
    optimized = optimize_graph(graph)
    assert types(optimized) == ["Placeholder", "Const", "AddV2"]
    assert int(optimized.operations[1].attrs["value"]) == 20


def test_shape_of_fully_known_shape_folds_unknown_does_not():
    known = optimize_graph(trace(lambda x: rt.shape(x), (rt.float32, (2, 3))))
    assert types(known) == ["Placeholder", "Const"]
    assert list(known.operations[1].attrs["value"]) == [2, 3]
    unknown = optimize_graph(trace(lambda x: rt.shape(x), (rt.float32, (None, 3))))
    assert types(unknown) == ["Placeholder", "Shape"]
    assert list(make_callable(unknown)(np.zeros((5, 3), np.float32))[0]) == [5, 3]


def test_size_cap_keeps_huge_results_unfolded():
    rows = MAX_FOLDED_ELEMENTS // 1000 + 1
    graph = trace(lambda x: rt.add(rt.add(rt.zeros([rows, 1000]), 1.0), x), (rt.float32, ()))
    folded = optimize_graph(graph)
    assert all(op.attrs["value"].size <= MAX_FOLDED_ELEMENTS for op in folded.operations if op.type == "Const")
    assert "Fill" in types(folded)
    assert run_both(graph, np.array(2.0, np.float32))[0].shape == (rows, 1000)


def test_failing_constant_op_is_left_for_run_time():
    graph = trace(lambda x: rt.add(rt.gather(rt.constant([1, 2, 3]), 5), x), (rt.int32, ()))
    folded = fold_constants(graph)
    assert "GatherV2" in types(folded)
    with pytest.raises(InvalidArgumentError, match="GatherV2"):
        make_callable(optimize_graph(graph))(np.array(1, np.int32))


def test_stateful_ops_are_never_folded():
    graph = trace(lambda x: rt.add(rt.random.uniform([2], seed=1), x), (rt.float32, ()))
    assert "RandomUniform" in types(optimize_graph(graph))


def test_if_with_constant_condition_is_replaced_by_its_branch():
    def f(x):
        return rt.cond(rt.greater(rt.constant(2), 1), lambda: rt.add(x, 1), lambda: rt.gather(x, 9))
    graph = trace(f, (rt.int32, (3,)))
    assert "If" in types(graph)
    assert types(optimize_graph(graph)) == ["Placeholder", "Const", "AddV2"]
    assert run_both(graph, np.arange(3, dtype=np.int32))[0].tolist() == [1, 2, 3]


# --- CSE --------------------------------------------------------------------------------------------

def test_cse_merges_equal_ops():
    graph = trace(lambda x: rt.multiply(rt.add(x, 1.0), rt.add(x, 1.0)), (rt.float32, (3,)))
    assert types(graph).count("AddV2") == 2
    merged = eliminate_common_subexpressions(graph)
    assert types(prune(merged)) == ["Placeholder", "Const", "AddV2", "Mul"]


def test_cse_keeps_ops_with_different_attrs_or_constants():
    graph = trace(lambda x: (rt.reduce_sum(x, axis=0), rt.reduce_sum(x, axis=1),
                             rt.add(x, 0.0), rt.add(x, -0.0)), (rt.float32, (2, 2)))
    merged = prune(eliminate_common_subexpressions(graph))
    assert types(merged).count("Sum") == 2
    assert types(merged).count("AddV2") == 2
    run_both(graph, np.array([[-0.0, 1.0], [2.0, np.nan]], np.float32))


def test_cse_never_merges_stateful_ops():
    v = rt.Variable(1.0)

    def f(x):
        before = v.read_value()
        v.assign_add(x)
        after = v.read_value()
        return before, after
    graph = trace(f, (rt.float32, ()))
    optimized = optimize_graph(graph)
    assert types(optimized).count("ReadVariableOp") == 2
    before, after = make_callable(optimized)(np.array(2.0, np.float32))
    assert (float(before), float(after)) == (1.0, 3.0)


# --- arithmetic -------------------------------------------------------------------------------------

@pytest.mark.parametrize("expression", [
    lambda x: rt.multiply(x, 1.0), lambda x: rt.multiply(1.0, x), lambda x: rt.divide(x, 1.0),
    lambda x: rt.subtract(x, 0.0), lambda x: rt.negative(rt.negative(x)), lambda x: rt.identity(rt.identity(x)),
    lambda x: rt.cast(x, rt.float32), lambda x: rt.multiply(x, [1.0, 1.0, 1.0])])
def test_neutral_operations_disappear(expression):
    graph = trace(expression, (rt.float32, (None, 3)))
    optimized = optimize_graph(graph)
    assert types(optimized) == ["Placeholder"]
    assert optimized.outputs[0] is optimized.inputs[0]
    run_both(graph, np.array([[-0.0, np.nan, 2.5]], np.float32))


def test_simplify_arithmetic_alone_forwards_operands_and_leaves_dead_ops_to_prune():
    graph = trace(lambda x: rt.multiply(rt.identity(x), 1), (rt.int32, (2,)))
    simplified = simplify_arithmetic(graph)
    assert simplified.outputs[0] is simplified.inputs[0]
    assert types(prune(simplified)) == ["Placeholder"]


def test_adding_or_subtracting_zero_respects_the_sign_of_float_zeros():
    assert types(optimize_graph(trace(lambda x: rt.add(x, 0), (rt.int32, (2,))))) == ["Placeholder"]
    assert types(optimize_graph(trace(lambda x: rt.add(x, -0.0), (rt.float32, (2,))))) == ["Placeholder"]
    assert types(optimize_graph(trace(lambda x: rt.subtract(x, 0.0), (rt.float32, (2,))))) == ["Placeholder"]
    for kept in (lambda x: rt.add(x, 0.0), lambda x: rt.subtract(x, -0.0)):  # both turn -0.0 into +0.0
        graph = trace(kept, (rt.float32, (2,)))
        assert types(optimize_graph(graph))[-1] in ("AddV2", "Sub")
        assert np.signbit(run_both(graph, np.array([-0.0, 1.0], np.float32))[0]).tolist() == [False, False]


def test_no_simplification_when_broadcasting_or_dtype_changes():
    widened = trace(lambda x: rt.multiply(x, rt.ones([2, 3])), (rt.float32, (3,)))
    assert "Mul" in types(optimize_graph(widened))
    assert run_both(widened, np.arange(3, dtype=np.float32))[0].shape == (2, 3)
    cast = trace(lambda x: rt.cast(x, rt.float32), (rt.int32, (2,)))
    assert "Cast" in types(optimize_graph(cast))


# --- the pipeline -----------------------------------------------------------------------------------

def test_optimize_graph_returns_a_new_graph_and_keeps_the_traced_one():
    graph = trace(lambda x: (rt.add(rt.multiply(x, 1), 0), {"y": rt.identity(x)}), (rt.int32, ()))
    before = types(graph)
    optimized = optimize_graph(graph)
    assert optimized is not graph and types(graph) == before
    assert types(optimized) == ["Placeholder"]
    assert optimized.structured_outputs[0] is optimized.inputs[0]
    assert optimized.structured_outputs[1]["y"] is optimized.inputs[0]
    assert optimized.name == graph.name


def test_pipeline_on_a_graph_with_everything():
    def f(x, y):
        scale = rt.add(rt.constant(1.0), 1.0)  # folds to 2
        a = rt.multiply(rt.add(x, y), scale)
        b = rt.multiply(rt.add(x, y), scale)   # CSE with a
        rt.exp(rt.log(x))                     # pruned
        c = rt.identity(rt.negative(rt.negative(rt.subtract(a, 0.0))))
        return rt.add(b, rt.multiply(c, 1.0))
    graph = trace(f, (rt.float32, (4,)), (rt.float32, (4,)))
    optimized = optimize_graph(graph)
    assert types(optimized) == ["Placeholder", "Placeholder", "Const", "AddV2", "Mul", "AddV2"]
    rng = np.random.default_rng(1)
    run_both(graph, rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32))


def test_optimizing_never_changes_the_traced_graph_or_its_subgraphs():
    def f(x):
        def body(i, s):
            rt.multiply(i, 0)  # dead
            return rt.add(i, 1), rt.add(s, rt.multiply(i, 1))
        looped = rt.while_loop(lambda i, s: rt.less(i, x), body, [0, 0])
        return rt.cond(rt.greater(x, 0), lambda: rt.identity(looped[1]), lambda: rt.add(x, 0))
    graph = trace(f, (rt.int32, ()))

    def snapshot(g):
        return [(op.name, op.type, [t.name for t in op.inputs], [snapshot(s) for s in op.subgraphs()])
                for op in g.operations]
    before = snapshot(graph)
    optimized = optimize_graph(graph)
    assert snapshot(graph) == before
    assert len(snapshot(optimized)) < len(before)
    for n in (-2, 0, 5):
        run_both(graph, np.array(n, np.int32))


def test_an_elementwise_op_reads_the_source_of_a_broadcast_its_other_operand_already_has_the_shape_of():
    def f(a, b, row):
        return (rt.multiply(rt.broadcast_to(a, [3, 4]), b),       # b is (3, 4): the broadcast goes
                rt.subtract(b, rt.broadcast_to(row, [3, 4])),     # the same on the right
                rt.add(rt.broadcast_to(a, [3, 4]), row))          # row is (1, 4): the broadcast stays
    graph = trace(f, (rt.float32, (3, 1)), (rt.float32, (3, 4)), (rt.float32, (1, 4)))
    optimized = optimize_graph(graph)
    assert types(optimized).count("BroadcastTo") == 1
    rng = np.random.default_rng(5)
    a, b, row = (rng.standard_normal(s).astype(np.float32) for s in [(3, 1), (3, 4), (1, 4)])
    product, difference, total = run_both(graph, a, b, row)
    np.testing.assert_array_equal(product, a * b)
    np.testing.assert_array_equal(difference, b - row)
    np.testing.assert_array_equal(total, a + row)
