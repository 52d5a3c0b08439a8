"""jit_compile=True with TensorArray.split(value, lengths), the lengths known when compiling: pieces of one length
are written into the array's buffer like any write; pieces of different lengths are elements of different shapes,
read at Python indices, measured and concatenated. Values and errors are the numpy executor's exactly; lengths
known only when the graph runs, and run-time reads of pieces of different shapes, are a LoweringError naming
the line (and jit_compile="auto" runs them on the numpy executor)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from support.example_budgets import examples
from test_xla_backend import assert_same
from test_xla_nested_lists import exactly
from test_xla_tensor_arrays import same_error

jax = pytest.importorskip("jax")
V = rt.constant(np.arange(12, dtype=np.float32).reshape(6, 2))


def test_pieces_of_one_length_are_the_arrays_elements_read_anywhere():
    def equal(v):
        ta = rt.TensorArray(rt.float32, size=3).split(v, [2, 2, 2])
        total = rt.zeros([2, 2])
        for i in rt.range(3):   # a run-time index: one buffer, as after any write
            total += ta.read(i) * rt.cast(i + 1, rt.float32)
        return ta.stack(), ta.concat(), ta.size(), ta.gather([2, 0]), total

    def grown(v):   # dynamic_size: size 0 grows to the 3 pieces
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=[2, 2])
        return ta.split(v, rt.constant([2, 2, 2])).stack()
    stacked = exactly(equal, V)[0]
    np.testing.assert_array_equal(stacked, V.numpy().reshape(3, 2, 2))
    assert exactly(grown, V)[0].shape == (3, 2, 2)


def test_an_array_a_tensor_loop_carries_is_split_in_its_body():
    def in_a_loop(v):   # made without element_shape: the loop's body says what it holds
        ta = rt.TensorArray(rt.float32, size=2)
        for i in rt.range(3):
            ta = ta.split(v * rt.cast(i + 1, rt.float32), [3, 3])
        return ta.stack()

    def different_lengths_in_a_loop(v):
        ta = rt.TensorArray(rt.float32, size=2)
        for i in rt.range(3):
            ta = ta.split(v * rt.cast(i + 1, rt.float32), [2, 4])
        return ta.concat()
    np.testing.assert_array_equal(exactly(in_a_loop, V)[0], V.numpy().reshape(2, 3, 2) * 3.0)
    with pytest.raises(rt.errors.LoweringError, match=r"^TensorListSplit .*splits an array a tensor loop carries "
                                                      r"into pieces of different lengths.*pieces of one length") as e:
        ag.function(different_lengths_in_a_loop, jit_compile=True)(V)
    assert "ta = ta.split(v * rt.cast(i + 1, rt.float32), [2, 4])" in str(e.value)


def test_pieces_of_different_lengths_read_at_python_indices_concat_and_size():
    def pieces(v):
        ta = rt.TensorArray(rt.float32, size=3, infer_shape=False).split(v, [1, 3, 2])
        return ta.read(0), ta.read(1), ta.read(2), ta.concat(), ta.size(), ta.gather([2])

    def carried(v, n):   # through a tensor loop and a tensor if, unchanged
        ta = rt.TensorArray(rt.float32, size=4).split(v, [3, 0, 1, 2])
        total = rt.zeros([2])
        for i in rt.range(n):
            total += ta.read(0)[i % 3]
        if n > 2:
            total += ta.read(3)[1]
        return total, ta.concat()

    def with_elements_after_them(v):
        ta = rt.TensorArray(rt.float32, size=3)
        ta = ta.write(2, v[:1] * 10.0)
        ta = ta.split(v, [2, 4])
        return ta.read(2), ta.read(1), ta.concat()
    got = exactly(pieces, V)
    assert [g.shape for g in got] == [(1, 2), (3, 2), (2, 2), (6, 2), (), (1, 2, 2)]
    np.testing.assert_array_equal(got[3], V.numpy())
    for n in (0, 2, 5):
        exactly(carried, V, rt.constant(n))
    assert exactly(with_elements_after_them, V)[2].shape == (7, 2)


def test_what_fails_on_every_run_is_the_numpy_executors_error_when_the_split_runs():
    def stacked(v):
        return rt.TensorArray(rt.float32, size=2).split(v, [2, 4]).stack()

    def gathered(v):
        return rt.TensorArray(rt.float32, size=2).split(v, [2, 4]).gather([1, 0])

    def too_many_pieces(v):
        return rt.TensorArray(rt.float32, size=2).split(v, [2, 2, 2]).size()

    def lengths_not_adding_up(v):
        return rt.TensorArray(rt.float32, size=2).split(v, [2, 3]).size()

    def unwritten(v):
        ta = rt.TensorArray(rt.float32, size=3).split(v, [2, 4])
        return ta.read(2)

    def another_shape(v):   # infer_shape: the pieces' shape must be the written element's
        ta = rt.TensorArray(rt.float32, size=3).write(2, v[:2])
        return ta.split(v, [3, 3]).size()

    def only_if_it_runs(v, flag):
        if flag:
            return rt.TensorArray(rt.float32, size=2).split(v, [2, 3]).size()
        return rt.constant(-1)
    assert "cannot stack list elements of different shapes" in same_error(stacked, V)
    assert "same shape" in same_error(gathered, V)
    assert "has size 2 and a fixed size" in same_error(too_many_pieces, V)
    assert "split lengths [2, 3] must be >= 0 and add up to the 6 rows" in same_error(lengths_not_adding_up, V)
    assert "cannot read element 2: it was never written" in same_error(unwritten, V)
    assert "all elements have one shape" in same_error(another_shape, V)
    assert exactly(only_if_it_runs, V, rt.constant(False))[0] == -1
    same_error(only_if_it_runs, V, rt.constant(True))


def run_time_lengths(v, n):
    return rt.TensorArray(rt.float32, size=2).split(v, rt.stack([n, 6 - n])).concat()


def read_at_a_run_time_index(v, i):
    return rt.TensorArray(rt.float32, size=2).split(v, [2, 4]).read(i)


@pytest.mark.parametrize("program, message, line", [
    (run_time_lengths, r"^TensorListSplit \(TensorListSplit\) cannot be compiled with jit_compile=True: its lengths "
                       r"are computed when the graph runs.*Python list.*jit_compile=None or 'auto'",
     "return rt.TensorArray(rt.float32, size=2).split(v, rt.stack([n, 6 - n])).concat()"),
    (read_at_a_run_time_index, r"^TensorListGetItem \(TensorListGetItem\) cannot be compiled with jit_compile=True: "
                               r"it reads an array split into pieces of different lengths at an index known only "
                               r"when the graph runs.*read it at a Python index, concat\(\) it",
     "return rt.TensorArray(rt.float32, size=2).split(v, [2, 4]).read(i)"),
])
def test_run_time_lengths_and_indices_are_a_lowering_error_naming_the_line_and_auto_falls_back(
        program, message, line, caplog):
    with pytest.raises(rt.errors.LoweringError, match=message) as raised:
        ag.function(program, jit_compile=True)(V, rt.constant(1))
    assert f"in {program.__name__}\n      {line}" in str(raised.value)
    assert "test_xla_tensor_array_split.py\", line" in str(raised.value)
    auto = ag.function(program, jit_compile="auto")(V, rt.constant(1))
    assert "jit_compile='auto': " + str(raised.value).splitlines()[0] in caplog.text
    assert_same(ag.function(program)(V, rt.constant(1)), auto)


@examples(quick=3, full=25)   # each example compiles a new program
def test_random_splits_give_the_numpy_executors_exact_values(max_examples):
    @settings(max_examples=max_examples, deadline=None)
    @given(lengths=st.lists(st.integers(0, 3), min_size=1, max_size=4), extra=st.integers(0, 2),
           reads=st.lists(st.integers(0, 5), max_size=3))
    def check(lengths, extra, reads):
        value = rt.constant(np.arange(2 * sum(lengths), dtype=np.float32).reshape(-1, 2))
        size = len(lengths) + extra

        def program(v):
            ta = rt.TensorArray(rt.float32, size=size, infer_shape=False)
            for k in range(extra):
                ta = ta.write(len(lengths) + k, v[:1] * -1.0 if sum(lengths) else rt.zeros([1, 2]))
            ta = ta.split(v, lengths)
            return [ta.read(k) for k in reads if k < size] + [ta.concat(), ta.size()]
        exactly(program, value)
    check()
