"""rt.TensorArray (tf.TensorArray): TensorFlow's API on the tensor-list handle, eagerly, traced, as the state
of rt.while_loop and of converted tensor loops; saved, loaded, run by both executors; clear errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from autograph_lite import tf
from runtime.backends import executor, interpreter
from test_user_programs import plain, run_three_ways
from user_errors import raises

W = np.array([[0.5, -0.25, 0.125], [0.25, 0.5, -0.5]], np.float32)


def eager_and_graph(function, *args):
    """``function(*args)`` run eagerly and as an ag.function; asserts both agree and returns the result."""
    eager, graph = plain(function(*args)), plain(ag.function(function)(*args))
    assert eager == graph, (eager, graph)
    return graph


# --- TensorFlow's documented examples --------------------------------------------------------------------
def plain_reading_and_writing():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    ta = ta.write(0, 10)
    ta = ta.write(1, 20)
    ta = ta.write(2, 30)
    return ta.read(0), ta.read(1), ta.read(2), ta.stack(), ta.size()


def test_plain_reading_and_writing():
    assert eager_and_graph(plain_reading_and_writing) == (10.0, 20.0, 30.0, [10.0, 20.0, 30.0], 3)
    assert tf.TensorArray is rt.TensorArray


def fibonacci(n):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = ta.unstack([0., 1.])
    for i in range(2, n):
        ta = ta.write(i, ta.read(i - 1) + ta.read(i - 2))
    return ta.stack()


def test_fibonacci_writes_in_a_converted_loop():
    assert run_three_ways(fibonacci, rt.constant(7)) == [0., 1., 1., 2., 3., 5., 8.]
    staged = ag.function(fibonacci)
    assert plain(staged(rt.constant(3))) == [0., 1., 1.] and plain(staged(rt.constant(2))) == [0., 1.]
    assert staged.experimental_get_tracing_count() == 1
    assert plain(ag.to_graph(fibonacci)(5)) == [0., 1., 1., 2., 3.]   # Python ints: an unrolled loop
    assert "ta = ag__.converted_call(ta.write" in ag.to_code(fibonacci)


def test_a_loop_that_writes_a_variable():
    counter = tf.Variable(1)

    @tf.function
    def running(x):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(x):
            counter.assign_add(i)
            ta = ta.write(i, counter)
        return ta.stack()

    assert plain(running(tf.constant(5))) == [1, 2, 4, 7, 11]


# --- loop state: converted loops and rt.while_loop ------------------------------------------------------
def rnn(xs, h):
    steps = rt.shape(xs)[0]
    inputs = rt.TensorArray(rt.float32, size=steps).unstack(xs)
    outs = rt.TensorArray(rt.float32, size=steps, element_shape=[1, 3])
    for t in rt.range(steps):
        h = rt.tanh(rt.matmul(rt.reshape(inputs.read(t), [1, 2]), W) + h)
        outs = outs.write(t, h)
    return outs.stack(), outs.size()


def test_rnn_writes_each_step_and_stacks():
    xs = np.arange(8, dtype=np.float32).reshape(4, 2) / 8
    h, expected = np.zeros((1, 3), np.float32), []
    for row in xs:
        h = np.tanh(row[None] @ W + h)
        expected.append(h)
    stacked, size = run_three_ways(rnn, rt.constant(xs), rt.constant(np.zeros((1, 3), np.float32)))
    np.testing.assert_allclose(np.array(stacked, np.float32), np.stack(expected), rtol=1e-6)
    assert size == 4
    concrete = ag.function(rnn).get_concrete_function(rt.TensorSpec([None, 2]), rt.TensorSpec([1, 3]))
    ops = [op.type for op in concrete.graph.operations]
    assert ops.count("While") == 1 and ops.count("TensorListReserve") == 2 and "TensorListStack" in ops
    (loop,) = [op for op in concrete.graph.operations if op.type == "While"]
    body = [op.type for op in loop.attrs["body"].operations]
    assert "TensorListSetItem" in body and "TensorListGetItem" in body
    stack_op = [op for op in concrete.graph.operations if op.type == "TensorListStack"][0]
    assert stack_op.outputs[0].shape == (None, 1, 3)


def squares_by_while_loop(n):
    ta = rt.TensorArray(rt.int32, size=n)
    _, ta = rt.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), (0, ta))
    return ta.stack(), ta.gather([3, 0, 3]), ta.concat() if False else ta.size()


def test_rt_while_loop_carries_an_array():
    assert eager_and_graph(squares_by_while_loop, rt.constant(5)) == ([0, 1, 4, 9, 16], [9, 0, 9], 5)


def test_an_array_as_state_of_a_tensor_if_and_a_while_statement():
    def branches(x):
        ta = rt.TensorArray(rt.float32, size=2)
        ta = ta.write(1, 5.0)
        if x > 0:
            ta = ta.write(0, x)
        else:
            ta = ta.write(0, -x * 10.0)
        i = 0
        while i < 2:
            ta = ta.write(i, ta.read(i) + 1.0)
            i += 1
        return ta.stack()

    assert run_three_ways(branches, rt.constant(2.0)) == [3.0, 6.0]
    assert run_three_ways(branches, rt.constant(-2.0)) == [21.0, 6.0]


def test_a_fixed_size_array_stacks_with_its_static_size():
    def scaled_rows(x, declared):
        ta = rt.TensorArray(rt.float32, size=3, element_shape=declared)
        for i in rt.range(3):
            ta = ta.write(i, x * rt.cast(i, rt.float32))
        return ta.stack()

    known = ag.function(lambda x: scaled_rows(x, [2]))
    assert known.get_concrete_function(rt.TensorSpec([2])).graph.outputs[0].shape == (3, 2)
    assert plain(known(rt.constant([1.0, 2.0]))) == [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]]
    # Undeclared, the array learns it from the loop body's write, as in TensorFlow (issue 23; it was unknown)
    learned = ag.function(lambda x: scaled_rows(x, None))
    assert learned.get_concrete_function(rt.TensorSpec([2])).graph.outputs[0].shape == (3, 2)
    assert plain(learned(rt.constant([1.0, 2.0]))) == [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]]


def test_both_executors_and_save_load(tmp_path):
    concrete = ag.function(rnn).get_concrete_function(rt.TensorSpec([None, 2]), rt.TensorSpec([1, 3]))
    args = [np.arange(10, dtype=np.float32).reshape(5, 2) / 10, np.zeros((1, 3), np.float32)]
    ours = [np.asarray(v) for v in interpreter.run_graph(concrete.graph, args)]
    compiled = executor.make_callable(concrete.graph)(*args)
    for a, b in zip(ours, compiled):
        np.testing.assert_array_equal(a, b)
    staged = ag.function(fibonacci, input_signature=[rt.TensorSpec([], rt.int32)])
    staged(rt.constant(3))
    rt.save(staged, str(tmp_path / "fib"))
    assert plain(rt.load(str(tmp_path / "fib"))(rt.constant(8))) == [0., 1., 1., 2., 3., 5., 8., 13.]


# --- the rest of the API -------------------------------------------------------------------------------
def scatter_gather_concat(x):
    ta = rt.TensorArray(rt.int32, size=4, tensor_array_name="table")
    ta = ta.scatter([3, 1], rt.stack([x, x * 2]))
    ta = ta.scatter([0, 2], rt.stack([x * 3, x * 4]))
    pieces = rt.TensorArray(rt.int32, size=0, dynamic_size=True, infer_shape=False)
    pieces = pieces.write(0, x).write(1, rt.concat([x, x], 0))
    return ta.stack(), ta.gather([2, 3]), ta.concat(), pieces.concat(), pieces.size()


def test_scatter_gather_concat_and_differing_shapes_without_infer_shape():
    assert eager_and_graph(scatter_gather_concat, rt.constant([1, 2])) == (
        [[3, 6], [2, 4], [4, 8], [1, 2]], [[4, 8], [1, 2]], [3, 6, 2, 4, 4, 8, 1, 2], [1, 2, 1, 2, 1, 2], 2)


def test_properties_identity_and_close():
    ta = rt.TensorArray(rt.float32, size=2, element_shape=[None, 3])
    assert ta.dtype == rt.float32 and ta.dynamic_size is False and ta.element_shape == rt.TensorShape([None, 3])
    written = ta.write(0, np.ones((2, 3), np.float32))
    assert written.element_shape == rt.TensorShape([2, 3])      # eagerly: the written element's shape
    assert written.identity().read(0).shape == (2, 3) and written.close() is None
    assert rt.TensorArray(rt.int32, size=0, dynamic_size=True).dynamic_size is True
    assert repr(written) == "<TensorArray of float32 elements of shape (2, 3), fixed size>"

    @ag.function
    def traced(x):
        grows = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        assert grows.element_shape == rt.TensorShape(None)
        grows = grows.write(0, x)
        assert grows.element_shape == rt.TensorShape([None, 3])  # the static shape of x
        return grows.read(0)

    assert traced.get_concrete_function(rt.TensorSpec([None, 3])).graph.outputs[0].shape == (None, 3)


def test_versions_never_see_each_others_elements():
    base = rt.TensorArray(rt.int32, size=0, dynamic_size=True).write(0, 1)
    a, b = base.write(1, 2), base.write(1, 3)     # b copies: a already extended the shared storage
    c = a.write(0, 7)                             # an overwrite copies
    d = base.write(3, 4)                          # grows with an unwritten gap
    assert plain([a.stack(), b.stack(), c.stack(), base.stack(), a.stack()]) == [
        [1, 2], [1, 3], [7, 2], [1], [1, 2]]
    assert plain([d.size(), d.read(3)]) == [4, 4]
    with pytest.raises(rt.errors.InvalidArgumentError, match="cannot stack element 1: it was never written"):
        d.stack()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-50, 50)), max_size=8))
def test_writes_match_a_python_model_eagerly_and_in_a_graph(writes):
    indices = [index for index, _ in writes]
    values = [value for _, value in writes]

    def write_all(indices, values):
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
        for k in rt.range(rt.size(indices)):
            ta = ta.write(indices[k], values[k])
        return ta.size(), rt.stack([ta.read(i) for i in sorted(set(model))]) if model else ta.size()

    model = {}
    for index, value in writes:
        model[index] = value
    args = rt.constant(indices, rt.int32) if indices else rt.zeros([0], rt.int32), \
        rt.constant(values, rt.int32) if values else rt.zeros([0], rt.int32)
    size, read = eager_and_graph(write_all, *args)
    assert size == (max(model) + 1 if model else 0)
    assert read == ([model[i] for i in sorted(model)] if model else 0)


# --- errors ---------------------------------------------------------------------------------------------
def test_reading_or_stacking_an_unwritten_element_is_an_error_naming_it():
    def unwritten(n):
        ta = rt.TensorArray(rt.float32, size=3, tensor_array_name="outs")
        ta = ta.write(0, 1.0)
        return ta.read(n)

    for function in (unwritten, ag.function(unwritten)):
        raises(rt.errors.InvalidArgumentError, function, (rt.constant(1),),
               "TensorArray 'outs': cannot read element 1: it was never written (the array has size 3)")
    raises(rt.errors.InvalidArgumentError, ag.function(unwritten), (rt.constant(1),), "never written",
           at="return ta.read(n)")

    def stacks(n):
        ta = rt.TensorArray(rt.float32, size=n)
        ta = ta.write(0, 1.0)
        return ta.stack()

    raises(rt.errors.InvalidArgumentError, ag.function(stacks), (rt.constant(2),),
           "TensorArray: cannot stack element 1: it was never written", at="return ta.stack()")


def test_out_of_range_and_negative_indices():
    def too_many(n):
        ta = rt.TensorArray(rt.float32, size=2)
        for i in rt.range(n):
            ta = ta.write(i, 1.0)
        return ta.stack()

    assert plain(ag.function(too_many)(rt.constant(2))) == [1.0, 1.0]
    message = "TensorArray: cannot write index 2: the array has size 2 and a fixed size; make it with dynamic_size=True"
    raises(rt.errors.InvalidArgumentError, too_many, (rt.constant(3),), message)
    raises(rt.errors.InvalidArgumentError, ag.function(too_many), (rt.constant(3),), message,
           at="ta = ta.write(i, 1.0)")

    def negative(n):
        return rt.TensorArray(rt.float32, size=2).write(n, 1.0).stack()

    raises(rt.errors.InvalidArgumentError, ag.function(negative), (rt.constant(-1),),
           "cannot write index -1: TensorArray indices start at 0 (a negative index does not count from the end)")

    def reads_past(n):
        return rt.TensorArray(rt.float32, size=2).unstack([1.0, 2.0]).read(n)

    assert eager_and_graph(reads_past, rt.constant(1)) == 2.0
    raises(rt.errors.InvalidArgumentError, ag.function(reads_past), (rt.constant(2),),
           "TensorArray: cannot read index 2: the array has size 2", at="read(n)")
    raises(rt.errors.InvalidArgumentError, reads_past, (rt.constant(2),), "cannot read index 2")
    with pytest.raises(rt.errors.InvalidArgumentError, match="cannot write index 2: the array has size 2"):
        rt.TensorArray(rt.float32, size=2).unstack([1.0, 2.0, 3.0])


def test_dtype_and_shape_errors():
    def wrong_dtype(n):
        return rt.TensorArray(rt.float32, size=2).write(0, n)

    for function in (wrong_dtype, ag.function(wrong_dtype)):  # raised while tracing: Python's traceback has the line
        raises(TypeError, function, (rt.constant(1),), "TensorArray holds float32 elements but write() was given a "
               "tensor of dtype int32; convert it with rt.cast(value, rt.float32)")

    def wrong_shape(n):
        ta = rt.TensorArray(rt.float32, size=2, tensor_array_name="rows")
        return ta.write(0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0])

    for function in (wrong_shape, ag.function(wrong_shape)):
        raises(ValueError, function, (rt.constant(1),), "TensorArray 'rows': cannot write a value of shape (3,): "
               "the array's elements have shape (2,); with infer_shape=True all elements have one shape")

    def shape_known_when_it_runs(n):
        ta = rt.TensorArray(rt.float32, size=2)
        return ta.write(0, rt.zeros([n])).write(1, [1.0, 2.0, 3.0]).stack()

    raises(rt.errors.InvalidArgumentError, ag.function(shape_known_when_it_runs), (rt.constant(2),),
           "cannot write an element of shape (3,) at index 1: the array's elements have shape (2,)",
           at="ta.write(0, rt.zeros([n]))")
    assert plain(ag.function(shape_known_when_it_runs)(rt.constant(3))) == [[0.0] * 3, [1.0, 2.0, 3.0]]
    with pytest.raises(ValueError, match="does not fit|cannot write a value of shape"):
        rt.TensorArray(rt.float32, size=1, element_shape=[2], infer_shape=False).write(0, [1.0])


def test_construction_and_return_errors():
    with pytest.raises(ValueError, match="TensorArray: size is required"):
        rt.TensorArray(rt.float32)
    with pytest.raises(TypeError, match="a TensorArray index must be an int or a scalar int tensor, got float"):
        rt.TensorArray(rt.float32, size=2).read(0.5)
    with pytest.raises(rt.errors.InvalidArgumentError, match="the size must be >= 0, got -1"):
        rt.TensorArray(rt.float32, size=-1)

    def returns_array(n):
        return rt.TensorArray(rt.float32, size=n)

    raises(TypeError, ag.function(returns_array), (rt.constant(1),), "returns_array() returns a tensor list",
           "or a TensorArray", "for a TensorArray: ta.stack()")


def test_onnx_export_names_the_array_ops():
    pytest.importorskip("onnx")
    concrete = ag.function(fibonacci).get_concrete_function(rt.TensorSpec([], rt.int32))
    with pytest.raises(rt.errors.ExportError, match="TensorListReserve"):
        rt.export.to_onnx(concrete)


# --- split ---------------------------------------------------------------------------------------------
def split_then_read(x, lengths):
    ta = rt.TensorArray(rt.float32, size=3, infer_shape=False, tensor_array_name="pieces").split(x, lengths)
    return ta.read(0), ta.read(1), ta.read(2), ta.concat(), ta.size()


def test_split_writes_each_piece_at_its_index_eagerly_and_traced():
    x = rt.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    assert eager_and_graph(split_then_read, x, rt.constant([2, 0, 3])) == (
        [1.0, 2.0], [], [3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], 3)
    staged = ag.function(split_then_read, input_signature=[rt.TensorSpec([None]), rt.TensorSpec([None], rt.int32)])
    assert plain(staged(x, rt.constant([5, 0, 0]))) == ([1.0, 2.0, 3.0, 4.0, 5.0], [], [], [1.0, 2.0, 3.0, 4.0, 5.0], 3)
    assert staged.experimental_get_tracing_count() == 1


def split_equal_rows(m):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).split(m, [2, 2])
    return ta.stack(), ta.size()


def test_split_into_equal_pieces_stacks_and_grows_a_dynamic_array():
    m = rt.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    assert eager_and_graph(split_equal_rows, m) == ([[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]], 2)
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).split(m, [2, 2])
    assert ta.element_shape == rt.TensorShape([2, 2])   # equal lengths: the pieces' exact shape


def test_split_keeps_the_elements_it_does_not_write():
    with pytest.raises(ValueError, match=r"cannot write a value of shape \(None, 2\): the array's elements have "
                                         r"shape \(2,\); with infer_shape=True all elements have one shape"):
        rt.TensorArray(rt.int32, size=3).write(2, [9, 9]).split([[1, 2], [3, 4]], [1, 1])
    ta = rt.TensorArray(rt.int32, size=3, infer_shape=False).write(2, [[9, 9]]).split([[1, 2], [3, 4]], [1, 1])
    assert plain(ta.stack()) == [[[1, 2]], [[3, 4]], [[9, 9]]]


def test_split_errors_name_the_array():
    fixed = rt.TensorArray(rt.float32, size=2, tensor_array_name="fixed")
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"TensorArray 'fixed': split lengths \[2, 2\] must be "
                                                             r">= 0 and add up to the 3 rows of the value"):
        fixed.split([1.0, 2.0, 3.0], [2, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"split lengths \[4, -1\] must be >= 0"):
        fixed.split([1.0, 2.0, 3.0], [4, -1])
    with pytest.raises(rt.errors.InvalidArgumentError, match="TensorArray 'fixed': cannot write index 2: the array "
                                                             "has size 2 and a fixed size"):
        fixed.split([1.0, 2.0, 3.0], [1, 1, 1])
    with pytest.raises(ValueError, match="TensorArray 'fixed': cannot split a scalar"):
        fixed.split(1.0, [1])
    with pytest.raises(TypeError, match="TensorArray 'fixed' holds float32 elements but split\\(\\) was given a "
                                        "tensor of dtype int32"):
        fixed.split(rt.constant([1, 2]), [1, 1])
    shaped = rt.TensorArray(rt.float32, size=2, element_shape=[None, 3])
    with pytest.raises(ValueError, match=r"cannot write a value of shape \(None, 2\): the array's elements have "
                                         r"shape \(None, 3\)"):
        shaped.split(np.zeros((4, 2), np.float32), [2, 2])


def test_a_traced_scatter_of_a_scalar_is_refused_by_the_op_with_the_arrays_name():
    def scatter(x):
        return rt.TensorArray(rt.float32, size=2, name="fixed").scatter([0], x).stack()

    with pytest.raises(ValueError, match=r"TensorListScatterIntoExistingList\): TensorArray 'fixed': cannot scatter "
                                         r"or unstack a scalar; give a tensor of rank >= 1$"):
        rt.function(scatter).get_concrete_function(rt.TensorSpec([]))
