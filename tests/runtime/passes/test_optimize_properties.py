"""Random programs: eager == interpreted traced graph == compiled optimized graph, bit for bit."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.backends import interpreter
from runtime.core.context import graph_scope
from runtime.backends.executor import make_callable
from runtime.core.graph import FuncGraph
from runtime.passes import optimize_graph

BINARY = {"add": rt.add, "subtract": rt.subtract, "multiply": rt.multiply, "maximum": rt.maximum,
          "minimum": rt.minimum}
FLOAT_BINARY = {**BINARY, "divide": rt.divide}
UNARY = {"negative": rt.negative, "abs": rt.abs, "identity": rt.identity, "square": rt.square}
# Neutral and near-neutral constants make the simplifier and folder work; repeats make CSE work.
CONSTANTS = [0, 1, 2, -1, [1, 1, 1], [0, 0, 0], [1, 2, 1]]
FLOAT_CONSTANTS = [0.0, -0.0, 1.0, 0.5, [1.0, 1.0, 1.0], [[1.0], [1.0]], "folded"]


def steps(binary):
    op = st.sampled_from(sorted(binary) + sorted(UNARY) + ["cast_same"])
    operand = st.integers(0, 50)
    constant = st.one_of(st.none(), st.integers(0, 6))
    return st.lists(st.tuples(op, operand, operand, constant, st.booleans()), min_size=1, max_size=12)


def run_program(program, x, y, binary, constants):
    """Build the program's result from x and y with runtime ops (eagerly or while tracing)."""
    values = [x, y]
    for name, i, j, constant_index, constant_first in program:
        a, b = values[i % len(values)], values[j % len(values)]
        if constant_index is not None:
            b = constants[constant_index]
            if b == "folded":  # a computation on constants only: the folder evaluates it
                b = rt.add(rt.multiply(rt.constant(2.0), 3.0), -5.0)
        if name == "cast_same":
            result = rt.cast(a, a.dtype)
        elif name in UNARY:
            result = UNARY[name](a)
        else:
            result = binary[name](b, a) if constant_first else binary[name](a, b)
        values.append(result)
    return values[-1], values[len(values) // 2]


def check(program, x, y, binary, constants):
    with np.errstate(all="ignore"):
        eager = [t.numpy() for t in run_program(program, rt.constant(x), rt.constant(y), binary, constants)]
        graph = FuncGraph("program")
        with graph_scope(graph):
            px = graph.add_placeholder(x.dtype, x.shape, name="x")
            py = graph.add_placeholder(y.dtype, y.shape, name="y")
            graph.outputs = list(run_program(program, px, py, binary, constants))
        interpreted = interpreter.run_graph(graph, [x, y])
        optimized = optimize_graph(graph)
        compiled = make_callable(optimized)(x, y)
        compiled_unoptimized = make_callable(graph)(x, y)
    assert len(optimized.operations) <= len(graph.operations)
    for results in (interpreted, compiled, compiled_unoptimized):
        for expected, got in zip(eager, results):
            got = np.asarray(got)
            expected = np.asarray(expected)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_array_equal(got, expected)
            assert np.array_equal(np.signbit(got), np.signbit(expected))  # -0.0 stays -0.0


float_arrays = hnp.arrays(np.float32, (2, 3), elements=st.floats(width=32, allow_nan=True, allow_infinity=True))
float_rows = hnp.arrays(np.float32, (3,), elements=st.floats(width=32, allow_nan=True, allow_infinity=True))
int_arrays = hnp.arrays(np.int32, (2, 3), elements=st.integers(-1000, 1000))
int_rows = hnp.arrays(np.int32, (3,), elements=st.integers(-1000, 1000))


@settings(max_examples=150, deadline=None)
@given(steps(FLOAT_BINARY), float_arrays, float_rows)
def test_random_float_programs_agree_everywhere(program, x, y):
    check(program, x, y, FLOAT_BINARY, FLOAT_CONSTANTS)


@settings(max_examples=150, deadline=None)
@given(steps(BINARY), int_arrays, int_rows)
def test_random_int_programs_agree_everywhere(program, x, y):
    check(program, x, y, BINARY, CONSTANTS)
