"""jit_compile=True with a Python list appended to in a tensor loop nested in the tensor loop that carries it: the
outer loop reserves the slots of every append (its trip count times the inner loops' trip counts times their
appends, learnt by lowering its body abstractly), and the inner loops carry the list as it is. When every loop
is exactly counted, the list's length is known after the loops and ``rt.stack`` gives the numpy executor's exact
values; when a loop may stop early or is only bounded (``maximum_iterations``, ``rt.range(i)`` of the outer
counter) the list is read by index and ``len``, and reading it whole is the LoweringError naming it."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from runtime.core import nest
from support.example_budgets import examples
from test_xla_backend import assert_same

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
X = rt.constant(np.arange(8, dtype=np.float32).reshape(4, 2) / 4.0)


def exactly(program, *args):
    """The numpy executor's results and the compiled function's, checked bit for bit equal; returns them."""
    expected = nest.flatten(ag.function(program)(*args))
    got = nest.flatten(ag.function(program, jit_compile=True)(*args))
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        e, g = np.asarray(e), np.asarray(g)
        assert (e.dtype, e.shape) == (g.dtype, g.shape)
        np.testing.assert_array_equal(g, e)
    return [np.asarray(g) for g in got]


def flat(x):
    out = []
    for i in rt.range(4):
        for j in rt.range(3):
            out.append(x[i] * rt.cast(j, rt.float32))
    return rt.stack(out)


def around_and_inside(x):   # appends before, in and after the inner loop, and a list not empty at the start
    out = [x[0]]
    for i in rt.range(4):
        out.append(x[i] + 100.0)
        for j in rt.range(1, 3):
            out.append(x[i] * rt.cast(j, rt.float32))
        out.append(x[i] - 100.0)
    return rt.stack(out), len(out)


def three_deep(x):
    out = []
    for i in rt.range(2):
        for j in rt.range(3):
            for k in rt.range(2):
                out.append(x[i] * rt.cast(j * 10 + k, rt.float32))
    return rt.stack(out)


def appended_then_popped(x):
    out = []
    for i in rt.range(3):
        for j in rt.range(3):
            out.append(x[i] + rt.cast(j, rt.float32))
        out.pop()
    return rt.stack(out)


def two_inner_loops(x):
    out = []
    for i in rt.range(3):
        for j in rt.range(2):
            out.append(x[i] + rt.cast(j, rt.float32))
        for row in x:   # a tensor of static shape: 4 iterations
            out.append(row * rt.cast(i, rt.float32))
    return rt.stack(out)


def test_appends_in_exactly_counted_nested_loops_stack_to_the_numpy_executors_exact_values():
    stacked = exactly(flat, X)[0]
    assert stacked.shape == (12, 2)
    np.testing.assert_array_equal(stacked, [X.numpy()[i] * j for i in range(4) for j in range(3)])
    stacked, length = exactly(around_and_inside, X)
    assert stacked.shape == (17, 2) and int(length) == 17
    assert exactly(three_deep, X)[0].shape == (12, 2)
    assert exactly(appended_then_popped, X)[0].shape == (6, 2)
    assert exactly(two_inner_loops, X)[0].shape == (18, 2)
    compiled = ag.function(flat, jit_compile=True)
    compiled(X)
    compiled(X * 2.0)
    assert compiled.experimental_get_tracing_count() == 1


def test_an_inner_list_made_per_outer_iteration_gives_a_stack_of_stacks():
    def rows(x):
        out = []
        for i in rt.range(4):
            row = []
            for j in rt.range(3):
                row.append(x[i] * rt.cast(j, rt.float32))
            out.append(rt.stack(row))
        return rt.stack(out)

    def triangle(x):   # the rows' lengths change: each row is read by index and len
        out = []
        for i in rt.range(1, 4):
            row = []
            for j in rt.range(i):
                row.append(x[j] * rt.cast(i, rt.float32))
            out.append(row[len(row) - 1] + rt.cast(len(row), rt.float32))
        return rt.stack(out)
    assert exactly(rows, X)[0].shape == (4, 3, 2)
    assert exactly(triangle, X)[0].tolist() == [[1.0, 1.25], [3.0, 3.5], [6.0, 6.75]]


def triangular(x):
    out = []
    for i in rt.range(4):
        for j in rt.range(i):   # at most 3 iterations: 4 * 3 slots; 0 + 1 + 2 + 3 appends, known when compiling
            out.append(x[i] * rt.cast(j + 1, rt.float32))
    return len(out), out[len(out) - 1], out[2], rt.stack(out)


def rows_of_the_counter(x):
    out = []
    for i in rt.range(1, 4):
        for j in rt.range(i // 2, i + 1):
            out.append(x[j] + rt.cast(i * 10, rt.float32))
        out.append(x[0])
    return rt.stack(out)


def inner_break(x):
    out = []
    for i in rt.range(4):
        for j in rt.range(3):
            if rt.reduce_sum(x[i]) * rt.cast(j, rt.float32) > 3.0:
                break
            out.append(x[i] * rt.cast(j, rt.float32))
    return len(out), out[len(out) - 1], out[-2]


def under_an_if(x):
    out = []
    for i in rt.range(4):
        if i % 2 == 0:
            for j in rt.range(2):
                out.append(x[i] * rt.cast(j + 1, rt.float32))
    return len(out), out[3]


def test_an_inner_loop_over_the_counters_range_is_counted_iteration_by_iteration():
    length, last, third, stacked = exactly(triangular, X)
    assert [length.tolist(), last.tolist(), third.tolist(), stacked.shape] == [6, [4.5, 5.25], [2.0, 2.5], (6, 2)]
    assert exactly(rows_of_the_counter, X)[0].shape == (10, 2)


def test_lengths_known_only_when_the_graph_runs_are_read_by_index_and_len():
    assert exactly(inner_break, X)[0] == 9
    assert exactly(under_an_if, X)[0] == 4


def bounded_inner(x, n):
    out = []
    for i in rt.range(4):
        for j in rt.range(n):
            ag.set_loop_options(maximum_iterations=2)
            out.append(x[i] + rt.cast(j, rt.float32))
    return len(out), out[0]


def bounded_outer(x, n):
    out = []
    i = 0
    while i < n:
        ag.set_loop_options(maximum_iterations=3)
        for j in rt.range(2):
            out.append(x[i] * rt.cast(j + 1, rt.float32))
        i += 1
    return len(out), out[len(out) - 1]


@pytest.mark.parametrize("n", [1, 2, 7])   # 7: maximum_iterations stops both executors
def test_maximum_iterations_bounds_either_loop(n):
    assert exactly(bounded_inner, X, rt.constant(n))[0] == 4 * min(n, 2)
    assert exactly(bounded_outer, X, rt.constant(n))[0] == 2 * min(n, 3)


def test_no_append_in_a_bounded_loop_reads_as_the_numpy_executors_error():
    with pytest.raises(rt.errors.InvalidArgumentError) as numpy_error:
        ag.function(bounded_inner)(X, rt.constant(0))
    with pytest.raises(rt.errors.InvalidArgumentError) as xla_error:
        ag.function(bounded_inner, jit_compile=True)(X, rt.constant(0))
    assert str(xla_error.value) == str(numpy_error.value)
    assert "list index 0 is out of range for a list of length 0" in str(xla_error.value)


def stacked_after_a_break(x):
    out = []
    for i in rt.range(4):
        for j in rt.range(3):
            if rt.reduce_sum(x[i]) * rt.cast(j, rt.float32) > 3.0:
                break
            out.append(x[i] * rt.cast(j, rt.float32))
    return rt.stack(out)


def stacked_after_a_bounded_outer_loop(x, n):
    out = []
    i = 0
    while i < n:
        ag.set_loop_options(maximum_iterations=3)
        for j in rt.range(i):
            out.append(x[i])
        i += 1
    return rt.stack(out)


def unbounded_inner(x, n):
    out = []
    for i in rt.range(4):
        for j in rt.range(n):
            out.append(x[i])
    return len(out)


@pytest.mark.parametrize("program, message, line", [
    (stacked_after_a_break, r"^TensorListStack \(TensorListStack\) cannot be compiled with jit_compile=True: it reads "
                            r"list 'out' whole.*known only when the graph runs.*TensorArray of a fixed size",
     "return rt.stack(out)"),
    (stacked_after_a_bounded_outer_loop, r"^TensorListStack .*it reads list 'out' whole", "return rt.stack(out)"),
    (unbounded_inner, r"^while \(While\) cannot be compiled with jit_compile=True: list 'out' is appended to in "
                      r"this loop, nested in loop while that carries the list.*number of iterations is known only "
                      r"when the graph runs.*maximum_iterations=n.*jit_compile='auto'", "for j in rt.range(n):"),
])
def test_what_needs_a_length_known_when_compiling_is_a_lowering_error_naming_the_line_and_auto_falls_back(
        program, message, line, caplog):
    args = (X,) if program is stacked_after_a_break else (X, rt.constant(2))
    with pytest.raises(rt.errors.LoweringError, match=message) as raised:
        ag.function(program, jit_compile=True)(*args)
    assert "test_xla_nested_lists.py\", line" in str(raised.value) and f"in {program.__name__}" in str(raised.value)
    assert line in str(raised.value)
    auto = ag.function(program, jit_compile="auto")(*args)
    assert "jit_compile='auto': " + str(raised.value).splitlines()[0] in caplog.text
    assert "on the numpy executor instead" in caplog.text
    assert_same(ag.function(program)(*args), auto)


def test_a_gradient_through_nested_appends_matches_the_numpy_executor_and_jax_grad():
    def program(x, w):
        with rt.GradientTape() as tape:
            tape.watch(w)
            out = []
            for i in rt.range(4):
                for j in rt.range(3):
                    out.append(rt.tanh(rt.linalg.matvec(w, x[i]) * rt.cast(j + 1, rt.float32)))
            loss = rt.reduce_sum(rt.stack(out) ** 2.0)
        return tape.gradient(loss, w)

    def in_jax(x, w):
        out = [jnp.tanh(w @ x[i] * (j + 1)) for i in range(4) for j in range(3)]
        return jnp.sum(jnp.stack(out) ** 2.0)
    w = rt.constant(np.array([[0.5, -0.3], [0.2, 0.8]], np.float32))
    expected = ag.function(program)(X, w)
    got = ag.function(program, jit_compile=True)(X, w)
    assert_same(expected, got)
    np.testing.assert_allclose(got.numpy(), jax.grad(in_jax, argnums=1)(X.numpy(), w.numpy()), rtol=1e-5, atol=1e-6)


def test_a_dynamic_tensor_array_written_in_nested_loops_is_read_by_index_and_size():
    def at_counters(x):   # i * 3 + j: a known range, so the buffer has up to its highest index
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(2):
            for j in rt.range(3):
                ta = ta.write(i * 3 + j, x[i] * rt.cast(j, rt.float32))
        return ta.size(), ta.read(4), ta.gather([5, 0])

    def at_a_running_count(x):   # k: no known range, one slot per write the loops' bounds allow (4 * 3)
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=[2])
        k = 0
        for i in rt.range(4):
            for j in rt.range(i):
                ta = ta.write(k, x[i] * rt.cast(j, rt.float32))
                k += 1
        return ta.size(), ta.read(ta.size() - 1)
    assert [v.tolist() for v in exactly(at_counters, X)] == [6, [0.5, 0.75], [[1.0, 1.5], [0.0, 0.0]]]
    assert [v.tolist() for v in exactly(at_a_running_count, X)] == [6, [3.0, 3.5]]


@examples(quick=3, full=30)   # each example compiles a new program: ~0.5 s each on 2 cores
def test_random_nested_appends_give_the_numpy_executors_exact_values(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(outer=st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(1, 2)),
           inner=st.sampled_from(["constant", "counter", "counter plus one"]), inner_stop=st.integers(0, 3),
           before=st.integers(0, 1), inside=st.integers(1, 2), after=st.integers(0, 1))
    def check(outer, inner, inner_stop, before, inside, after):
        start, stop, step = outer

        def program(x):
            out = [x[0]]
            for i in rt.range(start, stop, step):
                for _ in range(before):
                    out.append(x[i] + 10.0)
                limit = inner_stop if inner == "constant" else i if inner == "counter" else i + 1
                for j in rt.range(limit):
                    for k in range(inside):
                        out.append(x[i] * rt.cast(j * 3 + k, rt.float32))
                for _ in range(after):
                    out.append(x[i] - 10.0)
            # every loop exactly counted (the inner one iteration by iteration): the length is known when compiling
            return rt.stack(out), len(out), out[len(out) - 1]
        exactly(program, X)
    check()
