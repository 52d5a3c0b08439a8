"""The compiled executor's memory plan: pooled temporaries, dropped intermediates, row blocks, threads,
and numpy's warnings handled once per call. Every result is compared exactly with the interpreter or numpy."""
import threading
import tracemalloc
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.backends import row_blocks, threads
from runtime.backends.buffer_plan import MIN_BUFFER_ELEMENTS, PARALLEL_MIN_ELEMENTS
from runtime.backends.executor import generated_source, make_callable
from runtime.core.errors import InvalidArgumentError
from test_executor import same_as_interpreter, trace


def chain(x):
    return rt.subtract(rt.multiply(rt.subtract(rt.add(rt.multiply(x, 2.0), 1.0), x), x), x)


# --- pooled temporaries ---------------------------------------------------------------------------------

def test_elementwise_chain_writes_into_one_pooled_buffer():
    graph = trace(chain, (rt.float32, (MIN_BUFFER_ELEMENTS * 2,)))
    source = generated_source(make_callable(graph))
    assert source.count("out=tmp0") == 4 and "tmp1" not in source  # one buffer, written in place
    assert "tmp0, = buffers" in source
    x = np.random.default_rng(0).standard_normal(MIN_BUFFER_ELEMENTS * 2).astype(np.float32)
    result = same_as_interpreter(graph, x)[0]
    np.testing.assert_array_equal(result, (((x * 2 + 1) - x) * x) - x)


def test_no_pooled_buffers_for_small_or_unknown_shapes():
    for shape in [(8,), (None,)]:
        source = generated_source(make_callable(trace(chain, (rt.float32, shape))))
        assert "out=" not in source and "buffers" not in source


