"""An attribute a tensor if or loop sets is carried even when the function does not read it afterwards:
the caller's object never silently keeps the value of the branch (or iteration) traced last."""
import pytest

import autograph_lite as ag
import runtime as rt
from user_errors import raises


class Box:
    pass


def set_in_both_branches(box, x):
    if x > 0:
        box.w = 7
    else:
        box.w = 1
    return x


def accumulated_in_a_loop(box, n):
    box.w = 0
    for i in rt.range(n):
        box.w = box.w + i
    return n


def set_in_one_branch(box, x):
    if x > 0:
        box.w = 7
    return x


@pytest.mark.parametrize('function, python_values', [
    (set_in_both_branches, {3: 7, -3: 1}),
    (accumulated_in_a_loop, {4: 6, 0: 0}),
])
def test_no_stale_python_value_is_left_on_the_callers_object(function, python_values):
    for x, expected in python_values.items():
        box = Box()
        function(box, x)
        assert box.w == expected   # Python, for reference
        box = Box()
        ag.to_graph(function)(box, x)
        assert box.w == expected   # converted code on Python values: the same
        box = Box()
        ag.function(function)(box, rt.constant(x))
        # The graph cannot set box.w when it runs: it holds the graph's value, which cannot be used
        # outside (never the value of one traced branch).
        with pytest.raises(TypeError, match='is a symbolic tensor from a traced function, used outside of it. '
                                            r'Return it from the function instead of storing it'):
            box.w + 1


def test_an_attribute_set_in_one_branch_only_is_a_state_error_even_when_not_read_after():
    box = Box()
    raises(rt.errors.StateError, ag.function(set_in_one_branch), (box, rt.constant(3)),
           "'box.w' is defined only in the if branch", "initialize it before the if", at='if x > 0')
    assert not hasattr(box, 'w')   # the construct's error leaves the object as it was
