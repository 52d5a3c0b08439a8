"""Annotated assignments in converted functions (packaging's parser: ``marker: MarkerAtom = ...`` in a
branch gave "SyntaxError: annotated name 'marker' can't be nonlocal"). Converted == Python on Python
values, graph == Python on tensors."""
import pytest

import autograph_lite as ag
import runtime as rt


def in_branch(x):
    if x > 0:
        y: int = x * 2
    else:
        y = -1
    return y


def in_loop(n):
    total: int = 0
    i = 0
    while i < n:
        step: 'int' = i + 1
        if step % 2:
            kept: int = step
            total = total + kept
        i += 1
    return total


def bare_then_assigned(x):
    if x > 0:
        z: int
        z = x + 5
    else:
        z = 1
    return z


class Box:
    pass


def on_an_attribute(x):
    box = Box()
    if x > 0:
        box.value: int = x
    else:
        box.value = 0
    return box.value


def only_annotated(x):
    if x > 0:
        w: int   # noqa: F842 - only makes w local: reading it is an UnboundLocalError, as in Python
    return w


@pytest.mark.parametrize('function', [in_branch, in_loop, bare_then_assigned, on_an_attribute])
@pytest.mark.parametrize('value', [-2, 0, 3])
def test_annotated_assignments_run_as_in_python_and_in_graphs(function, value):
    assert ag.to_graph(function)(value) == function(value)
    if function is not on_an_attribute:
        assert int(ag.function(function)(rt.constant(value)).numpy()) == function(value)


def test_the_annotation_is_dropped_from_local_assignments():
    code = ag.to_code(in_branch)
    assert 'y = x * 2' in code and 'y: int' not in code


def test_a_name_that_is_only_annotated_stays_local():
    with pytest.raises(UnboundLocalError):
        only_annotated(1)
    with pytest.raises(UnboundLocalError):
        ag.to_graph(only_annotated)(1)
