"""Methods that change a local list, dict or set in place (``xs.sort()``, ``d.update(a=2)``, ``s.add(v)``,
``xs += [v]``) inside tensor-dependent ifs and loops: the local is the construct's state, so each branch of
an if starts from the object as it was and the merge is exact (or a StateError naming it); a tensor loop
that cannot carry the change is a StateError at the user's line naming the variable and the method.
graph == eager == converted (both forms) == Python; errors exact."""
import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from test_user_programs import plain, run_three_ways, same_on_python_values
from user_errors import raises


def sorted_in_one_branch(x):
    xs = [3, 1, 2]
    if x > 0:
        xs.sort()
    return xs[0] + x * 0


def reversed_read_through_alias(x):
    xs = [1, 2, 3]
    alias = xs
    if x > 0:
        xs.reverse()
    return alias[0] + x * 0


def inserted_in_both_branches(x):
    xs = [1, 2]
    if x > 0:
        xs.insert(0, 5)
    else:
        xs.insert(1, 6)
    return xs[0] + xs[1] * 10 + x * 0


def extended_in_both_branches(x):
    xs = [1]
    if x > 0:
        xs.extend([2, 3])
    else:
        xs.extend((4, 5))
    return xs[1] * 10 + xs[2] + x * 0


def removed_in_both_branches(x):
    xs = [1, 2, 3]
    if x > 0:
        xs.remove(1)
    else:
        xs.remove(3)
    return xs[0] * 10 + xs[1] + x * 0


def added_in_place_in_both_branches_read_through_alias(x):
    xs = [1, 2]
    alias = xs
    if x > 0:
        xs += [3]
    else:
        xs += [4]
    return alias[2] + x * 0


def dict_updated_in_one_branch(x):
    d = {'a': 1}
    if x > 0:
        d.update(a=2)
    return d['a'] + x * 0


def dict_updated_through_alias(x):
    d = {'a': 1, 'b': 2}
    alias = d
    if x > 0:
        alias.update({'b': 7})
    return d['b'] + x * 0


def dict_setdefault_of_a_present_key(x):
    d = {'a': 1}
    if x > 0:
        d.setdefault('a', 9)
        d['a'] = d['a'] + 1
    return d['a'] + x * 0


def set_changed_alike_in_both_branches(x):
    s = {1, 2}
    if x > 0:
        s.add(3)
        s.discard(1)
    else:
        s.update([3])
        s.remove(1)
    return sum(sorted(s)) + x * 0


@pytest.mark.parametrize('function, expected', [
    (sorted_in_one_branch, {5: 1, -5: 3}),
    (reversed_read_through_alias, {5: 3, -5: 1}),
    (inserted_in_both_branches, {5: 15, -5: 61}),
    (extended_in_both_branches, {5: 23, -5: 45}),
    (removed_in_both_branches, {5: 23, -5: 12}),
    (added_in_place_in_both_branches_read_through_alias, {5: 3, -5: 4}),
    (dict_updated_in_one_branch, {5: 2, -5: 1}),
    (dict_updated_through_alias, {5: 7, -5: 2}),
    (dict_setdefault_of_a_present_key, {5: 2, -5: 1}),
    (set_changed_alike_in_both_branches, {5: 5, -5: 5}),
])
def test_each_branch_of_a_tensor_if_starts_from_the_object_as_it_was(function, expected):
    for x, value in expected.items():
        assert run_three_ways(function, rt.constant(x)) == plain(same_on_python_values(function, x)) == value
    staged = ag.function(function)
    staged(rt.constant(5)), staged(rt.constant(-5))
    assert staged.experimental_get_tracing_count() == 1


def test_the_call_runs_through_call_in_place_and_rebinds_the_name():
    code = ag.to_code(sorted_in_one_branch)
    assert "        xs = ag__.changed_in_place(xs, 'xs', 'sort')\n" in code
    assert "xs = xs" not in code
    assert "ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('xs',), 1)" in code
    assert ("ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('xs',), 1,\n"
            "                 roles={'xs': 'aliased'})") in ag.to_code(reversed_read_through_alias)


