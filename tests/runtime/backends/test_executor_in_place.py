"""Updates written in place (``runtime.backends.in_place``) and ops written as plain Python
(``runtime.backends.python_forms``): only where it is safe, and always with the kernels' exact values.

Every graph result is compared with eager execution (or the reference interpreter) value for value;
the generated source says which updates run in place and which loop variables are copied at entry.
"""
import threading

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends.executor import generated_source, make_callable
from runtime.core import nest
from runtime.core.errors import InvalidArgumentError
from runtime.ops.indexing import update_by_key
from test_executor import same_as_interpreter, trace


def source_of(function, *args):
    return generated_source(function.get_concrete_function(*args).compiled())


def same_as_eager(function, *args):
    graph = function(*args)
    eager = ag.to_graph(function.python_function)(*args)  # the converted code, run op by op
    for g, e in zip(nest.flatten(graph), nest.flatten(eager)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g.numpy(), e.numpy())
    return graph


def fill_table(n):
    d = rt.zeros([n, n], rt.int32)
    for i in range(n):
        for j in range(n):
            d[i, j] = i * 10 + j + d[i, rt.maximum(j - 1, 0)] * rt.cast(j > 0, rt.int32)
    return d


def test_a_table_filled_in_loops_is_written_in_place_after_one_copy_at_loop_entry():
    staged = ag.function(fill_table)
    n = rt.constant(6)
    source = source_of(staged, n)
    assert source.count("# in place:") == 1 and source.count("_copy(") == 1  # the zeros enter the loop once
    table = same_as_eager(staged, n).numpy()
    expected = np.zeros((6, 6), np.int32)
    for i in range(6):
        for j in range(6):
            expected[i, j] = i * 10 + j + (expected[i, j - 1] if j > 0 else 0)
    np.testing.assert_array_equal(table, expected)


def test_an_update_whose_input_is_read_later_copies_it():
    def f(x):
        once = update_by_key(x, 0, 7)          # x is the caller's array: copied
        twice = update_by_key(once, 1, 8)      # once is read again below: copied
        thrice = update_by_key(twice, 2, 9)    # twice dies here and is ours: in place
        return once, thrice
    graph = trace(f, (rt.int32, (4,)))
    source = generated_source(make_callable(graph))
    assert source.count("# in place:") == 1
    x = np.arange(4, dtype=np.int32)
    once, thrice = same_as_interpreter(graph, x)
    assert once.tolist() == [7, 1, 2, 3] and thrice.tolist() == [7, 8, 9, 3] and x.tolist() == [0, 1, 2, 3]


def test_the_caller_s_array_and_a_value_used_after_the_loop_are_never_overwritten():
    def f(x, n):
        d = x
        for i in range(n):
            d[i] = i * 100
        return d, x
    staged = ag.function(f)
    x = rt.constant(np.arange(5, dtype=np.int32))
    assert "_copy(" in source_of(staged, x, rt.constant(3))  # the loop enters with a copy of x
    d, same_x = same_as_eager(staged, x, rt.constant(3))
    assert d.numpy().tolist() == [0, 100, 200, 3, 4] and same_x.numpy().tolist() == [0, 1, 2, 3, 4]
    assert x.numpy().tolist() == [0, 1, 2, 3, 4]


def test_a_view_read_after_the_update_keeps_the_old_values():
    def f(n):
        d = rt.ones([4], rt.float32)
        total = rt.constant(0.0)
        for i in range(n):
            before = rt.reshape(d, [2, 2])  # np.reshape returns a view of d's array
            d[i] = 5.0
            total += rt.reduce_sum(before)  # read after the update: must see the old values
        return d, total
    staged = ag.function(f)
    assert "# in place:" not in source_of(staged, rt.constant(4))
    d, total = same_as_eager(staged, rt.constant(4))
    assert d.numpy().tolist() == [5.0] * 4 and float(total) == 4 + 8 + 12 + 16


def test_two_loop_variables_starting_from_the_same_array_do_not_share_it():
    def f(n):
        a = rt.zeros([3], rt.int32)
        b = a
        for i in range(n):
            a[i] = 1
            b[i] = 2
        return a, b
    staged = ag.function(f)
    a, b = same_as_eager(staged, rt.constant(3))
    assert a.numpy().tolist() == [1, 1, 1] and b.numpy().tolist() == [2, 2, 2]


def test_a_loop_variable_returned_twice_by_the_body_is_not_updated_in_place():
    def f(n):
        def body(i, a, b):
            a = update_by_key(a, i, i + 1)
            return i + 1, a, a  # the same array as two loop variables
        _, a, b = rt.while_loop(lambda i, a, b: i < n, body, [0, rt.zeros([3], rt.int32), rt.zeros([3], rt.int32)])
        return a, update_by_key(b, 0, 9)
    graph = trace(f, (rt.int32, ()))
    assert "# in place:" not in generated_source(make_callable(graph)).split("while True")[1].split("return")[0]
    a, b = same_as_interpreter(graph, np.array(3, np.int32))
    assert a.tolist() == [1, 2, 3] and b.tolist() == [9, 2, 3]


