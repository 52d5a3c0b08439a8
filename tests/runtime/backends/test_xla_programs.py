"""Both executors on random programs (hypothesis, the program generator of test_graph_equivalence.py): each
function of an int32 scalar gives the same value, or raises the same error, on the numpy executor and compiled
by XLA (jit_compile=True). A program XLA cannot compile must say so with a LoweringError (e.g. a tensor list),
never give another value. The same for the gradients of random differentiable programs (the generator of
tests/gradients/test_gradient_programs.py, with bounded loops)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from example_budgets import examples
from gradient_programs import PRELUDE as GRADIENT_PRELUDE
from gradient_programs import RESULT, gradient_programs
from tensor_program_grammar import TENSOR_FEATURES, tensor_functions
from test_gradient_programs import ARRAYS, as_arrays, assert_all_close, tape_inside
from test_gradient_programs import load as load_gradient_program
from test_graph_equivalence import INPUTS, graph_outcome
from test_python_equivalence import load

pytest.importorskip("jax")
LOWERED = {"yes": 0, "no": 0}   # how many drawn programs compiled: the property must not hold vacuously


def outcome(function, n, dtype):
    if dtype == rt.int32:
        return graph_outcome(function, n)
    try:   # (the programs' arithmetic wraps around in narrow types: both executors must wrap alike)
        return "value", np.asarray(function(rt.constant(n, dtype)).numpy()).tolist()
    except Exception as exc:   # noqa: BLE001 - the error's type is the outcome compared
        return "raised", type(exc).__name__


def check_both_executors_agree(source, inputs, dtype=rt.int32):
    original = load(source)
    numpy_function, xla_function = ag.function(original), ag.function(original, jit_compile=True)
    for n in inputs:
        expected = outcome(numpy_function, n, dtype)
        try:
            got = outcome(xla_function, n, dtype)
        except rt.errors.LoweringError:
            LOWERED["no"] += 1
            return
        if got[0] == "raised" and got[1] == "LoweringError":
            LOWERED["no"] += 1
            return
        assert got == expected, (source, n, dtype, ag.to_code(original))
    LOWERED["yes"] += 1


@pytest.mark.parametrize("features, examples", [
    pytest.param((), 4, id="core"),
    pytest.param((), 25, id="core-long", marks=pytest.mark.slow),
    pytest.param(("loop_else_jumps", "python_returns", "while_true"), 15, id="jumps+returns+while_true",
                 marks=pytest.mark.slow),
    pytest.param(TENSOR_FEATURES, 12, id="every-feature", marks=pytest.mark.slow),   # containers, match, try...
])
def test_random_programs_give_the_same_on_both_executors(features, examples):
    # No shrinking: each program is compiled by XLA (CI time; a failure prints the example). The long runs are
    # marked slow: CI runs them as a step of its own (pyproject.toml).
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow],
              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    @given(tensor_functions(features), INPUTS, st.sampled_from([rt.int32, rt.int8, rt.int16, rt.int64, rt.uint8]))
    def check(source, inputs, dtype):   # (the argument's dtype: 400 core programs and 300 of every feature pass)
        check_both_executors_agree(source, inputs, dtype)
    check()
    assert LOWERED["yes"] > 0, LOWERED


GRADIENTS_LOWERED = {"yes": 0, "no": 0}
NESTED_LOOPS = GRADIENT_PRELUDE + """def f(x, y, m, n):
    a = x * 1.0
    b = y + V
    c = x * y
    for t0 in rt.range(n):
        ag.set_loop_options(maximum_iterations=3)
        for row1 in m:
            a = rt.tanh(a * rt.reduce_sum(row1) + b)
            if rt.reduce_sum(a) > 0.5:
                break
        c = 0.5 * c + 0.5 * rt.sin(a * rt.cast(t0, rt.float64))
    return """ + RESULT + "\n"


@examples(quick=1, full=4)   # each program's gradient is compiled by XLA: ~5 s each on 2 cores
def test_random_gradient_programs_with_bounded_nested_loops_give_the_same_on_both_executors(max_examples):
    # The differentiable programs of tests/gradients (tensor ifs, loops nested three deep with break, lists
    # appended in loops, a Variable), each tensor loop bounded (maximum_iterations or a static range or shape):
    # the loss and gradients compiled by XLA equal the numpy executor's (float64; XLA's own transcendental
    # functions and summation order: docs/XLA.md), or the program is refused with a LoweringError (a list read
    # whole after a loop that may stop early).
    @settings(max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                               HealthCheck.data_too_large],
              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    @given(gradient_programs(bounded=True), ARRAYS, st.integers(1, 3))
    @example(NESTED_LOOPS, (np.array([0.5, -1.0, 0.3]), np.array([1.2, 0.1, -0.4]), np.eye(3) * 0.7), 2)
    def check(source, arrays, trips):
        namespace = load_gradient_program(source)
        f, variable = namespace["f"], namespace["V"]
        inputs = [rt.constant(a) for a in arrays] + [rt.constant(trips, rt.int32)]
        expected = as_arrays(tape_inside(f, variable)(*inputs))
        compiled = ag.function(tape_inside(f, variable).python_function, jit_compile=True)
        try:
            got = as_arrays(compiled(*inputs))
        except rt.errors.LoweringError:
            GRADIENTS_LOWERED["no"] += 1
            return
        assert_all_close(got, expected, "jit_compile=True vs the numpy executor", rtol=1e-9, atol=1e-10)
        GRADIENTS_LOWERED["yes"] += 1
    check()
    assert GRADIENTS_LOWERED["yes"] > 0, GRADIENTS_LOWERED
