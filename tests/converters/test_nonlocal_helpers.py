"""Local helpers that rebind a variable through `nonlocal`: loops and branches that call them carry
the variable as state; a tensor while test that rebinds state is refused by name."""
import pytest

import autograph_lite as ag
import runtime as rt
from test_user_programs import plain, run_three_ways, same_on_python_values

# --- local helpers that rebind a variable through `nonlocal` -------------------------------------------
# Calling the helper rebinds the variable, so a tensor loop or branch that calls it carries it as state
# (through the same closure cell the helper writes) instead of running the helper once at trace time.
def count_with_nonlocal_helper(x):
    count = 0

    def bump(v):
        nonlocal count
        count += v
    i = 0
    while i < x:
        bump(1)
        i += 1
    return count


def test_nonlocal_rebound_by_a_helper_inside_a_tensor_while_loop():
    assert same_on_python_values(count_with_nonlocal_helper, 3) == 3
    assert same_on_python_values(count_with_nonlocal_helper, 0) == 0
    assert run_three_ways(count_with_nonlocal_helper, rt.constant(3)) == 3
    assert run_three_ways(count_with_nonlocal_helper, rt.constant(0)) == 0


def test_generated_code_carries_the_helper_rebound_variable():
    code = ag.to_code(count_with_nonlocal_helper)
    assert "ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('count', 'i'))" in code
    assert "    def loop_body():\n        nonlocal count, i\n        ag__.converted_call(bump, (1,), None)" in code
    assert "    def bump(v):\n        nonlocal count\n        count += v\n" in code   # the helper is untouched


def sum_range_with_nonlocal_helper(x):
    total = 0

    def add(v):
        nonlocal total
        total += v
    for i in rt.range(x):
        add(i)
    return total


def test_nonlocal_rebound_by_a_helper_inside_a_tensor_for_loop():
    graph_function = ag.function(sum_range_with_nonlocal_helper)
    assert plain(graph_function(rt.constant(5))) == 10
    assert plain(graph_function(rt.constant(0))) == 0
    assert plain(graph_function(rt.constant(4))) == 6
    assert graph_function.experimental_get_tracing_count() == 1
    assert run_three_ways(sum_range_with_nonlocal_helper, rt.constant(5)) == 10
    assert same_on_python_values(sum_range_with_nonlocal_helper, 5) == 10


def adjust_with_nonlocal_helper(x):
    score = 10

    def change(v):
        nonlocal score
        score += v
    if x > 0:
        change(5)
    elif x < -5:
        change(-7)
    return score


@pytest.mark.parametrize("x, expected", [(3, 15), (-1, 10), (-9, 3)])
def test_nonlocal_rebound_by_a_helper_inside_a_tensor_if(x, expected):
    assert run_three_ways(adjust_with_nonlocal_helper, rt.constant(x)) == expected
    assert same_on_python_values(adjust_with_nonlocal_helper, x) == expected


def count_with_nested_nonlocal_helper(x):
    total = 0

    def add_twice(v):
        def add():
            nonlocal total
            total += v
        add()
        add()

    def add_one_twice():
        add_twice(1)      # rebinds `total` only through another helper
    i = 0
    while i < x:
        add_twice(i)
        if i > 1:
            add_one_twice()
        i += 1
    return total


def test_nonlocal_declared_by_a_helper_nested_def():
    # i = 0, 1, 2, 3 add 2 * i; i = 2, 3 also add 2
    assert same_on_python_values(count_with_nested_nonlocal_helper, 4) == 16
    assert run_three_ways(count_with_nested_nonlocal_helper, rt.constant(4)) == 16
    assert run_three_ways(count_with_nested_nonlocal_helper, rt.constant(1)) == 0


def loop_with_read_only_helper(x):
    limit = 3

    def below_limit(v):
        return v < limit      # reads `limit`, never rebinds it
    i = 0
    hits = 0
    while i < x:
        if below_limit(i):
            hits += 1
        i += 1
    return hits


def test_a_helper_that_only_reads_a_variable_does_not_make_it_state():
    code = ag.to_code(loop_with_read_only_helper)
    assert "('hits', 'i')" in code and "'limit'" not in code
    assert run_three_ways(loop_with_read_only_helper, rt.constant(5)) == 3
    assert same_on_python_values(loop_with_read_only_helper, 5) == 3