def test_scatter_updates_chain_in_place_with_the_kernels_values_and_errors():
    def f(x, i):
        y = rt.tensor_scatter_nd_update(x, [[0]], [5.0])
        y = rt.tensor_scatter_nd_add(y, [[1], [1]], [1.0, 2.0])
        return rt.tensor_scatter_nd_update(y, rt.reshape(i, [1, 1]), [7.0])
    graph = trace(f, (rt.float32, (3,)), (rt.int32, ()))
    assert generated_source(make_callable(graph)).count("_in_place") == 2  # the first one copies x
    x = np.zeros(3, np.float32)
    assert same_as_interpreter(graph, x, np.array(2, np.int32))[0].tolist() == [5.0, 3.0, 7.0]
    assert x.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(InvalidArgumentError, match="out of range|not in"):
        make_callable(graph)(x, np.array(3, np.int32))


def test_concurrent_calls_of_a_function_updating_in_place_each_get_their_own_arrays():
    staged = ag.function(fill_table)
    expected = {n: ag.to_graph(fill_table)(rt.constant(n)).numpy() for n in range(2, 9)}
    staged(rt.constant(3))
    failures = []

    def worker(n):
        for _ in range(30):
            got = staged(rt.constant(n)).numpy()
            if not np.array_equal(got, expected[n]):
                failures.append(n)
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(2, 9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and staged.experimental_get_tracing_count() == 1


# --- ops written as plain Python ----------------------------------------------------------------------------

def test_element_reads_gathers_casts_and_appends_are_plain_python_with_the_kernels_values():
    def f(x, m, i):
        row = rt.gather(m, i)              # a copy of one row
        element = rt.gather(x, i)          # one element
        part = x[1:i]
        cell = m[i, 1]
        grown = rt.concat([x, rt.expand_dims(rt.cast(cell, rt.float32), 0)], 0)
        return row, element, part, cell, grown, rt.cast(x > 1.0, rt.int32)
    graph = trace(f, (rt.float32, (4,)), (rt.int32, (3, 2)), (rt.int32, ()))
    source = generated_source(make_callable(graph))
    for form in ["if 0 <= in2 < 3 else", "if 0 <= in2 < 4 else", "in0[1:in2]", "in1[in2, 1]", "np.concatenate((",
                 "[None]", ".astype("]:
        assert form in source, form
    assert "k_StridedSlice" not in source and "k_ConcatV2" not in source and "k_Cast" not in source
    x = np.array([0.5, 1.5, 2.5, 3.5], np.float32)
    m = np.arange(6, dtype=np.int32).reshape(3, 2)
    row, element, part, cell, grown, flags = same_as_interpreter(graph, x, m, np.array(2, np.int32))
    assert row.tolist() == [4, 5] and float(element) == 2.5 and part.tolist() == [1.5]
    assert int(cell) == 5 and grown.tolist() == [0.5, 1.5, 2.5, 3.5, 5.0] and flags.tolist() == [0, 1, 1, 1]
    row[0] = 99  # a copy: the caller's matrix is untouched
    assert m[2, 0] == 4


def test_an_index_out_of_range_still_raises_the_kernels_errors():
    graph = trace(lambda x, i: (rt.gather(x, i), x[i]), (rt.float32, (3,)), (rt.int32, ()))
    run = make_callable(graph)
    x = np.zeros(3, np.float32)
    for bad in (3, -1):
        with pytest.raises(InvalidArgumentError, match=r"GatherV2: indices = %d is not in \[0, 3\)" % bad):
            run(x, np.array(bad, np.int32))
    graph = trace(lambda x, i: x[i], (rt.float32, (3,)), (rt.int32, ()))
    with pytest.raises(InvalidArgumentError, match="StridedSlice.*index 5 is out of bounds for axis 0 with size 3"):
        make_callable(graph)(x, np.array(5, np.int32))
    assert float(make_callable(graph)(np.arange(3, dtype=np.float32), np.array(-1, np.int32))[0]) == 2.0


def test_reductions_transposes_selects_and_unbroadcasts_are_numpy_methods_with_the_kernels_values():
    from runtime.ops.gradient_ops import unbroadcast
    v = rt.Variable(np.array([[1.5, -2.0, 3.0]], np.float32))

    def f(x, small, half):
        return (rt.reduce_sum(x, axis=1, keepdims=True), rt.reduce_max(x), rt.reduce_min(x, axis=0),
                rt.reduce_mean(x, axis=[0, 1]), rt.reduce_sum(small), rt.reduce_mean(half, axis=0),
                rt.transpose(x), rt.where(x > 0.0, x, v.read_value()), unbroadcast(x, v.read_value()),
                rt.reduce_mean(small))
    graph = trace(f, (rt.float32, (4, 3)), (rt.int8, (5,)), (rt.float16, (6, 2)))
    source = generated_source(make_callable(graph))
    for form in [".sum(axis=(1,)", ".max(axis=None", ".min(axis=(0,)", ".mean(axis=(0, 1)", ".transpose(",
                 "np.where(", "._array", ".reshape((1, 3))"]:
        assert form in source, form
    assert "k_Mean" in source  # the integer mean keeps its kernel (truncation toward zero)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    small = np.array([100, 100, 100, -7, 1], np.int8)  # the int8 sum wraps, as the kernel's does
    half = rng.standard_normal((6, 2)).astype(np.float16)
    results = same_as_interpreter(graph, x, small, half)
    assert int(results[4]) == int(np.int8(100 * 3 - 6 - 256))
    np.testing.assert_array_equal(results[8], x.sum(axis=0, keepdims=True))
