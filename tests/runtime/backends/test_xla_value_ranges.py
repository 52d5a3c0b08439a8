"""jit_compile=True leaves out an index check only where the value range analysis proves the index in range
(runtime/backends/xla/value_ranges.py): a data-dependent index kept in a list (Viterbi's backtracking) compiles
with no check, and every index the analysis cannot bound keeps its check, so a bad index is still the numpy
executor's InvalidArgumentError (XLA would clamp it silently)."""
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from example_budgets import examples
from runtime.backends.xla.value_ranges import analyze
from test_xla_tensor_arrays import same_error

jax = pytest.importorskip("jax")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks"))
from compute_loops import numpy_viterbi, viterbi  # noqa: E402


def checked_ops(function, *args):
    """The types of the ops whose run-time checks the compiled program of ``function`` on ``args`` keeps."""
    function(*args)   # (compiled by its first call)
    return [op.type for op in function.get_concrete_function(*args)._run.program.checks]


def facts_of(program, *specs):
    """{op name: the analysis's (lowest, highest) of its first output, or None} of ``program``'s top graph."""
    graph = ag.function(program).get_concrete_function(*specs).graph
    analysis = analyze(graph, [None] * len(graph.inputs))
    return {op.name: analysis.known(op.outputs[0]) for op in graph.operations if op.outputs}


# --- Viterbi: the backtracking loop's gather needs no check --------------------------------------------------
def test_viterbis_backtracking_gather_compiles_without_a_check_and_gives_the_numpy_executors_path():
    rng = np.random.default_rng(7)
    args = [rng.normal(size=(30, 16)).astype(np.float32), rng.normal(size=(16, 16)).astype(np.float32),
            rng.normal(size=16).astype(np.float32)]
    compiled = ag.function(viterbi, jit_compile=True)
    path = compiled(*args).numpy()
    assert path.tolist() == ag.function(viterbi)(*args).numpy().tolist() == numpy_viterbi(*args).tolist()
    assert checked_ops(compiled, *args) == []   # neither the gather's check nor any other is left
    ir = compiled.experimental_get_compiler_ir(*args)
    assert "clamp" not in ir   # nor a clamp of its index


def test_the_analysis_follows_an_argmax_through_a_list_and_a_loop():
    spec = rt.TensorSpec([10], rt.float32)

    def kept_in_a_list(x):
        picks = []
        for i in rt.range(4):
            picks.append(rt.argmax(x + rt.cast(i, rt.float32), output_type=rt.int32))
        state = rt.argmin(x, output_type=rt.int32)
        for i in rt.range(3):
            state = rt.gather(rt.stack(picks), i) + 0 * state
        return state, rt.clip_by_value(state - 20, -3, 100), rt.cast(state, rt.int8) * 2, state // 3
    graph = ag.function(kept_in_a_list).get_concrete_function(spec).graph
    analysis = analyze(graph, [None])
    assert [analysis.known(t) for t in graph.outputs] == [(0, 9), (-3, -3), (0, 18), (0, 3)]


def list_read_at_an_argmax(x):
    values = []
    for i in rt.range(4):
        values.append(x * rt.cast(i, rt.float32))
    return values[rt.argmax(x[:4], output_type=rt.int32)], values[rt.argmax(x, output_type=rt.int32)]


def test_a_list_read_at_an_index_its_length_bounds_has_no_check_and_one_it_does_not_keeps_it():
    x = rt.constant([0.0, 3.0, 1.0, 2.0, 0.5])
    compiled = ag.function(list_read_at_an_argmax, jit_compile=True)
    expected = ag.function(list_read_at_an_argmax)(x)
    assert [t.numpy().tolist() for t in compiled(x)] == [t.numpy().tolist() for t in expected]
    assert checked_ops(compiled, x) == ["TensorListGetItem"]   # the second read: an index up to 4, 4 elements
    assert "index 4" in same_error(list_read_at_an_argmax, rt.constant([0.0, 0.0, 1.0, 2.0, 5.0]))


