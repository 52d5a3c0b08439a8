"""rt.Variable: state shared between eager code and traced functions, written by stateful ops."""
import numpy as np
import pytest

import runtime as rt


def test_variable_eager_basics_and_repr():
    v = rt.Variable(1.0, name="v")
    assert repr(v) == "<Variable 'v' shape=() dtype=float32, numpy=1.0>"
    assert v.dtype == rt.float32 and v.shape == ()
    assert (v + 1).numpy() == 2.0
    assert v.assign_add(2.0) is v and v.numpy() == 3.0
    v.assign_sub(1.0)
    v.assign(10.0)
    assert float(v) == 10.0
    w = rt.Variable([1, 2], name="w")
    assert repr(w) == "<Variable 'w' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert rt.Variable(rt.constant([1.5]), dtype=rt.float64).dtype == rt.float64


def test_numpy_returns_a_copy():
    v = rt.Variable([1, 2])
    v.numpy()[0] = 100
    assert v.numpy().tolist() == [1, 2]


def test_assign_add_in_function_persists_across_calls_and_is_shared_with_eager():
    counter = rt.Variable(0, name="counter")

    @rt.function
    def increment(by):
        counter.assign_add(by)
        return counter.read_value()

    assert increment(rt.constant(2)).numpy() == 2
    assert increment(rt.constant(3)).numpy() == 5
    assert counter.numpy() == 5
    counter.assign(100)  # eager write, seen by the graph
    assert increment(rt.constant(1)).numpy() == 101
    assert increment.experimental_get_tracing_count() == 1
    graph = increment.get_concrete_function(rt.constant(1)).graph
    assert [v is counter for v in graph.variables] == [True]
    types = [op.type for op in graph.operations]
    assert "AssignAddVariableOp" in types and "ReadVariableOp" in types


def test_stateful_ops_run_every_call_in_program_order(capsys):
    v = rt.Variable(1.0)

    @rt.function
    def f():
        before = v.read_value()
        v.assign(v * 2.0)
        rt.print("v is now", v)
        v.assign_add(1.0)  # nothing uses this result: it still runs
        return before

    assert f().numpy() == 1.0
    assert v.numpy() == 3.0
    assert f().numpy() == 3.0
    assert v.numpy() == 7.0
    assert capsys.readouterr().out == "v is now 2.0\nv is now 6.0\n"


def test_variable_captured_by_identity_as_argument():
    @rt.function
    def add_to(var, amount):
        var.assign_add(amount)
        return var.read_value()

    a, b = rt.Variable(1), rt.Variable(1)
    assert add_to(a, rt.constant(1)).numpy() == 2
    assert add_to(b, rt.constant(5)).numpy() == 6
    assert add_to(a, rt.constant(1)).numpy() == 3
    assert (a.numpy(), b.numpy()) == (3, 6)
    assert add_to.experimental_get_tracing_count() == 2  # one graph per variable (same dtype and shape)


def test_variable_in_cond_branch_and_while_body():
    total = rt.Variable(0)

    @rt.function
    def accumulate(n):
        def body(i):
            rt.cond(i % 2 == 0, lambda: total.assign_add(i), lambda: total.read_value())
            return i + 1
        rt.while_loop(lambda i: i < n, body, (0,))
        return total.read_value()

    assert accumulate(rt.constant(5)).numpy() == 0 + 2 + 4
    assert accumulate(rt.constant(3)).numpy() == 6 + 0 + 2
    graph = accumulate.get_concrete_function(rt.constant(3)).graph
    assert [v is total for v in graph.variables] == [True]


def test_variable_errors():
    v = rt.Variable([1.0, 2.0], name="weights")
    with pytest.raises(TypeError, match=r"Variable 'weights'.assign\(\): the value has dtype int32 but the variable "
                                        r"is float32.*rt.cast"):
        v.assign(rt.constant([1, 2]))
    with pytest.raises(ValueError, match=r"Variable 'weights'.assign_add\(\): the value has shape \(3,\) but the "
                                         r"variable has shape \(2,\)"):
        v.assign_add([1.0, 2.0, 3.0])

    @rt.function
    def makes_variable(x):
        return rt.Variable(x, name="inside")

    with pytest.raises(ValueError, match="the initial value of rt.Variable\\('inside'\\) depends on the "
                                         "function's inputs.*create it outside the function"):
        makes_variable(rt.constant(1.0))


def test_variable_created_inside_function_works_when_run_eagerly():
    f = rt.function(lambda x: rt.Variable(x).read_value() + 1)
    rt.run_functions_eagerly(True)
    try:
        assert f(rt.constant(1)).numpy() == 2
    finally:
        rt.run_functions_eagerly(False)


def test_variable_numpy_inside_trace_is_a_clear_error():
    v = rt.Variable(1.0, name="v")
    f = rt.function(lambda: v.numpy())
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="Variable 'v'"):
        f()


def test_assign_in_graph_returns_new_value():
    v = rt.Variable(np.array([1, 2], dtype=np.int64))
    f = rt.function(lambda: v.assign_add(np.array([10, 10], dtype=np.int64)) * 2)
    assert f().numpy().tolist() == [22, 24]
    assert v.numpy().tolist() == [11, 12]
