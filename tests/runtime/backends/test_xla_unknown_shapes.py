"""Ops whose sizes a [None] signature leaves unknown when traced, compiled by XLA for the shapes they meet: random
lengths (0 included) and indices (negative, past the end, repeated) give the numpy executor's value or its error,
never a value JAX made up (a clamped index, an update broadcast to every index, a row of another length).

XLA fixes every shape when compiling, so these ops are checked there against the shapes of each call; the bugs
this found were silently wrong results (docs/XLA.md; tests/runtime/backends/test_xla_regressions.py).
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import runtime as rt
from example_budgets import examples

pytest.importorskip("jax")
SPEC = rt.TensorSpec
ROWS, INDICES, POINTS = SPEC([None, 2]), SPEC([None], rt.int32), SPEC([None, 1], rt.int32)


def _scatter_into_an_array(x, i):
    ta = rt.TensorArray(rt.float32, size=4, element_shape=[2]).scatter(i, x)
    return ta.read(1) + ta.read(3) * 10.0


def _unstacked(x):
    return rt.TensorArray(rt.float32, size=0, dynamic_size=True).unstack(x).stack() * 2.0


# name: (function, signature, what each argument is: "rows" a [n, 2] float32, "indices" [m] int32, "points" [m, 1])
PROGRAMS = {
    "gather": (lambda x, i: rt.gather(x, i), [ROWS, INDICES], ("rows", "indices")),
    "gather_nd": (lambda x, i: rt.gather_nd(x, i), [ROWS, POINTS], ("rows", "points")),
    "subscript": (lambda x, i: x[i[0]] + x[-1], [ROWS, INDICES], ("rows", "indices")),
    "update": (lambda x, i, u: rt.tensor_scatter_nd_update(x, i, u), [ROWS, POINTS, ROWS], ("rows", "points", "rows")),
    "add": (lambda x, i, u: rt.tensor_scatter_nd_add(x, i, u), [ROWS, POINTS, ROWS], ("rows", "points", "rows")),
    "scatter_nd": (lambda i, u: rt.scatter_nd(i, u, [4, 2]), [POINTS, ROWS], ("points", "rows")),
    "segment_sum": (lambda x, i: rt.unsorted_segment_sum(x, i, 4), [ROWS, INDICES], ("rows", "indices")),
    "one_hot": (lambda i: rt.one_hot(i, 3), [INDICES], ("indices",)),
    "array_scatter": (_scatter_into_an_array, [ROWS, INDICES], ("rows", "indices")),
    "unstack_into_an_array": (_unstacked, [ROWS], ("rows",)),
    "unstack": (lambda x: rt.unstack(x, num=2), [ROWS], ("rows",)),
    "split": (lambda x: rt.split(x, [1, 2]), [ROWS], ("rows",)),
    "reshape": (lambda x: rt.reshape(x, [-1, 4]), [ROWS], ("rows",)),
    "reflect": (lambda x: rt.pad(x, [[1, 2], [0, 0]], mode="REFLECT"), [ROWS], ("rows",)),
    "top_k": (lambda x: rt.math.top_k(rt.reshape(x, [-1]), 3), [ROWS], ("rows",)),
    "variable": (None, [ROWS], ("rows",)),   # a Variable of shape [3, 2] assigned the rows (built per call)
}


def outcome(function, signature, args, jit_compile):
    try:
        results = rt.function(function, input_signature=signature, jit_compile=jit_compile)(*args)
    except rt.errors.InvalidArgumentError as error:
        return ("raised", str(error).split("\n")[0])
    results = results if isinstance(results, (list, tuple)) else [results]
    return ("value", [(r.numpy().dtype, r.numpy().shape, r.numpy().tolist()) for r in results])


def variable_program():
    weights = rt.Variable(np.zeros((3, 2), np.float32), name="weights")

    def assign(x):
        weights.assign(x)
        return weights.read_value() + 1.0
    return assign


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(PROGRAMS)))
    _, _, kinds = PROGRAMS[name]
    count = draw(st.integers(0, 4))   # indices and update rows agree in number, mostly
    args = []
    for kind in kinds:
        length = count if kind != "rows" or draw(st.booleans()) else draw(st.integers(0, 5))
        if kind == "rows":
            args.append(np.arange(length * 2, dtype=np.float32).reshape(length, 2) - 3.0)
        else:
            values = draw(st.lists(st.integers(-5, 5), min_size=length, max_size=length))
            args.append(np.array(values, np.int32).reshape((length, 1) if kind == "points" else (length,)))
    return name, args


@examples(quick=3, full=80)   # ~0.2 s an example (two calls compiled): ~16 s in CI's slow step
def test_ops_of_sizes_known_only_when_called_give_the_numpy_executors_value_or_error(max_examples):
    @settings(max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow],
              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    @given(calls())
    def check(call):
        name, args = call
        function, signature, _ = PROGRAMS[name]
        expected = outcome(function or variable_program(), signature, args, None)
        got = outcome(function or variable_program(), signature, args, True)
        assert got == expected, (name, [a.tolist() for a in args])
    check()
