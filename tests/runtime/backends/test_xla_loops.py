"""jit_compile=True through tensor loops that grow lists: gradients (the forward loop's accumulators), lists
appended to in the loop. Their buffers are sized from the loop's bound (a counter against a limit known when
compiling, or maximum_iterations); the results equal the numpy executor's, and a loop without a bound, or a
list whose length after the loop is known only at run time, is a LoweringError naming the list and the fix."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_xla_backend import assert_same, both

jax = pytest.importorskip("jax")
V = rt.constant([0.3, -0.7])


def tanh_chain_gradient(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(5):   # a trip count known when compiling: 5
            y = rt.tanh(y) * 1.5 + rt.cast(i, rt.float32) * 0.1
        loss = rt.reduce_sum(y * x)
    return loss, tape.gradient(loss, x)


def test_a_gradient_through_a_counted_tensor_loop_compiles_and_matches_jax_grad():
    compiled = ag.function(tanh_chain_gradient, jit_compile=True)
    loss, gradient = both(tanh_chain_gradient, V)

    def by_hand(x):
        y = x
        for i in range(5):
            y = jax.numpy.tanh(y) * 1.5 + i * 0.1
        return jax.numpy.sum(y * x)
    np.testing.assert_allclose(gradient.numpy(), jax.grad(by_hand)(V.numpy()), rtol=1e-5)
    compiled(rt.constant([1.0, 2.0]))
    assert compiled.experimental_get_tracing_count() == 1


def test_gradients_through_loops_over_rows_and_with_branches_in_the_body():
    def rows(x, w):
        with rt.GradientTape() as tape:
            tape.watch(w)
            h = rt.zeros([3])
            for row in x:   # iterating a tensor of static shape: 4 iterations
                h = rt.tanh(rt.linalg.matvec(w, row) + h)
            loss = rt.reduce_sum(h * h)
        return loss, tape.gradient(loss, w)

    def branches(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for i in rt.range(1, 12, 2):
                if rt.reduce_sum(y) > 0.0:
                    y = rt.tanh(y) * 1.5
                else:
                    y = y * y - 0.5
            loss = rt.reduce_sum(y * x)
        return tape.gradient(loss, x)
    rng = np.random.default_rng(0)
    both(rows, rt.constant(rng.standard_normal((4, 3)).astype(np.float32)),
         rt.constant(rng.standard_normal((3, 3)).astype(np.float32)))
    both(branches, V)
    both(branches, rt.constant([-0.3, 0.1]))


def bounded_gradient(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(n):   # n: a tensor, so the bound is maximum_iterations
            ag.set_loop_options(maximum_iterations=6)
            y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, x)


def unbounded_gradient(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(n):
            y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y * x)
    return tape.gradient(loss, x)


def test_maximum_iterations_bounds_a_loop_of_run_time_length_and_without_a_bound_the_error_says_so(caplog):
    compiled = ag.function(bounded_gradient, jit_compile=True)
    for n in (0, 1, 4, 6, 9):   # 9: both executors stop at the 6th iteration
        assert_same(ag.function(bounded_gradient)(V, rt.constant(n)), compiled(V, rt.constant(n)))
    assert compiled.experimental_get_tracing_count() == 1
    with pytest.raises(rt.errors.LoweringError, match=r"while \(While\) cannot be compiled with jit_compile=True: it "
                                                      r"keeps values of each iteration for a gradient through this "
                                                      r"loop \(in 'Tanh_accumulator'\).*known only when the graph "
                                                      r"runs.*maximum_iterations=n") as raised:
        ag.function(unbounded_gradient, jit_compile=True)(V, rt.constant(3))
    assert "in unbounded_gradient" in str(raised.value) and "for i in rt.range(n):" in str(raised.value)
    auto = ag.function(unbounded_gradient, jit_compile="auto")
    assert_same(ag.function(unbounded_gradient)(V, rt.constant(3)), auto(V, rt.constant(3)))
    assert "numpy executor" in caplog.text


def make_lstm_step(batch=4, features=3, hidden=5):
    rng = np.random.default_rng(0)
    wx = rt.Variable(rng.standard_normal((features, 4 * hidden)).astype(np.float32) * 0.3)
    wh = rt.Variable(rng.standard_normal((hidden, 4 * hidden)).astype(np.float32) * 0.3)
    b = rt.Variable(np.zeros(4 * hidden, np.float32))
    wo = rt.Variable(rng.standard_normal((hidden, 1)).astype(np.float32) * 0.3)
    variables = [wx, wh, b, wo]
    optimizer = rt.optimizers.Adam(0.01)

    def step(xs, ys):
        with rt.GradientTape() as tape:
            h, c = rt.zeros((batch, hidden)), rt.zeros((batch, hidden))
            for x_t in xs:   # a tensor loop over the time steps
                z = rt.matmul(x_t, wx) + rt.matmul(h, wh) + b
                i, f, g, o = rt.split(z, 4, axis=1)
                c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
                h = rt.sigmoid(o) * rt.tanh(c)
            loss = rt.reduce_mean(rt.square(rt.matmul(h, wo) - ys))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step, variables


def test_an_lstm_training_step_with_a_tensor_loop_gives_the_numpy_executors_weights():
    rng = np.random.default_rng(1)
    xs = rt.constant(rng.standard_normal((6, 4, 3)).astype(np.float32))
    ys = rt.constant(rng.standard_normal((4, 1)).astype(np.float32))
    numpy_step, numpy_weights = make_lstm_step()
    xla_step, xla_weights = make_lstm_step()
    numpy_step, xla_step = ag.function(numpy_step), ag.function(xla_step, jit_compile=True)
    losses = [(float(numpy_step(xs, ys)), float(xla_step(xs, ys))) for _ in range(4)]
    np.testing.assert_allclose(*zip(*losses), rtol=1e-5)
    assert losses[-1][1] < losses[0][1]   # it learns
    for expected, got in zip(numpy_weights, xla_weights):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    assert xla_step.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("start, limit, delta", [(0, 4, 1), (3, 20, 4), (10, 0, -3), (5, 5, 1), (7, 2, 1),
                                                 (-4, 3, 2), (0, 1, 5)])
def test_a_list_appended_once_per_iteration_of_a_counted_loop_has_a_length_known_after_it(start, limit, delta):
    def collect(x):
        values = []
        for i in rt.range(start, limit, delta):
            values.append(x * rt.cast(i, rt.float32))
            x = x + 1.0
        return rt.stack(values) if len(range(start, limit, delta)) else x, len(values)
    both(collect, rt.constant([1.0, 2.0]))


def test_a_loop_over_rows_collects_one_value_per_row_and_reads_and_pops_a_grown_list():
    def collect(xs):
        values, totals = [], []
        for row in xs:
            values.append(row * 2.0)
            totals.append(rt.reduce_sum(row))
            totals.append(rt.reduce_max(row))
            totals.pop()
        return rt.stack(values), rt.stack(totals)

    def bounded(x, n):
        values = []
        i = 0
        while i < n:   # a bound only: the list's length is known when the graph runs
            ag.set_loop_options(maximum_iterations=8)
            values.append(x * rt.cast(i, rt.float32))
            i += 1
        return len(values), values[-1], values[0]
    both(collect, rt.constant(np.arange(12, dtype=np.float32).reshape(4, 3)))
    for n in (1, 3, 8, 11):
        both(bounded, rt.constant([1.0, 2.0]), rt.constant(n))


def test_a_list_whose_length_after_the_loop_is_known_only_at_run_time_cannot_be_stacked():
    def appended_under_an_if(x):
        values = []
        for i in rt.range(4):
            if i % 2 == 0:
                values.append(x * rt.cast(i, rt.float32))
        return rt.stack(values)

    def with_a_break(x):
        values = []
        for i in rt.range(4):
            if rt.reduce_sum(x) > 10.0:
                break
            values.append(x)
            x = x * 2.0
        return rt.stack(values)
    for program in (appended_under_an_if, with_a_break):
        with pytest.raises(rt.errors.LoweringError, match=r"TensorListStack.*it reads list 'values' whole.*number of "
                                                          r"appends or writes is known only when the graph runs.*an if.*"
                                                          r"TensorArray of a fixed size"):
            ag.function(program, jit_compile=True)(rt.constant([1.0, 2.0]))
        assert_same(ag.function(program)(rt.constant([1.0, 2.0])),
                    ag.function(program, jit_compile="auto")(rt.constant([1.0, 2.0])))


def test_a_list_outgrowing_the_slots_its_loop_reserved_is_an_error_never_a_dropped_value(monkeypatch):
    # The bound is read from the graph (loop_bounds.trip_count); were it wrong, the appends past the reserved
    # slots would be dropped: the check after the loop turns that into an error. Here the bound is made wrong.
    from runtime.backends.xla import loop_bounds, loops
    monkeypatch.setattr(loops.loop_bounds, "trip_count",
                        lambda op, inputs, value_range=None: loop_bounds.TripCount(2, False))

    def collect(x):
        values = []
        for i in rt.range(4):
            values.append(x * rt.cast(i, rt.float32))
        return values[0]
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"TensorListPushBack: list 'values' outgrew the 2 slots "
                                                             r"the bound of loop while reserved") as raised:
        ag.function(collect, jit_compile=True)(rt.constant([1.0, 2.0]))
    assert "values.append(x * rt.cast(i, rt.float32))" in str(raised.value)


def test_index_checks_a_loop_counters_range_makes_needless_are_left_out_and_the_others_kept():
    # In the body of `for i in rt.range(4)`, 0 <= i <= 3: x[i] and rt.gather(x, i) of a 4-row x need no check (a
    # check per iteration cost Viterbi's loops ~10%); an index the range does not keep in bounds is still checked.
    x = rt.constant(np.arange(8, dtype=np.float32).reshape(4, 2))

    def rows(x):
        total = rt.zeros([2])
        for i in rt.range(4):
            total += x[i] + rt.gather(x, i)
        for t in rt.range(3, -1, -1):   # the range's elements, counting down
            total += x[t] * 2.0
        return total
    compiled = ag.function(rows, jit_compile=True)
    assert_same(ag.function(rows)(x), compiled(x))
    assert compiled.get_concrete_function(x)._run.program.checks == []

    def one_row_too_far(x):
        total = rt.zeros([2])
        for i in rt.range(5):
            total += x[i]
        return total
    with pytest.raises(rt.errors.InvalidArgumentError) as numpy_error:
        ag.function(one_row_too_far)(x)
    with pytest.raises(rt.errors.InvalidArgumentError) as xla_error:
        ag.function(one_row_too_far, jit_compile=True)(x)
    assert str(xla_error.value) == str(numpy_error.value)


def test_a_counted_loop_of_elementwise_work_on_big_arrays_is_unrolled_and_others_stay_while_loops():
    # benchmarks/xla_counted_loops.py: unrolled, XLA fuses a masked escape-time loop's iterations (4x faster);
    # a loop of matmuls or scalars, or one of unknown trip count, gains nothing and keeps its while_loop.
    def escape_counts(c):
        z = rt.zeros_like(c)
        counts = rt.zeros(c.shape, rt.int32)
        for _ in rt.range(12):
            inside = z * z <= 4.0
            z = rt.where(inside, z * z + c, z)
            counts += rt.cast(inside, rt.int32)
        return counts, rt.clip_by_value(z, -3.0, 3.0)

    def matmuls(c):
        for _ in rt.range(12):
            c = rt.tanh(rt.matmul(c, c))
        return c

    def run_time_count(c, n):
        for _ in rt.range(n):
            c = rt.tanh(c * c - 0.5)
        return c
    c = rt.constant(np.linspace(-2.0, 0.4, 64 * 64, dtype=np.float32).reshape(64, 64))
    for program, args in ((escape_counts, [c]), (matmuls, [c * 0.01]), (run_time_count, [c, rt.constant(12)])):
        compiled = ag.function(program, jit_compile=True)
        assert_same(ag.function(program)(*args), compiled(*args))
        loops = compiled.experimental_get_compiler_ir(*args).count("stablehlo.while")
        assert loops == (0 if program is escape_counts else 1), program.__name__
