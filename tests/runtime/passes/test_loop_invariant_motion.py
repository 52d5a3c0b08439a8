"""Loop-invariant code motion (runtime/passes/loop_invariants.py): an op of a While's cond or body that reads
only invariant values and cannot fail runs once, before the loop. The optimized graph says so op by op; values
are the same bit for bit as eager, as the unoptimized graph and as the reference interpreter; ops that could
raise or act (gather, integer //, print, random) stay in the loop; gradients, ONNX export and save/load still
work on such graphs."""
import contextlib
import io

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends import interpreter
from runtime.ops.control_flow_ops import WHILE
from runtime.passes import hoist_loop_invariants


def loops(graph):
    return [op for op in graph.operations if op.op_def is WHILE]


def types(graph):
    return [op.type for op in graph.operations if op.type != "Placeholder"]


def invariant_matmul(x, w, n):
    i = rt.constant(0)
    while i < n * 2:                            # n * 2: invariant, in the cond
        x = x + rt.matmul(w, w) * rt.exp(w)     # matmul(w, w) * exp(w): invariant, in the body
        i += 1
    return x


ARGS = (rt.constant(np.arange(9, dtype=np.float32).reshape(3, 3) / 10),
        rt.constant((np.eye(3) * 0.5 + 0.1).astype(np.float32)))


def arrays_of(args):
    return [np.asarray(a) for a in args]


def test_the_invariant_ops_run_once_before_the_loop():
    f = ag.function(invariant_matmul)
    graph = f.get_concrete_function(*ARGS, rt.constant(3)).graph
    assert types(graph) == ["Const", "Const", "Mul", "MatMul", "Exp", "Mul", "While"]
    (loop,) = loops(graph)
    body, cond = loop.attrs["body"], loop.attrs["cond"]
    assert types(body) == ["AddV2", "Const", "AddV2"]           # x + product, i + 1
    assert types(cond) == ["Less"]
    doubled, product = [op.outputs[0] for op in graph.operations if op.type == "Mul"]   # n * 2, then the product
    assert loop.inputs[1] is graph.inputs[0]                     # the loop variables: i (a Const) and x
    assert loop.inputs[2] is doubled and loop.inputs[3] is product and len(loop.inputs) == 4  # w, n: unread
    assert [p.op.name for p in body.inputs] == [p.op.name for p in cond.inputs] == ["i", "x", "Mul", "Mul_1"]
    assert [(outer.op.name, inner.op.name) for outer, inner in body.captures.values()] == [("Mul", "Mul"),
                                                                                          ("Mul_1", "Mul_1")]


def test_values_match_eager_the_unoptimized_graph_and_the_interpreter_bit_for_bit():
    f = ag.function(invariant_matmul)
    for n in (0, 1, 3):
        args = (*ARGS, rt.constant(n))
        concrete = f.get_concrete_function(*args)
        got = f(*args).numpy()
        ag.run_functions_eagerly(True)
        try:
            eager = f(*args).numpy()
        finally:
            ag.run_functions_eagerly(False)
        np.testing.assert_array_equal(got, eager)
        for graph in (concrete.graph, concrete.unoptimized_graph):
            np.testing.assert_array_equal(interpreter.make_callable(graph)(*arrays_of(args))[0], got)
    assert f.experimental_get_tracing_count() == 1   # one signature: hoisting adds no trace


def test_the_pass_on_its_own_moves_the_same_ops_and_keeps_the_graph_runnable():
    concrete = ag.function(invariant_matmul).get_concrete_function(*ARGS, rt.constant(2))
    hoisted = hoist_loop_invariants(concrete.unoptimized_graph)
    (loop,) = loops(hoisted)
    assert "MatMul" not in types(loop.attrs["body"]) and "Exp" not in types(loop.attrs["body"])
    assert [t for t in types(hoisted) if t in ("MatMul", "Exp", "While")] == ["MatMul", "Exp", "While"]
    arrays = arrays_of((*ARGS, rt.constant(2)))
    np.testing.assert_array_equal(interpreter.make_callable(hoisted)(*arrays)[0],
                                  interpreter.make_callable(concrete.unoptimized_graph)(*arrays)[0])


def nested(x, w):
    total = x
    for i in rt.range(3):
        scale = rt.cast(i, rt.float32) + 1.0         # invariant in the inner loop only
        for j in rt.range(2):
            total = total + rt.exp(w) * scale      # exp(w): invariant in both loops; * scale: in the inner one
    return total