# --- where the range must not be claimed: each check stays, and fails as the numpy executor's ----------------
def argmax_plus_one(x):
    return rt.gather(x, rt.argmax(x, output_type=rt.int32) + 1)


def test_an_argmax_plus_one_into_the_same_axis_keeps_its_check():
    assert facts_of(argmax_plus_one, rt.TensorSpec([5], rt.float32))["AddV2"] == (1, 5)
    good = rt.constant([3.0, 1.0, 0.0, 0.0, 0.0])
    assert ag.function(argmax_plus_one, jit_compile=True)(good).numpy() == 1.0
    assert checked_ops(ag.function(argmax_plus_one, jit_compile=True), good) == ["GatherV2"]
    assert "= 5 is not in [0, 5)" in same_error(argmax_plus_one, rt.constant([0.0, 1.0, 2.0, 3.0, 4.0]))


def list_with_a_users_value(x, k):
    picks = [k]   # a user's value in the list too: its range is unknown
    for i in rt.range(3):
        picks.append(rt.argmax(x * rt.cast(i + 1, rt.float32), output_type=rt.int32))
    state = rt.argmax(x, output_type=rt.int32)
    for i in rt.range(4):
        state = rt.gather(rt.stack(picks), i)
        state = rt.gather(rt.range(5), state)
    return state


def test_a_list_that_also_holds_a_users_value_keeps_the_checks_of_what_is_read_from_it():
    x = rt.constant([0.0, 4.0, 1.0, 2.0, 3.0])
    assert ag.function(list_with_a_users_value, jit_compile=True)(x, rt.constant(2)).numpy() == 1
    assert "= 7 is not in [0, 5)" in same_error(list_with_a_users_value, x, rt.constant(7))
    assert "= -1 is not in [0, 5)" in same_error(list_with_a_users_value, x, rt.constant(-1))


def growing_state(x):
    state = rt.argmax(x, output_type=rt.int32)
    total = rt.constant(0.0)
    for i in rt.range(6):
        total += rt.gather(x, state)
        state = state + 1   # grows each iteration: widened, no range claimed
    return total


def test_a_loop_carried_value_that_grows_each_iteration_is_widened_and_keeps_its_check():
    x = np.zeros(8, np.float32)
    x[0] = 1.0
    assert ag.function(growing_state, jit_compile=True)(x).numpy() == 1.0
    x[0], x[5] = 0.0, 1.0
    assert "= 8 is not in [0, 8)" in same_error(growing_state, x)


def int8_sum(x):
    small = rt.cast(rt.argmax(x, output_type=rt.int32), rt.int8)   # [0, 99]
    return rt.gather(rt.range(200), rt.cast(small + small, rt.int32))   # [0, 198] if it could not wrap: it can


def test_an_int8_sum_that_could_wrap_around_claims_no_range():
    facts = facts_of(int8_sum, rt.TensorSpec([100], rt.float32))
    assert facts["Cast"] == (0, 99) and facts["AddV2"] is None and facts["Cast_1"] == (-128, 127)
    x = np.zeros(100, np.float32)
    x[10] = 1.0
    assert ag.function(int8_sum, jit_compile=True)(x).numpy() == 20
    x[10], x[99] = 0.0, 1.0   # 99 + 99 wraps around to -58
    assert "= -58 is not in [0, 200)" in same_error(int8_sum, x)


def cast_from_float(x):
    return rt.gather(rt.range(10), rt.cast(x[0] * 10.0, rt.int32))


def test_a_cast_from_float_claims_no_range():
    assert facts_of(cast_from_float, rt.TensorSpec([2], rt.float32))["Cast"] is None
    assert ag.function(cast_from_float, jit_compile=True)(rt.constant([0.35, 0.0])).numpy() == 3
    assert "= 15 is not in [0, 10)" in same_error(cast_from_float, rt.constant([1.5, 0.0]))


