"""``xs.pop()`` inside a larger expression (``total += xs.pop()``): Python's result on Python lists, the
same result from a tensor loop (the pop gets a statement of its own, so the loop carries the list), and a
clear error where the pop cannot be moved and a tensor loop would change the list
(converters/lists.py)."""
import pytest

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, in_form
from tests.support.user_errors import raises


def sum_of_pops(n):
    xs = [1.0, 2.0, 3.0]
    total = 0.0
    for i in range(n):
        total += xs.pop()
    return total


def scaled_pops(n):
    xs = [1.0, 2.0, 4.0]
    total = 0.0
    for i in range(n):
        total = total + 10.0 * xs.pop(0)
    return total


def pops_a_tensor_list(n):
    xs = []
    for i in range(n):
        xs.append(rt.cast(i, rt.float32))
    total = 0.0
    for j in range(n):
        total += xs.pop() * 2.0
    return total


def pop_while_not_empty(xs):
    total = 0
    while xs:
        total += xs.pop()
    return total


def pop_after_another_call(n):
    xs = [1.0, 2.0, 3.0]
    total = 0.0
    for i in range(n):
        total = total + abs(-1.0) + xs.pop()
    return total


def pop_in_a_branch(n, flag):
    xs = [1.0, 2.0, 3.0]
    total = 0.0
    for i in range(n):
        total += xs.pop() if flag else 0.0
    return total


def reads_the_list_first(xs):
    return xs[-1] + xs.pop() + len(xs)


@pytest.mark.parametrize('function, n, expected', [(sum_of_pops, 2, 5.0), (scaled_pops, 2, 30.0),
                                                   (pops_a_tensor_list, 3, 6.0)])
def test_tensor_loop_pops_once_per_iteration(function, n, expected):
    assert function(n) == expected
    assert [in_form(form, ag.to_graph(function), n) for form in FORMS] == [expected, expected]
    assert float(ag.to_graph(function)(rt.constant(n))) == expected        # eager tensor
    assert float(ag.function(function)(rt.constant(n))) == expected        # staged loop


def test_the_pop_gets_a_statement_of_its_own():
    code = ag.to_code(sum_of_pops)
    assert '(xs, popped) = ag__.list_pop(xs)\n        total += popped' in code


@pytest.mark.parametrize('form', FORMS)
def test_python_lists_keep_python_semantics(form):
    assert in_form(form, ag.to_graph(pop_while_not_empty), [1, 2, 3]) == pop_while_not_empty([1, 2, 3]) == 6
    assert in_form(form, ag.to_graph(pop_after_another_call), 2) == pop_after_another_call(2) == 7.0
    assert in_form(form, ag.to_graph(pop_in_a_branch), 2, True) == pop_in_a_branch(2, True) == 5.0
    assert in_form(form, ag.to_graph(reads_the_list_first), [1, 2]) == reads_the_list_first([1, 2]) == 5
    values = [4, 5]
    in_form(form, ag.to_graph(reads_the_list_first), values)
    assert values == [4]


@pytest.mark.parametrize('function, args', [(pop_after_another_call, ()), (pop_in_a_branch, (True,))])
def test_a_pop_that_cannot_move_in_a_tensor_loop_is_a_clear_error(function, args):
    assert 'ag__.list_pop_in_expression(xs' in ag.to_code(function)
    raises(rt.errors.StateError, ag.function(function), (rt.constant(2), *args),
           "'xs.pop()' inside a larger expression cannot change the list 'xs' in a tensor-dependent loop",
           '`value = xs.pop()`', at='xs.pop()')


def pop_in_an_if_test(n):
    xs = [1.0, -2.0, 3.0]
    total = 0.0
    for i in range(n):
        if xs.pop() > 0:
            total += 1.0
    return total


def pop_in_a_while_test(xs):
    count = 0
    while xs.pop() > 0:
        count += 1
    return count


def test_a_pop_in_an_if_test_moves_before_the_if():
    assert '(xs, popped) = ag__.list_pop(xs)' in ag.to_code(pop_in_an_if_test)
    assert pop_in_an_if_test(3) == in_form('staged form', ag.to_graph(pop_in_an_if_test), 3) == 2.0
    assert float(ag.function(pop_in_an_if_test)(rt.constant(3))) == 2.0
    assert float(ag.function(pop_in_an_if_test)(rt.constant(1))) == 1.0


def test_a_pop_in_a_while_test_is_python_or_a_clear_error():
    for form in FORMS:
        assert pop_in_a_while_test([-1, 2, 3]) == in_form(form, ag.to_graph(pop_in_a_while_test), [-1, 2, 3]) == 2
        xs = [-1, 2, 3]
        in_form(form, ag.to_graph(pop_in_a_while_test), xs)
        assert xs == []
    raises(rt.errors.StateError, ag.function(pop_in_a_while_test), (rt.TensorList.from_tensors([-1, 2, 3]),),
           "'xs.pop()' inside a larger expression cannot change the list 'xs'")


def pop_in_a_for_iterable(rows):
    xs = list(rows)
    total = 0
    for v in xs.pop():
        total += v
    return total, len(xs)


def pops_rows_in_a_tensor_loop(n):
    xs = [rt.constant([1, 2]), rt.constant([3, 4]), rt.constant([5, 6])]
    total = rt.constant(0)
    i = 0
    while i < n:
        for v in xs.pop():   # a tensor row: a staged for inside the staged while
            total += v
        i += 1
    return total


def test_a_pop_in_a_for_iterable_moves_before_the_loop():
    # Python evaluates the iterable once, before the loop: the same as a statement of its own just before.
    code = ag.to_code(pops_rows_in_a_tensor_loop)
    assert '(xs, popped) = ag__.list_pop(xs)' in code and 'ag__.for_stmt(popped,' in code
    for form in FORMS:
        rows = [[1, 2], [3, 4]]
        assert in_form(form, ag.to_graph(pop_in_a_for_iterable), rows) == pop_in_a_for_iterable(rows) == (7, 1)
    # The outer tensor loop carries xs and pops once per iteration (it popped [5, 6] twice: 22).
    assert int(pops_rows_in_a_tensor_loop(2)) == 18
    f = ag.function(pops_rows_in_a_tensor_loop)
    assert [int(f(rt.constant(n))) for n in (0, 1, 2, 3)] == [0, 11, 18, 21]
