"""jit_compile=True with TensorArrays whose buffer the graph does not size by itself: made without element_shape
(the first write says it), or of dynamic_size=True written at run-time indices in a tensor loop of a bound known
when compiling (the buffer gets the slots that bound allows and the array's length is tracked). Values and errors
equal the numpy executor's; without a bound the LoweringError names the array and the fix."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_xla_backend import assert_same, both

jax = pytest.importorskip("jax")
X = rt.constant([1.0, 2.0])


def same_error(program, *args):
    """The numpy executor's and the compiled function's errors: the same type and text."""
    with pytest.raises(rt.errors.InvalidArgumentError) as numpy_error:
        ag.function(program)(*args)
    with pytest.raises(rt.errors.InvalidArgumentError) as xla_error:
        ag.function(program, jit_compile=True)(*args)
    assert str(xla_error.value) == str(numpy_error.value)
    return str(xla_error.value)


def test_a_tensor_array_without_element_shape_is_sized_by_what_the_loop_writes():
    def fixed_size(x):
        ta = rt.TensorArray(rt.float32, size=5)
        for i in rt.range(5):
            ta = ta.write(i, x * rt.cast(i, rt.float32))
        return ta.stack()

    def written_before_the_loop(x):
        ta = rt.TensorArray(rt.float32, size=3)
        ta = ta.write(0, x)
        for i in rt.range(1, 3):
            ta = ta.write(i, ta.read(i - 1) * 2.0)
        return ta.stack(), ta.size()
    assert both(fixed_size, X).numpy().tolist() == [[0, 0], [1, 2], [2, 4], [3, 6], [4, 8]]
    assert both(written_before_the_loop, X)[0].numpy().tolist() == [[1, 2], [2, 4], [4, 8]]


def test_a_dynamic_tensor_array_written_at_a_static_ranges_elements_has_a_length_known_after_the_loop():
    def counted(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(5):
            ta = ta.write(i, x * rt.cast(i, rt.float32))
        return ta.stack(), ta.size(), ta.gather([3, 1]), ta.concat()

    def every_other(x):
        ta = rt.TensorArray(rt.float32, size=2, dynamic_size=True, element_shape=[2])
        for i in rt.range(0, 10, 3):   # writes 0, 3, 6, 9 (then stacks 10: all written?)
            ta = ta.write(i // 3, x + rt.cast(i, rt.float32))
        return ta.stack(), ta.size()
    stacked, size, _, _ = both(counted, X)
    assert stacked.shape == (5, 2) and int(size) == 5
    assert both(every_other, X)[0].numpy().tolist() == [[1, 2], [4, 5], [7, 8], [10, 11]]

    def offset(x):   # elements 0 and 1 are never written: stacking is the numpy executor's error
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(2, 7):
            ta = ta.write(i, x * rt.cast(i, rt.float32))
        return ta.size(), ta.read(6), ta.stack()
    assert "cannot stack element 0: it was never written (the array has size 7)" in same_error(offset, X)


def bounded(x, n):
    ta = rt.TensorArray(rt.float32, size=1, dynamic_size=True)
    ta = ta.write(0, x)
    i = 1
    while i < n:
        ag.set_loop_options(maximum_iterations=6)
        ta = ta.write(i, ta.read(i - 1) * 2.0)
        i += 1
    return ta.size(), ta.read(ta.size() - 1)


@pytest.mark.parametrize("n", [0, 1, 3, 7, 10])   # 7, 10: maximum_iterations stops both executors at size 7
def test_maximum_iterations_bounds_a_dynamic_tensor_array_whose_length_is_tracked(n):
    size, last = both(bounded, X, rt.constant(n))
    assert int(size) == min(max(n, 1), 7) and last.numpy().tolist() == [2.0 ** (int(size) - 1), 2.0 ** int(size)]


def test_writes_under_an_if_at_the_arrays_size_and_at_arithmetic_of_the_counter():
    def under_an_if(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(6):
            if i % 2 == 0:
                ta = ta.write(i // 2, x * rt.cast(i, rt.float32))
        return ta.size(), ta.read(2)

    def at_its_size(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(4):
            ta = ta.write(ta.size(), x * rt.cast(i, rt.float32))
        return ta.size(), ta.read(3)

    def spread_out(x, n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=[2])
        for i in rt.range(n):
            ag.set_loop_options(maximum_iterations=4)
            ta = ta.write(i * 3 + 1, x)   # the counter's range says: at most 10
        return ta.size(), ta.read(1)
    both(under_an_if, X)
    both(at_its_size, X)
    for n in (1, 3, 4, 9):
        both(spread_out, X, rt.constant(n))


def test_reads_past_the_length_and_negative_writes_are_the_numpy_executors_errors():
    def past_the_length(x, n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        i = 0
        while i < n:
            ag.set_loop_options(maximum_iterations=6)
            ta = ta.write(i, x)
            i += 1
        return ta.read(3)

    def negative(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(3):
            ta = ta.write(i - 1, x)
        return ta.size()
    assert same_error(past_the_length, X, rt.constant(2)).startswith(
        "TensorListGetItem: TensorArray: cannot read index 3: the array has size 2")
    both(past_the_length, X, rt.constant(5))
    assert "cannot write index -1: TensorArray indices start at 0" in same_error(negative, X)


def test_a_write_past_the_slots_the_bound_reserved_is_an_error_never_a_dropped_value():
    def data_dependent_index(x):   # the index's range is not known: one slot per iteration is reserved
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=[2])
        for i in rt.range(3):
            ta = ta.write(rt.cast(rt.reduce_sum(x), rt.int32) + i, x)
        return ta.size()
    both(data_dependent_index, rt.constant([0.0, 0.0]))
    assert int(ag.function(data_dependent_index)(X)) == 6
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^TensorListSetItem: TensorArray 'ta' was written at an "
                                                             r"index past the 3 slots its loop's bound reserved") as e:
        ag.function(data_dependent_index, jit_compile=True)(X)
    assert "the same call on the numpy executor passed" in str(e.value)


def test_without_a_bound_or_read_whole_after_a_bounded_loop_the_lowering_error_names_the_array():
    def unbounded(x, n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(n):
            ta = ta.write(i, x)
        return ta.size()

    def stacked_after_a_bound(x, n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(n):
            ag.set_loop_options(maximum_iterations=6)
            ta = ta.write(i, x)
        return ta.stack()
    with pytest.raises(rt.errors.LoweringError, match=r"^while \(While\) cannot be compiled with jit_compile=True: "
                                                      r"TensorArray 'ta' may grow in this loop \(dynamic_size=True, "
                                                      r"written at run-time indices\), and XLA needs the list's size "
                                                      r"when compiling.*maximum_iterations=n") as raised:
        ag.function(unbounded, jit_compile=True)(X, rt.constant(3))
    assert "for i in rt.range(n):" in str(raised.value)
    with pytest.raises(rt.errors.LoweringError, match=r"^TensorListStack \(TensorListStack\) cannot be compiled with "
                                                      r"jit_compile=True: it reads list 'ta' whole"):
        ag.function(stacked_after_a_bound, jit_compile=True)(X, rt.constant(3))
    for program in (unbounded, stacked_after_a_bound):
        assert_same(ag.function(program)(X, rt.constant(3)),
                    ag.function(program, jit_compile="auto")(X, rt.constant(3)))


def written_at_a_run_time_index(x, i, named):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, name="steps" if named else None)
    ta = ta.write(i, x)
    return ta.size()


@pytest.mark.parametrize("named, called", [(False, "TensorArray created at test_xla_tensor_arrays.py:"),
                                           (True, "TensorArray 'steps' ")])
def test_a_tensor_array_that_is_no_loop_variable_is_named_by_its_name_or_its_line(named, called):
    # An unnamed one was 'TensorListReserve' (the name of our op that makes it, which the user never wrote)
    with pytest.raises(rt.errors.LoweringError, match=r"a write at a run-time index may grow " + called) as raised:
        ag.function(written_at_a_run_time_index, jit_compile=True)(X, rt.constant(1), named)
    line = written_at_a_run_time_index.__code__.co_firstlineno + 1
    assert "TensorListReserve" not in str(raised.value)
    assert named or f"created at test_xla_tensor_arrays.py:{line} (dynamic_size=True)" in str(raised.value)


def test_arithmetic_of_a_loop_counter_keeps_its_range_and_leaves_out_checks_it_makes_needless():
    x = rt.constant(np.arange(20, dtype=np.float32).reshape(10, 2))

    def rows(x):
        total = rt.zeros([2])
        for i in rt.range(4):
            total += x[i * 2 + 1] + x[9 - i] + x[(i + 4) // 2]   # within 0..9 (9 - i too: value_ranges.py)
        return total
    compiled = ag.function(rows, jit_compile=True)
    assert_same(ag.function(rows)(x), compiled(x))
    assert [op.type for op in compiled.get_concrete_function(x)._run.program.checks] == []

    def one_row_too_far(x):
        total = rt.zeros([2])
        for i in rt.range(4):
            total += x[i * 3 + 2]   # 11 at i = 3
        return total
    assert "index 11 is out of bounds" in same_error(one_row_too_far, x)


ROWS = rt.TensorSpec([None, 3])
INDICES = rt.TensorSpec([None], rt.int32)


def scattered(x, i):
    ta = rt.TensorArray(rt.float32, size=4, element_shape=[3]).scatter(i, x)
    return ta.read(0), ta.read(3)


def test_a_scatter_of_fewer_rows_than_indices_is_the_numpy_executors_error_never_a_broadcast_row():
    # One row scattered at three indices of [None] signatures was broadcast to all three (JAX's .at[].set) where
    # the kernel raises
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    messages = []
    for jit_compile in (None, True):
        function = ag.function(scattered, input_signature=[ROWS, INDICES], jit_compile=jit_compile)
        with pytest.raises(rt.errors.InvalidArgumentError, match="scatter got 3 indices for 1 rows") as raised:
            function(x, np.array([0, 1, 3], np.int32))
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    rows = np.arange(9, dtype=np.float32).reshape(3, 3)   # a repeated index keeps its last row, as the kernel's
    for jit_compile in (None, True):
        function = ag.function(scattered, input_signature=[ROWS, INDICES], jit_compile=jit_compile)
        first, last = function(rows, np.array([3, 0, 3], np.int32))
        assert first.numpy().tolist() == [3.0, 4.0, 5.0] and last.numpy().tolist() == [6.0, 7.0, 8.0]


def unstacked_and_summed(x):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).unstack(x)
    total = rt.zeros([3])
    for k in rt.range(ta.size()):
        total += ta.read(k)
    return total, ta.stack()


def sized_by_the_rows(x):
    n = rt.shape(x)[0]
    ta = rt.TensorArray(rt.float32, size=n).unstack(x * 2.0)
    for k in rt.range(n):
        ta = ta.write(k, ta.read(k) + 1.0)
    return ta.stack()


@pytest.mark.parametrize("program", [unstacked_and_summed, sized_by_the_rows])
@pytest.mark.parametrize("rows", [0, 1, 4])
def test_unstack_into_a_tensor_array_compiles_and_a_loop_over_no_rows_too(program, rows):
    # ta.unstack(x) was a LoweringError ("the shape of the list's elements is not known") on every array without
    # element_shape=, and a write or read of an array of 0 elements in a loop that never runs one quoting JAX
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    expected = ag.function(program, input_signature=[ROWS])(x)
    got = ag.function(program, input_signature=[ROWS], jit_compile=True)(x)
    assert_same(got, expected)
