"""The two checks every bug-class test makes: converted == original on Python values, and
graph == Python on tensors (the same function run on the tensors' numpy values)."""
import numpy as np

import autograph_lite as ag
from converted_forms import FORMS, in_form
import runtime as rt


def _plain(value):
    """A graph result as Python/numpy values, for comparing with the original's result."""
    if isinstance(value, rt.Tensor):
        return value.numpy().tolist()
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(item) for item in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def converted_equals_original(function, *args):
    """``ag.to_graph(function)(*args) == function(*args)`` on Python values, in both forms of the converted
    code (the plain form, and the staged form that runs while tracing); returns the result."""
    expected = function(*args)
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), *args) == expected, form
    return expected


def graph_equals_python(function, *args):
    """``ag.function(function)`` on tensors gives what ``function`` gives on the plain values."""
    expected = function(*(_plain(arg) for arg in args))
    got = _plain(ag.function(function)(*(rt.constant(arg) for arg in args)))
    assert got == _plain(expected), (got, expected)
    return got
