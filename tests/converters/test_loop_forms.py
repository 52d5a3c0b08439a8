"""Cheap forms for small ops in loop bodies (issue 26): one_hot by index assignment, ArgMax/ArgMin as
methods, TensorListPushBack without a wrapper object: the same values as the kernels and the interpreter."""
import itertools

import numpy as np
import pytest

import runtime as rt
from runtime.core.registry import apply_op
from runtime.ops import list_ops
from runtime.backends.executor import generated_source, make_callable
from runtime.ops import manipulation_ops
from test_executor import same_as_interpreter, trace


def _one_hot_by_comparison(indices, depth, on_value, off_value, axis):
    """The textbook form: compare every index with every position, then select."""
    out = np.where(indices[..., None] == np.arange(depth), on_value, off_value).astype(on_value.dtype)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("shape, depth, index_dtype, values", list(itertools.product(
    [(0,), (7,), (3, 4), (2, 0, 3)], [0, 1, 5], [np.int32, np.int64, np.uint8],
    [(np.float32(1), np.float32(0)), (np.int32(5), np.int32(-1)), (np.bool_(True), np.bool_(False))])))
def test_one_hot_by_index_assignment_gives_the_comparisons_values(shape, depth, index_dtype, values):
    rng = np.random.default_rng(len(shape) * 10 + depth)
    low = 0 if index_dtype is np.uint8 else -2
    indices = rng.integers(low, depth + 2, shape).astype(index_dtype)  # some outside [0, depth): rows all off
    on_value, off_value = np.array(values[0]), np.array(values[1])
    for axis in range(-1, len(shape) + 1):
        got = manipulation_ops._one_hot_kernel(indices, np.int32(depth), on_value, off_value, axis=axis)
        want = _one_hot_by_comparison(indices, depth, on_value, off_value, axis)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
        assert got.flags.c_contiguous


def test_one_hot_in_a_graph_matches_eager():
    f = rt.Function(lambda i: rt.one_hot(i, 4, on_value=2.0, off_value=-1.0, axis=0))
    indices = rt.constant([[0, 3], [-1, 9]])
    np.testing.assert_array_equal(f(indices).numpy(), rt.one_hot(indices, 4, on_value=2.0, off_value=-1.0, axis=0))


def test_arg_max_and_min_are_methods_in_compiled_code():
    graph = trace(lambda x: (rt.argmax(x, axis=0, output_type=rt.int32), rt.argmin(x, axis=1),
                             rt.argmax(x[0])), (rt.float32, (5, 3)))
    source = generated_source(make_callable(graph))
    assert ".argmax(axis=0).astype(" in source and ".argmin(axis=1).astype(" in source and "k_Arg" not in source
    x = np.random.default_rng(2).standard_normal((5, 3)).astype(np.float32)
    x[1, 1] = x[3, 1]  # a tie: the first index, as the kernel gives
    got = same_as_interpreter(graph, x)
    assert [g.dtype for g in got] == [np.int32, np.int64, np.int64] and got[2].shape == ()


def backpointers(scores, n):
    pointers = []
    for t in rt.range(n):
        pointers.append(rt.argmax(scores[t] + rt.cast(t, rt.float32), output_type=rt.int32))
    return rt.stack(pointers)


def test_appends_in_a_loop_push_bare_list_values_and_give_the_eager_result():
    ag = pytest.importorskip("autograph_lite")
    scores = np.random.default_rng(4).standard_normal((6, 5)).astype(np.float32)
    f = ag.function(backpointers)
    got = f(rt.constant(scores), rt.constant(6))
    want = np.argmax(scores + np.arange(6, dtype=np.float32)[:, None], axis=1).astype(np.int32)
    np.testing.assert_array_equal(got.numpy(), want)
    source = generated_source(f.get_concrete_function(rt.constant(scores), rt.constant(6)).compiled())
    assert "push_back_" in source and "k_TensorListPushBack" not in source


def test_a_list_handle_pushed_in_a_loop_may_be_read_by_every_list_kernel():
    def empty():
        return apply_op(list_ops.TENSOR_LIST_FROM_TENSORS, (), {"element_dtype": rt.float32, "element_shape": (2,)})

    def push(handle, value):
        return apply_op(list_ops.TENSOR_LIST_PUSH_BACK, (handle, value), {"element_dtype": rt.float32})

    def f(x, n):
        handle = rt.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, push(h, x * rt.cast(i, rt.float32))),
                               [0, empty()])[1]
        stacked = apply_op(list_ops.TENSOR_LIST_STACK, (handle,), {"element_dtype": rt.float32,
                                                                  "element_shape": (2,)})
        return stacked, apply_op(list_ops.TENSOR_LIST_LENGTH, (handle,), {}), handle
    graph = trace(f, (rt.float32, (2,)), (rt.int32, ()))
    assert "push_back_" in generated_source(make_callable(graph))
    x = np.array([1.0, 2.0], np.float32)
    stacked, length, handle = make_callable(graph)(x, np.array(3, np.int32))
    np.testing.assert_array_equal(stacked, [[0, 0], [1, 2], [2, 4]])
    assert int(length) == 3
    assert type(handle) is np.ndarray and handle.shape == () and list_ops._unwrap(handle).length == 3  # wrapped


def test_a_row_only_read_is_a_view_and_a_row_returned_or_kept_is_a_copy():
    def f(table, i):
        read = table[i] + 1.0            # only read by an add: a view
        kept = table[i]                  # returned: a copy the caller may change
        return read, kept, rt.reduce_sum(table[0])
    graph = trace(f, (rt.float32, (3, 4)), (rt.int32, ()))
    source = generated_source(make_callable(graph))
    assert source.count("_copy(") == 1 and source.count("in0[in1]") == 2
    table = np.arange(12, dtype=np.float32).reshape(3, 4)
    read, kept, total = same_as_interpreter(graph, table, np.array(2, np.int32))
    kept[0] = -1.0
    assert table[2, 0] == 8.0 and not np.shares_memory(kept, table)


def test_a_slice_of_a_loop_variable_updated_in_place_is_a_copy():
    ag = pytest.importorskip("autograph_lite")

    def fill(n):
        table = rt.zeros((4, 3))
        total = rt.zeros((3,))
        for i in rt.range(n):
            row = table[i % 4]         # read before the in-place write below
            table[(i + 1) % 4] = row + 1.0
            total += row
        return table, total
    f = ag.function(fill)
    table, total = f(rt.constant(6))
    want_table, want_total = np.zeros((4, 3), np.float32), np.zeros(3, np.float32)
    for i in range(6):
        row = want_table[i % 4].copy()
        want_table[(i + 1) % 4] = row + 1.0
        want_total += row
    np.testing.assert_array_equal(table.numpy(), want_table)
    np.testing.assert_array_equal(total.numpy(), want_total)
    source = generated_source(f.get_concrete_function(rt.constant(6)).compiled())
    assert "# in place" in source  # the table is written in place, so its row is copied before
    assert any("_copy(" in line for line in source.splitlines() if "[v" in line and "=" in line)