def test_a_temporary_that_is_an_output_or_escapes_into_a_view_is_never_pooled():
    n = MIN_BUFFER_ELEMENTS

    def output_too(x):
        t = rt.multiply(x, 2.0)
        return t, rt.add(t, 1.0)

    def viewed(x):
        t = rt.multiply(x, 2.0)
        view = rt.reshape(t, [2, n // 2])  # may alias t's memory
        return rt.add(view, rt.reshape(rt.add(t, 1.0), [2, n // 2]))

    def read_later(x):
        t = rt.multiply(x, 2.0)
        u = rt.add(t, 1.0)  # t still needed below: u gets its own buffer
        return rt.multiply(u, t)
    for fn in (output_too, viewed):
        graph = trace(fn, (rt.float32, (n,)))
        assert "out=" not in generated_source(make_callable(graph))
        same_as_interpreter(graph, np.arange(n, dtype=np.float32))
    graph = trace(read_later, (rt.float32, (n,)))
    source = generated_source(make_callable(graph))
    assert "out=tmp0" in source and "out=tmp1" in source and source.count("out=") == 2
    same_as_interpreter(graph, np.arange(n, dtype=np.float32))


def test_buffers_follow_dtype_and_shape():
    n = MIN_BUFFER_ELEMENTS
    compare = trace(lambda x: rt.logical_not(rt.greater(rt.multiply(x, 2.0), 1.0)), (rt.float32, (n,)))
    source = generated_source(make_callable(compare))
    assert "np.greater(tmp0, const_2, out=tmp1)" in source  # float32 -> bool: another buffer
    same_as_interpreter(compare, np.linspace(-1, 1, n, dtype=np.float32))
    broadcast = trace(lambda x, y: rt.add(rt.multiply(x, 2.0), y), (rt.float32, (n,)), (rt.float32, (3, n)))
    assert generated_source(make_callable(broadcast)).count("out=") == 1  # the (3, n) sum is the output
    same_as_interpreter(broadcast, np.ones(n, np.float32), np.ones((3, n), np.float32))


def test_results_of_one_call_are_not_overwritten_by_the_next():
    f = rt.function(lambda x: rt.subtract(rt.multiply(rt.add(x, 1.0), x), 0.5))
    first_input = np.arange(MIN_BUFFER_ELEMENTS, dtype=np.float32)
    first = f(rt.constant(first_input)).numpy()
    second = f(rt.constant(first_input * 3)).numpy()
    np.testing.assert_array_equal(first, (first_input + 1) * first_input - 0.5)
    tripled = first_input * 3
    np.testing.assert_array_equal(second, (tripled + 1) * tripled - 0.5)
    concrete = f.get_concrete_function(rt.constant(first_input))
    assert concrete.compiled().pooled_bytes() == MIN_BUFFER_ELEMENTS * 4  # one float32 buffer, reused
    assert concrete.memory_bytes() >= MIN_BUFFER_ELEMENTS * 4


def test_a_cast_to_the_same_dtype_of_a_temporary_is_a_new_array():
    f = rt.function(lambda x: (rt.cast(rt.multiply(x, 2.0), rt.float32), rt.cast(rt.add(x, 1.0), rt.int32)))
    x = np.arange(MIN_BUFFER_ELEMENTS, dtype=np.float32)
    same, other = f(rt.constant(x))
    f(rt.constant(x * 5))  # would overwrite ``same`` if it were a pooled buffer
    np.testing.assert_array_equal(same.numpy(), x * 2)
    np.testing.assert_array_equal(other.numpy(), (x + 1).astype(np.int32))


def test_matmul_chain_holds_two_buffers_and_peak_memory_is_the_live_set():
    size, steps = 64, 100

    def power(x):
        r = x
        for _ in range(steps):
            r = rt.matmul(x, r)
        return r
    graph = trace(power, (rt.float64, (size, size)))
    compiled = make_callable(graph)
    source = generated_source(compiled)
    assert "tmp0, tmp1 = buffers" in source and "tmp2" not in source
    x = np.eye(size) + np.diag(np.full(size - 1, 0.01), 1)
    tracemalloc.start()
    result = compiled(x)[0]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 3.2 * x.nbytes  # two pooled buffers and the result
    expected = x
    for _ in range(steps):
        expected = x @ expected
    np.testing.assert_array_equal(result, expected)


def test_big_intermediates_of_unknown_size_are_deleted_at_their_last_use():
    def f(x):
        t = rt.reduce_sum(rt.multiply(x, x), axis=0)
        return rt.add(rt.reshape(t, [-1]), 1.0)
    graph = trace(f, (rt.float32, (None, None)))
    source = generated_source(make_callable(graph))
    assert source.count("del ") == 3  # x * x after the sum, the sum after the reshape, the reshaped sum
    same_as_interpreter(graph, np.arange(12, dtype=np.float32).reshape(3, 4))


@pytest.mark.parametrize("size", [PARALLEL_MIN_ELEMENTS // 4, PARALLEL_MIN_ELEMENTS])  # pooled / block buffers
def test_concurrent_calls_take_their_own_buffers(size):
    f = rt.function(lambda x, y: rt.divide(rt.subtract(rt.multiply(x, y), 1.0), rt.add(y, 2.0)))
    rng = np.random.default_rng(1)
    inputs = [(rng.standard_normal(size).astype(np.float32),
               rng.standard_normal(size).astype(np.float32)) for _ in range(6)]
    expected = [((x * y) - 1) / (y + 2) for x, y in inputs]
    f(rt.constant(inputs[0][0]), rt.constant(inputs[0][1]))
    failures = []

    def worker(index):
        x, y = inputs[index]
        for _ in range(5):
            got = f(rt.constant(x), rt.constant(y)).numpy()
            if not np.array_equal(got, expected[index]):
                failures.append(index)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    concrete = f.get_concrete_function(rt.constant(inputs[0][0]), rt.constant(inputs[0][1]))
    if size < PARALLEL_MIN_ELEMENTS:  # two pooled temporaries per concurrent call
        assert 1 <= concrete.compiled().pooled_bytes() // (2 * size * 4) <= 7
    else:  # a row-block region: its temporaries are each thread's block buffers, nothing is pooled
        assert concrete.compiled().pooled_bytes() == 0
        assert "block1_rows = block1[:hi - lo]" in generated_source(concrete.compiled())


def test_a_variable_update_reads_a_pooled_delta_and_stores_its_own_array():
    v = rt.Variable(np.zeros(MIN_BUFFER_ELEMENTS, np.float32))
    step = rt.function(lambda x: v.assign_sub(x * 0.5))
    assert "out=tmp0" in generated_source(step.get_concrete_function(rt.constant(np.ones(MIN_BUFFER_ELEMENTS, np.float32))).compiled())
    x = np.arange(MIN_BUFFER_ELEMENTS, dtype=np.float32)
    first = step(rt.constant(x)).numpy()
    kept = v.numpy()
    step(rt.constant(x * 3))  # reuses the pooled buffer of x * 0.5
    np.testing.assert_array_equal(first, -x * 0.5)
    np.testing.assert_array_equal(kept, -x * 0.5)  # the first update's array was never written again
    np.testing.assert_array_equal(v.numpy(), -x * 0.5 - x * 3 * np.float32(0.5))


# --- numpy's warnings, once per call --------------------------------------------------------------------

def test_division_by_zero_and_integer_overflow_pass_silently_and_the_error_state_is_restored():
    def f(x, n):
        def body(i, total):
            return i + 1, total * 3 + i  # int32 overflows after a few iterations: wraps, like TensorFlow
        return rt.divide(x, 0.0), rt.log(x - 1.0), rt.while_loop(lambda i, t: i < n, body, [0, n])[1]
    compiled = rt.function(f)
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        quotient, logarithm, total = compiled(rt.constant(np.float32(1.0)), rt.constant(40))
    assert np.geterr() == before
    assert float(quotient) == np.inf and float(logarithm) == -np.inf
    expected = np.int32(40)
    with np.errstate(over="ignore"):
        for i in range(40):
            expected = np.int32(expected * np.int32(3) + np.int32(i))
    assert int(total) == int(expected)


def test_eager_integer_overflow_wraps_silently_with_the_same_values_as_the_graph():
    smallest, largest = np.int32(-2**31), np.int32(2**31 - 1)

    def f(x, y, small):
        return (x // -1, x % -1, x * 2 + y, rt.abs(x), -x, rt.reduce_sum(rt.stack([y, y])),
                rt.pow(y, 3), small + small, rt.divide(rt.cast(y, rt.float32), 0.0))
    args = (rt.constant(smallest), rt.constant(largest), rt.constant(np.int8(100)))
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning (numpy's overflow warning) fails the test
        eager = f(*args)
        graph = rt.function(f)(*args)
        interpreted = same_as_interpreter(trace(f, (rt.int32, ()), (rt.int32, ()), (rt.int8, ())),
                                          *[a.numpy() for a in args])  # the reference interpreter too
    assert np.geterr() == before
    for e, g, i in zip(eager, graph, interpreted):
        assert e.dtype == g.dtype == i.dtype and e.numpy().tobytes() == g.numpy().tobytes() == i.tobytes()
    wrapped_cube = (int(largest) ** 3 + 2**31) % 2**32 - 2**31
    assert [int(v) for v in eager[:8]] == [int(smallest), 0, int(largest), int(smallest), int(smallest), -2, wrapped_cube, -56]
    assert float(eager[8]) == np.inf and len(interpreted) == 9


def test_integer_modulo_by_a_tensor_zero_is_still_an_error_and_by_a_constant_is_an_operator():
    graph = trace(lambda x, y: (rt.mod(x, y), rt.floordiv(x, 3)), (rt.int32, ()), (rt.int32, ()))
    source = generated_source(make_callable(graph))
    assert " // const_" in source and "k_FloorMod" in source
    with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
        make_callable(graph)(np.array(7, np.int32), np.array(0, np.int32))
    same_as_interpreter(graph, np.array(-7, np.int32), np.array(3, np.int32))


# --- row blocks -----------------------------------------------------------------------------------------

def test_big_elementwise_chains_with_casts_and_selects_run_in_row_blocks_with_identical_results():
    rows = PARALLEL_MIN_ELEMENTS // 4 + 7  # uneven blocks

    def f(x, y, s):
        t = rt.maximum(rt.divide(rt.subtract(rt.add(rt.multiply(x, 2.0), 1.0), x), y), s)  # one region
        u = rt.reduce_sum(t, axis=1)  # not elementwise: ends the region, reads its result
        big = rt.greater(t, 0.5)
        chosen = rt.where(big, t, rt.cast(rt.cast(x, rt.int32), rt.float32))
        return rt.subtract(chosen, rt.multiply(t, 0.5)), u
    graph = trace(f, (rt.float32, (rows, 4)), (rt.float32, (rows, 4)), (rt.float32, (1, 1)))
    source = generated_source(make_callable(graph))
    assert source.count("_run_in_row_blocks(") == 2 and source.count("_empty(") == 2
    assert "casting='unsafe'" in source and "where=" in source
    rng = np.random.default_rng(3)
    x = rng.standard_normal((rows, 4)).astype(np.float32) * 4
    y = rng.standard_normal((rows, 4)).astype(np.float32)
    y[0, 0] = 0.0  # a division by zero: inf, silently
    s = np.array([[0.25]], np.float32)
    with np.errstate(all="ignore"):  # the interpreter's eager kernels would warn about inf - inf
        got = same_as_interpreter(graph, x, y, s)
        t = np.maximum(((x * 2 + 1) - x) / y, s)
        expected = np.where(t > 0.5, t, x.astype(np.int32).astype(np.float32)) - t * 0.5
    np.testing.assert_array_equal(got[0], expected)


def chain7(v):
    return ((v * 2.0 + 1.0) * v - 3.0) / (v + 1.0) * 0.5


def test_values_living_inside_a_region_are_computed_in_block_buffers():
    graph = trace(chain7, (rt.float32, (PARALLEL_MIN_ELEMENTS,)))
    source = generated_source(make_callable(graph))
    step = row_blocks.block_rows((PARALLEL_MIN_ELEMENTS,))
    # two block buffers (the numerator in place, then v + 1) and one whole array: the result
    assert "def rows_of_region2(lo, hi, block0, block1, in0, v1):" in source
    assert "np.divide(block0_rows, block1_rows, out=block0_rows)" in source
    assert "out=v1_rows)" in source and source.count("out=v1_rows") == 1
    assert source.count("_empty(") == 1 and "tmp" not in source and "buffers = _take_buffers()" not in source
    assert f"_run_in_row_blocks(rows_of_region2, {PARALLEL_MIN_ELEMENTS}, {step}, block_buffers_" in source


@pytest.mark.parametrize("spare", [True, False])
def test_block_buffers_give_the_interpreters_bits_on_one_thread_and_on_two(monkeypatch, spare):
    monkeypatch.setattr(row_blocks, "_spare_cores", lambda: spare)
    rows = PARALLEL_MIN_ELEMENTS // 3 + 5  # uneven blocks, rows of 3

    def f(x, y):
        t = chain7(x) - y * 2.0  # read in the next region: a whole array, its parts in block buffers
        u = rt.maximum(t, y)  # read after the region (by reduce_sum): a whole array
        return rt.reduce_sum(u, axis=1), rt.cast(u * t, rt.float16) + 1.0  # u * t, its cast: block buffers
    graph = trace(f, (rt.float32, (rows, 3)), (rt.float32, (rows, 3)))
    source = generated_source(make_callable(graph))
    assert source.count("_run_in_row_blocks(") == 2 and source.count("block1_rows = block1[:hi - lo]") == 2
    assert source.count("_empty(") == 2 and "tmp0, = buffers" in source  # u, the float16 result; t: pooled
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal((rows, 3)).astype(np.float32) for _ in range(2))
    x[1, 1] = -1.0  # a division by zero: inf, silently
    compiled = make_callable(graph)
    for _ in range(2):  # the second call reuses this thread's block buffers
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = compiled(x, y)
        expected = same_as_interpreter(graph, x, y)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.tobytes() == e.tobytes()


def _in_a_new_thread(fn):
    results = []
    thread = threading.Thread(target=lambda: results.append(fn()))
    thread.start()
    thread.join()
    return results[0]


def test_each_thread_keeps_its_own_block_buffers():
    spec = [((16,), np.dtype(np.float32))] * 2

    def first_use():  # a new thread: nothing kept yet
        mine = row_blocks.thread_block_buffers(spec)
        again = row_blocks.thread_block_buffers(spec)  # reused by every later block and call
        other_shape = row_blocks.thread_block_buffers([((4, 4), np.dtype(np.float32))])[0]
        bigger = row_blocks.thread_block_buffers([((32,), np.dtype(np.float32))])[0]  # grows the kept buffer
        return mine, again, other_shape, bigger
    mine, again, other_shape, bigger = _in_a_new_thread(first_use)
    theirs = _in_a_new_thread(lambda: row_blocks.thread_block_buffers(spec))
    assert all(a.shape == (16,) and a.dtype == np.float32 for a in mine + theirs)
    assert not np.shares_memory(mine[0], mine[1])
    assert not any(np.shares_memory(m, t) for m in mine for t in theirs)
    assert np.shares_memory(again[0], mine[0]) and np.shares_memory(again[1], mine[1])
    assert other_shape.shape == (4, 4) and np.shares_memory(other_shape, mine[0])
    assert bigger.shape == (32,) and not np.shares_memory(bigger, mine[0])


def test_no_row_blocks_for_broadcasting_inputs():
    rows = PARALLEL_MIN_ELEMENTS // 4
    graph = trace(lambda x, y: rt.add(rt.multiply(x, 2.0), y), (rt.float32, (rows, 4)), (rt.float32, (4,)))
    source = generated_source(make_callable(graph))
    assert source.count("_run_in_row_blocks(") == 1  # x * 2 is split; + y (a (4,) row) is not
    same_as_interpreter(graph, np.ones((rows, 4), np.float32), np.arange(4, dtype=np.float32))


class _IdleWorkers:
    """A worker pool whose threads never get to run (the other core is busy)."""
    _max_workers = 1
    submitted = 0

    def submit(self, fn):
        _IdleWorkers.submitted += 1


def test_the_calling_thread_takes_every_block_when_no_worker_runs(monkeypatch):
    monkeypatch.setattr(row_blocks, "_worker_pool", lambda: _IdleWorkers())
    monkeypatch.setattr(row_blocks, "_spare_cores", lambda: True)
    graph = trace(chain, (rt.float32, (PARALLEL_MIN_ELEMENTS * 2,)))
    x = np.random.default_rng(5).standard_normal(PARALLEL_MIN_ELEMENTS * 2).astype(np.float32)
    got = same_as_interpreter(graph, x)[0]  # returns: it never waits for the idle worker
    np.testing.assert_array_equal(got, (((x * 2 + 1) - x) * x) - x)
    assert _IdleWorkers.submitted >= 1


@pytest.mark.parametrize("runnable, spare", [(1, True), (2, False), (9, False)])
def test_a_worker_is_used_only_while_fewer_threads_are_runnable_than_cores(monkeypatch, runnable, spare):
    monkeypatch.setattr(threads, "RECHECK_SECONDS", 0.0)
    monkeypatch.setattr(threads, "_runnable_threads", lambda: runnable)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert threads.spare_cores() is spare
    monkeypatch.setattr(threads, "_runnable_threads", lambda: pytest.fail("read again within the period"))
    monkeypatch.setattr(threads, "RECHECK_SECONDS", 60.0)
    assert threads.spare_cores() is spare  # the reading is trusted for RECHECK_SECONDS


def test_the_runnable_thread_count_counts_the_caller():
    assert threads._runnable_threads() >= 1


def test_without_a_spare_core_no_worker_is_asked(monkeypatch):
    monkeypatch.setattr(row_blocks, "_worker_pool", lambda: pytest.fail("a worker was asked"))
    monkeypatch.setattr(threads, "RECHECK_SECONDS", 0.0)
    monkeypatch.setattr(threads, "_runnable_threads", lambda: 2)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    graph = trace(chain, (rt.float32, (PARALLEL_MIN_ELEMENTS,)))
    x = np.random.default_rng(6).standard_normal(PARALLEL_MIN_ELEMENTS).astype(np.float32)
    np.testing.assert_array_equal(same_as_interpreter(graph, x)[0], (((x * 2 + 1) - x) * x) - x)


@pytest.mark.parametrize("spare", [True, False])
def test_an_error_in_a_block_reaches_the_caller(monkeypatch, spare):
    monkeypatch.setattr(row_blocks, "_spare_cores", lambda: spare)
    def failing(lo, hi, values):
        if lo <= row_blocks.BLOCK_ELEMENTS + 5 < hi:
            raise ValueError(f"block at {lo}")
        values[lo:hi] = 1
    values = np.zeros(4 * row_blocks.BLOCK_ELEMENTS)
    with pytest.raises(ValueError, match="block at"):
        row_blocks.run_in_row_blocks(failing, values.size, row_blocks.BLOCK_ELEMENTS, (), values)


def test_block_rows_keep_blocks_near_the_block_size():
    assert row_blocks.block_rows((1_000_000,)) == row_blocks.BLOCK_ELEMENTS
    assert row_blocks.block_rows((1000, 1000)) == row_blocks.BLOCK_ELEMENTS // 1000
    assert row_blocks.block_rows((10, 10 ** 6)) == 1


def test_errors_after_pooled_buffers_still_name_the_failing_node():
    n = MIN_BUFFER_ELEMENTS

    def f(x, index):
        t = rt.add(rt.multiply(x, 2.0), 1.0)  # pooled: two lines are inserted at the top of ``run``
        return rt.gather(rt.multiply(t, t), index)
    graph = trace(f, (rt.float32, (n,)), (rt.int32, ()))
    compiled = make_callable(graph)
    assert "buffers = _take_buffers()" in generated_source(compiled)
    with pytest.raises(InvalidArgumentError, match=r"^GatherV2: .*not in \[0, 4096\)"):
        compiled(np.ones(n, np.float32), np.array(n + 3, np.int32))
    assert compiled(np.ones(n, np.float32), np.array(2, np.int32))[0] == 9.0
