"""Early returns whose flags the operators must recognise by role, never by name (bug classes 4, 5)
and loop state that starts as a Python value (bug class 6)."""
import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import contract
from tests.support.both_modes import converted_equals_original, graph_equals_python


def make(kind):
    def leaky(t):
        if rt.reduce_min(t) < 0:
            return rt.where(t > 0, t, 0.1 * t)
        return t
    if kind == "leaky":
        return leaky
    return None


def uses_a_nested_function_with_early_returns(x):
    return make("leaky")(x) * 2.0


def nested_def_with_its_own_flags(x):
    def clip(v):
        if v > 10:
            return 10
        if v < 0:
            return 0
        return v
    if x > 5:
        return clip(x * 3)
    return clip(x - 1)


def r4(n):
    c = 0
    for i in range(n):
        if c == 1:          # a Python bool: never true
            return 5
    if n != 0:              # a tensor condition
        return c
    return 7


def return_under_python_condition_in_a_while(n):
    i = 0
    limit = 100
    while i < n:
        if limit < 0:       # Python: never true
            return -1
        i += 1
    if i > 2:
        return i * 10
    return i


def break_under_python_condition(n):
    total = 0
    for i in range(n):
        if total < -5:      # Python: never true
            break
        total += i
    return total


def p(n):
    a = n % 7; b = 1; c = 0; i1 = 0    # noqa: E702
    while i1 < n:
        i1 += 1
        if 2 > c - a:
            continue
        if not n <= 4:
            i2 = 0
            while i2 < n:
                i2 += 1
                b = (b + b + b - c) % 97
                a = (a + n) % 4 % 97
                b = n % 97
        else:
            if c > a:
                a = (a % 4 + 2) % 97
            else:
                a = (a - b) % 4 % 97
                c = a % 97
            a = b * (b % 2) % 97
        c = (b - c - c) % 97
    return (a * 3 + b * 5 + c) % 1009


def python_int_becomes_tensor_in_a_nested_while(n):
    x = 1
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        if n > 3:
            j = 0
            while j < 2:
                j += 1
                x = x + n
        else:
            x = x * 2
    return x


def return_under_python_condition_in_a_for_in_a_while(n):
    p = 0
    a = 1
    w = 0
    while w < n:
        w += 1
        for i in range(n):
            if p == 1:      # a Python bool: never true
                return 5
            a = a + 1
    return a


def return_under_python_condition_in_a_while_in_a_while(n):
    a = n % 7
    p = 0
    w0 = 0
    while w0 < n:
        w0 += 1
        w1 = 0
        while w1 < n:
            w1 += 1
            if p == 1:      # a Python bool: never true
                return a
    return a * 3 + 5


def return_under_python_condition_three_loops_deep(n):
    p = 0
    a = 1
    for i in range(n):
        w = 0
        while w < n:
            w += 1
            for j in range(2):
                if p == 1:  # a Python bool: never true
                    return -1
                a = (a * 2 + j) % 97
    if a > 50:
        return a - 50
    return a


def tensor_return_in_an_outer_loop_python_return_in_the_inner(n):
    p = 0
    a = 0
    w = 0
    while w < n:
        w += 1
        if a > 6:           # a tensor condition: may return
            return a * 100
        for i in range(w):
            if p == 1:      # a Python bool: never true
                return -1
            a = a + i
    return a


def test_a_nested_function_with_its_own_return_flag():
    f = ag.function(uses_a_nested_function_with_early_returns)
    assert f(rt.constant([-1., 2.])).numpy().tolist() == pytest.approx([-0.2, 4.0])
    assert f(rt.constant([1., 2.])).numpy().tolist() == [2.0, 4.0]


@pytest.mark.parametrize('x', [-3, 2, 4, 9])
def test_nested_def_with_early_returns_in_both_modes(x):
    converted_equals_original(nested_def_with_its_own_flags, x)
    graph_equals_python(nested_def_with_its_own_flags, x)


def test_the_generated_names_of_a_nested_function_get_their_roles():
    code = ag.to_code(make)
    assert "roles={'do_return_1': 'return_flag', 'retval_1': 'return_value'}" in code
    assert "'do_return_1': 'return_guard'" in code


@pytest.mark.parametrize('n', [0, 1, 3])
def test_return_inside_a_tensor_loop_under_a_python_condition(n):
    converted_equals_original(r4, n)
    graph_equals_python(r4, n)


@pytest.mark.parametrize('n', [0, 2, 5])
def test_return_inside_a_tensor_while_under_a_python_condition(n):
    converted_equals_original(return_under_python_condition_in_a_while, n)
    graph_equals_python(return_under_python_condition_in_a_while, n)


