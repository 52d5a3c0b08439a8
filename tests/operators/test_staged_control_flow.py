"""End to end: plain Python control flow on tensors through ag.function — graph results equal eager
results (run_functions_eagerly) and exact expected values, with exact trace counts."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


def eager(function, *args):
    """The same call with run_functions_eagerly(True): the original Python function, op by op."""
    ag.run_functions_eagerly(True)
    try:
        return function(*args)
    finally:
        ag.run_functions_eagerly(False)


def check(function, args, expected):
    """Graph result == eager result == expected; graph results are tensors, with the eager dtype when the
    eager run produced a tensor too (an eager loop that never runs may leave a Python number)."""
    graph_result, eager_result = function(*args), eager(function, *args)
    want = expected if isinstance(expected, tuple) else (expected,)
    graph_values = graph_result if isinstance(graph_result, tuple) else (graph_result,)
    eager_values = eager_result if isinstance(eager_result, tuple) else (eager_result,)
    assert len(graph_values) == len(eager_values) == len(want)
    for graph_value, eager_value, expected_value in zip(graph_values, eager_values, want):
        assert isinstance(graph_value, rt.Tensor)
        np.testing.assert_array_equal(graph_value.numpy(), expected_value)
        np.testing.assert_array_equal(np.asarray(eager_value), expected_value)
        if isinstance(eager_value, rt.Tensor):
            assert graph_value.dtype == eager_value.dtype


def op_types(function, *args):
    graph = function.get_concrete_function(*args).graph
    return [op.type for op in graph.operations]


# --- if ------------------------------------------------------------------------------------------------

@ag.function
def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def test_simple_relu_both_branches_one_trace():
    check(simple_relu, (rt.constant(1),), 1)
    check(simple_relu, (rt.constant(-1),), 0)
    assert simple_relu.experimental_get_tracing_count() == 1
    assert op_types(simple_relu, rt.constant(5)).count("If") == 1


@ag.function
def sign(x):
    if x > 0:
        s = 1.0
    elif x < 0:
        s = -1.0
    else:
        s = 0.0
    return s


@pytest.mark.parametrize("x, expected", [(3.5, 1.0), (-0.5, -1.0), (0.0, 0.0)])
def test_if_elif_else(x, expected):
    check(sign, (rt.constant(x),), np.float32(expected))


def test_if_elif_else_is_two_nested_ifs():
    assert op_types(sign, rt.constant(1.0)).count("If") == 1  # the elif lives inside the else branch graph
    assert sign.experimental_get_tracing_count() == 1


@ag.function
def clip_low(x, low):
    if x < low:
        x = low
    return x * 2


@pytest.mark.parametrize("x, expected", [(1, 10), (7, 14)])
def test_if_without_else(x, expected):
    check(clip_low, (rt.constant(x), rt.constant(5)), expected)


@ag.function
def quadrant(x, y):
    if x >= 0:
        if y >= 0:
            q = 1
        else:
            q = 4
    else:
        if y >= 0:
            q = 2
        else:
            q = 3
    return q


@pytest.mark.parametrize("x, y, expected", [(1, 1, 1), (-1, 1, 2), (-1, -1, 3), (1, -1, 4)])
def test_nested_ifs(x, y, expected):
    check(quadrant, (rt.constant(x), rt.constant(y)), expected)
    assert quadrant.experimental_get_tracing_count() == 1


@ag.function
def python_condition(x, use_double):
    if use_double:
        x = x * 2
    return x


def test_python_condition_is_not_staged_and_is_part_of_the_signature():
    check(python_condition, (rt.constant(3), True), 6)
    check(python_condition, (rt.constant(3), False), 3)
    assert python_condition.experimental_get_tracing_count() == 2
    assert "If" not in op_types(python_condition, rt.constant(3), True)


# --- while -----------------------------------------------------------------------------------------------

@ag.function
def sum_below(n):
    total = 0
    i = 0
    while i < n:
        total += i
        i += 1
    return total


@ag.function
def factorial(n):
    result = 1
    while n > 1:
        result *= n
        n -= 1
    return result


@ag.function
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n, expected", [(0, 0), (1, 0), (5, 10), (100, 4950)])
def test_tensor_while_sum(n, expected):
    check(sum_below, (rt.constant(n),), expected)


@pytest.mark.parametrize("n, expected", [(0, 1), (1, 1), (5, 120), (10, 3628800)])
def test_tensor_while_factorial(n, expected):
    check(factorial, (rt.constant(n),), expected)


@pytest.mark.parametrize("n, expected", [(1, 0), (2, 1), (6, 8), (7, 16), (27, 111)])
def test_tensor_while_collatz(n, expected):
    check(collatz_steps, (rt.constant(n),), expected)


def test_tensor_while_is_one_while_op_and_one_trace():
    for n in (3, 9, 27):
        collatz_steps(rt.constant(n))
    assert collatz_steps.experimental_get_tracing_count() == 1
    assert op_types(collatz_steps, rt.constant(3)).count("While") == 1


@ag.function
def first_power_of_two_above(limit):
    value = 1
    while True:
        if value > limit:
            break
        value *= 2
    return value


@pytest.mark.parametrize("limit, expected", [(0, 1), (1, 2), (5, 8), (64, 128)])
def test_while_with_break(limit, expected):
    check(first_power_of_two_above, (rt.constant(limit),), expected)


@ag.function
def sum_of_odds_below(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        total += i
    return total


@pytest.mark.parametrize("n, expected", [(0, 0), (1, 1), (6, 9), (9, 25)])
def test_while_with_continue(n, expected):
    check(sum_of_odds_below, (rt.constant(n),), expected)


@ag.function
def fibonacci(n):
    a, b = 0, 1
    i = 0
    while i < n:
        a, b = b, a + b
        i += 1
    return a, b


@pytest.mark.parametrize("n, expected", [(0, (0, 1)), (1, (1, 1)), (10, (55, 89))])
def test_several_loop_variables(n, expected):
    check(fibonacci, (rt.constant(n),), expected)


# --- for -----------------------------------------------------------------------------------------------

@ag.function
def squares_sum(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


@pytest.mark.parametrize("n, expected", [(0, 0), (1, 0), (4, 14)])
def test_for_over_range_of_tensor(n, expected):
    check(squares_sum, (rt.constant(n),), expected)
    assert "While" in op_types(squares_sum, rt.constant(n))


@ag.function
def power(x, y):
    result = rt.eye(3, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def test_for_over_python_range_is_unrolled():
    x = rt.constant(np.arange(9, dtype=np.int32).reshape(3, 3) % 2)
    expected = np.linalg.matrix_power(x.numpy(), 4)
    check(power, (x, 4), expected)
    types = op_types(power, x, 4)
    assert types.count("MatMul") == 4 and "While" not in types


@ag.function
def row_norms_and_last(m):
    total = 0.0
    for row in m:
        total += rt.reduce_sum(row * row)
    return total, row


def test_for_over_tensor_rows_target_holds_last_row():
    m = rt.constant([[1.0, 2.0], [3.0, 4.0], [0.5, 0.0]])
    check(row_norms_and_last, (m,), (np.float32(30.25), np.array([0.5, 0.0], np.float32)))


@ag.function(input_signature=[rt.TensorSpec([None], rt.int32), rt.TensorSpec([], rt.int32)])
def index_of_first_above(values, limit):
    for i in range(rt.shape(values)[0]):
        if values[i] > limit:
            return i
    return -1


@pytest.mark.parametrize("values, limit, expected", [([1, 5, 9], 4, 1), ([1, 2], 7, -1), ([], 0, -1),
                                                     ([8], 0, 0)])
def test_for_with_early_return(values, limit, expected):
    check(index_of_first_above, (rt.constant(values, rt.int32), rt.constant(limit)), expected)
    assert index_of_first_above.experimental_get_tracing_count() == 1


@ag.function
def sum_until_negative(values):
    total = 0
    for v in values:
        if v < 0:
            break
        total += v
    return total


@pytest.mark.parametrize("values, expected", [([1, 2, 3], 6), ([4, -1, 5], 4), ([-2, 9], 0)])
def test_for_with_break(values, expected):
    check(sum_until_negative, (rt.constant(values),), expected)


@ag.function
def count_matches(values, target):
    found = 0
    for v in values:
        if v > 0:
            if v == target:
                return found + 100
            found += 1
    return found


@pytest.mark.parametrize("values, target, expected", [([1, -1, 3, 3], 3, 101), ([1, 2, -4], 9, 2),
                                                      ([5], 5, 100)])
def test_return_inside_nested_if_in_loop(values, target, expected):
    check(count_matches, (rt.constant(values), rt.constant(target)), expected)


@ag.function
def weighted(values):
    total = 0
    for i, v in enumerate(values):
        total += i * v
    pairs = 0
    for a, b in zip(values, values[1:]):
        pairs += a * b
    return total, pairs


def test_enumerate_and_zip_over_tensors():
    check(weighted, (rt.constant([2, 3, 4]),), (0 * 2 + 1 * 3 + 2 * 4, 2 * 3 + 3 * 4))


def sum_by_index(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i]
    return total, len(x)


@ag.function
def sum_of_range(n):
    return rt.reduce_sum(range(n)), rt.reduce_max(range(1, n, 2))


def test_a_range_of_a_tensor_passed_to_an_op_is_the_range_tensor():
    check(sum_of_range, (rt.constant(6),), (15, 5))


def test_len_of_an_unknown_dimension_is_a_run_time_length():
    function = ag.function(sum_by_index, input_signature=[rt.TensorSpec([None], rt.float32)])
    for values in ([1.0, 2.0, 6.0], [4.0], [0.5] * 7):
        check(function, (rt.constant(values),), (np.float32(sum(values)), len(values)))
    assert function.experimental_get_tracing_count() == 1
    assert "While" in op_types(function, rt.TensorSpec([None], rt.float32))
    assert ag.to_graph(sum_by_index)([1.0, 2.0, 6.0]) == sum_by_index([1.0, 2.0, 6.0]) == (9.0, 3)


# --- calls into helpers and methods -----------------------------------------------------------------------

def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def reduce_fraction(p, q):
    d = gcd(p, q)
    return p // d, q // d


@ag.function
def fraction(p, q):
    return reduce_fraction(p, q)


@pytest.mark.parametrize("p, q, expected", [(6, 4, (3, 2)), (7, 5, (7, 5)), (12, 36, (1, 3))])
def test_helpers_with_tensor_control_flow_are_converted(p, q, expected):
    check(fraction, (rt.constant(p), rt.constant(q)), expected)
    assert op_types(fraction, rt.constant(1), rt.constant(1)).count("While") == 1


class Counter:
    def __init__(self, step):
        self.step = step

    @ag.function
    def count_to(self, n):
        i = 0
        steps = 0
        while i < n:
            i += self.step
            steps += 1
        return steps


def test_methods_with_tensor_control_flow():
    counter = Counter(3)
    check(counter.count_to, (rt.constant(10),), 4)
    check(counter.count_to, (rt.constant(0),), 0)


@ag.function
def steps_to_reach(x):
    total = 0
    steps = 0
    while total < 10:  # a Python comparison on the first test, a tensor one once total is a tensor
        total = total + x
        steps += 1
    return steps


@ag.function
def steps_to_reach_from_a_tensor(x):
    total = x * 0      # a tensor before the loop: the whole loop is one While op
    steps = 0
    while total < 10:
        total = total + x
        steps += 1
    return steps


def test_while_test_that_becomes_a_tensor_is_an_error_naming_the_variable():
    # Python would need the truth value of a tensor that exists only when the graph runs (as in TF).
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="'total' became a symbolic tensor"):
        steps_to_reach(rt.constant(3))


@pytest.mark.parametrize("x, expected", [(1, 10), (3, 4), (10, 1), (25, 1)])
def test_while_over_a_tensor_made_before_the_loop(x, expected):
    check(steps_to_reach_from_a_tensor, (rt.constant(x),), expected)
    assert op_types(steps_to_reach_from_a_tensor, rt.constant(x)).count("While") == 1


@ag.function
def sum_until_threshold(x):
    total = x * 0
    for weight in [1, 2, 3, 4]:
        if total > 5:
            break
        total += x * weight
    return total


@pytest.mark.parametrize("x, expected", [(0, 0), (1, 6), (2, 6), (10, 10)])
def test_python_list_loop_with_tensor_dependent_break(x, expected):
    check(sum_until_threshold, (rt.constant(x),), expected)
    assert "While" not in op_types(sum_until_threshold, rt.constant(x))


@ag.function
def sum_of_rt_range(n):
    total = 0
    for i in rt.range(1, n, 2):
        total += i
    return total


@pytest.mark.parametrize("n, expected", [(0, 0), (2, 1), (8, 16)])
def test_for_over_rt_range_tensor(n, expected):
    check(sum_of_rt_range, (rt.constant(n),), expected)