def extended_in_one_branch(x):
    xs = [1, 2]
    if x > 0:
        xs.extend([3])
    return xs[0] + x * 0


def cleared_in_one_branch(x):
    xs = [1, 2]
    if x > 0:
        xs.clear()
    return x + 1


def popitem_in_one_branch(x):
    d = {'a': 1, 'b': 2}
    if x > 0:
        d.popitem()
    return d['a'] + x * 0


def set_added_to_in_one_branch(x):
    s = {1}
    if x > 0:
        s.add(2)
    return len(s) + x * 0


def added_in_place_in_one_branch_read_through_alias(x):
    xs = [1, 2]
    alias = xs
    if x > 0:
        xs += [3]
    return len(alias) + x * 0


def _tensor_list_message(name, method):
    return (f"'{name}.{method}(...)' cannot change the list '{name}': it is a tensor list here (a tensor-dependent "
            f"loop changes it, or an if whose branches leave it with different lengths), which has append, pop "
            f"and item assignment but no {method}(). Call {name}.{method}(...) outside that loop or if (in an if: "
            f"in both branches alike), or compute the values with rt ops on a tensor")


@pytest.mark.parametrize('function, message, at, python', [
    (extended_in_one_branch, _tensor_list_message('xs', 'extend'), 'xs.extend([3])', 1),
    (cleared_in_one_branch, _tensor_list_message('xs', 'clear'), 'xs.clear()', 6),
    (popitem_in_one_branch,
     "the branches of a tensor-dependent if leave the dict 'd' with different keys ('b' only after the else "
     "branch); the graph must give it the same keys on both paths: add and delete its keys alike in both branches "
     "(or before or after the if)",
     'if x > 0', 1),
    (set_added_to_in_one_branch,
     "the branches of a tensor-dependent if leave the set 's' with different elements; a graph cannot hold a "
     "Python set whose elements depend on a tensor. Change the set the same way in both branches, or keep the "
     "values in a tensor (or a list both branches append to)", 'if x > 0', 2),
    (added_in_place_in_one_branch_read_through_alias,
     "the list 'xs' is changed in a tensor-dependent if that makes it a tensor list, but another name of this "
     "function may refer to the same list", 'if x > 0', 3),
])
def test_a_change_a_tensor_if_cannot_merge_is_a_state_error(function, message, at, python):
    raises(rt.errors.StateError, ag.function(function), (rt.constant(5),), message, at=at)
    assert function(5) == python
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), 5) == python, form


def sorted_in_loop(n):
    xs = [3, 1, 2]
    for i in range(n):
        xs.sort()
    return xs[0] + n * 0


def extended_in_loop(n):
    xs = [3, 1, 2]
    for i in range(n):
        xs.extend([i])
    return xs[0] + n * 0


def inserted_in_while(n):
    xs = [3, 1, 2]
    i = 0
    while i < n:
        xs.insert(0, i)
        i += 1
    return xs[0] + n * 0


def removed_in_loop(n):
    xs = [3, 1, 2, 2, 2, 2, 2]
    for i in range(n):
        xs.remove(2)
    return xs[0] + n * 0


def cleared_in_loop(n):
    xs = [3, 1, 2]
    for i in range(n):
        xs.clear()
        xs.append(i)
    return xs[0] + n * 0


def set_added_to_in_loop(n):
    s = {1}
    for i in range(n):
        s.add(2)
    return len(s) + n * 0


def set_discarded_from_in_while(n):
    s = {1, 2}
    i = 0
    while i < n:
        s.discard(1)
        i += 1
    return len(s) + n * 0


def _loop_list_message(name, method):
    return (f"'{name}.{method}(...)' changes the list '{name}' in a tensor-dependent loop, which makes a list it "
            f"changes a tensor list: that has append, pop and item assignment but no {method}(). Call "
            f"{name}.{method}(...) before or after the loop, or compute the values with rt ops on a tensor")


