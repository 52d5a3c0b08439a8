"""Issue 23: a key a tensor loop adds to a dict (`d['k'] = v` in the body) is a variable the loop creates, as
TensorFlow accepts it, when the function reads and writes the dict only through constant keys (role `record`):
nothing can then see the key before the body sets it, nor miss it after the loop. The body and the condition
start each iteration without the key; after a loop that ran zero times reading it fails when the graph runs.
Any other use of such a dict (len, in, iteration, passing or returning it) keeps the StateError at the line
that adds the key. Graph == eager, exact values, exact trace counts, exact messages."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from user_errors import raises
from both_modes import eager


def issue_example(x):
    d = {}
    while x > 0:
        x -= 1
        d['k'] = x * 2
        d['j'] = d['k'] + 1
    return d['j']


def adds_to_existing_keys(n):
    d = {'total': rt.constant(0.0)}
    for i in rt.range(n):
        d['step'] = rt.cast(i, rt.float32) * 0.5
        d['total'] += d['step']
    return d['total'], d['step']


def python_value_key(x):
    d = {}
    while x > 0:
        x -= 1
        d['k'] = 5
    return d['k']


def nested_loops(n):
    d = {'sum': rt.constant(0)}
    for i in rt.range(n):
        for j in rt.range(i + 1):
            d['last'] = i * 10 + j
        d['sum'] += d['last']
    return d['sum'], d['last']


def set_in_both_branches(n):
    d = {}
    for i in rt.range(n):
        if i % 2 == 0:
            d['parity'] = rt.constant(0)
        else:
            d['parity'] = rt.constant(1)
    return d['parity']


@pytest.mark.parametrize('function, args, expected', [
    (issue_example, (3,), 1),
    (issue_example, (1,), 1),
    (adds_to_existing_keys, (4,), (3.0, 1.5)),
    (python_value_key, (2,), 5),
    (nested_loops, (3,), (0 + 11 + 22, 22)),
    (set_in_both_branches, (4,), 1),
])
def test_a_key_the_loop_adds_is_a_loop_created_variable(function, args, expected):
    staged = ag.function(function)
    tensors = [rt.constant(value) for value in args]
    for result in (staged(*tensors), eager(staged, *tensors)):
        values = result if isinstance(result, tuple) else (result,)
        assert [np.asarray(value).tolist() for value in values] == list(
            expected if isinstance(expected, tuple) else (expected,))
    assert staged.experimental_get_tracing_count() == 1


def test_reading_the_key_after_a_loop_that_ran_zero_times_fails_when_the_graph_runs():
    staged = ag.function(issue_example)
    raises(rt.errors.InvalidArgumentError, staged, (rt.constant(0),),
           "d['j'] is read after a tensor-dependent loop that ran zero times: the loop must iterate at least once "
           "to set it (or set d['j'] before the loop)", at="while x > 0:")
    with pytest.raises(KeyError):
        issue_example(0)        # Python: no key either


def measured(x):
    d = {}
    while x > 0:
        x -= 1
        d['k'] = 5
    return len(d)


def returned(x):
    d = {'a': rt.constant(1)}
    while x > 0:
        x -= 1
        d['k'] = x
    return d


def test_a_dict_used_otherwise_than_by_constant_keys_keeps_the_error():
    # measured: was silently wrong (len 1 where Python gives 0 after a loop that ran zero times)
    assert measured(0) == 0
    for function in (measured, returned):
        raises(rt.errors.StateError, ag.function(function), (rt.constant(0),),
               "'d['k'] = ...' adds the key 'k' to the dict 'd' in a tensor-dependent loop, whose state must keep "
               "the same keys in every iteration (a key the loop adds is accepted only when the function reads and "
               "writes the dict through constant keys alone", at="d['k'] = ")


def holds_a_string(x):
    d = {}
    while x > 0:
        x -= 1
        d['k'] = 'text'
    return d['k']


def read_before_set(x):
    d = {'a': 1}
    while x > 0:
        x -= 1
        d['a'] = d['k'] + 1
        d['k'] = x
    return d['a']


def set_in_one_branch(n):
    d = {}
    for i in rt.range(n):
        if i > 1:
            d['late'] = i
    return d['late']


def test_what_the_loop_cannot_carry_is_an_error_naming_the_key():
    raises(rt.errors.StateError, ag.function(holds_a_string), (rt.constant(1),),
           "'d['k'] = ...' adds the key 'k' to the dict 'd' in a tensor-dependent loop, to a Python str: a key a "
           "tensor loop adds is a variable the loop creates, which must hold a tensor or a number", at="d['k'] = ")
    # read before the body sets it: Python's first iteration raises KeyError too
    raises(KeyError, ag.function(read_before_set), (rt.constant(1),), "'k'")
    with pytest.raises(KeyError):
        read_before_set(1)
    raises(rt.errors.StateError, ag.function(set_in_one_branch), (rt.constant(3),),
           "the branches of a tensor-dependent if leave the dict 'd' with different keys ('late' only after the if "
           "branch)", at="if i > 1:")
