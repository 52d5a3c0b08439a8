"""Returning a name that has no value raises Python's UnboundLocalError at the return line, wherever
the name sits in the returned expression (bug class 10: a library TypeError about Undefined)."""
import pytest

import autograph_lite as ag
from tests.support.user_errors import raises, raises_as_python


def while_creates_var(n):
    i = 0
    while i < n:
        i = n + 1
        j = i + 1
    return i, j


def nested_structure(n):
    for k in range(n):
        last = k
    return {'count': n, 'items': [0, (n, last)]}


def early_return_then_unbound(flag, n):
    if flag:
        return 1
    while n > 0:
        value = n
        n -= 1
    return [value]


def inside_an_object(n):
    if n > 0:
        item = n
    return Box(item)


class Box:
    def __init__(self, content):
        self.content = content


CASES = [(while_creates_var, (0,), 'j', 'return i, j'),
         (nested_structure, (0,), 'last', "return {'count'"),
         (early_return_then_unbound, (False, 0), 'value', 'return [value]'),
         (inside_an_object, (0,), 'item', 'return Box(item)')]


@pytest.mark.parametrize('function, args, name, line', CASES)
def test_unbound_name_in_a_returned_structure_raises_like_python(function, args, name, line):
    with pytest.raises(UnboundLocalError) as original:
        function(*args)
    assert f"'{name}'" in str(original.value)
    raises_as_python(original.value, ag.to_graph(function), args, 'plain form', line)


@pytest.mark.parametrize('function, args, name, line', CASES)
def test_graph_mode_on_python_values_raises_the_same(function, args, name, line):
    raises(UnboundLocalError, ag.function(function), args, f"'{name}'", at=line)


def test_bound_values_pass_through():
    assert ag.to_graph(while_creates_var)(1) == while_creates_var(1) == (2, 3)
    assert ag.to_graph(nested_structure)(3) == nested_structure(3)
    assert ag.to_graph(early_return_then_unbound)(False, 2) == [1]
    assert ag.to_graph(inside_an_object)(2).content == 2


def test_only_names_that_may_be_unbound_are_checked():
    code = ag.to_code(while_creates_var)
    assert 'return (i, ag__.defined(j))' in code
