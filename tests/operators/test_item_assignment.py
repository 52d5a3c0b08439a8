"""x[key] = v in converted code: a functional update on tensors (loop state when x is), exactly Python on
lists, dicts and numpy arrays (aliases see the change); tensors refuse __setitem__ outside converted code."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from test_user_programs import plain
from user_errors import raises


def graph_and_converted(function, *args):
    """The graph result and the converted function's result on eager tensors agree; returns it.

    (``run_functions_eagerly(True)`` runs the original, where ``x[i] = v`` on a tensor is a TypeError.)"""
    graph = plain(ag.function(function)(*args))
    converted = plain(ag.to_graph(function)(*args))
    assert graph == converted, (graph, converted)
    return graph


def assignments(x, i, v):
    x[i] = v
    x[i + 1] += v
    x[0:2] = [v * 3, v * 3]
    x[-1] *= 2
    return x


def test_to_code_says_what_item_assignment_became():
    code = ag.to_code(assignments)
    assert "x = ag__.set_item(x, i, v)" in code
    assert "x = ag__.set_item_augmented(x, i + 1, '+=', v)" in code
    assert "x = ag__.set_item(x, ag__.slice(0, 2, None), [v * 3, v * 3])" in code
    assert "x = ag__.set_item_augmented(x, -1, '*=', 2)" in code


@pytest.mark.parametrize("make", [list, np.array])
def test_python_values_keep_python_semantics_and_aliases(make):
    expected, original = make([1, 2, 3, 4, 5]), make([1, 2, 3, 4, 5])
    result = ag.to_graph(assignments)(original, 2, 10)
    assert result is original  # mutated in place, not copied
    assignments(expected, 2, 10)
    assert list(original) == list(expected) == [30, 30, 10, 14, 10]


def test_dicts_nested_targets_and_swaps_are_python():
    def program(d, rows, values):
        alias = values
        d['new'] = 1
        d['count'] += 5
        rows[0][1] = 9            # not a plain name: left as written
        values[0], values[2] = values[2], values[0]
        return d, rows, alias

    args = lambda: ({'count': 1}, [[0, 0], [0, 0]], [1, 2, 3])  # noqa: E731
    assert ag.to_graph(program)(*args()) == program(*args()) == ({'count': 6, 'new': 1}, [[0, 9], [0, 0]], [3, 2, 1])


def test_item_assignment_on_tensors_in_graph_and_eager():
    assert graph_and_converted(assignments, rt.constant([1, 2, 3, 4, 5]), 2, 10) == [30, 30, 10, 14, 10]
    assert graph_and_converted(assignments, rt.constant([1.0, 2, 3, 4, 5]), rt.constant(1), 0.5) == [
        1.5, 1.5, 3.5, 4.0, 10.0]


def fill_diagonal(n):
    table = rt.zeros([4, 4], rt.int32)
    for i in range(n):
        table[i, i] = i + 1
        table[i, 3] += 10
    table[3, 1:3] = 7
    return table


def test_item_assignment_in_a_tensor_loop_makes_the_tensor_loop_state():
    expected = [[1, 0, 0, 10], [0, 2, 0, 10], [0, 0, 3, 10], [0, 7, 7, 0]]
    assert graph_and_converted(fill_diagonal, rt.constant(3)) == expected
    graph = ag.function(fill_diagonal).get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    assert [op.type for op in graph.operations].count("While") == 1


def edit_distance_flat(a, b, table):
    """Levenshtein distance in a flat (n+1)*(m+1) table, written so it runs on lists and on tensors."""
    n, m = len(a), len(b)
    width = m + 1
    for i in range(n + 1):
        table[i * width] = i
    for j in range(m + 1):
        table[j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = table[(i - 1) * width + j] + 1
            left = table[i * width + j - 1] + 1
            if left < best:
                best = left
            diagonal = table[(i - 1) * width + j - 1] + cost
            if diagonal < best:
                best = diagonal
            table[i * width + j] = best
    return table[n * width + m]


@pytest.mark.parametrize("a, b, distance", [("kitten", "sitting", 3), ("flaw", "lawn", 2), ("", "abc", 3),
                                            ("same", "same", 0)])
def test_edit_distance_dp_table_python_and_tensor_loops(a, b, distance):
    codes = lambda s: [ord(c) for c in s]  # noqa: E731
    size = (len(a) + 1) * (len(b) + 1)
    table, converted_table = [0] * size, [0] * size
    assert edit_distance_flat(codes(a), codes(b), table) == distance
    assert ag.to_graph(edit_distance_flat)(codes(a), codes(b), converted_table) == distance
    assert converted_table == table  # the caller's list is filled in place, as in Python
    signature = [rt.TensorSpec([None], rt.int32)] * 3  # unknown lengths: every loop is a graph loop
    staged = ag.function(edit_distance_flat, input_signature=signature)
    tensors = [rt.constant(codes(a), rt.int32), rt.constant(codes(b), rt.int32), rt.zeros([size], rt.int32)]
    assert staged(*tensors).numpy() == distance
    graph = staged.get_concrete_function().graph
    assert [op.type for op in graph.operations].count("While") == 3
    assert plain(ag.to_graph(edit_distance_flat)(*tensors)) == distance  # converted, on eager tensors


def edit_distance(a, b):
    n, m = len(a), len(b)
    d = rt.zeros([n + 1, m + 1], rt.int32)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = rt.cast(a[i - 1] != b[j - 1], rt.int32)
            d[i, j] = rt.minimum(rt.minimum(d[i - 1, j] + 1, d[i, j - 1] + 1), d[i - 1, j - 1] + cost)
    return d[n, m]


def test_edit_distance_2d_table_saves_and_loads(tmp_path):
    signature = [rt.TensorSpec([None], rt.int32)] * 2
    staged = ag.function(edit_distance, input_signature=signature)
    a, b = rt.constant([1, 2, 3, 4, 5, 6]), rt.constant([7, 1, 2, 4, 5, 6, 8])
    assert staged(a, b).numpy() == 3
    rt.save(staged, str(tmp_path / "edit"))
    assert rt.load(str(tmp_path / "edit"))(a, b).numpy() == 3


def test_out_of_range_item_assignment_is_a_run_time_error_at_the_users_line():
    def write_past_the_end(x, n):
        for i in range(n):
            x[i] = 1.0
        return x

    staged = ag.function(write_past_the_end)
    assert plain(staged(rt.zeros([3]), rt.constant(2))) == [1.0, 1.0, 0.0]
    raises(rt.errors.InvalidArgumentError, staged, (rt.zeros([3]), rt.constant(4)),
           "TensorStridedSliceUpdate: index 3 is out of bounds for axis 0 with size 3", at="x[i] = 1.0")


def test_tensor_setitem_outside_converted_code_says_what_to_write():
    tensor = rt.constant([1, 2, 3])
    with pytest.raises(TypeError, match=r"a tensor \(dtype=int32, shape=\(3,\)\) does not support item assignment "
                                        r".*tensors are immutable. Write `x = rt.update_by_key\(x, key, value\)`"):
        tensor[0] = 5
    assert tensor.numpy().tolist() == [1, 2, 3]

    @ag.function(autograph=False)
    def unconverted(x):
        x[0] = 1.0
        return x

    raises(TypeError, unconverted, (rt.zeros([2]),), "a symbolic tensor (dtype=float32, shape=(2,)) does not support "
           "item assignment", "inside a function converted by ag.function, `x[key] = value` on a local name does "
           "this for you", at="x[0] = 1.0")


def test_value_of_another_dtype_is_a_clear_error():
    def assign_float(x):
        x[0] = 1.5
        return x

    raises(TypeError, ag.function(assign_float), (rt.constant([1, 2]),),
           "cannot convert 1.5 to a tensor of dtype int32 without losing its fractional part", at="x[0] = 1.5")
