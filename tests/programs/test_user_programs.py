"""Realistic user programs with tensor-dependent control flow, end to end through ``ag.function``.

Each program runs three ways on the same tensors - as a graph, under ``run_functions_eagerly(True)``
and converted-but-eager (``ag.to_graph``, in its plain and its staged form) - and all must agree with the expected value; where the
program also makes sense on Python values, the converted function must agree with the original.
"""
import pytest

import autograph_lite as ag
import runtime as rt


def plain(value):
    """Tensors -> nested Python lists/numbers, keeping tuples/lists/dicts, so results compare with ==."""
    return ag.testing.to_python(value)


def run_three_ways(function, *args, **kwargs):
    """Graph, forced-eager and converted results of ``function(*args)``; asserts they agree, returns one."""
    graph, forced_eager, converted, staged = (plain(mode.run(function, *args, **kwargs)) for mode in
                                              (ag.testing.GRAPH, ag.testing.EAGER, ag.testing.PLAIN, ag.testing.STAGED))
    assert graph == forced_eager == converted == staged, (graph, forced_eager, converted, staged)
    return graph


def same_on_python_values(function, *args):
    """Converted == original on Python values, in both forms (ag.testing.assert_converted_equivalent)."""
    return ag.testing.assert_converted_equivalent(function, *args)


# --- structured loop and branch state ------------------------------------------------------------------
def count_up_in_a_dict(x):
    d = {'a': x, 'b': x * 2}
    while d['a'] < 10:
        d = {'a': d['a'] + 1, 'b': d['b'] + 2}
    return d


def test_dict_as_while_loop_state():
    assert run_three_ways(count_up_in_a_dict, rt.constant(3)) == {'a': 10, 'b': 20}
    assert same_on_python_values(count_up_in_a_dict, 3) == {'a': 10, 'b': 20}


def pick_a_dict(x):
    d = {'value': x, 'flag': 0}
    if x > 0:
        d = {'value': x + 1, 'flag': 1}
    return d


@pytest.mark.parametrize("x, expected", [(3, {'value': 4, 'flag': 1}), (-3, {'value': -3, 'flag': 0})])
def test_dict_as_if_state(x, expected):
    assert run_three_ways(pick_a_dict, rt.constant(x)) == expected
    assert same_on_python_values(pick_a_dict, x) == expected


# --- chained comparisons ------------------------------------------------------------------------------
def in_open_interval(x, high):
    if 0 < x < high:
        return 1
    return 0


@pytest.mark.parametrize("x, expected", [(5, 1), (0, 0), (10, 0), (-3, 0)])
def test_chained_comparison_on_a_tensor(x, expected):
    assert run_three_ways(in_open_interval, rt.constant(x), 10) == expected
    assert same_on_python_values(in_open_interval, x, 10) == expected


def test_chained_comparison_to_code_and_python_semantics():
    assert "ag__.and_(lambda: 0 < x, lambda: x < high)" in ag.to_code(in_open_interval)

    def chain(a, b, c):
        return a < b <= c != a

    for args in [(1, 2, 3), (3, 2, 1), (1, 2, 2), (2, 3, 2), (1, 1, 1)]:
        assert same_on_python_values(chain, *args) is chain(*args)

    calls = []

    def middle():
        calls.append(1)
        return 5

    def with_call(x):
        return 0 < middle() < x   # the middle operand runs once, as in Python

    assert ag.to_graph(with_call)(10) is True and calls == [1]


# --- loops with break / continue / return ---------------------------------------------------------------
def triangle_until(x):
    total = rt.constant(0)
    i = rt.constant(0)
    while i < x:
        j = rt.constant(0)
        while j < i:
            if j == 3:
                break
            total += j
            j += 1
        if total > 20:
            break
        i += 1
    return total, i


def test_nested_while_loops_with_break():
    assert run_three_ways(triangle_until, rt.constant(10)) == (22, 9)
    assert plain(same_on_python_values(triangle_until, 10)) == (22, 9)


def sum_non_negative_rows(m):
    acc = rt.zeros([3])
    n = 0
    for row in m:
        if rt.reduce_sum(row) < 0:
            continue
        acc = acc + row
        n += 1
    return acc, n


