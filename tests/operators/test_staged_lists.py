"""Python lists in tensor loops become tensor lists (append, pop, items, len, iteration, stack/concat);
on Python values, and in Python-unrolled loops, lists stay exactly Python lists."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends import executor, interpreter
from test_user_programs import plain, run_three_ways
from user_errors import raises

W = np.array([[0.5, -0.25, 0.125], [0.25, 0.5, -0.5]], np.float32)


def rnn(xs, h):
    outs = []
    for t in rt.range(rt.shape(xs)[0]):
        h = rt.tanh(rt.matmul(xs[t:t + 1], W) + h)
        outs.append(h)
    return rt.stack(outs)


def test_rnn_appends_each_step_and_stacks():
    xs = np.arange(8, dtype=np.float32).reshape(4, 2) / 8
    h, expected = np.zeros((1, 3), np.float32), []
    for row in xs:
        h = np.tanh(row[None] @ W + h)
        expected.append(h)
    got = run_three_ways(rnn, rt.constant(xs), rt.constant(np.zeros((1, 3), np.float32)))
    np.testing.assert_allclose(np.array(got, np.float32), np.stack(expected), rtol=1e-6)
    graph = ag.function(rnn).get_concrete_function(rt.TensorSpec([None, 2]), rt.TensorSpec([1, 3])).graph
    ops = [op.type for op in graph.operations]
    assert ops.count("While") == 1 and "TensorListFromTensors" in ops and "TensorListStack" in ops
    (loop,) = [op for op in graph.operations if op.type == "While"]
    assert "TensorListPushBack" in [op.type for op in loop.attrs["body"].operations]
    assert "outs = ag__.list_append(outs, h)" in ag.to_code(rnn)


def list_tour(n):
    values = [100]
    for i in range(n):
        values.append(i * i)
    total = 0
    for v in values:          # iterating the list in another tensor loop
        total += v
    last = values.pop()
    values[0] = -1
    return len(values), values[-1], values[1], last, total, rt.stack(values), rt.concat([rt.stack(values)], 0)


def test_len_items_pop_set_item_and_iteration_after_the_loop():
    expected = (4, 4, 0, 9, 114, [-1, 0, 1, 4], [-1, 0, 1, 4])
    assert plain(list_tour(4)) == plain(ag.to_graph(list_tour)(4)) == expected
    staged = ag.function(list_tour)
    assert plain(staged(rt.constant(4))) == expected
    assert plain(staged(rt.constant(2))) == plain(list_tour(2)) == (2, 0, 0, 1, 101, [-1, 0], [-1, 0])
    raises(rt.errors.InvalidArgumentError, staged, (rt.constant(0),),
           "TensorListSetItem: list assignment index 0 is out of range for a list of length 0", at="values[0] = -1")


def test_pop_and_append_in_a_while_loop():
    def doubling_stack(n):
        stack = [1]
        i = 0
        while i < n:
            top = stack.pop()
            stack.append(top * 2)
            stack.append(top + 1)
            i += 1
        return rt.stack(stack)

    assert plain(ag.function(doubling_stack)(rt.constant(3))) == plain(doubling_stack(3)) == [2, 4, 6, 4]
    assert "(stack, top) = ag__.list_pop(stack)" in ag.to_code(doubling_stack)


def test_item_assignment_and_pop_inside_the_loop():
    def shift(n):
        window = [0, 0, 0]
        for i in range(n):
            window.pop(0)
            window.append(i)
            window[0] += 100
        return rt.stack(window)

    assert plain(ag.function(shift)(rt.constant(5))) == plain(shift(5)) == [102, 3, 4]


def test_appends_in_a_tensor_if_inside_the_loop():
    def evens(n):
        out = []
        for i in range(n):
            if i % 2 == 0:
                out.append(i)
        return rt.stack(out), len(out)

    assert plain(ag.function(evens)(rt.constant(7))) == ([0, 2, 4, 6], 4)
    assert plain(ag.function(evens)(rt.constant(7))) == plain(evens(7))


def test_elements_of_different_sizes_relax_the_element_shape_and_concat():
    def ragged(n):
        parts = []
        for i in range(n):
            parts.append(rt.range(i + 1))
        return rt.concat(parts, 0)

    staged = ag.function(ragged)
    assert plain(staged(rt.constant(4))) == [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]
    (loop,) = [op for op in staged.get_concrete_function(rt.TensorSpec([], rt.int32)).graph.operations
               if op.type == "While"]
    assert loop.outputs[-1].shape == (None,)  # the list's elements: rank 1, size unknown

    def stack_ragged(n):
        parts = []
        for i in range(n):
            parts.append(rt.range(i + 1))
        return rt.stack(parts)

    raises(rt.errors.InvalidArgumentError, ag.function(stack_ragged), (rt.constant(3),),
           "cannot stack list elements of different shapes [(1,), (2,), (3,)]; use rt.concat(list, axis)",
           at="return rt.stack(parts)")


def test_zero_trip_loop_stacks_an_empty_list_of_the_element_shape():
    def zeros_rows(n):
        rows = []
        for _ in range(n):
            rows.append(rt.zeros([2]))
        return rt.stack(rows)

    result = ag.function(zeros_rows)(rt.constant(0))
    assert (result.shape, result.dtype) == ((0, 2), rt.float32)


def test_python_values_and_unrolled_loops_keep_python_lists():
    def collect(items, n):
        alias = items
        for i in range(n):
            items.append(i * 10)
        first = items.pop(0)
        return alias, first, len(items)

    assert ag.to_graph(collect)([7], 3) == collect([7], 3) == ([0, 10, 20], 7, 3)
    given = [7]
    assert ag.to_graph(collect)(given, 2)[0] is given  # appended in place: aliases see it

    def unrolled(x):
        out = []
        for i in range(3):            # a Python loop: unrolled while tracing
            out.append(x * i)
        assert type(out) is list  # checked while tracing
        return len(out), rt.stack(out)

    staged = ag.function(unrolled)
    assert plain(staged(rt.constant(2))) == (3, [0, 2, 4])
    graph = staged.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    assert not any(op.type.startswith("TensorList") for op in graph.operations)


def test_graph_runs_the_same_in_both_executors_and_after_save_load(tmp_path):
    concrete = ag.function(list_tour).get_concrete_function(rt.TensorSpec([], rt.int32))
    args = [np.array(5, np.int32)]
    ours = [np.asarray(v) for v in interpreter.run_graph(concrete.graph, args)]
    compiled = executor.make_callable(concrete.graph)(*args)
    for a, b in zip(ours, compiled):
        np.testing.assert_array_equal(a, b)
    staged = ag.function(list_tour, input_signature=[rt.TensorSpec([], rt.int32)])
    staged(rt.constant(3))
    rt.save(staged, str(tmp_path / "lists"))
    assert plain(rt.load(str(tmp_path / "lists"))(rt.constant(5))) == plain(list_tour(5))


def test_onnx_export_runs_the_rnn_in_onnxruntime():
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    concrete = ag.function(rnn).get_concrete_function(rt.TensorSpec([None, 2]), rt.TensorSpec([1, 3]))
    model = rt.export.to_onnx(concrete)
    args = [np.arange(8, dtype=np.float32).reshape(4, 2) / 8, np.zeros((1, 3), np.float32)]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), args)})
    (ours,) = interpreter.run_graph(concrete.graph, args)
    np.testing.assert_allclose(theirs, ours, rtol=1e-6)  # tanh may differ in the last bit between libms


def test_elements_of_different_dtypes_name_the_list_and_the_fix():
    def mixed(n):
        out = [1.5]
        for i in range(n):
            out.append(i)
        return rt.stack(out)

    raises(rt.errors.StateError, ag.function(mixed), (rt.constant(3),),
           "the list 'out' holds float32 values but the new element is int32", "rt.cast(value, rt.float32)",
           at="out.append(i)")

    def mixed_later(n):
        out = []
        for i in range(n):
            out.append(rt.cast(i, rt.float32))
            out.append(i)
        return rt.stack(out)

    raises(TypeError, ag.function(mixed_later), (rt.constant(3),),
           "cannot put a int32 tensor into the list 'out' of float32 elements", at="out.append(i)")


def test_appending_a_python_object_to_a_staged_list_is_an_error():
    def names(n):
        out = []
        for i in range(n):
            out.append("step")
        return out

    raises(TypeError, ag.function(names), (rt.constant(3),), "cannot append a Python str ('step') to the list "
           "'out' inside a tensor-dependent loop", at='out.append("step")')
    assert ag.to_graph(names)(2) == ["step", "step"]


def test_returning_the_list_itself_says_to_stack_it():
    def returns_list(n):
        out = []
        for i in range(n):
            out.append(i)
        return out

    raises(TypeError, ag.function(returns_list), (rt.constant(3),), "returns_list() returns a tensor list",
           "return rt.stack(the_list)")


GLOBAL_LOG = []


def test_global_and_closure_lists_are_left_as_written():
    table = {}

    def record(x):
        GLOBAL_LOG.append(x)
        table['x'] = x
        for i in range(2):
            GLOBAL_LOG.append(i)
        return len(GLOBAL_LOG)

    code = ag.to_code(record)
    assert "GLOBAL_LOG = " not in code and "table = " not in code
    GLOBAL_LOG.clear()
    assert ag.to_graph(record)(7) == 3 and GLOBAL_LOG == [7, 0, 1] and table == {'x': 7}


# --- the runtime's TensorList ------------------------------------------------------------------------
def test_tensor_list_versions_never_see_each_others_elements():
    base = rt.TensorList.from_tensors([1, 2])
    a, b = base.append(3), base.append(4)      # b must copy: a already extended the shared storage
    shorter, popped = a.pop()
    again = shorter.append(5)
    assert plain([a.stack(), b.stack(), base.stack(), again.stack(), a.stack(), popped]) == [
        [1, 2, 3], [1, 2, 4], [1, 2], [1, 2, 5], [1, 2, 3], 3]
    assert plain(base.set_item(-1, 9).stack()) == [1, 9] and plain(base.stack()) == [1, 2]


def test_tensor_list_errors():
    items = rt.TensorList.from_tensors([1, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match="list index 2 is out of range for a list of length 2"):
        items[2]
    with pytest.raises(rt.errors.InvalidArgumentError, match="pop from an empty list"):
        rt.TensorList.empty(rt.int32, ()).pop()
    with pytest.raises(TypeError, match="cannot put a float32 tensor into a tensor list of int32 elements"):
        items.append(rt.constant(1.0))
    with pytest.raises(TypeError, match="a tensor list cannot be sliced"):
        items[0:1]
    assert len(items) == 2   # eagerly a Python list of tensors; while tracing len() is a tensor:
    with pytest.raises(TypeError, match=r"len\(\) of a tensor list is a tensor while tracing"):
        rt.function(lambda x: len(rt.TensorList.from_tensors([x])))(rt.constant(1))


def doubles_the_last_element_each_step(n):
    xs = [1, 2, 3]
    for i in range(n):
        xs.append(xs.pop() * 2)
    return rt.stack(xs)


def test_a_pop_in_the_value_appended_runs_first_as_a_pop_of_its_own():
    # It was left as written: the tensor list's own pop, whose result (a tuple) was then appended.
    assert "(xs, popped) = ag__.list_pop(xs)\n        xs = ag__.list_append(xs, popped * 2)" in \
        ag.to_code(doubles_the_last_element_each_step)
    staged = ag.function(doubles_the_last_element_each_step)
    for n, expected in [(0, [1, 2, 3]), (2, [1, 2, 12]), (3, [1, 2, 24])]:
        assert plain(doubles_the_last_element_each_step(n)) == expected
        assert run_three_ways(doubles_the_last_element_each_step, rt.constant(n)) == expected
        assert plain(staged(rt.constant(n))) == expected
    assert staged.experimental_get_tracing_count() == 1


def counts_in_an_inner_loop(n):
    xs = [1, 2, 3]
    for i in range(n):
        j = 0
        while j < i:
            j += 1
            xs[0] = xs[0] + 1
    return xs[0] * 10 + xs[2]


def beams_grown_by_an_inner_loop(n):
    beams = [0]
    for step in range(n):
        for k in range(2):
            beams.append(beams[-1] * 2 + k)
    return rt.stack(beams)


def assert_matches_python_in_one_trace(function, expected):
    """For each ``n -> value`` (each twice): Python, the staged function and run_three_ways give ``value``, and
    the staged function traces once."""
    staged = ag.function(function)
    for n, value in [*expected.items(), *expected.items()]:
        assert plain(function(n)) == value
        assert plain(staged(rt.constant(n))) == value
        assert run_three_ways(function, rt.constant(n)) == value
    assert staged.experimental_get_tracing_count() == 1


def test_a_list_only_an_inner_tensor_loop_changes_is_a_tensor_list_of_the_outer_loop_too():
    # The inner loop alone made it a tensor list, which the outer loop refused as a changed structure.
    for function, expected in [(counts_in_an_inner_loop, {0: 13, 1: 13, 3: 43}),
                               (beams_grown_by_an_inner_loop, {0: [0], 2: [0, 0, 1, 2, 5]})]:
        assert_matches_python_in_one_trace(function, expected)


def loop_in_a_tensor_if_changes_the_list(n):
    xs = [1, 2, 3]
    if n > 0:
        i = 0
        while i < n:
            i += 1
            xs[2] = xs[2] + i
    return xs[0] * 100 + xs[2]


def inner_if_appends_in_one_branch(n):
    xs = [1]
    if n > 0:
        if n > 2:
            xs.append(n)
        xs[0] = 5
    return rt.stack(xs)


def test_a_list_a_construct_inside_a_tensor_if_makes_a_tensor_list_is_one_on_both_paths():
    # The if's other path left the Python list: 'a list in the else branch but a tensor list in the if branch'.
    for function, expected in [(loop_in_a_tensor_if_changes_the_list, {0: 103, 1: 104, 3: 109}),
                               (inner_if_appends_in_one_branch, {0: [1], 1: [5], 4: [5, 4]})]:
        assert_matches_python_in_one_trace(function, expected)


def loop_then_loop_in_a_tensor_if(n):
    xs = [1, 2, 3]
    if n % 7 == 1:
        for _ in range(n):
            if len(xs) > 5:   # a Python if, never taken: the for loop leaves its items as a new list
                xs[2] = xs[2] + 1
        i = 0
        while i < n:
            i += 1
            xs.append(n)
    return xs[0] + xs[1] * 10 + xs[2] * 100 + len(xs) * 1000


def test_a_list_a_tensor_loop_rebuilt_then_a_later_loop_appends_to_is_a_tensor_list_of_the_if():
    # The later loop asked the if for the for loop's new list, which the if did not know as its list:
    # 'a list in the else branch but a tensor list of int32 elements in the if branch' (a random program).
    assert_matches_python_in_one_trace(loop_then_loop_in_a_tensor_if, {3: 3321, 1: 4321, 8: 11321})
