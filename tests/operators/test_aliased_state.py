"""State of tensor-dependent ifs and loops that other names observe: a local list or dict changed in place
(seen through an alias even when the name itself is not read after the construct), and an attribute first
set inside a tensor-dependent if. graph == eager == converted (both forms) == Python; errors exact."""
import pytest

import autograph_lite as ag
import runtime as rt
from converted_forms import FORMS, in_form
from test_user_programs import plain, run_three_ways, same_on_python_values
from user_errors import raises


def changed_through_name_read_through_alias(x):
    xs = [1, 2]
    alias = xs
    if x > 0:
        xs[0] = 7
    return alias[0] + x * 0


def changed_through_alias_read_through_name(x):
    xs = [1, 2]
    alias = xs
    if x > 0:
        alias[0] = 7
    return xs[0] + x * 0


def appended_in_both_branches_read_through_alias(x):
    xs = [1, 2]
    alias = xs
    if x > 0:
        xs.append(3)
    else:
        xs.append(4)
    return alias[2] + x * 0, len(alias)


def dict_changed_through_alias(x):
    d = {'a': 1}
    alias = d
    if x > 0:
        alias['a'] = 5
    return d['a'] + x * 0


def popped_read_through_alias(x):
    xs = [1, 2, 3]
    alias = xs
    if x > 0:
        xs.pop()
        xs.append(9)
    return alias[2] + x * 0


@pytest.mark.parametrize('function, expected', [
    (changed_through_name_read_through_alias, {5: 7, -5: 1}),
    (changed_through_alias_read_through_name, {5: 7, -5: 1}),
    (appended_in_both_branches_read_through_alias, {5: (3, 3), -5: (4, 3)}),
    (dict_changed_through_alias, {5: 5, -5: 1}),
    (popped_read_through_alias, {5: 9, -5: 3}),
])
def test_a_change_in_place_in_a_tensor_if_is_seen_through_every_name(function, expected):
    for x, value in expected.items():
        assert run_three_ways(function, rt.constant(x)) == plain(same_on_python_values(function, x)) == value
    staged = ag.function(function)
    staged(rt.constant(5)), staged(rt.constant(-5))
    assert staged.experimental_get_tracing_count() == 1



# An alias the construct makes itself (`ys = xs` inside it) and changes the object through: the object
# is the one from before the construct, so its own name is carried (it was left with the trace's changes).
def alias_made_and_changed_in_a_branch(x):
    xs = [1, 2]
    if x > 0:
        ys = xs
        ys[0] = 7
    return xs[0] + x * 0


def alias_chain_made_in_a_branch(x):
    d = {'a': 1}
    if x > 0:
        e = d
        g = e
        g['a'] = 5
    else:
        d['a'] = 3
    return d['a'] + x * 0


def alias_made_in_a_branch_appended_and_popped(x):
    xs = [1, 2]
    if x > 0:
        ys = xs
        ys.append(5)
        ys[1] = ys.pop() + 1
    return xs[1] + len(xs) * 10 + x * 0


@pytest.mark.parametrize('function, expected', [
    (alias_made_and_changed_in_a_branch, {5: 7, -5: 1}),
    (alias_chain_made_in_a_branch, {5: 5, -5: 3}),
    (alias_made_in_a_branch_appended_and_popped, {5: 26, -5: 22}),
])
def test_a_change_through_an_alias_made_in_a_tensor_if_reaches_the_object(function, expected):
    for x, value in expected.items():
        assert run_three_ways(function, rt.constant(x)) == plain(same_on_python_values(function, x)) == value
    staged = ag.function(function)
    assert [plain(staged(rt.constant(x))) for x in (5, -5, 5)] == [expected[5], expected[-5], expected[5]]
    assert staged.experimental_get_tracing_count() == 1


def test_the_changed_name_is_an_output_of_the_if_though_not_read_after_it():
    code = ag.to_code(changed_through_name_read_through_alias)
    assert ("ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('xs',), 1,\n"
            "                 roles={'xs': 'aliased'})") in code


def unaliased_list_not_read_after(x):
    xs = [1, 2]
    if x > 0:
        xs[0] = 7
    return x + 1


def test_an_unaliased_list_is_carried_without_a_role():
    code = ag.to_code(unaliased_list_not_read_after)
    assert "ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('xs',), 1)" in code
    assert run_three_ways(unaliased_list_not_read_after, rt.constant(5)) == 6


def appended_in_one_branch_read_through_alias(x):
    xs = [1, 2]
    alias = xs
    if x > 0:
        xs.append(3)
    return len(alias) + x * 0


