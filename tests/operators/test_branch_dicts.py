"""Python dicts that the branches of a tensor-dependent if change in place (`d[k] = v`): each branch starts
from the dict's contents before the if, the values are merged key by key and written back into the original
object; branches that leave different keys are a StateError naming the dict and the keys.

Before: the second branch started from what the first left, so the dict kept the first branch's values on
both paths (`m['v'] = 7` under `if t > 0:` gave 7 + t for every t; a flag set in one branch was set on both
paths): silently wrong."""
import pytest

import autograph_lite as ag
import runtime as rt
from test_user_programs import run_three_ways
from user_errors import raises


def python_value_in_one_branch(t):
    m = {'v': 0}
    if t > 0:
        m['v'] = 7
    return m['v'] + t


def flag_set_in_one_branch(t):
    flags = {'hit': False, 'other': 1}
    if t > 0:
        flags['hit'] = True
    return t + (10 if flags['hit'] else 0) + flags['other']


def tensors_in_both_branches(t):
    m = {}
    if t > 0:
        m['v'] = t
    else:
        m['v'] = -t
    return m['v']


def augmented_in_a_branch(t):
    m = {'v': 1, 'w': 2}
    if t > 0:
        m['v'] += t
        m['w'] *= 3
    return m['v'] * 100 + m['w']


def key_added_in_one_branch(t):
    m = {}
    if t > 0:
        m['a'] = t
    return len(m)


@pytest.mark.parametrize('function, cases', [
    (python_value_in_one_branch, [(-1, -1), (2, 9)]),
    (flag_set_in_one_branch, [(-1, 0), (2, 13)]),
    (tensors_in_both_branches, [(-2, 2), (3, 3)]),
    (augmented_in_a_branch, [(-1, 102), (2, 306)]),
], ids=lambda value: getattr(value, '__name__', ''))
def test_each_branch_starts_from_the_dict_before_the_if(function, cases):
    for value, expected in cases:
        assert function(value) == expected
        assert run_three_ways(function, rt.constant(value)) == expected


def test_the_merged_dict_is_the_original_object():
    def keeps_identity(t):
        m = {'v': t}
        before = m
        if t > 0:
            m['v'] = t * 10
        return m['v'], m is before
    value, same = ag.function(keeps_identity)(rt.constant(2))
    assert int(value) == 20 and bool(same)


def test_branches_leaving_different_keys_name_the_dict_and_the_keys():
    assert key_added_in_one_branch(1) == 1
    raises(rt.errors.StateError, ag.function(key_added_in_one_branch), (rt.constant(1),),
           "the branches of a tensor-dependent if leave the dict 'm' with different keys ('a' only after the if "
           "branch); the graph must give it the same keys on both paths: add and delete its keys alike in both "
           "branches (or before or after the if)", at='if t > 0')
