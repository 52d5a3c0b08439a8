"""A break/continue in a loop's ``else:`` clause belongs to the enclosing loop (bug class 1)."""
import pytest

from tests.support.both_modes import converted_equals_original, graph_equals_python


def first_ok(rows):
    for r in rows:
        for v in r:
            if v < 0:
                break
        else:
            break          # leaves the OUTER loop
    return r


def while_else_breaks_outer(n):
    k = 0
    while True:
        k += 1
        while n > 0:
            n -= 1
            if n == 5:
                break
        else:
            break
    return k, n


def for_else_continues_outer(rows):
    kept = []
    for r in rows:
        for v in r:
            if v < 0:
                break
        else:
            continue       # skips the append of the OUTER loop
        kept.append(r)
    return kept


def two_depths(n):
    total = 0
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if k > j:
                    break
            else:
                if j == 2:
                    break  # leaves the j loop
                continue   # next j
            total += 10
        else:
            total += 1000
            if i == 1:
                break      # leaves the i loop
        total += 1
    return total


def else_break_in_while_over_counters(n, m):
    found = -1
    i = 0
    while i < n:
        j = 0
        while j < m:
            if (i + j) % 5 == 4:
                break
            j += 1
        else:
            found = i
            break
        i += 1
    return found, i


@pytest.mark.parametrize('rows', [[[1, -1], [2, 3], [4]], [[-1], [-2]], [[1], [-2]], []])
def test_break_in_for_else_leaves_the_outer_loop(rows):
    if rows:
        converted_equals_original(first_ok, rows)


@pytest.mark.parametrize('n', [0, 3, 8, 20])
def test_break_in_while_else_leaves_the_outer_loop_on_python_values_and_tensors(n):
    assert converted_equals_original(while_else_breaks_outer, n) == while_else_breaks_outer(n)
    graph_equals_python(while_else_breaks_outer, n)


@pytest.mark.parametrize('rows', [[[1, -1], [2, 3], [4, -2]], [[1], [2]], [[-1]]])
def test_continue_in_for_else_continues_the_outer_loop(rows):
    converted_equals_original(for_else_continues_outer, rows)


@pytest.mark.parametrize('n', [0, 1, 2, 3, 4])
def test_jumps_in_else_clauses_at_two_depths(n):
    converted_equals_original(two_depths, n)


@pytest.mark.parametrize('n, m', [(0, 0), (3, 3), (6, 2), (2, 9), (5, 4)])
def test_break_in_else_of_a_tensor_while_inside_a_tensor_while(n, m):
    converted_equals_original(else_break_in_while_over_counters, n, m)
    graph_equals_python(else_break_in_while_over_counters, n, m)