def loop_changes_item_read_through_alias(n):
    xs = [1, 2]
    alias = xs
    for i in range(n):
        xs[0] = xs[0] + i
    return alias[0] + n * 0


def while_changes_through_alias_read_through_name(n):
    xs = [1, 2]
    alias = xs
    i = 0
    while i < n:
        alias[0] = i
        i += 1
    return xs[0] + n * 0


def loop_changes_dict_read_through_alias(n):
    d = {'a': 1}
    alias = d
    for i in range(n):
        d['a'] = d['a'] + i
    return alias['a'] + n * 0



def alias_made_in_a_for_body(n):
    xs = [1, 2]
    for i in range(n):
        ys = xs
        ys[0] = ys[0] + i
    return xs[0] + n * 0


def alias_made_in_a_while_body(n):
    d = {'a': 1}
    i = 0
    while i < n:
        e = d
        e['a'] = e['a'] * 2
        i += 1
    return d['a'] + n * 0


def _aliased_message(kind, name, construct, becomes):
    return (f"the {kind} '{name}' is changed in a tensor-dependent {construct} that {becomes}, but another name "
            f"of this function may refer to the same {kind} (an assignment such as `alias = {name}`), and that "
            f"name would keep the Python {kind} without the {construct}'s changes. Use one name for the {kind} "
            f"(read and change it as '{name}'), or give the other name a copy (`alias = {kind}({name})`)")


@pytest.mark.parametrize('function, name, kind, construct, becomes, at, python', [
    (appended_in_one_branch_read_through_alias, 'xs', 'list', 'if', 'makes it a tensor list', 'if x > 0', 3),
    (loop_changes_item_read_through_alias, 'xs', 'list', 'loop', 'makes it a new list', 'for i in', 7),
    (while_changes_through_alias_read_through_name, 'alias', 'list', 'loop', 'makes it a new list',
     'while i < n', 3),
    (loop_changes_dict_read_through_alias, 'd', 'dict', 'loop', 'makes it a new dict', 'for i in', 7),
    # The alias made in the body: the loop's item assignment makes a new list (was silently
    # the Python list changed once, while tracing: 2 and 2 instead of 7 and 16).
    (alias_made_in_a_for_body, 'xs', 'list', 'loop', 'makes it a new list', 'for i in', 7),
    (alias_made_in_a_while_body, 'd', 'dict', 'loop', 'makes it a new dict', 'while i < n', 16),
])
def test_an_aliased_list_or_dict_a_staged_construct_would_replace_is_an_error(
        function, name, kind, construct, becomes, at, python):
    raises(rt.errors.StateError, ag.function(function), (rt.constant(4),),
           _aliased_message(kind, name, construct, becomes), at=at)
    assert function(4) == python
    for form in FORMS:
        assert in_form(form, ag.to_graph(function), 4) == python, form


def loop_changes_unaliased_list(n):
    xs = [1, 2]
    for i in range(n):
        xs[0] = xs[0] + i
    return xs[0] + n * 0


def test_an_unaliased_list_in_a_loop_still_becomes_a_tensor_list():
    assert run_three_ways(loop_changes_unaliased_list, rt.constant(4)) == loop_changes_unaliased_list(4) == 7


class Holder:
    pass


def sets_attribute_in_both_branches(x, holder):
    if x > 0:
        holder.v = 7
    else:
        holder.v = 1
    return holder.v + x * 0


def sets_attribute_in_one_branch(x, holder):
    if x > 0:
        holder.v = 7
    return holder.v + x * 0


def test_an_attribute_first_set_in_both_branches_of_a_tensor_if():
    staged = ag.function(sets_attribute_in_both_branches)
    for x, expected in ((5, 7), (-5, 1)):
        assert int(staged(rt.constant(x), Holder())) == expected
        ag.run_functions_eagerly(True)
        try:
            holder = Holder()
            assert int(staged(rt.constant(x), holder)) == expected and int(holder.v) == expected
        finally:
            ag.run_functions_eagerly(False)
        holder = Holder()
        assert sets_attribute_in_both_branches(x, holder) == expected and holder.v == expected
        for form in FORMS:
            holder = Holder()
            assert in_form(form, ag.to_graph(sets_attribute_in_both_branches), x, holder) == expected, form
            assert holder.v == expected
    assert "ag__.value_or_undefined(lambda: holder.v, 'holder.v')" in ag.to_code(sets_attribute_in_both_branches)


