"""docs/XLA.md's table of what does not compile: each construct is a LoweringError naming the op, the user's file
and line, and the fix, and jit_compile="auto" runs it on the numpy executor with a warning saying why (the
numpy executor's results). A limit met only when the program runs (a TensorArray of dynamic_size=True written
past the slots its loop's bound reserved, at an index computed from data) is an InvalidArgumentError under
jit_compile=True, and under "auto" that call's results are the numpy executor's, with a warning."""
import inspect

import pytest

import autograph_lite as ag
import runtime as rt
from test_xla_backend import assert_same

jax = pytest.importorskip("jax")

X = rt.constant([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]])
V = rt.constant([0.3, -0.7])


def appended_without_a_bound(x, n):
    values = []
    for i in rt.range(n):
        values.append(x * rt.cast(i, rt.float32))
    return len(values)


def stacked_after_a_break(x):
    values = []
    for i in rt.range(4):
        if rt.reduce_sum(x) > 10.0:
            break
        values.append(x)
        x = x * 2.0
    return rt.stack(values)


def gradient_through_an_unbounded_inner_loop(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in rt.range(2):
            for j in rt.range(n):
                y = rt.tanh(y) * 1.5
        loss = rt.reduce_sum(y)
    return tape.gradient(loss, x)


def dynamic_array_stacked_after_nested_loops(x):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for i in rt.range(2):
        for j in rt.range(3):
            ta = ta.write(i * 3 + j, x[0] * rt.cast(j, rt.float32))
    return ta.stack()


def dynamic_array_written_outside_a_loop(x, n):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    ta = ta.write(n, x[0])
    return ta.size()


def dynamic_array_stacked_after_a_bound(x, n):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for i in rt.range(n):
        ag.set_loop_options(maximum_iterations=4)
        ta = ta.write(i, x[0])
    return ta.stack()


def split_at_run_time_lengths(x, n):
    return rt.TensorArray(rt.float32, size=2).split(x, rt.stack([n, 2 - n])).concat()


def where_of_one_argument(x):
    return rt.where(x > 0.0)


def unique(x):
    return rt.unique(rt.reshape(x, [-1]))[0]


def unique_with_counts(x):
    return rt.unique_with_counts(rt.reshape(x, [-1]))[2]


def reshape_to_a_computed_shape(x, n):
    return rt.reshape(x, rt.stack([n, -1]))


def fill_of_a_computed_size(x, n):
    return rt.fill([n], 2.0)


def range_read_whole(x, n):
    return rt.range(n) * 2


def slice_of_tensor_bounds(x, n):
    return x[:, n:]


def top_k_of_a_tensor_k(x, n):
    return rt.math.top_k(x, n)[0]


def pad_of_computed_amounts(x, n):
    return rt.pad(x, rt.stack([rt.stack([n, 0]), rt.stack([0, n])]))


def branches_of_different_shapes(x, n):
    if n > 1:
        y = x
    else:
        y = x[0]
    return rt.reduce_sum(y)


def loop_variable_changing_shape(x, n):
    y = x[0]
    for i in rt.range(n):
        y = rt.concat([y, y], 0)
    return rt.reduce_sum(y)


def gradient_through_pieces_of_different_lengths(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        ta = rt.TensorArray(rt.float32, size=2, infer_shape=False).split(x, [0, 2])
        loss = rt.reduce_sum(ta.concat() ** 2.0)
    return tape.gradient(loss, x)


def read_pieces_at_a_run_time_index(x, n):
    return rt.TensorArray(rt.float32, size=2, infer_shape=False).split(x, [0, 2]).read(n)


_SHAPE_FIX = r"compute it from Python values or static shapes, or run this function with jit_compile=None or 'auto'"
_LOOP_FIX = r"maximum_iterations=n.*jit_compile='auto'"
_WHOLE = r"it reads list '{}' whole.*known only when the graph runs.*TensorArray of a fixed size.*jit_compile='auto'"
TABLE = [
    (appended_without_a_bound, r"^while \(While\).*list 'values' is appended to in this loop.*" + _LOOP_FIX,
     "for i in rt.range(n):"),
    (stacked_after_a_break, r"^TensorListStack \(TensorListStack\).*" + _WHOLE.format("values"), "return rt.stack(values)"),
    (gradient_through_an_unbounded_inner_loop, r"^while \(While\).*for a gradient through this loop.*" + _LOOP_FIX,
     "for j in rt.range(n):"),
    (dynamic_array_stacked_after_nested_loops, r"^TensorListStack .*" + _WHOLE.format("ta"), "return ta.stack()"),
    (dynamic_array_written_outside_a_loop, r"^TensorListSetItem .*may grow TensorArray.*fixed size.*'auto'",
     "ta = ta.write(n, x[0])"),
    (dynamic_array_stacked_after_a_bound, r"^TensorListStack .*" + _WHOLE.format("ta"), "return ta.stack()"),
    (split_at_run_time_lengths, r"^TensorListSplit .*lengths are computed when the graph runs.*Python list.*'auto'",
     "return rt.TensorArray(rt.float32, size=2).split(x, rt.stack([n, 2 - n])).concat()"),
    (read_pieces_at_a_run_time_index, r"^TensorListGetItem .*index known only when the graph runs.*Python index.*'auto'",
     "return rt.TensorArray(rt.float32, size=2, infer_shape=False).split(x, [0, 2]).read(n)"),
    (where_of_one_argument, r"^Where \(Where\).*number of true elements.*rt.where\(condition, x, y\).*'auto'",
     "return rt.where(x > 0.0)"),
    (unique, r"^Unique \(Unique\).*distinct values.*outside the jit_compile=True function.*'auto'",
     "return rt.unique(rt.reshape(x, [-1]))[0]"),
    (unique_with_counts, r"^UniqueWithCounts .*distinct values.*outside the jit_compile=True function.*'auto'",
     "return rt.unique_with_counts(rt.reshape(x, [-1]))[2]"),
    (reshape_to_a_computed_shape, r"^Reshape \(Reshape\).*target shape is computed.*" + _SHAPE_FIX,
     "return rt.reshape(x, rt.stack([n, -1]))"),
    (fill_of_a_computed_size, r"^Fill \(Fill\).*shape is computed.*" + _SHAPE_FIX, "return rt.fill([n], 2.0)"),
    (range_read_whole, r"^Mul \(Mul\).*a range whose length is known only when the graph runs.*Python length.*'auto'",
     "return rt.range(n) * 2"),
    (slice_of_tensor_bounds, r"^StridedSlice .*slice bounds.*" + _SHAPE_FIX, "return x[:, n:]"),
    (top_k_of_a_tensor_k, r"^TopKV2 .*its k is computed.*" + _SHAPE_FIX, "return rt.math.top_k(x, n)[0]"),
    (pad_of_computed_amounts, r"^PadV2 .*paddings.*computed.*" + _SHAPE_FIX,
     "return rt.pad(x, rt.stack([rt.stack([n, 0]), rt.stack([0, n])]))"),
    (branches_of_different_shapes, r"^cond \(If\).*two branches give values of different shapes.*pad or reshape.*'auto'",
     "if n > 1:"),
    (loop_variable_changing_shape, r"^while \(While\).*loop variable \(of <loop counter>, y\) changes shape.*"
                                   r"preallocate it.*'auto'", "for i in rt.range(n):"),
    (gradient_through_pieces_of_different_lengths, r"^TensorListSplitLike .*split into pieces of different lengths.*"
                                                   r"pieces of one length.*'auto'", "return tape.gradient(loss, x)"),
]


@pytest.mark.parametrize("program, message, line", TABLE, ids=[row[0].__name__ for row in TABLE])
def test_each_construct_is_a_lowering_error_naming_the_line_and_the_fix_and_auto_runs_it_on_numpy(
        program, message, line, caplog):
    args = (X, rt.constant(1)) if len(inspect.signature(program).parameters) == 2 else (X,)
    if program is gradient_through_an_unbounded_inner_loop:
        args = (V, rt.constant(2))
    with pytest.raises(rt.errors.LoweringError, match=message) as raised:
        ag.function(program, jit_compile=True)(*args)
    text = str(raised.value)
    assert 'test_xla_not_compiled.py", line ' in text and f"in {program.__name__}\n      {line}\n" in text + "\n", text
    auto = ag.function(program, jit_compile="auto")
    assert_same(ag.function(program)(*args), auto(*args))
    assert f"jit_compile='auto': {text.splitlines()[0]}" in caplog.text
    assert "on the numpy executor instead" in caplog.text
    caplog.clear()
    assert_same(ag.function(program)(*args), auto(*args))   # (the next call: no second warning)
    assert caplog.text == ""


def written_past_the_reserved_slots(x, n):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    i = 0
    while i < n:
        ag.set_loop_options(maximum_iterations=3)
        ta = ta.write(rt.cast(rt.reduce_sum(x[0]), rt.int32) * i, x[0])   # an index computed from data
        i += 1
    return ta.size()


def test_a_limit_met_when_the_program_runs_is_an_error_and_auto_gives_the_numpy_executors_results(caplog):
    small, large = rt.constant([[0.0, 1.0, 0.0]]), rt.constant([[2.0, 3.0, 0.0]])   # indices 0, 1, 2 or 0, 5, 10
    compiled, auto = ag.function(written_past_the_reserved_slots, jit_compile=True), \
        ag.function(written_past_the_reserved_slots, jit_compile="auto")
    assert int(compiled(small, rt.constant(3))) == 3
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"TensorArray 'ta' was written at an index past the 3 "
                                                             r"slots its loop's bound reserved.*the same call on the "
                                                             r"numpy executor passed.*jit_compile=None") as raised:
        compiled(large, rt.constant(3))
    assert "in written_past_the_reserved_slots" in str(raised.value)
    assert int(auto(large, rt.constant(3))) == int(ag.function(written_past_the_reserved_slots)(large,
                                                                                                rt.constant(3))) == 11
    assert "jit_compile='auto'" in caplog.text and "past the 3 slots" in caplog.text
    assert "this call ran on the numpy executor instead" in caplog.text
    caplog.clear()
    assert int(auto(small, rt.constant(3))) == 3 and caplog.text == ""   # the next call is compiled again