# --- a while test that rebinds state -------------------------------------------------------------------
def count_in_the_loop_test(x):
    count = 0

    def step():
        nonlocal count
        count += 1
        return count < x
    while step():
        pass
    return count


def counts_from_the_second_test(x):
    count = 0
    tests = []

    def step():
        nonlocal count
        tests.append(None)   # (a tensor here is a StateError of its own: the loop cannot carry `tests`)
        if len(tests) > 1:   # not in the first test, which runs before the loop
            count += 1
        return count < x
    while step():
        pass
    return count


def test_a_tensor_while_test_that_rebinds_a_variable_runs_it_in_each_iteration():
    # The first test runs before the graph loop, and each later one at the end of an iteration (rotated).
    assert same_on_python_values(count_in_the_loop_test, 3) == 3
    assert run_three_ways(count_in_the_loop_test, rt.constant(3)) == 3
    assert int(ag.function(count_in_the_loop_test)(rt.constant(0))) == 1


def test_a_test_that_starts_rebinding_only_later_is_refused_by_name():
    assert same_on_python_values(counts_from_the_second_test, 2) == 2
    with pytest.raises(rt.errors.StateError) as info:
        ag.function(counts_from_the_second_test)(rt.constant(3))
    message = "\n".join([str(info.value), *getattr(info.value, "__notes__", [])])
    assert message.startswith("the condition of a tensor-dependent while loop changes 'count', but its first test "
                              "(before the loop) did not")
    assert "Make the update in the loop body" in message
    assert "while step():" in message  # the user's line


# --- a variable only the branches of a loop's `if` assign ----------------------------------------------
# Its `nonlocal` in the branch functions needs a binding in the converted function itself (none of
# the functions around the branches assigns it): the converter binds it to Undefined up front.
def branch_only_variable(n):
    while n > 0:
        if n > 2:
            y = n
        else:
            y = 0
        n = n - 1 - y * 0
    return n


def test_a_variable_only_branch_functions_assign_is_bound_once_at_the_top():
    lines = ag.to_code(branch_only_variable).split('\n')
    assert lines[1] == "    y = ag__.Undefined('y')"
    assert sum("ag__.Undefined('y')" in line for line in lines) == 1
    for n in (0, 1, 3, 7):
        assert same_on_python_values(branch_only_variable, n) == 0
    assert run_three_ways(branch_only_variable, rt.constant(5)) == 0


def test_no_binding_is_added_when_the_function_binds_every_name_its_helpers_declare():
    assert 'Undefined' not in ag.to_code(count_with_nonlocal_helper)


# --- helpers used as values: any call may be one of them ----------------------------------------------
# Before, only a call of the helper by its own name counted: called through another name, a list, a lambda
# or a function it was passed to, the rebinding happened once while tracing, and the graph kept that
# trace's value for every input (5 + t where Python gives t).
def helper_called_by_another_name(t):
    x = 0

    def set_five():
        nonlocal x
        x = 5
    run = set_five
    if t > 0:
        run()
    return x + t


def helper_in_a_list(t):
    x = t

    def bump():
        nonlocal x
        x = x + 1
    helpers = [bump]
    i = 0
    while i < t:
        helpers[0]()
        i += 1
    return x


def helper_passed_to_a_function(t):
    x = t

    def bump():
        nonlocal x
        x = x + 1

    def call(function):
        function()
    if t > 0:
        call(bump)
    return x


def helper_called_by_a_lambda(t):
    x = 0

    def set_five():
        nonlocal x
        x = 5
    run = lambda: set_five()
    if t > 0:
        run()
    return x + t


@pytest.mark.parametrize('function, cases', [
    (helper_called_by_another_name, [(-1, -1), (1, 6)]),
    (helper_in_a_list, [(3, 6), (0, 0)]),
    (helper_passed_to_a_function, [(2, 3), (-1, -1)]),
    (helper_called_by_a_lambda, [(-1, -1), (2, 7)]),
], ids=lambda value: getattr(value, '__name__', ''))
def test_a_helper_used_as_a_value_rebinds_in_tensor_branches_and_loops(function, cases):
    for value, expected in cases:
        assert same_on_python_values(function, value) == expected
        assert run_three_ways(function, rt.constant(value)) == expected


def test_the_statements_with_a_call_carry_what_an_escaped_helper_rebinds():
    code = ag.to_code(helper_called_by_another_name)
    assert "ag__.if_stmt(t > 0, if_body, else_body, get_state, set_state, ('x',), 1)" in code, code
