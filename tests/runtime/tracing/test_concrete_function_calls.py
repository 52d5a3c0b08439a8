"""A ConcreteFunction (or a loaded function) called while another function is traced becomes part of that
graph: a copy of its graph, subgraphs included, so the caller's gradients (tapes, rt.gradients,
rt.function_gradient), optimizer and saving see through it and never edit the callee's graph. An argument
whose dtype or known shape does not fit the callee's signature is a clear error."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from gradient_checks import numeric_gradients

S = rt.TensorSpec


def snapshot(graph):
    return [(op.op_def, list(op.inputs), dict(op.attrs), [snapshot(sub) for sub in op.subgraphs()])
            for op in graph.operations], list(graph.inputs)


def make_power():
    v = rt.Variable(2.0, name="v", dtype=rt.float64)

    def power(x, n):
        for _ in range(n):     # a tensor loop that reads the variable
            x = x * v
        return x
    return v, ag.function(power).get_concrete_function(S([], rt.float64), S([], rt.int32))


def test_a_concrete_function_called_while_tracing_is_copied_into_the_caller():
    v, power = make_power()

    @ag.function
    def caller(x, n):
        return power(x, n) + 1.0, power(x * 2.0, n + 1)

    first, second = caller(rt.constant(3.0, rt.float64), rt.constant(2))
    assert (float(first), float(second)) == (13.0, 48.0)
    graph = caller.get_concrete_function(rt.constant(3.0, rt.float64), rt.constant(2)).graph
    assert [op.type for op in graph.operations].count("While") == 2
    assert graph.variables == [v]
    v.assign(3.0)   # the copies read the variable when they run
    assert float(caller(rt.constant(1.0, rt.float64), rt.constant(2))[0]) == 10.0


def test_tape_gradients_through_the_call_and_the_callee_graph_is_untouched():
    v, power = make_power()
    before = snapshot(power.unoptimized_graph), snapshot(power.graph)

    @ag.function
    def gradients(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = power(x, n) * power(x, 1)
        return tape.gradient(y, [x, v])

    dx, dv = gradients(rt.constant(1.5, rt.float64), rt.constant(3))
    # y = x**2 v**4: dy/dx = 2 x v**4, dy/dv = 4 x**2 v**3
    assert (float(dx), float(dv)) == (2 * 1.5 * 2.0 ** 4, 4 * 1.5 ** 2 * 2.0 ** 3)
    assert (snapshot(power.unoptimized_graph), snapshot(power.graph)) == before
    assert float(power(rt.constant(1.5, rt.float64), rt.constant(3))) == 12.0   # still runs as before


def test_function_gradient_of_a_caller_matches_finite_differences():
    _, power = make_power()
    caller = ag.function(lambda x, n: rt.sin(power(x, n)), input_signature=[S([], rt.float64), S([], rt.int32)])
    grad = rt.function_gradient(caller, wrt="x")
    expected = numeric_gradients(lambda x: rt.sin(power(x, rt.constant(2))), [np.array(0.7)], np.array(1.0))[0]
    np.testing.assert_allclose(grad(rt.constant(0.7, rt.float64), rt.constant(2)).numpy(), expected, rtol=1e-8)


def test_structured_arguments_and_results_and_a_call_inside_a_tensor_loop():
    @ag.function
    def combine(pair, scale):
        return {"sum": pair[0] + pair[1], "scaled": [pair[0] * scale]}

    combined = combine.get_concrete_function([S([2]), S([2])], S([]))

    @ag.function
    def caller(x, n):
        total = rt.zeros([2])
        for i in range(n):
            result = combined([x, total], rt.cast(i, rt.float32))
            total = result["sum"] + result["scaled"][0]
        return total

    x = rt.constant([1.0, 2.0])
    expected = np.zeros(2, np.float32)
    for i in range(3):
        expected = x.numpy() + expected + x.numpy() * i
    np.testing.assert_array_equal(caller(x, rt.constant(3)).numpy(), expected)


def test_a_loaded_function_called_while_tracing_and_saved_again(tmp_path):
    _, power = make_power()
    staged = ag.function(lambda x, n: power(x, n), input_signature=[S([], rt.float64), S([], rt.int32)])
    staged.get_concrete_function()
    rt.save(staged, str(tmp_path / "power"))
    loaded = rt.load(str(tmp_path / "power"))

    @ag.function(input_signature=[S([], rt.float64)])
    def twice(x):
        return loaded(x, rt.constant(2)) * 2.0

    assert float(twice(rt.constant(1.5, rt.float64))) == 12.0   # 1.5 * 2**2 * 2
    rt.save(twice, str(tmp_path / "twice"))
    assert float(rt.load(str(tmp_path / "twice"))(rt.constant(0.5, rt.float64))) == 4.0


def test_arguments_that_do_not_fit_the_signature_are_clear_errors():
    vector = ag.function(lambda x: x * 2.0).get_concrete_function(S([3]))

    @ag.function
    def unknown_length(x):
        return vector(x)
    with pytest.raises(ValueError, match=r"argument 'x' expected float32 Tensor, shape=\(3,\), got float32 Tensor, "
                                         r"shape=\(None,\) while tracing: this concrete function's graph was built "
                                         r"for that shape.* rt.reshape\(x, \[3\]\)"):
        unknown_length.get_concrete_function(S([None]))
    assert unknown_length(rt.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]   # known: fine

    @ag.function
    def wrong_dtype(x):
        return vector(x)
    with pytest.raises(TypeError, match=r"argument 'x' expected float32 Tensor, shape=\(3,\), got int32 Tensor, "
                                        r"shape=\(3,\); convert it with rt.cast\(x, rt.float32\)"):
        wrong_dtype(rt.constant([1, 2, 3]))

    @ag.function
    def wrong_count(x):
        return vector(x, x)
    with pytest.raises(TypeError, match=r"this concrete function takes 1 tensor argument\(s\) \(x\), got 2"):
        wrong_count(rt.constant([1.0, 2.0, 3.0]))

    @ag.function
    def wrong_shape(x):
        return vector(x)
    with pytest.raises(ValueError, match=r"expected float32 Tensor, shape=\(3,\), got float32 Tensor, shape=\(2,\)"):
        wrong_shape(rt.constant([1.0, 2.0]))
