"""The two checks every bug-class test makes: converted == original on Python values, and graph == Python on
tensors (the same function run on the tensors' numpy values). The first is the public
``ag.testing.assert_converted_equivalent``; the second compares with the original run on plain values, which
no public check does (``ag.testing.assert_graph_matches_eager`` compares with eager execution on tensors)."""
import autograph_lite as ag
import runtime as rt
from autograph_lite.testing import to_python


def converted_equals_original(function, *args):
    """``ag.to_graph(function)(*args)`` behaves like ``function(*args)`` on Python values, in both forms of the
    converted code (results, exceptions, printed output, argument mutations, warnings); returns the result."""
    return ag.testing.assert_converted_equivalent(function, *args)


def graph_equals_python(function, *args):
    """``ag.function(function)`` on tensors gives what ``function`` gives on the plain values."""
    expected = function(*(to_python(arg) for arg in args))
    got = to_python(ag.function(function)(*(rt.constant(arg) for arg in args)))
    assert got == to_python(expected), (got, expected)
    return got


def eager(function, *args):
    """``function(*args)`` with every ``ag.function`` run op by op (``ag.run_functions_eagerly``): the eager result
    a traced one is compared with."""
    ag.run_functions_eagerly(True)
    try:
        return function(*args)
    finally:
        ag.run_functions_eagerly(False)