@pytest.mark.parametrize('n', [0, 4])
def test_break_inside_a_tensor_loop_under_a_python_condition(n):
    graph_equals_python(break_under_python_condition, n)


@pytest.mark.parametrize('n', [0, 3, 6, 9])
def test_python_value_becoming_loop_state_in_a_nested_while(n):
    converted_equals_original(p, n)
    graph_equals_python(p, n)


@pytest.mark.parametrize('n', [0, 2, 3, 6])
def test_python_int_becomes_a_tensor_in_a_while_nested_in_a_branch(n):
    converted_equals_original(python_int_becomes_tensor_in_a_nested_while, n)
    graph_equals_python(python_int_becomes_tensor_in_a_nested_while, n)


def test_roles_reject_an_unknown_role():
    with pytest.raises(ValueError, match="unknown state variable roles"):
        contract.Roles({'x': 'loop_counter'}, ('x',))


def test_no_operator_looks_up_a_generated_name():
    import pathlib
    operators = pathlib.Path(ag.__file__).parent / 'operators'
    for path in operators.glob('*.py'):
        text = path.read_text()
        for name in ('"do_return"', "'do_return'", '"retval_"', "startswith(\"retval_\")", '"break_"'):
            assert name not in text, (path.name, name)


# --- module globals: the role `global` (the operators never inspect the generated code for it) ----------
flag_seen = 0


def sets_a_global_never_read_after(x):
    global flag_seen
    if x > 0:
        flag_seen = 1
    return x


def test_a_global_rebound_in_a_staged_if_is_refused_even_when_not_read_after():
    with pytest.raises(rt.errors.StateError, match="'flag_seen' is a Python global rebound inside a tensor-dependent if"):
        ag.function(sets_a_global_never_read_after)(rt.constant(-1))
    assert flag_seen == 0   # refused before tracing either branch


def test_the_global_gets_its_role_in_the_generated_call():
    assert "roles={'flag_seen': 'global'}" in ag.to_code(sets_a_global_never_read_after)


def test_on_python_values_the_global_is_rebound_as_written():
    global flag_seen
    assert ag.to_graph(sets_a_global_never_read_after)(3) == 3 and flag_seen == 1
    flag_seen = 0


@pytest.mark.parametrize('n', [0, 1, 3, 4])
def test_python_guarded_return_in_a_tensor_for_nested_in_a_tensor_while(n):
    # The inner loop leaves the return flag as the outer loop's flag: it is loop-invariant in both
    # loops, so after them no return happened (not a PartialReturnValue output).
    converted_equals_original(return_under_python_condition_in_a_for_in_a_while, n)
    graph_equals_python(return_under_python_condition_in_a_for_in_a_while, n)


@pytest.mark.parametrize('n', [0, 1, 3])
def test_python_guarded_return_in_a_tensor_while_nested_in_a_tensor_while(n):
    converted_equals_original(return_under_python_condition_in_a_while_in_a_while, n)
    graph_equals_python(return_under_python_condition_in_a_while_in_a_while, n)


@pytest.mark.parametrize('n', [0, 1, 3, 5])
def test_python_guarded_return_three_tensor_loops_deep(n):
    converted_equals_original(return_under_python_condition_three_loops_deep, n)
    graph_equals_python(return_under_python_condition_three_loops_deep, n)


@pytest.mark.parametrize('n', [0, 2, 4, 6])
def test_tensor_return_in_the_outer_loop_python_guarded_return_in_the_inner(n):
    converted_equals_original(tensor_return_in_an_outer_loop_python_return_in_the_inner, n)
    graph_equals_python(tensor_return_in_an_outer_loop_python_return_in_the_inner, n)


def returns_only_from_a_while_true(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            return i * 10


def returns_from_a_while_1_in_both_branches(n):
    if n > 2:
        k = n
        while 1:
            k -= 1
            if k % 2 == 0:
                return k
    else:
        i = 0
        while True:
            i += 3
            if i > n:
                return -i


@pytest.mark.parametrize('n', [0, 1, 3, 5])
def test_a_function_left_only_by_a_return_from_a_while_true_loop(n):
    # Only a return leaves `while True:`, so nothing reaches the end of the function without one (it
    # was refused: "some paths of this function reach its end without a return"), as in TensorFlow.
    converted_equals_original(returns_only_from_a_while_true, n)
    graph_equals_python(returns_only_from_a_while_true, n)
    converted_equals_original(returns_from_a_while_1_in_both_branches, n)
    graph_equals_python(returns_from_a_while_1_in_both_branches, n)
    assert 'ag__.return_value(retval_, every_path_returns=True)' in ag.to_code(returns_only_from_a_while_true)