def _loop_set_message(name, method):
    return (f"'{name}.{method}(...)' changes the set '{name}' in a tensor-dependent loop, which cannot carry a "
            f"Python set (its elements would be the values of one trace, not of each iteration). Change the set "
            f"before or after the loop, or keep the values in a list the loop appends to")


@pytest.mark.parametrize('function, message, at, python', [
    (sorted_in_loop, _loop_list_message('xs', 'sort'), 'xs.sort()', 1),
    (extended_in_loop, _loop_list_message('xs', 'extend'), 'xs.extend([i])', 3),
    (inserted_in_while, _loop_list_message('xs', 'insert'), 'xs.insert(0, i)', 3),
    (removed_in_loop, _loop_list_message('xs', 'remove'), 'xs.remove(2)', 3),
    (cleared_in_loop, _loop_list_message('xs', 'clear'), 'xs.clear()', 3),
    (set_added_to_in_loop, _loop_set_message('s', 'add'), 's.add(2)', 2),
    (set_discarded_from_in_while, _loop_set_message('s', 'discard'), 's.discard(1)', 1),
])
def test_a_change_a_tensor_loop_cannot_carry_is_a_state_error_at_the_call(function, message, at, python):
    raises(rt.errors.StateError, ag.function(function), (rt.constant(4),), message, at=at)
    assert function(4) == python
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), 4) == python, form


def dict_updated_in_loop(n):
    d = {'a': 0}
    for i in range(n):
        d.update(a=d['a'] + i)
    return d['a']


def test_a_dict_updated_with_its_own_keys_in_a_tensor_loop():
    for n in (5, 0):
        assert run_three_ways(dict_updated_in_loop, rt.constant(n)) == dict_updated_in_loop(n) == sum(range(n))


class Counter:
    """A user class whose methods share names with the container methods."""

    def __init__(self):
        self.total = 0

    def update(self, value):
        self.total += value
        return self.total

    def add(self, value):
        self.total += value


def counter_updated(x):
    counter = Counter()
    if x > 0:
        counter.update(x)
    else:
        counter.add(1)
    result = counter.update(2)
    return result


def test_a_user_class_method_of_the_same_name_is_called_as_written():
    for x in (5, -5):
        python = counter_updated(x)
        for form in FORMS:
            assert in_form(form, ag.to_graph(counter_updated), x) == python, form
    assert ag.to_graph(counter_updated)(5) == 7 and ag.to_graph(counter_updated)(-5) == 3
    assert ag.function(counter_updated)(3) == 5   # a Python-value condition while tracing


class Account:
    """A user class whose in-place-named methods branch on their argument: converted when called."""

    def __init__(self):
        self.balance = 0

    def update(self, amount):
        if amount > 0:
            self.balance = self.balance + amount
        else:
            self.balance = self.balance - 10 * amount

    def add(self, amount):
        while amount > 0:
            self.balance = self.balance + 1
            amount -= 1


def account_updated(x):
    account = Account()
    account.update(x)
    account.add(x)
    return account.balance


@pytest.mark.parametrize('x', [3, -3])
def test_a_user_class_method_of_the_same_name_is_converted_like_any_method(x):
    # Before, the method ran unconverted: `if amount > 0` on a tensor raised OperatorNotAllowedInGraphError.
    assert run_three_ways(account_updated, rt.constant(x)) == account_updated(x) == (6 if x > 0 else 30)
    same_on_python_values(account_updated, x)


def test_a_builtin_containers_in_place_method_is_called_without_call_target(monkeypatch):
    from autograph_lite.operators.containers import data_structures

    def grows(values):
        seen = set()
        for value in values:
            seen.add(value)
        return sorted(seen)
    monkeypatch.setattr(data_structures, 'method_target', [lambda method: pytest.fail(f'{method} converted')])
    assert ag.to_graph(grows)([3, 1, 3]) == grows([3, 1, 3]) == [1, 3]
