"""rt.cond / rt.while_loop: plain Python eagerly, If / While ops with captures when traced."""
import numpy as np
import pytest

import runtime as rt
from runtime.core.context import graph_scope
from runtime.backends.interpreter import run_graph


def op_types(graph):
    return [op.type for op in graph.operations]


# --- cond ---------------------------------------------------------------------------------------------
def test_cond_eager_calls_only_the_chosen_branch():
    calls = []
    result = rt.cond(rt.constant(2) > 1, lambda: calls.append("t") or "yes", lambda: calls.append("f") or "no")
    assert result == "yes" and calls == ["t"]
    assert rt.cond(False, lambda: 1, lambda: (2, 3)) == (2, 3)  # eager: returned unchanged, any structure


def test_cond_traced_builds_if_with_captures_and_runs_both_ways():
    @rt.function
    def f(x, y):
        scale = x * 2  # an outer tensor captured by the true branch
        return rt.cond(x > y, lambda: scale + y, lambda: y - x)

    assert f(rt.constant(5), rt.constant(1)).numpy() == 11
    assert f(rt.constant(1), rt.constant(5)).numpy() == 4
    assert f.experimental_get_tracing_count() == 1
    graph = f.get_concrete_function(rt.constant(5), rt.constant(1)).unoptimized_graph
    if_op = next(op for op in graph.operations if op.type == "If")
    assert if_op.name == "cond"
    then_graph, else_graph = if_op.attrs["then_branch"], if_op.attrs["else_branch"]
    # Both branches take the union of captures, in the same order as the If's inputs after the condition.
    assert len(then_graph.inputs) == len(else_graph.inputs) == len(if_op.inputs) - 1
    assert {t.op.name for t in if_op.inputs[1:]} == {"Mul", "y", "x"}


def test_cond_nested_structures_and_python_values_are_converted():
    @rt.function
    def f(x):
        return rt.cond(x > 0, lambda: {"a": x, "b": (1, 2.5)}, lambda: {"a": -x, "b": (x * 0, 0.5)})

    result = f(rt.constant(3))
    assert set(result) == {"a", "b"}
    assert result["a"].numpy() == 3
    assert [t.numpy() for t in result["b"]] == [1, 2.5]
    assert result["b"][0].dtype == rt.int32 and result["b"][1].dtype == rt.float32
    negative = f(rt.constant(-3))
    assert negative["a"].numpy() == 3 and [t.numpy() for t in negative["b"]] == [0, 0.5]


def test_cond_python_number_adopts_other_branch_dtype():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: x, lambda: 0))
    result = f(rt.constant(-2.5))
    assert result.dtype == rt.float32 and result.numpy() == 0.0


def test_cond_branch_shapes_may_differ():
    f = rt.function(lambda x: rt.cond(rt.reduce_sum(x) > 0, lambda: x, lambda: rt.constant([1.0])))
    concrete = f.get_concrete_function(rt.TensorSpec([3], rt.float32))
    assert concrete.outputs[0].shape == (None,)
    assert f(rt.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 2.0, 3.0]
    assert f(rt.constant([-1.0, 0.0, 0.0])).numpy().tolist() == [1.0]


def test_cond_dtype_mismatch_names_output_and_dtypes():
    @rt.function
    def f(x):
        return rt.cond(x > 0, lambda: (x, x), lambda: (x, rt.cast(x, rt.float32)), output_names=("a", "b"))

    with pytest.raises(rt.errors.StateError, match=r"'b' is int32 in the true branch but float32 in the false "
                                                   r"branch \(<lambda> at .*test_runtime_control_flow.py:\d+\).*rt\.cast"):
        f(rt.constant(1))


def test_cond_structure_mismatch_names_position():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: (x, x), lambda: (x, (x, x))))
    with pytest.raises(rt.errors.StateError, match=r"output 1 is \* in the true branch but \(\*, \*\) in the "
                                                   "false branch"):
        f(rt.constant(1))


def test_cond_output_set_in_one_branch_only_is_named():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: (x, None), lambda: (x, x), output_names=("y", "z")))
    with pytest.raises(rt.errors.StateError, match="'z' is None in the true branch but \\* in the false branch"):
        f(rt.constant(1))


def test_cond_python_value_that_cannot_match_dtype():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: x, lambda: 0.5))
    with pytest.raises(rt.errors.StateError, match="the output in the false branch cannot be a tensor"):
        f(rt.constant(1))


def test_cond_non_bool_predicate_is_a_clear_error():
    f = rt.function(lambda x: rt.cond(x, lambda: x, lambda: x))
    with pytest.raises(TypeError, match="condition must be a bool tensor, got int32"):
        f(rt.constant(1))
    g = rt.function(lambda x: rt.cond(x > 0, lambda: x, lambda: x))
    with pytest.raises(ValueError, match=r"must be a scalar, got shape \(2,\).*reduce_all"):
        g(rt.constant([1, 2]))


def test_cond_without_outputs_keeps_stateful_branch(capsys):
    @rt.function
    def f(x):
        rt.cond(x > 0, lambda: rt.print("positive"), lambda: rt.print("not positive"))
        return x

    f(rt.constant(1))
    f(rt.constant(-1))
    assert capsys.readouterr().out == "positive\nnot positive\n"


# --- while_loop --------------------------------------------------------------------------------------
def test_while_loop_eager_is_a_python_loop():
    assert rt.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0)) == (5, 10)
    assert rt.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=7) == [7]
    result = rt.while_loop(lambda i: i < 3, lambda i: (i + 1,), (rt.constant(0),))
    assert isinstance(result, tuple) and result[0].numpy() == 3