def test_an_attribute_first_set_in_one_branch_of_a_tensor_if_is_named():
    raises(rt.errors.StateError, ag.function(sets_attribute_in_one_branch), (rt.constant(5), Holder()),
           "'holder.v' is defined only in the if branch of a tensor-dependent if and is used after it; initialize "
           "it before the if (or assign it in the else branch too), so that it has a value on both paths of the graph",
           at='if x > 0')
    for form in FORMS:
        holder = Holder()
        assert in_form(form, ag.to_graph(sets_attribute_in_one_branch), 5, holder) == 7 and holder.v == 7
        with pytest.raises(AttributeError) as converted:
            in_form(form, ag.to_graph(sets_attribute_in_one_branch), -5, Holder())
        with pytest.raises(AttributeError) as python:
            sets_attribute_in_one_branch(-5, Holder())
        assert str(converted.value).splitlines()[0] == str(python.value) == "'Holder' object has no attribute 'v'"


def sets_attribute_in_the_else_branch_only(x, holder):
    if x > 0:
        pass
    else:
        holder.v = x * 2
    return holder.v


def sets_attribute_to_different_kinds(x, holder):
    if x > 0:
        holder.v = x * 2
    else:
        holder.v = 'none'
    return holder.v


def sets_item_in_one_branch(x, holder):
    if x > 0:
        holder.d['k'] = 7
    return holder.d['k'] + x * 0


def sets_attribute_to_a_string_in_a_loop(n, holder):
    for i in range(n):
        holder.v = 'none'
    return holder.v


def _holder(**attributes):
    holder = Holder()
    vars(holder).update(attributes)
    return holder


@pytest.mark.parametrize('function, message', [
    (sets_attribute_in_one_branch, "'holder.v' is defined only in the if branch of a tensor-dependent if"),
    (sets_attribute_in_the_else_branch_only, "'holder.v' is defined only in the else branch of a tensor-dependent if"),
    (sets_attribute_to_different_kinds, "'holder.v' is a Python str in the else branch but a tensor of dtype int32"),
    (sets_attribute_to_a_string_in_a_loop, "'holder.v' is first assigned inside a tensor-dependent loop, to a Python "
                                           "str"),
])
def test_an_error_in_a_staged_construct_leaves_no_attribute_it_did_not_have(function, message):
    holder = Holder()
    raises(rt.errors.StateError, ag.function(function), (rt.constant(5), holder), message)
    assert vars(holder) == {}   # not holder.v == Undefined('holder.v'), nor a branch's symbolic tensor


@pytest.mark.parametrize('function, message', [
    (sets_attribute_to_different_kinds, "'holder.v' is a Python str in the else branch but a tensor of dtype int32"),
    (sets_attribute_to_a_string_in_a_loop, "'holder.v' is a tensor of dtype int32 and shape () before a "
                                           "tensor-dependent loop but a Python str after an iteration"),
])
def test_an_error_in_a_staged_construct_gives_an_attribute_back_its_old_value(function, message):
    old = rt.constant(3)
    holder = _holder(v=old)
    raises(rt.errors.StateError, ag.function(lambda x, holder: function(x, holder) + old), (rt.constant(5), holder),
           message)
    assert vars(holder) == {'v': old} and holder.v is old


def test_an_error_in_a_staged_if_leaves_no_item_it_did_not_have():
    holder = _holder(d={'a': 1})
    raises(rt.errors.StateError, ag.function(sets_item_in_one_branch), (rt.constant(5), holder),
           "'holder.d['k']' is defined only in the if branch of a tensor-dependent if", at='if x > 0')
    assert holder.d == {'a': 1}
    assert "ag__.del_item_if_undefined(holder.d, 'k')" in ag.to_code(sets_item_in_one_branch)
    for x, python in ((5, 7), (-5, None)):
        for form in FORMS:
            holder = _holder(d={'a': 1})
            if python is None:
                with pytest.raises(KeyError, match="'k'"):
                    in_form(form, ag.to_graph(sets_item_in_one_branch), x, holder)
            else:
                assert in_form(form, ag.to_graph(sets_item_in_one_branch), x, holder) == python, form
            assert holder.d == ({'a': 1} if python is None else {'a': 1, 'k': 7}), form


def test_a_branch_traced_after_another_sees_an_attribute_absent_as_python_does():
    code = ag.to_code(sets_attribute_in_one_branch)
    assert "(holder.v,) = vars_\n        ag__.del_attr_if_undefined(holder, 'v')" in code
    holder = Holder()
    # the else branch, traced after the if branch set holder.v, reads it: Python's AttributeError
    raises(AttributeError, ag.function(sets_attribute_in_the_else_branch_reads_it), (rt.constant(5), holder),
           "'Holder' object has no attribute 'v'", at='if x > 0')
    assert vars(holder) == {}


