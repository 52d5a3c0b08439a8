"""Both executors on random programs (hypothesis, the program generator of test_graph_equivalence.py): each
function of an int32 scalar gives the same value, or raises the same error, on the numpy executor and compiled
by XLA (jit_compile=True). A program XLA cannot compile must say so with a LoweringError (e.g. a tensor list),
never give another value."""
import pytest
from hypothesis import HealthCheck, Phase, given, settings

import autograph_lite as ag
import runtime as rt
from tensor_program_grammar import TENSOR_FEATURES, tensor_functions
from test_graph_equivalence import INPUTS, graph_outcome
from test_python_equivalence import load

pytest.importorskip("jax")
LOWERED = {"yes": 0, "no": 0}   # how many drawn programs compiled: the property must not hold vacuously


def check_both_executors_agree(source, inputs):
    original = load(source)
    numpy_function, xla_function = ag.function(original), ag.function(original, jit_compile=True)
    for n in inputs:
        expected = graph_outcome(numpy_function, n)
        try:
            got = graph_outcome(xla_function, n)
        except rt.errors.LoweringError:
            LOWERED["no"] += 1
            return
        if got[0] == "raised" and got[1] == "LoweringError":
            LOWERED["no"] += 1
            return
        assert got == expected, (source, n, ag.to_code(original))
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
    @given(tensor_functions(features), INPUTS)
    def check(source, inputs):
        check_both_executors_agree(source, inputs)
    check()
    assert LOWERED["yes"] > 0, LOWERED