def test_while_loop_traced_builds_one_while_op():
    @rt.function
    def sum_below(n):
        return rt.while_loop(lambda i, total: i < n, lambda i, total: (i + 1, total + i), (0, 0))

    i, total = sum_below(rt.constant(5))
    assert (i.numpy(), total.numpy()) == (5, 10)
    assert sum_below(rt.constant(101))[1].numpy() == 5050
    assert sum_below.experimental_get_tracing_count() == 1
    graph = sum_below.get_concrete_function(rt.constant(5)).unoptimized_graph
    assert op_types(graph).count("While") == 1
    while_op = next(op for op in graph.operations if op.type == "While")
    assert while_op.attrs["num_loop_vars"] == 2 and while_op.name == "while"
    # n is captured by cond: one extra input after the two loop variables.
    assert [t.op.name for t in while_op.inputs[2:]] == ["n"]


def test_while_loop_maximum_iterations_traced():
    f = rt.function(lambda: rt.while_loop(lambda i: i < 100, lambda i: i + 2, [rt.constant(0)],
                                          maximum_iterations=4))
    assert f()[0].numpy() == 8


def test_nested_cond_inside_while_with_captured_tensor():
    @rt.function
    def collatz_steps(n, limit):
        def body(x, steps):
            x = rt.cond(rt.equal(x % 2, 0), lambda: x // 2, lambda: 3 * x + 1)
            return x, steps + 1
        return rt.while_loop(lambda x, steps: rt.logical_and(x > 1, steps < limit), body, (n, 0))[1]

    def python_steps(n, limit):
        steps = 0
        while n > 1 and steps < limit:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    for n in (1, 6, 7, 27):
        assert collatz_steps(rt.constant(n), rt.constant(1000)).numpy() == python_steps(n, 1000)
    assert collatz_steps(rt.constant(27), rt.constant(10)).numpy() == 10
    assert collatz_steps.experimental_get_tracing_count() == 1


def test_while_loop_nested_loop_vars_structure_restored():
    f = rt.function(lambda x: rt.while_loop(lambda s: s["i"] < 3,
                                            lambda s: [{"i": s["i"] + 1, "acc": (s["acc"][0] * x,)}],
                                            [{"i": 0, "acc": (rt.constant(1.0),)}]))
    (state,) = f(rt.constant(2.0))
    assert state["i"].numpy() == 3 and state["acc"][0].numpy() == 8.0


def test_while_loop_dtype_change_names_loop_var():
    f = rt.function(lambda: rt.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, rt.cast(x, rt.float32)),
                                          (0, 1), loop_var_names=("i", "x")))
    with pytest.raises(rt.errors.StateError, match="'x' starts as int32 but the body makes it float32.*rt.cast"):
        f()


def test_while_loop_shape_change_is_relaxed_and_traced_again():
    traces = []

    def body(v):
        traces.append(v.shape)
        return rt.concat([v, v], 0)

    f = rt.function(lambda x: rt.while_loop(lambda v: rt.size(v) < 8, body, [x]))
    assert f(rt.constant([1, 2]))[0].numpy().tolist() == [1, 2] * 4
    assert traces == [(2,), (None,)]  # the body is traced again with the growing dim unknown
    assert f.get_concrete_function(rt.constant([1, 2])).outputs[0].shape == (None,)


def test_while_loop_rank_change_names_position_and_shapes():
    f = rt.function(lambda x: rt.while_loop(lambda v: rt.size(v) < 8, lambda v: rt.stack([v, v]), [x]))
    with pytest.raises(rt.errors.StateError, match=r"loop variable 0 starts with shape \(2,\) but the body makes "
                                                   r"it \(2, 2\).*must keep its rank"):
        f(rt.constant([1, 2]))


def test_while_loop_shape_may_change_where_initial_dims_unknown():
    f = rt.function(lambda x: rt.while_loop(lambda v: rt.size(v) < 8, lambda v: rt.concat([v, v], 0), [x]),
                    input_signature=[rt.TensorSpec([None], rt.int32)])
    assert f(rt.constant([1, 2]))[0].numpy().tolist() == [1, 2] * 4


def test_while_loop_structure_and_arity_errors():
    f = rt.function(lambda: rt.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), (0, 0)))
    with pytest.raises(rt.errors.StateError, match=r"body returned \(\*,\) for 2 loop variables"):
        f()
    with pytest.raises(TypeError, match="loop_vars must be a tuple or list"):
        rt.while_loop(lambda i: i < 3, lambda i: i + 1, 0)
    g = rt.function(lambda: rt.while_loop(lambda i: i, lambda i: i + 1, (0,)))
    with pytest.raises(TypeError, match="cond must return a scalar bool"):
        g()


def test_while_loop_with_stateful_body_runs_every_iteration(capsys):
    @rt.function
    def count(n):
        def body(i):
            rt.print("step", i)
            return i + 1
        return rt.while_loop(lambda i: i < n, body, (0,))

    count(rt.constant(3))
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\n"


def test_interpreter_runs_a_hand_built_graph_with_control_flow():
    g = rt.FuncGraph("f")
    with graph_scope(g):
        x = g.add_placeholder(rt.int32, (), name="x")
        y = rt.cond(x > 0, lambda: x * 10, lambda: x)
        (z,) = rt.while_loop(lambda v: rt.abs(v) < 100, lambda v: v * 2, (y,))
        g.outputs = [y, z]
    assert [a.tolist() for a in run_graph(g, [np.int32(3)])] == [30, 120]
    assert [a.tolist() for a in run_graph(g, [np.int32(-3)])] == [-3, -192]
