"""Random elementwise programs on shapes big enough for row-block regions: whatever the memory plan puts
in block buffers, pooled slots or fresh arrays, the compiled results are the interpreter's, bit for bit,
on one thread and with a worker (hypothesis)."""
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.backends import row_blocks
from runtime.backends.buffer_plan import PARALLEL_MIN_ELEMENTS
from runtime.backends.executor import generated_source, make_callable
from runtime.backends import interpreter
from test_executor import trace

ROWS = PARALLEL_MIN_ELEMENTS // 2 + 3  # two columns: just over the region threshold, uneven blocks
BINARY = [rt.add, rt.subtract, rt.multiply, rt.divide, rt.maximum, rt.minimum]

# A step: (kind, operand indices, constant). Operands index the values computed so far (inputs first).
steps = st.lists(st.tuples(st.sampled_from(["binary", "constant", "select", "cast", "sum"]),
                           st.integers(0, len(BINARY) - 1), st.integers(0, 63), st.integers(0, 63),
                           st.sampled_from([0.5, -1.0, 3.0])), min_size=2, max_size=12)


def _program(plan, outputs_mask):
    def f(x, y):
        values = [x, y]
        for kind, which, a, b, constant in plan:
            left, right = values[a % len(values)], values[b % len(values)]
            if kind == "binary":
                values.append(BINARY[which](left, right))
            elif kind == "constant":
                values.append(BINARY[which](left, constant))
            elif kind == "select":
                values.append(rt.where(rt.greater(left, right), left, right * constant))
            elif kind == "cast":
                values.append(rt.cast(rt.cast(left, rt.float16), rt.float32))
            else:  # not elementwise: ends a region, and reads its value whole
                values.append(left + rt.reduce_sum(right, axis=1, keepdims=True))
        chosen = [v for v, keep in zip(values[2:], outputs_mask) if keep]
        return chosen + [values[-1]]
    return f


@settings(max_examples=15, deadline=None)
@given(plan=steps, outputs_mask=st.lists(st.booleans(), min_size=12, max_size=12), spare=st.booleans())
def test_random_elementwise_programs_in_row_blocks_match_the_interpreter(plan, outputs_mask, spare):
    graph = trace(_program(plan, outputs_mask), (rt.float32, (ROWS, 2)), (rt.float32, (ROWS, 2)))
    compiled = make_callable(graph)
    rng = np.random.default_rng(len(plan))
    x, y = (rng.standard_normal((ROWS, 2)).astype(np.float32) for _ in range(2))
    y[5, 1] = 0.0  # divisions by zero: inf and nan, silently
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error")  # the compiled call itself must not warn
        expected = interpreter.run_graph(graph, (x, y))
        saved = row_blocks._spare_cores
        row_blocks._spare_cores = lambda: spare
        try:
            results = [compiled(x, y) for _ in range(2)]  # the second call reuses every buffer
        finally:
            row_blocks._spare_cores = saved
    for got in results:
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.shape == e.shape and g.tobytes() == e.tobytes()
    fresh = [(a, b) for a, b in zip(results[0], results[1]) if not (np.shares_memory(a, x) or np.shares_memory(a, y))]
    assert not any(np.shares_memory(a, b) for a, b in fresh)  # computed outputs are new arrays every call


def test_the_random_programs_do_reach_block_buffers():
    plan = [("constant", 2, 0, 0, 3.0), ("binary", 3, 2, 1, 0.5), ("constant", 0, 3, 0, -1.0)]
    source = generated_source(make_callable(trace(_program(plan, [False] * 12), (rt.float32, (ROWS, 2)),
                                                  (rt.float32, (ROWS, 2)))))
    assert "block0_rows = block0[:hi - lo]" in source and "_run_in_row_blocks(" in source
