"""A gradient uses the values a computation read, not a Variable's value when the gradient is taken: an
assignment after the reads (inside the tape) does not change it. Eager ops that read a Variable directly
(``x * v``) are recorded with the value they read; a tensor loop's gradient reads a Variable that the loop
does not assign once, just before the forward loop."""
import pytest

import autograph_lite as ag
import runtime as rt


def cubed_then_assigned(x, v, n):
    y = x
    for _ in range(n):
        y = y * v
    v.assign(10.0)   # after every read: the gradient is still 3 v**2 x and v**3 with v = 2
    return y


def test_eager_ops_that_read_a_variable_are_recorded_with_the_value_they_read():
    v = rt.Variable(2.0, name="v")
    x = rt.constant(1.5)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = cubed_then_assigned(x, v, 3)
    dx, dv = tape.gradient(y, [x, v])
    assert (float(y), float(dx), float(dv)) == (12.0, 8.0, 18.0)
    assert float(v.numpy()) == 10.0


@pytest.mark.parametrize("wrt_variable", [False, True])
def test_a_tensor_loop_gradient_reads_the_variable_as_the_loop_did(wrt_variable):
    v = rt.Variable(2.0, name="v")

    @ag.function
    def step(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = cubed_then_assigned(x, v, n)   # n is a tensor: a graph loop
        return y, tape.gradient(y, [x, v] if wrt_variable else x)

    y, grads = step(rt.constant(1.5), rt.constant(3))
    assert float(y) == 12.0
    if wrt_variable:
        assert [float(g) for g in grads] == [8.0, 18.0]
    else:
        assert float(grads) == 8.0


def test_nested_loops_read_the_value_of_each_outer_iteration():
    v = rt.Variable(2.0, name="v")

    @ag.function
    def step(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(n):
                for _ in range(2):
                    y = y * v
                v.assign_add(1.0)      # the outer loop assigns v; the inner one only reads it
            v.assign(10.0)
        return y, tape.gradient(y, x)

    y, dx = step(rt.constant(1.0), rt.constant(2))
    assert (float(y), float(dx)) == (36.0, 36.0)   # 2 * 2 * 3 * 3


def test_a_tensor_if_gradient_recomputes_its_branch_with_the_value_it_read():
    v = rt.Variable(2.0, name="v")

    @ag.function
    def step(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            if x > 0:
                y = x * x * v
            else:
                y = x
            v.assign(10.0)
        return y, tape.gradient(y, x)

    y, dx = step(rt.constant(1.5))
    assert (float(y), float(dx)) == (4.5, 6.0)   # 2 x v with v = 2
    y, dx = step(rt.constant(-1.5))
    assert (float(y), float(dx)) == (-1.5, 1.0)


def test_an_if_inside_a_loop_reads_the_value_the_loop_read():
    v = rt.Variable(2.0, name="v")

    @ag.function
    def step(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(n):
                if y < 100.0:
                    y = y * v
            v.assign(10.0)
        return y, tape.gradient(y, x)

    y, dx = step(rt.constant(1.5), rt.constant(3))
    assert (float(y), float(dx)) == (12.0, 8.0)


def test_an_eager_tape_over_a_loaded_function_uses_the_values_the_call_read(tmp_path):
    v = rt.Variable(2.0, name="v")

    @ag.function(input_signature=[rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.int32)])
    def power(x, n):
        y = x * v               # read outside a loop ...
        for _ in range(n):
            y = y * v           # ... and inside one
        return y

    power.get_concrete_function()
    rt.save(power, str(tmp_path / "power"))
    loaded = rt.load(str(tmp_path / "power"))
    (loaded_v,) = loaded.variables
    x = rt.constant(1.5)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = loaded(x, rt.constant(2))   # x * v**3
        loaded_v.assign(10.0)
    dx, dv = tape.gradient(y, [x, loaded_v])
    assert (float(y), float(dx), float(dv)) == (12.0, 8.0, 18.0)