def test_an_inner_loop_invariant_moves_as_far_out_as_it_is_invariant():
    f = ag.function(nested)
    x, w = rt.constant([1.0, 2.0]), rt.constant([0.5, -0.5])
    graph = f.get_concrete_function(x, w).graph
    (outer,) = loops(graph)
    assert graph.operations.index(next(op for op in graph.operations if op.type == "Exp")) < \
        graph.operations.index(outer)
    outer_body = outer.attrs["body"]
    (inner,) = loops(outer_body)
    scaled = next(op for op in outer_body.operations if op.type == "Mul")
    assert outer_body.operations.index(scaled) < outer_body.operations.index(inner)   # exp(w) * scale
    assert "Exp" not in types(outer_body) and "Mul" not in types(inner.attrs["body"])
    ag.run_functions_eagerly(True)
    try:
        eager = f(x, w).numpy()
    finally:
        ag.run_functions_eagerly(False)
    np.testing.assert_array_equal(f(x, w).numpy(), eager)


def gather_in_loop(y, table, index, n):
    i = rt.constant(0)
    while i < n:
        y = y + rt.gather(table, index) + rt.floordiv(n, index)   # both can raise: they stay in the loop
        i += 1
    return y


def test_ops_that_can_raise_stay_in_the_loop_so_a_loop_that_never_runs_raises_nothing():
    f = ag.function(gather_in_loop)
    y, table = rt.constant(1), rt.constant([3, 4])
    (loop,) = loops(f.get_concrete_function(y, table, rt.constant(7), rt.constant(0)).graph)
    assert {"GatherV2", "FloorDiv"} <= set(types(loop.attrs["body"]))
    assert int(f(y, table, rt.constant(7), rt.constant(0))) == 1       # index 7 is out of range: never read
    assert int(f(y, table, rt.constant(0), rt.constant(0))) == 1       # n // 0: never computed
    assert int(f(y, table, rt.constant(1), rt.constant(2))) == 1 + 2 * (4 + 2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="GatherV2"):
        f(y, table, rt.constant(7), rt.constant(1))


def stateful_in_loop(x, w, n):
    i = rt.constant(0)
    while i < n:
        rt.print("scale", w * 2.0)                                  # w * 2.0 moves; the print does not
        x = x + w + rt.random.uniform((), seed=1) * 0.0
        i += 1
    return x


def test_prints_and_random_ops_stay_in_the_loop_and_run_every_iteration():
    f = ag.function(stateful_in_loop)
    args = (rt.constant(1.0), rt.constant(1.5))
    graph = f.get_concrete_function(*args, rt.constant(3)).graph
    (loop,) = loops(graph)
    body = loop.attrs["body"]
    assert {"PrintV2", "RandomUniform"} <= set(types(body))
    (printed,) = [op for op in body.operations if op.type == "PrintV2"]
    assert printed.inputs[0].op.type == "Placeholder"                 # it prints the value computed outside
    (doubled,) = [op for op in graph.operations if op.type == "Mul"]  # w * 2.0, before the loop
    assert graph.operations.index(doubled) < graph.operations.index(loop)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert float(f(*args, rt.constant(3))) == 5.5
        assert float(f(*args, rt.constant(0))) == 1.0
    assert out.getvalue().split("\n") == ["scale 3.0"] * 3 + [""]


def test_an_updated_copy_of_a_hoisted_value_never_writes_into_it():
    @ag.function
    def f(a, n):
        out = rt.zeros((3,))
        i = rt.constant(0)
        while i < n:
            e = rt.exp(a)                                           # moves out; read in every iteration
            e = rt.tensor_scatter_nd_update(e, [[i % 3]], [0.0])    # a copy: e outside must stay intact
            out = out + e
            i += 1
        return out

    a = rt.constant([0.0, 1.0, 2.0])
    expected = sum(np.where(np.arange(3) == k % 3, 0.0, np.exp([0.0, 1.0, 2.0])) for k in range(4))
    np.testing.assert_allclose(f(a, rt.constant(4)).numpy(), expected.astype(np.float32), rtol=1e-6)
    (loop,) = loops(f.get_concrete_function(a, rt.constant(4)).graph)
    assert "Exp" not in types(loop.attrs["body"])


