"""Clear errors for three ways of changing a local list or dict in tensor-dependent code that gave poor ones:

* ``xs += [v]`` where xs is a tensor list (one branch of a tensor if, or a tensor loop): was a TypeError about
  ``'TensorList' and 'list'`` (or, in a loop, a structure error at the loop's line);
* ``del d[k]`` in one branch of a tensor if: was "d['a'] is defined only in the else branch" (the user
  deleted it in the if branch); now the branches' different keys, each named with the branch that has it;
* a method that adds or removes a key of a dict a tensor loop carries (``d.setdefault(new, v)``,
  ``d.popitem()``, ``d.pop(k)``, ``d.pop(k, default)``, ``d.update(new=v)``, ``del d[k]``): was rt.while_loop's structure error at the loop's line;
  now the method and the user's line.

Each: the exact error type, the message and the user's line in a graph; on Python values both forms of the
converted function give Python's result; the forms that work stay graph == eager == converted == Python."""
import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from test_user_programs import run_three_ways
from user_errors import raises


def added_by_operator_in_one_branch(x):
    xs = [1]
    if x > 0:
        xs += [2]
    return len(xs) + x * 0


def added_by_operator_in_while(n):
    xs = [1]
    i = 0
    while i < n:
        xs += [i]
        i += 1
    return len(xs) + n * 0


def set_added_to_by_operator_in_while(n):
    s = {1}
    i = 0
    while i < n:
        s |= {2}
        i += 1
    return len(s) + n * 0


def appended_then_added_by_operator_in_while(n):
    xs = [1]
    i = 0
    while i < n:
        xs.append(i)
        xs += [i]
        i += 1
    return len(xs) + n * 0


def deleted_in_if_branch(x):
    d = {'a': 1, 'b': 2}
    if x > 0:
        del d['a']
    return d['b'] + x * 0


def setdefault_new_key_in_while(n):
    d = {'a': 1}
    i = 0
    while i < n:
        d.setdefault('b', 2)
        i += 1
    return len(d) + n * 0


def popitem_in_while(n):
    d = {'a': 1, 'b': 2, 'c': 3, 'd': 4, 'e': 5}
    i = 0
    while i < n:
        d.popitem()
        i += 1
    return len(d) + n * 0


def updated_with_new_key_in_loop(n):
    d = {'a': 1}
    for i in range(n):
        d.update(b=i)
    return len(d) + n * 0


def deleted_in_while(n):
    d = {'a': 1, 'b': 2}
    i = 0
    while i < n:
        del d['a']
        i += 1
    return len(d) + n * 0


def popped_in_while(n):
    d = {'a': 1, 'b': 2}
    i = 0
    while i < n:
        d.pop('b')
        i += 1
    return len(d) + n * 0


def popped_with_default_in_for(n):
    d = {'a': 1, 'b': 2}
    total = 0
    for i in range(n):
        total += d.pop('b', 0)
    return len(d) + total + n * 0


def popped_inside_an_expression_in_for(n):
    d = {'a': 1, 'b': 2}
    total = 0
    for i in range(n):
        total = abs(i) + d.pop('b')
    return len(d) + total + n * 0


def _tensor_list_message(name, operator):
    return (f"'{name} {operator} ...' cannot change the list '{name}': it is a tensor list here (a tensor-dependent "
            f"loop changes it, or an if whose branches leave it with different lengths), which has append, pop and "
            f"item assignment but no {operator}. Use {name}.append(v) for each element (or, in an if, change "
            f"{name} alike in both branches)")


def _dict_keys_message(what, change, name):
    return (f"'{what}' {change} the dict '{name}' in a tensor-dependent loop, whose state must keep the same keys "
            f"in every iteration. Give '{name}' all its keys before the loop and only assign them in it (or add and "
            f"remove keys after the loop)")


