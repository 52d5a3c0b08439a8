"""Elementwise results written into their input 0's array (``runtime.backends.in_place``): a loop's accumulator
``counts += step`` keeps one array for the whole loop, and only where no alias of the old value survives.

Every graph result is compared with eager execution value for value; the generated source says which ops
run in place and which loop variables are copied once at entry.
"""
import threading

import numpy as np

import autograph_lite as ag
import runtime as rt
from runtime.backends.executor import generated_source, make_callable
from test_executor import same_as_interpreter, trace
from test_executor_in_place import same_as_eager, source_of

SIDE = 64  # 4,096 elements: the smallest arrays written with out= (runtime.backends.buffer_plan)


def loop_body_source(source):
    return source.split("while True:")[1].split("return")[0]


def accumulate(x, n):
    counts = rt.zeros([SIDE, SIDE], rt.int32)
    total = rt.zeros([SIDE, SIDE])
    for _ in rt.range(n):
        inside = x * x <= 4.0
        counts += rt.cast(inside, rt.int32)
        total = total + x
        x = x * 0.5 + 1.0
    return counts, total


def test_accumulators_are_added_into_their_own_array_after_one_copy_at_loop_entry():
    staged = ag.function(accumulate)
    x = rt.constant(np.linspace(-3, 3, SIDE * SIDE, dtype=np.float32).reshape(SIDE, SIDE))
    n = rt.constant(5)
    body = loop_body_source(source_of(staged, x, n))
    assert body.count("# in place:") == 2 and "np.add(loop" in body  # counts and total; x is read twice
    assert source_of(staged, x, n).count("_copy(") == 2  # the two zeros tensors enter the loop as copies
    counts, total = same_as_eager(staged, x, n)
    assert counts.numpy().max() == 5 and total.numpy()[0, 0] == np.float32(-3.0 - 0.5 + 0.75 + 1.375 + 1.6875)
    counts_again, _ = staged(x, n)  # a second call starts from zeros again: the constant was never written
    np.testing.assert_array_equal(counts_again.numpy(), counts.numpy())


def test_an_accumulator_read_before_its_update_and_used_after_keeps_the_old_values():
    def f(n):
        acc = rt.ones([SIDE, SIDE])
        seen = rt.zeros([SIDE, SIDE])
        for _ in rt.range(n):
            before = rt.reshape(acc, [SIDE * SIDE])  # may be a view of acc's array
            acc = acc + 1.0
            seen = seen + rt.reshape(before, [SIDE, SIDE])  # must see acc's value before the add
        return acc, seen
    staged = ag.function(f)
    assert loop_body_source(source_of(staged, rt.constant(3))).count("# in place:") == 1  # seen's add, not acc's
    acc, seen = same_as_eager(staged, rt.constant(3))
    assert acc.numpy()[0, 0] == 4.0 and seen.numpy()[0, 0] == 1.0 + 2.0 + 3.0


def test_an_accumulator_appended_to_a_list_is_not_overwritten_by_later_iterations():
    def f(n):
        acc = rt.zeros([SIDE, SIDE])
        history = []
        for _ in rt.range(n):
            acc = acc + 1.0
            history.append(acc)
        return rt.stack(history)
    staged = ag.function(f)
    assert "# in place:" not in source_of(staged, rt.constant(3))
    history = same_as_eager(staged, rt.constant(3)).numpy()
    assert history[:, 0, 0].tolist() == [1.0, 2.0, 3.0]


def test_the_caller_s_array_and_a_value_read_after_the_loop_are_never_written():
    def f(x, n):
        y = x
        for _ in rt.range(n):
            y = y * 2.0
        return y, x + 0.0
    staged = ag.function(f)
    x_value = np.ones((SIDE, SIDE), np.float32)
    x = rt.constant(x_value)
    assert "_copy(" in source_of(staged, x, rt.constant(3))  # the loop enters with a copy of x
    y, x_after = same_as_eager(staged, x, rt.constant(3))
    assert y.numpy()[0, 0] == 8.0 and x_after.numpy()[0, 0] == 1.0
    np.testing.assert_array_equal(x.numpy(), x_value)