def test_for_over_tensor_rows_with_continue_and_accumulation():
    m = rt.constant([[1., 2., 3.], [-5., 0., 0.], [1., 1., 1.]])
    assert run_three_ways(sum_non_negative_rows, m) == ([2.0, 3.0, 4.0], 2)


def first_square_above_ten(x):
    for i in range(x):
        if i * i > 10:
            return i
    return -1


@pytest.mark.parametrize("x, expected", [(10, 4), (2, -1), (0, -1)])
def test_early_return_from_a_tensor_range_loop(x, expected):
    assert run_three_ways(first_square_above_ten, rt.constant(x)) == expected
    assert same_on_python_values(first_square_above_ten, x) == expected


def first_factor_pair(x):
    i = 0
    while i < 10:
        j = 0
        while j < 10:
            if i * j == x:
                return i * 100 + j
            j += 1
        i += 1
    return -1


@pytest.mark.parametrize("x, expected", [(12, 206), (0, 0), (1000, -1)])
def test_return_from_nested_tensor_loops(x, expected):
    assert run_three_ways(first_factor_pair, rt.constant(x)) == expected
    assert same_on_python_values(first_factor_pair, x) == expected


def odd_sum_below_eight(x):
    s = 0
    for i in range(x):
        if i % 2 == 0:
            continue
        if i > 7:
            break
        s += i
    return s


def test_continue_and_break_in_one_loop():
    assert run_three_ways(odd_sum_below_eight, rt.constant(20)) == 16
    assert same_on_python_values(odd_sum_below_eight, 20) == 16


def first_negative_row(m):
    for i in range(rt.shape(m)[0]):
        if rt.reduce_min(m[i]) < 0:
            return i, m[i]
    return -1, rt.zeros([2])


def test_return_a_tuple_from_inside_a_loop_over_rows():
    assert run_three_ways(first_negative_row, rt.constant([[1., 2.], [3., -1.], [-5., 0.]])) == (1, [3.0, -1.0])
    assert run_three_ways(first_negative_row, rt.constant([[1., 2.]])) == (-1, [0.0, 0.0])


def prefix_until_negative(t):
    s = 0.
    for v in t:
        if v < 0:
            break
        s += v
    else:
        s = -1.
    return s


def test_for_else_over_a_tensor():
    assert run_three_ways(prefix_until_negative, rt.constant([1., 2., -1., 5.])) == 3.0
    assert run_three_ways(prefix_until_negative, rt.constant([1., 2.])) == -1.0


def find_seven(x):
    i = 0
    found = -1
    while i < x:
        if i == 7:
            found = i
            break
        i += 1
    else:
        found = 100
    return found


@pytest.mark.parametrize("x, expected", [(10, 7), (5, 100)])
def test_while_else(x, expected):
    assert run_three_ways(find_seven, rt.constant(x)) == expected
    assert same_on_python_values(find_seven, x) == expected


# --- several state variables, dtypes and structures ----------------------------------------------------------
def toggles(x):
    i = 0
    s = 0.0
    flag = False
    while i < x:
        s += 0.5
        flag = not flag
        i += 1
    return i, s, flag


def test_loop_state_of_three_dtypes():
    assert run_three_ways(toggles, rt.constant(5)) == (5, 2.5, True)
    assert same_on_python_values(toggles, 5) == (5, 2.5, True)


def fibonacci_pair(a, b):
    i = 0
    while i < 3:
        a, b = b, a + b
        i += 1
    return a, b


def test_tuple_assignment_swaps_loop_variables():
    assert run_three_ways(fibonacci_pair, rt.constant(1), rt.constant(1)) == (3, 5)


def count_down_pair(x):
    t = (x, 0)
    while t[0] > 0:
        t = (t[0] - 1, t[1] + t[0])
    return t


def test_tuple_as_loop_state():
    assert run_three_ways(count_down_pair, rt.constant(4)) == (0, 10)
    assert same_on_python_values(count_down_pair, 4) == (0, 10)


def weighted_sum(x):
    weights = [1, 2, 3]
    s = rt.constant(0)
    i = 0
    while i < x:
        for w in weights:   # a Python list inside a tensor loop: unrolled into the body
            s += w * i
        i += 1
    return s


