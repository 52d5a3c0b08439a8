"""A staged ``if`` traces both branches; what one branch rebinds must not leak into the other
(bug class 9: silently wrong). Variables that are not outputs of the ``if`` included."""
import pytest

import autograph_lite as ag
from tests.support.both_modes import converted_equals_original, graph_equals_python


def branch_leak(c):
    s = 0
    i = 0
    if c:
        i += 1
        s = i
    else:
        s = i
    return s


def leak_through_a_nested_loop(c, n):
    s = 0
    k = 10
    if c:
        j = 0
        while j < n:
            k = k - 1
            j += 1
        s = k
    else:
        s = k * 2
    return s


def leak_in_elif(c):
    s = 0
    i = 5
    if c > 2:
        i = i * 3
        s = i
    elif c > 0:
        i = i - 1
        s = i
    else:
        s = i + 100
    return s


def leak_through_an_augmented_list_name(c):
    acc = 1
    tmp = 2
    if c:
        tmp = tmp + 40
        acc = tmp
    else:
        acc = tmp + 1
    return acc


def leak_inside_a_loop_body(n):
    total = 0
    i = 0
    while i < n:
        x = 1
        if i % 2 == 0:
            x = x + 10
            total = total + x
        else:
            total = total + x
        i += 1
    return total


@pytest.mark.parametrize('c', [False, True])
def test_the_else_branch_does_not_see_the_if_branch(c):
    converted_equals_original(branch_leak, c)
    graph_equals_python(branch_leak, c)


@pytest.mark.parametrize('c, n', [(False, 3), (True, 3), (True, 0)])
def test_what_a_nested_loop_rebinds_stays_in_its_branch(c, n):
    graph_equals_python(leak_through_a_nested_loop, c, n)


@pytest.mark.parametrize('c', [-1, 1, 3])
def test_elif_chain(c):
    converted_equals_original(leak_in_elif, c)
    graph_equals_python(leak_in_elif, c)


@pytest.mark.parametrize('c', [False, True])
def test_rebound_in_the_if_read_in_the_else(c):
    graph_equals_python(leak_through_an_augmented_list_name, c)


@pytest.mark.parametrize('n', [0, 1, 4])
def test_branches_inside_a_staged_loop_body(n):
    graph_equals_python(leak_inside_a_loop_body, n)


def test_the_restored_names_follow_the_outputs_in_the_generated_call():
    code = ag.to_code(branch_leak)
    assert "('s', 'i'), 1)" in code


def body_traced_twice(xs):
    scale = 2
    total = 0
    for x in xs:          # `x` is used after the loop: the body is traced again with a placeholder
        if x > 1:
            scale = scale + 1
            total = total + x * scale
        else:
            total = total + scale
    return total, x


@pytest.mark.parametrize('xs', [[1, 2, 3], [3, 0, 5, 1]])
def test_a_loop_body_traced_twice_starts_from_the_same_state(xs):
    graph_equals_python(body_traced_twice, xs)
