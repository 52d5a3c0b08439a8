"""The walrus ``(n := expr)`` on tensors: in an ``if`` test, a statement, a loop body, a tensor ``while`` test
(with ``break``/``continue``/``return``/``else`` too) and a comparison chain it works traced as in Python;
where the converter must leave the expression as Python (a walrus inside ``and``/``or``, a branch of
``a if c else b``, a comprehension, a later operand of a comparison chain) a symbolic tensor there is an
error naming the variable, the user's line and the fix."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, in_form
from tests.support.user_errors import raises


def in_if_test(x):
    if (y := x * 2) > 3:
        r = y + 1
    else:
        r = y - 1
    return r, y


def in_a_statement(x):
    z = (w := x + 1) * w
    return z


def in_loop_body(n):
    total = 0
    for v in range(n):
        if (s := v * 2) > 2:
            total += s
    return total


def in_and(x):
    if x > 0 and (y := x * 3) > 5:
        return y
    return x


def in_if_else(x):
    return (y := x + 1) if x > 0 else -x


def in_comprehension(xs):
    return [y for v in xs if (y := v * 2) > 2]


def in_while_test(n):
    i = 0
    total = 0
    while (i := i + 1) < n:
        total += i
    return total


def _values(result):
    return [int(v) for v in result] if isinstance(result, (tuple, list)) else int(result)


@pytest.mark.parametrize('function, value', [(in_if_test, 2), (in_if_test, 1), (in_a_statement, 2),
                                             (in_loop_body, 4), (in_loop_body, 0)])
def test_works_traced_as_in_python(function, value):
    expected = _values(function(value))
    for form in FORMS:
        assert _values(in_form(form, ag.to_graph(function), value)) == expected   # Python values
    assert _values(ag.to_graph(function)(rt.constant(value))) == expected    # eager tensor
    assert _values(ag.function(function)(rt.constant(value))) == expected    # graph


@pytest.mark.parametrize('function, value', [(in_and, 2), (in_and, 1), (in_and, -1), (in_if_else, 2), (in_if_else, -2),
                                             (in_comprehension, [1, 2, 3]), (in_while_test, 4)])
def test_python_values_and_eager_tensors_keep_python_semantics(function, value):
    expected = _values(function(value))
    for form in FORMS:
        assert _values(in_form(form, ag.to_graph(function), value)) == expected
    assert _values(ag.to_graph(function)(rt.constant(value))) == expected


@pytest.mark.parametrize('function, construct, fix, line', [
    (in_and, '`and`', 'Assign y in a statement before it (`y = ...`)', 'if x > 0 and'),
    (in_if_else, '`a if c else b`', 'Assign y in a statement before it', 'return (y := x + 1)'),
    (in_comprehension, 'comprehension', 'Write it without :=', 'return [y for v'),
])
def test_left_as_python_a_symbolic_tensor_is_a_clear_error(function, construct, fix, line):
    value = rt.constant([1, 2, 3]) if function is in_comprehension else rt.constant(2)
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(function), (value,),
           f"this {construct} assigns 'y' with :=, so it stays Python's own {construct}", fix, at=line)


def test_the_guard_in_generated_code():
    assert "ag__.walrus_guard(x > 0, 'and', ('y',)) and (y := (x * 3)) > 5" in ag.to_code(in_and)


def while_with_jumps(n):
    i = 0
    total = 0
    while (i := i + 1) < n:
        if i % 3 == 0:
            continue
        if total > 20:
            break
        total += i
    else:
        total = total * 100
    return total, i


def while_with_return(n):
    i = 0
    total = 0
    while (i := i + 2) < n:
        total += i
        if total > 10:
            return total, -i
    return total, i


def while_with_helper(n):
    i = 0

    def advance():
        nonlocal i
        i += 1
        return i

    total = 0
    while advance() < n:
        total += i
    return total, i


def chain_with_walrus(x, n):
    if 0 < (y := x * 2) < n:
        r = y + 1
    else:
        r = y - 1
    return r, y


def chain_with_calls(x, n):
    return -n <= abs(x) * 2 < n * 1 < 100


def chain_walrus_on_the_left(x, n):
    r = (y := x * 2) < 10 < n
    return r, y


def chain_walrus_on_the_right(a, x):
    r = a < x * 1 < (y := x * 3)
    return r, y


def chain_walrus_in_a_while(x):
    steps = 0
    while 0 < (x := x - 3) < 100:
        steps += 1
    return steps, x


@pytest.mark.parametrize('function, values', [
    (in_while_test, [0, 1, 4, 9]), (while_with_jumps, [0, 1, 4, 9, 30]), (while_with_return, [0, 3, 5, 20]),
    (while_with_helper, [0, 1, 5]), (chain_with_walrus, [(3, 10), (6, 10), (-1, 10)]),
    (chain_with_calls, [(3, 10), (7, 10), (1, 200)]), (chain_walrus_on_the_left, [(3, 20), (6, 20), (3, 5)]),
    (chain_walrus_in_a_while, [50, 2, 400]),
])
def test_while_tests_and_chains_work_traced_as_in_python(function, values):
    for value in values:
        args = value if isinstance(value, tuple) else (value,)
        expected = _values(function(*args))
        for form in FORMS:
            assert _values(in_form(form, ag.to_graph(function), *args)) == expected, (form, value)
        tensors = [rt.constant(a) for a in args]
        assert _values(ag.to_graph(function)(*tensors)) == expected, value     # eager tensors
        assert _values(ag.function(function)(*tensors)) == expected, value     # graph


def test_a_tensor_while_whose_test_assigns_is_one_graph_loop():
    # The test runs before the loop and at the end of each iteration (the loop is rotated): one While,
    # traced once for every n.
    f = ag.function(in_while_test)
    assert [int(f(rt.constant(n))) for n in (0, 4, 9)] == [in_while_test(n) for n in (0, 4, 9)]
    assert f.experimental_get_tracing_count() == 1
    types = [op.type for op in f.get_concrete_function(rt.constant(4)).graph.operations]
    assert types.count('While') == 1


def test_generated_code_of_tests_and_chains():
    assert 'ag__.and_then(0 < (y := (x * 2)), lambda: y < n)' in ag.to_code(chain_with_walrus)
    assert ('ag__.and_then(-n <= (compared := (ag__.converted_call(abs, (x,), None) * 2)), lambda: '
            'ag__.and_then(compared < (compared_1 := (n * 1)), lambda: compared_1 < 100))'
            ) in ' '.join(ag.to_code(chain_with_calls).split())   # (a long line is wrapped)
    assert ("ag__.walrus_guard(a < (compared := (x * 1)), 'comparison', ('y',)) and compared < (y := (x * 3))"
            in ag.to_code(chain_walrus_on_the_right))
    code = ag.to_code(while_with_jumps)
    assert 'tested_false = False' in code and "roles={'break_': 'break_flag', 'tested_false': 'break_flag'}" in code


def test_a_walrus_in_a_later_operand_of_a_chain_stays_python_and_names_it():
    for args in ((1, 2), (-10, -1)):   # (both links true; the second false)
        expected = chain_walrus_on_the_right(*args)
        assert [in_form(form, ag.to_graph(chain_walrus_on_the_right), *args) for form in FORMS] == [expected] * 2
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(chain_walrus_on_the_right),
           (rt.constant(1), rt.constant(2)), "this comparison chain assigns 'y' with :=",
           'Assign y in a statement before it', at='r = a < x * 1 < (y := x * 3)')


def test_a_rotated_while_differentiates_and_exports(tmp_path):
    w = rt.Variable(2.0)

    @ag.function
    def grow(x):
        with rt.GradientTape() as tape:
            while (x := x * w) < 100.0:
                pass
        return x, tape.gradient(x, w)

    # 3 * w**6 = 192 (d/dw = 18 * w**5); 300 * w = 600 (the first test, before the loop: d/dw = 300).
    assert [float(v) for v in grow(rt.constant(3.0))] == [192.0, 576.0]
    assert [float(v) for v in grow(rt.constant(300.0))] == [600.0, 300.0]

    onnxruntime = pytest.importorskip('onnxruntime')
    concrete = ag.function(in_while_test).get_concrete_function(rt.TensorSpec([], rt.int32))
    path = str(tmp_path / 'rotated.onnx')
    rt.export.to_onnx(concrete, path)
    session = onnxruntime.InferenceSession(path)
    name = session.get_inputs()[0].name
    assert [int(session.run(None, {name: np.array(n, np.int32)})[0]) for n in (0, 4, 9)] == [0, 6, 36]


def chains(a, b, c, d):
    calls = []

    def seen(v):
        calls.append(v)
        return v

    first = a < seen(b) <= c
    second = (w := a + b) > seen(c) != d
    third = a <= b * 1 < (z := c - d)
    fourth = seen(a) < seen(b) < seen(c) < seen(d)
    return first, second, third, fourth, w, z if a <= b * 1 else 'unbound', calls   # z: bound iff a <= b


@settings(max_examples=150, deadline=None)
@given(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3))
def test_random_chains_evaluate_each_operand_once_as_in_python(a, b, c, d):
    expected = chains(a, b, c, d)
    for form in FORMS:
        assert in_form(form, ag.to_graph(chains), a, b, c, d) == expected, form


def reads_a_name_a_chain_may_not_bind(a, b, c):
    r = a < b < (z := c)
    return r, (z if c > 0 else -1)   # (converted, z is read inside the branch's lambda)


def test_a_name_bound_in_a_later_chain_operand_may_be_unbound_as_in_python():
    # Definite assignment knows the chain may stop before (z := c): the read is checked.
    assert reads_a_name_a_chain_may_not_bind(1, 2, 3) == (True, 3)
    for form in FORMS:
        assert in_form(form, ag.to_graph(reads_a_name_a_chain_may_not_bind), 1, 2, 3) == (True, 3)
        with pytest.raises(UnboundLocalError, match="'z'"):
            in_form(form, ag.to_graph(reads_a_name_a_chain_may_not_bind), 2, 1, 3)
    with pytest.raises(UnboundLocalError, match="'z'"):
        reads_a_name_a_chain_may_not_bind(2, 1, 3)


@settings(max_examples=25, deadline=None)
@given(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3))
def test_random_tensor_chains_in_graphs_equal_python(x, lo, hi):
    expected = _values(chain_with_walrus(x, hi)) + [chain_with_calls(x, hi)] + [in_while_test(hi)]
    graph = _values(ag.function(chain_with_walrus)(rt.constant(x), rt.constant(hi)))
    graph += [bool(ag.function(chain_with_calls)(rt.constant(x), rt.constant(hi)))]
    graph += [int(ag.function(in_while_test)(rt.constant(hi)))]
    assert graph == expected


def walrus_list_changed_in_place_in_a_tensor_if(x):
    r = 0
    if x > 0:
        if (ys := [1, 2]):
            ys[0] = 7
            r = ys[0]
    return r + x * 0


def walrus_alias_changed_in_place_in_a_tensor_if(x):
    xs = [1, 2]
    if x > 0:
        if (ys := xs):
            ys[0] = 7
    return xs[0] + x * 0


@pytest.mark.parametrize('function, expected', [
    (walrus_list_changed_in_place_in_a_tensor_if, {3: 7, -3: 0}),
    (walrus_alias_changed_in_place_in_a_tensor_if, {3: 7, -3: 1}),
])
def test_a_walrus_in_a_test_assigns_before_the_body_reads(function, expected):
    # Liveness took the body's read of ys for a read before the walrus assigned it: ys became state of the
    # outer if, undefined in its else branch (a StateError naming ys).
    staged = ag.function(function)
    for x, value in expected.items():
        assert function(x) == value
        for form in FORMS:
            assert in_form(form, ag.to_graph(function), x) == value, form
        assert int(staged(rt.constant(x))) == value
    assert staged.experimental_get_tracing_count() == 1