def test_python_list_loop_inside_a_tensor_loop():
    assert run_three_ways(weighted_sum, rt.constant(3)) == 18


def last_and_target(x):
    last = -1
    for v in range(x):
        last = v
    return last, v


def test_loop_target_keeps_the_last_element_after_the_loop():
    assert run_three_ways(last_and_target, rt.constant(4)) == (3, 3)
    assert same_on_python_values(last_and_target, 4) == (3, 3)


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_collatz_with_a_ternary_in_the_loop():
    assert run_three_ways(collatz_steps, rt.constant(27)) == 111
    assert same_on_python_values(collatz_steps, 27) == 111


# --- expressions, calls, classes --------------------------------------------------------------------------
def pick_and_combine(x, y):
    a = x if x > y else y
    b = (x > 0) and (y > 0)
    c = (x > 0) or (y > 0)
    d = not (x > y)
    return a, b, c, d


def test_ternary_and_or_not_on_tensors_and_python_values():
    assert run_three_ways(pick_and_combine, rt.constant(3), rt.constant(-2)) == (3, False, True, False)
    assert same_on_python_values(pick_and_combine, 3, -2) == (3, False, True, False)


def sign_magnitude(x):
    if x > 0:
        return x * 2
    return -x


def sum_of_helpers(x):
    s = 0
    for i in rt.range(x):
        s += sign_magnitude(i - 2)
    return s


def test_helper_with_tensor_control_flow_called_in_a_loop():
    assert run_three_ways(sum_of_helpers, rt.constant(5)) == 9


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def test_recursion_on_python_values_inside_a_function():
    assert run_three_ways(factorial, 5) == 120


def lambdas_and_defaults(x):
    square = lambda v: v * v
    add = lambda a, b=1: a + b
    return add(square(x)), add(x, b=10)


def test_lambdas_with_default_and_keyword_arguments():
    assert run_three_ways(lambdas_and_defaults, rt.constant(3)) == (10, 13)


def closer_to_k(x):
    k = 3

    def inner(v):
        if v > k:
            return v - k
        return v + k
    return inner(x)


@pytest.mark.parametrize("x, expected", [(5, 2), (1, 4)])
def test_closure_with_tensor_branch(x, expected):
    assert run_three_ways(closer_to_k, rt.constant(x)) == expected


def scaled_positive_sum(*xs, scale=2):
    t = 0
    for v in xs:
        if v > 0:
            t += v * scale
    return t


def test_varargs_and_keyword_only_argument():
    assert run_three_ways(scaled_positive_sum, rt.constant(1), rt.constant(-2), rt.constant(3)) == 8
    assert run_three_ways(scaled_positive_sum, rt.constant(1), rt.constant(3), scale=5) == 20


def classify(x):
    if x < 0:
        r = -1
    elif x == 0:
        r = 0
    elif x < 10:
        r = 1
    else:
        r = 2
    return r


@pytest.mark.parametrize("x, expected", [(-5, -1), (0, 0), (5, 1), (50, 2)])
def test_elif_chain(x, expected):
    assert run_three_ways(classify, rt.constant(x)) == expected


class Trainer:
    def __init__(self):
        self.w = rt.Variable(rt.constant([1., 2.]))
        self.steps = rt.Variable(0)

    @ag.function
    def train(self, x, n):
        for i in range(n):
            if rt.reduce_sum(self.w) > 10.:
                break
            self.w.assign_add(x)
            self.steps.assign_add(1)
        return self.w + 0.


def test_method_updating_variables_in_a_loop_with_break():
    trainer = Trainer()
    assert trainer.train(rt.constant([1., 1.]), rt.constant(10)).numpy().tolist() == [5.0, 6.0]
    assert int(trainer.steps.numpy()) == 4
    assert trainer.train(rt.constant([1., 1.]), rt.constant(10)).numpy().tolist() == [5.0, 6.0]
    assert int(trainer.steps.numpy()) == 4   # the sum is already above 10: breaks at once
    assert trainer.train.experimental_get_tracing_count() == 1
