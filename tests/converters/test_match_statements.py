"""``match`` with value, None/True/False, ``|``, ``as``, capture and ``_`` patterns (and guards) becomes an
if/elif chain (converters/match_statements.py): Python's result on Python values, a staged if on a
symbolic subject (graph == eager == Python). Structural patterns: tests/converters/test_match_patterns.py."""
import pytest

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, in_form


def classify(x):
    match x:
        case 0:
            r = 10
        case 1 | 2:
            r = 20
        case other if other > 5:
            r = 30 + other
        case _:
            r = -1
    return r


def doubled(x):
    match x * 2:
        case 4 as n:
            return n + 1
        case None:
            return 0
    return -1


def in_a_loop(n):
    total = 0
    for i in range(n):
        match i % 3:
            case 0:
                continue
            case 1:
                total += 10
            case rest:
                total += rest
    return total


def flags(b):
    match b:
        case True:
            return 1
        case False:
            return 2
    return 3


def nested_names(x):
    match x:
        case 1 | 2 as n if n > 1:
            return ('guarded', n)
        case y as z:
            return (y, z, n)


@pytest.mark.parametrize('function, values', [(classify, [0, 1, 2, 3, 7, -4]), (doubled, [2, 3]),
                                              (in_a_loop, [0, 1, 5, 7])])
def test_graph_eager_and_python_agree(function, values):
    for value in values:
        expected = function(value)
        assert [in_form(form, ag.to_graph(function), value) for form in FORMS] == [expected, expected], value
        assert int(function(rt.constant(value))) == expected, value                 # unconverted, eager
        assert int(ag.to_graph(function)(rt.constant(value))) == expected, value
        assert int(ag.function(function)(rt.constant(value))) == expected, value


def test_singletons_match_by_identity_as_in_python():
    for form in FORMS:
        assert [in_form(form, ag.to_graph(flags), v) for v in (True, False, 1)] == [1, 2, 3]
    assert [flags(v) for v in (True, False, 1)] == [1, 2, 3]
    # A tensor is never the object True (Python's `case True:` is `is True`): the same on all three.
    assert flags(rt.constant(True)) == ag.to_graph(flags)(rt.constant(True)) == 3
    assert int(ag.function(flags)(rt.constant(True))) == 3


def test_the_chain_in_generated_code():
    code = ag.to_code(classify)
    assert 'ag__.if_stmt(x == 0, if_body' in code
    assert 'ag__.or_(lambda: x == 1, lambda: x == 2)' in code
    assert 'other = x' in code and 'ag__.if_stmt(other > 5' in code
    code = ag.to_code(doubled)
    assert 'subject = x * 2' in code and 'n = subject' in code and 'subject is None' in code


def test_as_binds_every_name_and_before_the_guard_as_in_python():
    # `case y as z` binds y and z; `1 | 2 as n` binds n before its guard, which may fail (n stays bound).
    for value in (1, 2):
        expected = nested_names(value)
        assert [in_form(form, ag.to_graph(nested_names), value) for form in FORMS] == [expected, expected]
    assert nested_names(1) == (1, 1, 1) and nested_names(2) == ('guarded', 2)
    for form in FORMS:   # 5 matched no pattern that binds n
        with pytest.raises(UnboundLocalError, match="'n'"):
            in_form(form, ag.to_graph(nested_names), 5)