def sets_attribute_in_the_else_branch_reads_it(x, holder):
    if x > 0:
        holder.v = x
    else:
        return holder.v
    return holder.v


def sets_attribute_in_a_loop(n, holder):
    for i in range(n):
        holder.v = i * 2
    return holder.v


def test_an_attribute_first_set_in_a_tensor_loop_is_like_a_name_first_set_there():
    staged = ag.function(sets_attribute_in_a_loop)
    holder = Holder()
    assert int(staged(rt.constant(4), holder)) == sets_attribute_in_a_loop(4, Holder()) == 6
    raises(rt.errors.InvalidArgumentError, staged, (rt.constant(0), Holder()),
           "'holder.v' is read after a tensor-dependent loop that ran zero times: the loop must iterate at least "
           "once to define 'holder.v' (or initialize 'holder.v' before the loop)", at='for i in range(n)')
    for form in FORMS:
        assert in_form(form, ag.to_graph(sets_attribute_in_a_loop), 4, Holder()) == 6, form
        with pytest.raises(AttributeError, match="'Holder' object has no attribute 'v'"):
            in_form(form, ag.to_graph(sets_attribute_in_a_loop), 0, Holder())


# After a tensor loop (or a tensor if whose branches leave different lengths) the list is a tensor list, whose
# changes make a new one: made in the same object there, so that another name, or a function it is passed
# to, sees them as in Python (they were silently lost: only the name written was rebound).
def aliased_after_the_loop_and_appended(n):
    xs = []
    for i in range(n):
        xs.append(i)
    ys = xs
    ys.append(100)
    ys[0] = ys[0] + 50
    return rt.stack(xs)


def push_popped_twice(values):
    last = values.pop()
    values.append(last * 2)


def passed_after_the_loop_to_a_function_that_changes_it(n):
    xs = [1, 2, 3]
    for i in range(n):
        xs[0] = xs[0] + 1
    push_popped_twice(xs)
    return rt.stack(xs)


def aliased_after_an_if_that_made_a_tensor_list(x):
    xs = [1, 2]
    if x > 0:
        xs.append(3)
    ys = xs
    ys[1] = 9
    return rt.stack(xs) + x * 0


@pytest.mark.parametrize('function, expected', [
    (aliased_after_the_loop_and_appended, {3: [50, 1, 2, 100], 0: [150]}),
    (passed_after_the_loop_to_a_function_that_changes_it, {3: [4, 2, 6], 0: [1, 2, 6]}),
    (aliased_after_an_if_that_made_a_tensor_list, {5: [1, 9, 3], -5: [1, 9]}),
])
def test_a_tensor_list_left_by_a_construct_is_changed_through_every_name(function, expected):
    staged = ag.function(function)
    for x in [*expected, *expected]:   # the first call is interpreted, the later ones compiled
        assert plain(function(x)) == expected[x]
        assert plain(staged(rt.constant(x))) == expected[x]
        assert run_three_ways(function, rt.constant(x)) == expected[x]
    assert staged.experimental_get_tracing_count() == 1


def alias_of_a_tensor_list_then_a_loop_appends(n):
    xs = []
    for i in range(n):
        xs.append(i)
    ys = xs
    for j in range(n):
        xs.append(j * 10)
    return rt.stack(ys)


def alias_of_a_tensor_list_made_and_changed_in_a_branch(n):
    xs = [1, 2, 3]
    for i in range(n):
        xs.append(i)       # (item assignment alone would keep it a Python list: test_fixed_structures_in_loops)
    if n > 1:
        ys = xs
        ys[2] = 9
    return xs[2]


@pytest.mark.parametrize('function, construct, at, python', [
    (alias_of_a_tensor_list_then_a_loop_appends, 'loop', 'for j in range(n)', [0, 1, 0, 10]),
    (alias_of_a_tensor_list_made_and_changed_in_a_branch, 'if', 'if n > 1', 9),
])
def test_a_tensor_list_another_name_holds_is_not_changed_by_a_staged_construct(function, construct, at, python):
    # Its change made a new tensor list, bound to one name only: the other kept the old contents (silently
    # [0, 1] and 3).
    message = (f"the list 'xs' is a tensor list here (an earlier tensor-dependent loop or if made it one), and the "
               f"tensor-dependent {construct} that changes it makes a new tensor list; another name of this function "
               f"may refer to the same list (an assignment such as `other = xs`), and that name would keep the old "
               f"contents. Use one name for the list (read and change it as 'xs')")
    raises(rt.errors.StateError, ag.function(function), (rt.constant(2),), message, at=at)
    assert plain(function(2)) == python
