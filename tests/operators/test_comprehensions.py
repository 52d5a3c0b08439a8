"""Comprehensions, generator expressions, iteration builtins, unpacking and ``in``: exactly Python on Python
values (converted == original, scoping and closures included), staged loops over symbolic tensors (graph
== eager == exact values, exact trace counts), and clear errors where a tensor cannot be used."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from user_errors import raises
from both_modes import eager


def as_array(value):
    if isinstance(value, list):
        return np.array([as_array(item) for item in value])
    return np.asarray(value)


def check(function, args, expected):
    """Graph result == eager result (a Python list of eager tensors, stacked) == expected."""
    graph_result, eager_result = function(*args), eager(function, *args)
    want = expected if isinstance(expected, tuple) else (expected,)
    graph_values = graph_result if isinstance(graph_result, tuple) else (graph_result,)
    eager_values = eager_result if isinstance(eager_result, tuple) else (eager_result,)
    assert len(graph_values) == len(eager_values) == len(want)
    for graph_value, eager_value, expected_value in zip(graph_values, eager_values, want):
        assert isinstance(graph_value, rt.Tensor)
        np.testing.assert_array_equal(graph_value.numpy(), np.asarray(expected_value))
        np.testing.assert_array_equal(as_array(eager_value).reshape(np.shape(expected_value)), expected_value)


def same_as_python(function, *args):
    converted = ag.to_graph(function)
    try:
        expected = ('value', function(*args))
    except Exception as error:  # noqa: BLE001 - compare what the user would observe
        expected = ('raised', type(error), str(error))
    try:
        actual = ('value', converted(*args))
    except Exception as error:  # noqa: BLE001
        actual = ('raised', type(error), str(error))
    assert actual == expected
    return actual


# --- Python values: exactly Python -------------------------------------------------------------------

def all_kinds(xs):
    return ([v * 2 for v in xs if v % 2], {v % 3 for v in xs}, {v: v * v for v in xs if v > 1},
            list(v + 1 for v in xs), sum(v * v for v in xs), any(v > 3 for v in xs), all(v > 0 for v in xs),
            max(v % 4 for v in xs), min(xs), [(a, b) for a in xs for b in xs if a < b if b % 2],
            [[a * b for b in xs] for a in xs], [i * v for i, v in enumerate(xs)],
            [a + b + c for a, (b, c) in zip(xs, zip(xs, xs))], 3 in xs, 3 not in xs)


def late_binding(xs):
    closures = [lambda: v for v in xs]
    generators = [(v * w for w in xs) for v in xs]
    return [c() for c in closures], [list(g) for g in generators]


def comprehension_scope(xs):
    v = 'outer'
    doubled = [v * 2 for v in xs]
    return v, doubled, [v for v in v]


def walrus_binds_outside(xs):
    kept = [y for v in xs if (y := v * 2) > 2]
    return kept, y


def lazy_order(xs):
    log = []

    def note(v):
        log.append(v)
        return v

    items = (note(v) for v in note(xs))
    log.append('made')
    first = next(items)
    return first, log, list(items), log


def unpacking(xs):
    a, b, *rest = xs
    (c, d), e = (xs[0], xs[1]), xs[2]
    return a, b, rest, c, d, e


def bad_unpacking(xs):
    a, b = xs
    return a, b


def bad_comprehension_target(pairs):
    return [a + b for a, b in pairs]


@pytest.mark.parametrize('function, args', [
    (all_kinds, ([1, 2, 3, 4],)), (all_kinds, ([],)), (late_binding, ([1, 2, 3],)),
    (comprehension_scope, ('ab',)), (walrus_binds_outside, ([1, 2, 3],)), (lazy_order, ([5, 6],)),
    (unpacking, ([1, 2, 3, 4],)), (bad_unpacking, ([1, 2, 3],)), (bad_unpacking, ([1],)),
    (bad_comprehension_target, ([(1, 2), (3,)],)), (bad_comprehension_target, ([(1, 2, 3)],)),
])
def test_converted_equals_original_on_python_values(function, args):
    same_as_python(function, *args)


def test_python_semantics_details():
    assert same_as_python(late_binding, [1, 2, 3]) == ('value', ([3, 3, 3], [[3, 6, 9]] * 3))
    assert same_as_python(comprehension_scope, 'ab') == ('value', ('outer', ['aa', 'bb'], list('outer')))
    assert same_as_python(lazy_order, [5, 6]) == ('value', (5, [[5, 6], 'made', 5, 6], [6], [[5, 6], 'made', 5, 6]))
    assert same_as_python(bad_unpacking, [1]) == ('raised', ValueError,
                                                  'not enough values to unpack (expected 2, got 1)')
    assert same_as_python(bad_comprehension_target, [(1, 2, 3)]) == ('raised', ValueError,
                                                                     'too many values to unpack (expected 2)')


def test_comprehension_variables_do_not_leak():
    def leaks(xs):
        [v for v in xs]
        return v  # noqa: F821 - the point: v is not defined here

    same_as_python(leaks, [1, 2])
    with pytest.raises(NameError, match="name 'v' is not defined"):
        ag.to_graph(leaks)([1, 2])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=6), st.integers(-3, 3))
def test_hypothesis_comprehensions_match_python(xs, k):
    def program(xs, k):
        return ([v * k for v in xs if v > k], sum(v for v in xs if v != k), {v % 3: v for v in xs},
                [a - b for a in xs if a for b in xs[:2]], any(v == k for v in xs), k in xs,
                max((v for v in xs), default=k))

    same_as_python(program, xs, k)


def test_to_code_is_readable():
    def f(t, pairs):
        return [v * 2 for v in t if v > 0], sum(a * b for a, b in pairs), x_in(t)

    def x_in(t):
        return 3 in t

    code = ag.to_code(f)
    assert 'ag__.list_comp(lambda v: v * 2, t, lambda v: v > 0)' in code
    assert "ag__.generator_exp(lambda a, b: a * b, pairs, target=('a', 'b'))" in code
    assert 'ag__.in_(3, t)' in ag.to_code(x_in)
    compile(code, '<to_code>', 'exec')


# --- symbolic tensors: staged loops ------------------------------------------------------------------

@ag.function
def doubled_positives(t):
    return [v * 2 for v in t if v > 0]


def test_list_comprehension_with_filter_over_a_tensor():
    check(doubled_positives, (rt.constant([3, -1, 2]),), [6, 4])
    check(doubled_positives, (rt.constant([-3, -1]),), np.zeros([0], np.int32))
    assert doubled_positives.experimental_get_tracing_count() == 2
    graph = doubled_positives.get_concrete_function(rt.constant([1, 2, 3])).graph
    assert graph.outputs[0].shape == (None,)  # a filter: the number of rows is known only at run time
    assert [op.type for op in graph.operations].count('While') == 1


@ag.function
def squares_of_range(n):
    return [i * i for i in range(n)]


def test_list_comprehension_over_range_of_a_tensor():
    check(squares_of_range, (rt.constant(4),), [0, 1, 4, 9])
    check(squares_of_range, (rt.constant(0),), np.zeros([0], np.int32))
    assert squares_of_range.experimental_get_tracing_count() == 1


@ag.function
def outer_product(t):
    return [[v * w for w in t] for v in t]


def test_nested_comprehensions_give_a_matrix_with_known_shape():
    check(outer_product, (rt.constant([1, 2, 3]),), [[1, 2, 3], [2, 4, 6], [3, 6, 9]])
    graph = outer_product.get_concrete_function(rt.constant([1, 2, 3])).graph
    assert graph.outputs[0].shape == (3, 3)


@ag.function
def pairs_above_diagonal(t):
    return [v * 10 + w for v in t for w in t if w > v]


def test_two_for_clauses_flatten():
    check(pairs_above_diagonal, (rt.constant([1, 2, 3]),), [12, 13, 23])


@ag.function
def unpacked_rows(t):
    return [a * b for a, b in t], [i * v[0] for i, v in enumerate(t)], [a + v for a, v in zip(t[:, 0], t[:, 1])]


def test_tuple_targets_enumerate_and_zip():
    check(unpacked_rows, (rt.constant([[1, 2], [3, 4], [5, 6]]),), ([2, 12, 30], [0, 3, 10], [3, 7, 11]))


@ag.function(input_signature=[rt.TensorSpec([None, None], rt.float32)])
def row_prefixes(t):
    return [v[:2] * 2.0 for v in t]


def test_rows_whose_shape_is_unknown_while_tracing():
    check(row_prefixes, (rt.constant([[1., 2., 3.], [4., 5., 6.]]),), [[2., 4.], [8., 10.]])


@ag.function
def reductions(t):
    return (sum(v * v for v in t), sum(t), sum(t, 10), max(t), min(t), any(v > 2 for v in t),
            all(v > 2 for v in t), max(v % 3 for v in t if v > 1), sum(i for i in range(rt.shape(t)[0])))


def test_sum_any_all_max_min_over_a_tensor_and_a_generator_expression():
    check(reductions, (rt.constant([1, 2, 3]),), (14, 6, 16, 3, 1, True, False, 2, 3))
    assert reductions.experimental_get_tracing_count() == 1


@ag.function
def maximum_of_two(a, b):
    return max(a, b), min(a, b, 0)


def test_max_min_of_several_tensors():
    check(maximum_of_two, (rt.constant(3), rt.constant(5)), (5, 0))


@ag.function
def sum_of_rows(t):
    return sum(row * 2 for row in t)


def test_sum_of_rows_of_a_matrix():
    check(sum_of_rows, (rt.constant([[1, 2], [3, 4]]),), [8, 12])


@ag.function
def unpack_three(t):
    a, b, c = t
    first, *rest = t
    return a * 100 + b * 10 + c, rest[1]


def test_unpacking_a_tensor_with_a_known_first_dim():
    check(unpack_three, (rt.constant([1, 2, 3]),), (123, 3))


@ag.function
def membership(t, x):
    return x in t, x not in t, 2 in t


def test_membership_in_a_tensor():
    check(membership, (rt.constant([1, 2, 3, 4]), rt.constant(3)), (True, False, True))
    check(membership, (rt.constant([5, 6, 7, 8]), rt.constant(3)), (False, True, False))


@ag.function
def row_membership(t):
    return [1, 2] in t


def test_membership_of_a_row_is_ambiguous_as_in_python():
    raises(TypeError, row_membership, (rt.constant([[1, 2]]),),
           "'in' on tensors compares a scalar with the elements of a vector, got a value of shape (2,)",
           "rt.reduce_any(rt.reduce_all(rt.equal(t, row), axis=1))", at='return [1, 2] in t')


@ag.function
def for_over_pairs(t):
    total = 0
    for a, b in t:
        total += a * b
    return total


def test_for_loop_with_a_tuple_target_over_a_tensor():
    check(for_over_pairs, (rt.constant([[1, 2], [3, 4]]),), 14)


@ag.function
def comprehension_in_tensor_loop(t, n):
    total = rt.constant(0)
    for i in range(n):
        total += rt.reduce_sum([v * i for v in t])
    return total


def test_comprehension_inside_a_tensor_loop():
    check(comprehension_in_tensor_loop, (rt.constant([1, 2]), rt.constant(3)), 9)


# --- errors ------------------------------------------------------------------------------------------

@ag.function
def set_of_tensor(t):
    return {v for v in t}


@ag.function
def dict_over_tensor(t):
    return {v: 1 for v in t}


@ag.function
def tuple_elements(t):
    return [(v, v) for v in t]


@ag.function
def max_of_matrix(t):
    return max(t)


@ag.function(input_signature=[rt.TensorSpec([None], rt.int32)])
def unpack_unknown(t):
    a, b = t
    return a + b


@ag.function
def unpack_too_many(t):
    a, b = t
    return a + b


@ag.function
def generator_in_python(t):
    return list(v for v in t)


def test_errors_name_the_problem_and_the_line():
    raises(rt.errors.OperatorNotAllowedInGraphError, set_of_tensor, (rt.constant([1]),),
           'a set comprehension over a symbolic tensor cannot be staged', 'Use a list comprehension',
           at='return {v for v in t}')
    raises(rt.errors.OperatorNotAllowedInGraphError, dict_over_tensor, (rt.constant([1]),),
           'a dict comprehension over a symbolic tensor cannot be staged', 'Iterate over Python keys',
           at='return {v: 1 for v in t}')
    raises(TypeError, tuple_elements, (rt.constant([1]),),
           'each element of a comprehension over a tensor must be one tensor, got tuple',
           'build one comprehension per component', at='return [(v, v) for v in t]')
    raises(TypeError, max_of_matrix, (rt.constant([[1, 2]]),), 'max() over a tensor of shape (1, 2)',
           'rt.reduce_max(t, axis=0)', at='return max(t)')
    raises(rt.errors.OperatorNotAllowedInGraphError, unpack_unknown, (rt.constant([1, 2]),),
           'cannot unpack the tensor t:0 (shape (None,)) while tracing', 'index the rows', at='a, b = t')
    raises(ValueError, unpack_too_many, (rt.constant([1, 2, 3]),), 'too many values to unpack (expected 2)',
           at='a, b = t')
    raises(rt.errors.OperatorNotAllowedInGraphError, generator_in_python, (rt.constant([1]),),
           'a generator expression over a symbolic tensor cannot be iterated in Python',
           'pass it to sum/any/all/max/min or to an rt op', at='return list(v for v in t)')


@ag.function
def max_of_empty(t):
    return max(v for v in t if v > 10)


def test_max_of_an_empty_generator_fails_when_the_graph_runs():
    assert max_of_empty(rt.constant([20, 3])).numpy() == 20
    with pytest.raises(rt.errors.InvalidArgumentError):
        max_of_empty(rt.constant([1, 2]))


@ag.function
def stacked_and_concatenated(t):
    return (rt.stack([v * 2 for v in t]), rt.stack([v * 2 for v in t], axis=1),
            rt.concat([v[None] * 3 for v in t], 0))


def test_rt_stack_and_concat_of_a_comprehension_match_eager_lists():
    check(stacked_and_concatenated, (rt.constant([[1, 2], [3, 4]]),),
          ([[2, 4], [6, 8]], [[2, 6], [4, 8]], [[3, 6], [9, 12]]))
    with pytest.raises(TypeError, match="ConcatV2: a tensor given as values \\(the list of its rows\\) is "
                                        "concatenated along axis 0 only, got axis=1"):
        rt.concat(rt.constant([[[1]]]), 1)
    with pytest.raises(TypeError, match="Pack: a tensor given as values stands for the list of its rows, so it needs "
                                        "rank >= 1"):
        rt.stack(rt.constant(1))


@ag.function
def named_sums(t):
    return {name: rt.reduce_sum(t) * i for i, name in enumerate(['a', 'b'])}


def test_dict_comprehension_over_python_keys_with_tensor_values():
    graph, eager_result = named_sums(rt.constant([1, 2])), eager(named_sums, rt.constant([1, 2]))
    assert sorted(graph) == sorted(eager_result) == ['a', 'b']
    assert [graph[k].numpy() for k in 'ab'] == [eager_result[k].numpy() for k in 'ab'] == [0, 3]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-9, 9), min_size=1, max_size=6), st.integers(-3, 3))
def test_hypothesis_graph_equals_eager_over_tensors(values, k):
    @ag.function
    def program(t, k):
        kept = [v * k - 1 for v in t if v > k]
        return (rt.reduce_sum(kept), sum(v * v for v in t), max(t), min(v - k for v in t),
                any(v == k for v in t), all(v != k for v in t), k in t, rt.size(kept))

    t, kk = rt.constant(values), rt.constant(k)
    graph_values = [value.numpy() for value in program(t, kk)]
    eager_values = eager(program, t, kk)
    python = [sum(v * k - 1 for v in values if v > k), sum(v * v for v in values), max(values),
              min(v - k for v in values), k in values, k not in values, k in values,
              len([v for v in values if v > k])]
    assert [np.asarray(v).item() for v in eager_values] == python
    assert [np.asarray(v).item() for v in graph_values] == python


def test_a_comprehension_saves_loads_and_exports_to_onnx(tmp_path):
    pytest.importorskip("onnxruntime")
    import onnxruntime

    values = np.array([3, -1, 2, 7], np.int32)
    concrete = doubled_positives.get_concrete_function(rt.TensorSpec([None], rt.int32))
    rt.save(concrete, str(tmp_path / "saved"))
    loaded = rt.load(str(tmp_path / "saved"))
    np.testing.assert_array_equal(loaded(rt.constant(values)).numpy(), [6, 4, 14])
    rt.export.to_onnx(concrete, str(tmp_path / "model.onnx"))
    session = onnxruntime.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(None, {"t": values})[0], [6, 4, 14])


def comprehensions_and_reductions(xs):
    kept = [v * 2 for v in xs if v > 0]
    a, b, *rest = xs
    return sum(v * v for v in xs), max(v for v in xs), kept, [p + q for p, q in zip(xs, xs)], 3 in xs, a + b


@pytest.mark.parametrize('name', ['len', 'isinstance', 'iter', 'sum', 'max', 'zip', 'any', 'all'])
def test_comprehensions_run_with_a_builtin_replaced_by_a_converted_wrapper(name):
    import builtins

    def counting(fn, calls):
        def wrapper(*args, **kwargs):
            calls.append(1)
            return fn(*args, **kwargs)
        return wrapper

    original = getattr(builtins, name)
    setattr(builtins, name, ag.to_graph(counting)(original, []))
    try:
        converted = ag.to_graph(comprehensions_and_reductions)([3, -1, 2])
        staged = ag.function(comprehensions_and_reductions)(rt.constant([3, -1, 2]))
    finally:
        setattr(builtins, name, original)
    assert converted == (14, 3, [6, 4], [6, -2, 4], True, 2)
    assert [as_array(value).tolist() for value in staged] == [14, 3, [6, 4], [6, -2, 4], True, 2]