def test_a_counter_bounded_by_its_condition_is_narrowed_and_a_loop_that_never_stops_growing_is_not():
    def loops(x):
        i = rt.constant(0)
        while i < 7:
            i += 2
        j = rt.constant(0)
        while x[0] > 0.0:
            j += 1
            x = x - 1.0
        return i, j
    graph = ag.function(loops).get_concrete_function(rt.TensorSpec([3], rt.float32)).graph
    analysis = analyze(graph, [None])
    assert analysis.known(graph.outputs[0]) == (0, 8)   # the body runs with i <= 6: i + 2 <= 8
    assert analysis.known(graph.outputs[1]) is None      # (0, int32's max): no narrower than its dtype's


# --- random integer programs: the compiled one and the numpy executor agree, on values or errors --------------
TABLE = 12
STEPS = st.lists(st.tuples(st.sampled_from(["add", "sub", "mul", "clip", "min", "max", "int8_add", "uint8",
                                            "from_float", "floordiv", "mod", "argmax", "loop_add", "loop_min",
                                            "list", "neg", "gather_rows", "while_up",
                                            "branch"]),
                           st.integers(0, 30), st.integers(0, 30), st.integers(-3, 13)), min_size=1, max_size=6)


def random_program(steps):
    def program(x, user):
        pool = [rt.argmax(x, output_type=rt.int32), user]
        for kind, a, b, c in steps:   # (a Python loop: unrolled when traced)
            u, v = pool[a % len(pool)], pool[b % len(pool)]
            if kind == "add":
                pool.append(u + v)
            elif kind == "sub":
                pool.append(u - v)
            elif kind == "mul":
                pool.append(u * c)
            elif kind == "clip":
                pool.append(rt.clip_by_value(u, min(c, 2), max(c, 2)))
            elif kind == "min":
                pool.append(rt.minimum(u, v))
            elif kind == "max":
                pool.append(rt.maximum(u, c))
            elif kind == "int8_add":
                pool.append(rt.cast(rt.cast(u, rt.int8) + rt.cast(v, rt.int8), rt.int32))
            elif kind == "uint8":
                pool.append(rt.cast(rt.cast(u, rt.uint8), rt.int32))
            elif kind == "from_float":
                pool.append(rt.cast(rt.cast(u, rt.float32) * 0.5, rt.int32))
            elif kind == "floordiv":
                pool.append(u // (c if c != 0 else 2))
            elif kind == "mod":
                pool.append(u % (c if c != 0 else 3))
            elif kind == "argmax":
                pool.append(rt.argmax(x * rt.cast(u, rt.float32), output_type=rt.int32))
            elif kind == "neg":
                pool.append(-u)
            elif kind == "while_up":   # a loop bounded by its condition only
                w = rt.maximum(u, -10)
                while w < c:
                    w += 2
                pool.append(w)
            elif kind == "branch":   # a tensor if: the union of its branches
                if u > v:
                    w = u - 1
                else:
                    w = rt.argmax(x, output_type=rt.int32) + c
                pool.append(w)
            elif kind == "gather_rows":   # a vector of indices, then one of its elements
                rows = rt.gather(rt.reshape(rt.range(TABLE * 2), [TABLE, 2]), rt.stack([u, v, u]))
                pool.append(rows[c % 3, c % 2])
            elif kind == "loop_add":
                w = u
                for i in rt.range(abs(c) % 4):
                    w = w + v
                pool.append(w)
            elif kind == "loop_min":
                w = u
                for i in rt.range(3):
                    w = rt.minimum(w + 1, c)
                pool.append(w)
            else:
                kept = [u]
                for i in rt.range(3):
                    kept.append(rt.argmax(x + rt.cast(i, rt.float32), output_type=rt.int32))
                pool.append(rt.gather(rt.stack(kept), v))
        table = rt.range(TABLE) * 10
        return rt.gather(table, pool[-1]), table[pool[-2]], pool[-1]
    return program


@examples(quick=4, full=25)
def test_random_integer_programs_compile_to_the_numpy_executors_values_or_errors(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(STEPS, st.integers(-20, 40), st.integers(0, 7))
    def check(steps, user, peak):
        program = random_program(steps)
        x = np.zeros(8, np.float32)
        x[peak] = 1.0
        args = (x, np.int32(user))
        try:
            expected = [t.numpy() for t in ag.function(program)(*args)]
        except (rt.errors.InvalidArgumentError, ValueError) as error:   # (a subscript's is a ValueError)
            with pytest.raises(type(error)) as compiled_error:
                ag.function(program, jit_compile=True)(*args)
            assert type(compiled_error.value) is type(error) and str(compiled_error.value) == str(error)
            return
        got = [t.numpy() for t in ag.function(program, jit_compile=True)(*args)]
        assert [g.tolist() for g in got] == [e.tolist() for e in expected]
    check()


def scattered_at_argmaxes(x):
    rows = rt.reshape(x, [2, 4])
    at = rt.argmax(rows, axis=1, output_type=rt.int32)   # each in [0, 3]: in a TensorArray of 4
    tensor = rt.TensorArray(rt.float32, size=4).scatter(at, rt.reshape(rt.range(2.0), [2, 1]) * rt.ones([2, 3]))
    table = rt.reshape(rt.range(16), [4, 4])
    return (tensor.gather(at), rt.gather_nd(table, rt.stack([at, at], axis=1)), rt.gather(x, at + 4),
            rt.gather(table, at, axis=1), rt.gather(table, rt.reshape(at, [2, 1]), axis=-1))


def test_scatters_gathers_and_gather_nd_at_indices_in_range_have_no_index_check():
    x = rt.constant([0.0, 3.0, 1.0, 2.0, 5.0, 0.5, 0.5, 0.0])
    compiled = ag.function(scattered_at_argmaxes, jit_compile=True)
    expected = ag.function(scattered_at_argmaxes)(x)
    assert [t.numpy().tolist() for t in compiled(x)] == [t.numpy().tolist() for t in expected]
    # (the TensorArray's gather still checks that its elements were written: not an index check)
    assert checked_ops(compiled, x) == ["TensorListGather"]


def test_a_loop_limit_of_a_known_range_bounds_its_counter_in_the_body():
    def counted_to_an_argmax(x):
        i = rt.constant(0)
        total = rt.constant(0.0)
        while i < rt.argmax(x, output_type=rt.int32):
            total += x[i]   # i <= 6 here (the argmax of 8 elements is at most 7): no check
            i += 1
        return total
    x = rt.constant([1.0, 2.0, 3.0, 0.0, 9.0, 0.0, 0.0, 0.0])
    compiled = ag.function(counted_to_an_argmax, jit_compile=True)
    assert compiled(x).numpy() == ag.function(counted_to_an_argmax)(x).numpy() == 6.0
    assert checked_ops(compiled, x) == []


def test_a_value_whose_shape_differs_from_the_one_a_range_relies_on_is_a_lowering_error_not_a_wrong_range():
    from runtime.backends.xla.range_facts import KnownRanges

    graph = ag.function(argmax_plus_one).get_concrete_function(rt.TensorSpec([5], rt.float32)).graph
    ranges = KnownRanges()
    ranges._ranges, ranges.facts = {}, analyze(graph, [None])
    ranges.declare_facts(graph.inputs, [jax.numpy.zeros(5)])   # (its shape, as declared: nothing to say)
    with pytest.raises(rt.errors.LoweringError, match=r"declares shape \(5,\) but its value has \(6,\)"):
        ranges.declare_facts(graph.inputs, [jax.numpy.zeros(6)])   # (argmax's range relies on 5)