def test_save_and_load_round_trip_a_hoisted_loop(tmp_path):
    f = ag.function(invariant_matmul)
    args = (*ARGS, rt.constant(3))
    want = f(*args).numpy()
    rt.save(f, tmp_path)
    loaded = rt.load(tmp_path)
    np.testing.assert_array_equal(loaded(*args).numpy(), want)
    np.testing.assert_array_equal(loaded(*ARGS, rt.constant(0)).numpy(), ARGS[0].numpy())


def test_onnx_export_of_a_hoisted_loop_matches_onnxruntime():
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    concrete = ag.function(invariant_matmul).get_concrete_function(*ARGS, rt.constant(3))
    model = rt.export.to_onnx(concrete)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (0, 3):
        arrays = arrays_of((*ARGS, rt.constant(n)))
        (theirs,) = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})
        np.testing.assert_allclose(theirs, concrete(*ARGS, rt.constant(n)).numpy(), rtol=1e-6)


def branchy(x, w, table, index, n):
    i = rt.constant(0)
    while i < n:
        if i % 2 == 0:
            x = x + rt.exp(w)                          # invariant, in one branch: computed once, before the loop
        else:
            if i % 3 == 0:
                x = x - rt.matmul(w, w)                # in a branch of a branch: moves out too
            else:
                x = x * rt.gather(table, index)        # could fail: stays in its branch
        i += 1
    return x


def test_invariant_ops_of_if_branches_in_the_body_move_out_of_the_loop():
    f = ag.function(branchy)
    w, table = rt.constant([[0.5, -1.0], [0.25, 2.0]]), rt.constant([1.5, 0.5])
    x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    graph = f.get_concrete_function(x, w, table, rt.constant(1), rt.constant(5)).graph
    (loop,) = loops(graph)
    assert graph.operations.index(next(op for op in graph.operations if op.type == "Exp")) < \
        graph.operations.index(loop)
    assert graph.operations.index(next(op for op in graph.operations if op.type == "MatMul")) < \
        graph.operations.index(loop)

    def all_types(g):
        return [op.type for op in g.operations] + [t for op in g.operations for sub in op.subgraphs()
                                                   for t in all_types(sub)]
    inside = all_types(loop.attrs["body"])
    assert "Exp" not in inside and "MatMul" not in inside and "GatherV2" in inside
    for n, index in ((0, 9), (1, 9), (7, 1)):        # index 9 is out of range, but its branch never runs
        args = (x, w, table, rt.constant(index), rt.constant(n))
        ag.run_functions_eagerly(True)
        try:
            eager = f(*args).numpy()
        finally:
            ag.run_functions_eagerly(False)
        np.testing.assert_array_equal(f(*args).numpy(), eager)
        concrete = f.get_concrete_function(*args)
        np.testing.assert_array_equal(interpreter.make_callable(concrete.graph)(*arrays_of(args))[0], eager)
    with pytest.raises(rt.errors.InvalidArgumentError, match="GatherV2"):
        f(x, w, table, rt.constant(9), rt.constant(7))
    assert f.experimental_get_tracing_count() == 1


def test_a_loop_whose_branches_lost_ops_saves_loads_and_exports(tmp_path):
    f = ag.function(branchy)
    arrays = [np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), np.array([[0.5, -1.0], [0.25, 2.0]], np.float32),
              np.array([1.5, 0.5], np.float32), np.array(1, np.int32), np.array(7, np.int32)]
    args = [rt.constant(a) for a in arrays]
    want = f(*args).numpy()
    rt.save(f, tmp_path)
    np.testing.assert_array_equal(rt.load(tmp_path)(*args).numpy(), want)
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    model = rt.export.to_onnx(f.get_concrete_function(*args))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})
    np.testing.assert_allclose(theirs, want, rtol=1e-6)


def test_an_invariant_only_a_dead_op_read_leaves_no_capture_and_no_op():
    @ag.function
    def f(x, w, n):
        i = rt.constant(0)
        while i < n:
            x + rt.exp(w)                          # nothing reads it: pruned, and exp(w) with it
            x = x * 2.0
            i += 1
        return x

    graph = f.get_concrete_function(rt.constant([1.0]), rt.constant([0.5]), rt.constant(3)).graph
    (loop,) = loops(graph)
    assert "Exp" not in types(graph) and "Exp" not in types(loop.attrs["body"])
    assert [t.op.name for t in loop.inputs] == ["Const", "x", "n"]     # i, x and n: no capture of w or exp(w)
    assert f(rt.constant([1.0]), rt.constant([0.5]), rt.constant(3)).numpy().tolist() == [8.0]