@pytest.mark.parametrize('function, message, at, python', [
    (added_by_operator_in_one_branch, _tensor_list_message('xs', '+='), 'xs += [2]', 2),
    (added_by_operator_in_while,
     "'xs += ...' changes the list 'xs' in a tensor-dependent loop, which makes a list it changes a tensor list: "
     "that has append, pop and item assignment but no +=. Use xs.append(v) for each element, or change xs before "
     "or after the loop", 'xs += [i]', 2),
    (set_added_to_by_operator_in_while,
     "'s |= ...' changes the set 's' in a tensor-dependent loop, which cannot carry a Python set (its elements "
     "would be the values of one trace, not of each iteration). Change the set before or after the loop, or keep "
     "the values in a list the loop appends to", 's |= {2}', 2),
    (appended_then_added_by_operator_in_while, _tensor_list_message('xs', '+='), 'xs += [i]', 3),
    (deleted_in_if_branch,
     "the branches of a tensor-dependent if leave the dict 'd' with different keys ('a' only after the else "
     "branch); the graph must give it the same keys on both paths: add and delete its keys alike in both "
     "branches (or before or after the if)", 'if x > 0', 2),
    (setdefault_new_key_in_while, _dict_keys_message('d.setdefault(...)', "adds the key 'b' to", 'd'),
     "d.setdefault('b', 2)", 2),
    (popitem_in_while, _dict_keys_message('d.popitem(...)', "removes the key 'e' from", 'd'), 'd.popitem()', 4),
    (updated_with_new_key_in_loop, _dict_keys_message('d.update(...)', "adds the key 'b' to", 'd'),
     'd.update(b=i)', 2),
    (deleted_in_while, _dict_keys_message('del d[...]', "removes the key 'a' from", 'd'), "del d['a']", 1),
    (popped_in_while, _dict_keys_message('d.pop(...)', "removes the key 'b' from", 'd'), "d.pop('b')", 1),
    (popped_with_default_in_for, _dict_keys_message('d.pop(...)', "removes the key 'b' from", 'd'),
     "d.pop('b', 0)", 3),
    (popped_inside_an_expression_in_for, _dict_keys_message('d.pop(...)', "removes the key 'b' from", 'd'),
     "d.pop('b')", 3),
])
def test_a_change_staged_code_cannot_represent_is_a_clear_state_error(function, message, at, python):
    raises(rt.errors.StateError, ag.function(function), (rt.constant(1),), message, at=at)
    assert function(1) == python
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), 1) == python, form


def added_by_operator_in_both_branches(x):
    xs = [1, 2]
    s = {1}
    if x > 0:
        xs += [x]
        s |= {2}
    else:
        xs += [-x]
        s |= {2}
    return xs[2], len(xs), len(s)


def deleted_in_both_branches(x):
    d = {'a': x, 'b': 2 * x}
    if x > 0:
        del d['a']
    else:
        del d['a']
        d['b'] = -d['b']
    return len(d), 'a' in d, d['b']


def dict_keys_kept_in_while(n):
    d = {'a': 1, 'b': 0}
    i = 0
    while i < n:
        d.setdefault('a', 5)   # an existing key: no new key, the loop can carry it
        d.update(b=d['b'] + i)
        d |= {'a': d['a'] + 1}
        i += 1
    return d['a'], d['b']


def popped_absent_key_in_while(n):
    d = {'a': 1, 'b': 0}
    i = 0
    while i < n:
        d['b'] = d['b'] + d.pop('c', i)   # no such key: the default, the keys stay
        d.pop('c', None)
        i += 1
    return d['a'], d['b'], len(d)


def test_the_changes_staged_code_can_represent_still_work():
    for n in (4, 0):
        assert run_three_ways(popped_absent_key_in_while, rt.constant(n)) == (1, sum(range(n)), 2)
        for form in FORMS:
            assert in_form(form, ag.to_graph(popped_absent_key_in_while), n) == popped_absent_key_in_while(n), form
    for x in (3, -3):
        assert run_three_ways(added_by_operator_in_both_branches, rt.constant(x)) == (abs(x), 3, 2)
        assert run_three_ways(deleted_in_both_branches, rt.constant(x)) == (1, False, 2 * abs(x))
        for function in (added_by_operator_in_both_branches, deleted_in_both_branches):
            for form in FORMS:
                assert in_form(form, ag.to_graph(function), x) == function(x), (function, form)
    for n in (4, 0):
        assert run_three_ways(dict_keys_kept_in_while, rt.constant(n)) == (1 + n, sum(range(n)))
        for form in FORMS:
            assert in_form(form, ag.to_graph(dict_keys_kept_in_while), n) == dict_keys_kept_in_while(n), form


def test_the_generated_code_names_the_variable():
    assert "xs = ag__.augmented_in_place(xs, 'xs', '+=', [2])" in ag.to_code(added_by_operator_in_one_branch)
    assert "d = ag__.del_item(d, 'd', 'a')" in ag.to_code(deleted_in_if_branch)
    assert "total += ag__.call_in_place(d, 'd', 'pop', 'b', 0)" in ag.to_code(popped_with_default_in_for)
    assert "(d, popped) = ag__.list_pop(d, 'b')" in ag.to_code(popped_in_while)