def test_broadcasts_casts_and_small_arrays_are_not_written_in_place():
    def grows(acc, n):  # acc + row: the result is acc's shape, the row is broadcast (in place is fine)
        return rt.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a + rt.ones([SIDE])), [0, acc])[1]

    def small(acc, n):  # 16 elements: a plain expression is cheaper than an out= call
        return rt.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 2), [0, acc])[1]

    graph = trace(grows, (rt.float32, (SIDE, SIDE)), (rt.int32, ()))
    assert "# in place:" in loop_body_source(generated_source(make_callable(graph)))
    (result,) = same_as_interpreter(graph, np.zeros((SIDE, SIDE), np.float32), np.array(3, np.int32))
    assert result[5, 7] == 3.0
    graph = trace(small, (rt.int32, (4, 4)), (rt.int32, ()))
    assert "# in place:" not in generated_source(make_callable(graph))
    (result,) = same_as_interpreter(graph, np.ones((4, 4), np.int32), np.array(31, np.int32))
    assert result[0, 0] == np.int32(-2147483648)  # int32 wraps as the kernel does


def test_an_integer_division_by_a_tensor_keeps_the_kernel_s_zero_check():
    def f(acc, d, n):
        return rt.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a // d), [0, acc])[1]
    graph = trace(f, (rt.int32, (SIDE, SIDE)), (rt.int32, (SIDE, SIDE)), (rt.int32, ()))
    assert "# in place:" not in generated_source(make_callable(graph))


def test_concurrent_calls_each_accumulate_into_their_own_array():
    staged = ag.function(accumulate)
    inputs = {k: np.full((SIDE, SIDE), k * 0.25, np.float32) for k in range(6)}
    expected = {k: [t.numpy() for t in ag.to_graph(accumulate)(rt.constant(x), rt.constant(4))]
                for k, x in inputs.items()}
    staged(rt.constant(inputs[0]), rt.constant(4))
    failures = []

    def worker(k):
        for _ in range(20):
            got = [t.numpy() for t in staged(rt.constant(inputs[k]), rt.constant(4))]
            if not all(np.array_equal(g, e) for g, e in zip(got, expected[k])):
                failures.append(k)
    threads = [threading.Thread(target=worker, args=(k,)) for k in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and staged.experimental_get_tracing_count() == 1


def masked_orbits(c, n):
    z = rt.zeros_like(c)
    escaped_at = rt.zeros_like(c)
    for i in rt.range(n):
        inside = z * z <= 4.0
        z = rt.where(inside, z * z + c, z)                          # the else-value is z: written in place
        escaped_at = rt.where(inside, escaped_at, rt.cast(i, rt.float32))  # the then-value: a new array
    return z, escaped_at


def test_a_masked_update_of_a_loop_variable_is_copied_into_it_where_the_mask_holds():
    staged = ag.function(masked_orbits)
    c = rt.constant(np.linspace(-2.5, 1.0, SIDE * SIDE, dtype=np.float32).reshape(SIDE, SIDE))
    body = loop_body_source(source_of(staged, c, rt.constant(8)))
    assert body.count("# in place:") == 1 and "np.copyto(loop" in body and "where=" in body
    assert body.count("np.where(") == 1  # escaped_at's select keeps its own array
    z, escaped_at = same_as_eager(staged, c, rt.constant(8))
    assert np.isinf(z.numpy()).sum() == 0 and escaped_at.numpy().max() == 7.0


def test_a_select_whose_else_value_is_read_afterwards_or_broadcast_keeps_the_eager_values():
    def f(x, n):
        for _ in rt.range(n):
            new = rt.where(x > 0.0, x - 1.0, x)
            x = new + (new - x)  # x read after the select: the select must not overwrite it
        return x

    def g(x, n):  # a column of conditions and a row of new values broadcast over x's shape
        for _ in rt.range(n):
            x = rt.where(x[:, :1] > 0.5, x[:1, :] * 0.5 + 0.25, x)
        return x
    x = rt.constant(np.linspace(-1, 3, SIDE * SIDE, dtype=np.float32).reshape(SIDE, SIDE))
    staged = ag.function(f)
    assert "# in place:" not in loop_body_source(source_of(staged, x, rt.constant(3)))
    same_as_eager(staged, x, rt.constant(3))
    staged = ag.function(g)
    assert loop_body_source(source_of(staged, x, rt.constant(3))).count("np.copyto(loop") == 1
    same_as_eager(staged, x, rt.constant(3))


def test_a_select_reading_a_view_of_the_array_it_writes_into_gives_the_eager_values():
    def f(x, n):
        a, b = x, x * 1.0
        for _ in rt.range(n):
            a = rt.where(a > 0.5, rt.transpose(a), a)  # the then-value may be a view of a's own array
            b = b + rt.reverse(b, [1])                  # the add's second input a view of its first
        return a, b
    x = rt.constant(np.random.default_rng(2).standard_normal((SIDE, SIDE)).astype(np.float32))
    staged = ag.function(f)
    assert loop_body_source(source_of(staged, x, rt.constant(3))).count("# in place:") == 2
    same_as_eager(staged, x, rt.constant(3))