def tanh_loop_in_body(x, w, a, b, n):
    i = rt.constant(0)
    while i < n:
        x = rt.tanh(rt.matmul(x, rt.matmul(w, w)) + rt.exp(a) * b)
        i += 1
    return x


def tanh_loop_by_hand(x, w, a, b, n):
    ww, shift = rt.matmul(w, w), rt.exp(a) * b
    i = rt.constant(0)
    while i < n:
        x = rt.tanh(rt.matmul(x, ww) + shift)
        i += 1
    return x


def expression(tensor):
    """What computes ``tensor``, without names: a graph input by position, else the op type of each step."""
    graph = tensor.op.graph
    if any(tensor is t for t in graph.inputs):
        return ("input", next(k for k, t in enumerate(graph.inputs) if t is tensor))
    return (tensor.op.type, tensor.index, tuple(expression(t) for t in tensor.op.inputs))


def test_the_optimized_loop_is_the_loop_written_with_the_invariant_outside_by_hand():
    rng = np.random.default_rng(0)
    args = [rt.constant(rng.standard_normal(s).astype(np.float32)) for s in ((2, 4), (4, 4), (4,), (4,))]
    args.append(rt.constant(5))
    graphs = [ag.function(fn).get_concrete_function(*args).graph for fn in (tanh_loop_in_body, tanh_loop_by_hand)]
    assert [sorted(types(g)) for g in graphs] == [sorted(types(graphs[1]))] * 2
    (hoisted,), (by_hand,) = loops(graphs[0]), loops(graphs[1])
    assert [expression(t) for t in hoisted.inputs] == [expression(t) for t in by_hand.inputs]
    for part in ("cond", "body"):
        assert [expression(t) for t in hoisted.attrs[part].outputs] == \
            [expression(t) for t in by_hand.attrs[part].outputs]
    np.testing.assert_array_equal(ag.function(tanh_loop_in_body)(*args).numpy(),
                                  ag.function(tanh_loop_by_hand)(*args).numpy())


def test_with_unknown_dims_only_ops_whose_broadcast_cannot_fail_move():
    @ag.function(input_signature=[rt.TensorSpec([None, 3]), rt.TensorSpec([None, 3]), rt.TensorSpec([3, 2]),
                                  rt.TensorSpec([None]), rt.TensorSpec([None]), rt.TensorSpec([], rt.int32)])
    def f(x, w, v, a, b, n):
        total = rt.zeros([2])
        i = rt.constant(0)
        while i < n:
            x = x + rt.exp(w) * 0.5                              # exp(w), * 0.5: cannot fail whatever w's rows
            total = total + rt.reduce_sum(rt.matmul(w, v), 0)    # inner dims known and equal: moves
            total = total + rt.reduce_sum(a + b)                 # a + b: sizes may differ at run time: stays
            i += 1
        return x, total

    graph = f.get_concrete_function().graph
    (loop,) = loops(graph)
    outside = types(graph)
    assert {"Exp", "MatMul"} <= set(outside) and outside.count("Mul") == 1
    body = types(loop.attrs["body"])
    assert "Exp" not in body and "MatMul" not in body
    assert body.count("AddV2") == 5                               # x +, total + (twice), a + b, i + 1
    x, w = rt.constant(np.ones((2, 3), np.float32)), rt.constant(np.zeros((4, 3), np.float32))   # 2 vs 4 rows
    v, a, b = rt.constant(np.ones((3, 2), np.float32)), rt.constant([1.0, 2.0]), rt.constant([1.0, 2.0, 3.0])
    out_x, out_total = f(x, w, v, a, b, rt.constant(0))        # a + b would fail, x + exp(w) too: never run
    assert out_x.numpy().tolist() == x.numpy().tolist() and out_total.numpy().tolist() == [0.0, 0.0]
    with pytest.raises(rt.errors.InvalidArgumentError):
        f(x, w, v, a, b, rt.constant(1))
    assert f.experimental_get_tracing_count() == 1

