"""to_code golden tests: the exact converted text of small functions, and that it runs."""
import textwrap

import pytest

import runtime as rt
import autograph_lite as ag


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


SIMPLE_RELU = '''\
def simple_relu(x):
    do_return = False
    retval_ = ag__.UndefinedReturnValue()

    def get_state():
        return (do_return, retval_)

    def set_state(vars_):
        nonlocal do_return, retval_
        (do_return, retval_) = vars_

    def if_body():
        nonlocal do_return, retval_
        do_return = True
        retval_ = x

    def else_body():
        nonlocal do_return, retval_
        do_return = True
        retval_ = 0

    ag__.if_stmt(ag__.converted_call(rt.greater, (x, 0), None), if_body, else_body,
                 get_state, set_state, ('do_return', 'retval_'), 2,
                 roles={'do_return': 'return_flag', 'retval_': 'return_value'})
    return retval_
'''


def test_simple_relu_matches_the_contract_example_exactly():
    assert ag.to_code(simple_relu) == SIMPLE_RELU


def test_to_code_output_compiles():
    compile(ag.to_code(simple_relu), 'simple_relu.py', 'exec')


def first_square_over(n, limit):
    i = 0
    while i < n:
        if i * i > limit:
            break
        i += 1
    return i


FIRST_SQUARE_OVER = '''\
def first_square_over(n, limit):
    i = 0
    break_ = False

    def get_state():
        return (break_, i)

    def set_state(vars_):
        nonlocal break_, i
        (break_, i) = vars_

    def loop_test():
        return ag__.and_(lambda: ag__.not_(break_), lambda: i < n)

    def get_state_1():
        return (break_,)

    def set_state_1(vars_):
        nonlocal break_
        (break_,) = vars_

    def if_body():
        nonlocal break_
        break_ = True

    def else_body():
        pass

    def get_state_2():
        return (i,)

    def set_state_2(vars_):
        nonlocal i
        (i,) = vars_

    def if_body_1():
        nonlocal i
        i += 1

    def else_body_1():
        pass

    def loop_body():
        nonlocal break_, i
        ag__.if_stmt(i * i > limit, if_body, else_body, get_state_1, set_state_1,
                     ('break_',), 1, roles={'break_': 'break_flag'})
        ag__.if_stmt(ag__.not_(break_), if_body_1, else_body_1, get_state_2, set_state_2, ('i',), 1)

    ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('break_', 'i'),
                    roles={'break_': 'break_flag'})
    return i
'''


def test_while_with_break():
    assert ag.to_code(first_square_over) == FIRST_SQUARE_OVER
    assert [ag.to_graph(first_square_over)(n, 10) for n in range(6)] == [0, 1, 2, 3, 4, 4]


def sum_positive(xs):
    total = 0
    for x in xs:
        if x < 0:
            continue
        total += x
    return total


SUM_POSITIVE = '''\
def sum_positive(xs):
    total = 0

    def get_state():
        return (total,)

    def set_state(vars_):
        nonlocal total
        (total,) = vars_

    def else_body():
        pass

    def get_state_2():
        return (total,)

    def set_state_2(vars_):
        nonlocal total
        (total,) = vars_

    def else_body_1():
        pass

    def loop_body(x):
        nonlocal total
        continue_ = False

        def get_state_1():
            return (continue_,)

        def set_state_1(vars_):
            nonlocal continue_
            (continue_,) = vars_

        def if_body():
            nonlocal continue_
            continue_ = True

        ag__.if_stmt(x < 0, if_body, else_body, get_state_1, set_state_1,
                     ('continue_',), 1, roles={'continue_': 'continue_flag'})

        def if_body_1():
            nonlocal total
            total += x

        ag__.if_stmt(ag__.not_(continue_), if_body_1, else_body_1, get_state_2,
                     set_state_2, ('total',), 1)

    ag__.for_stmt(xs, None, loop_body, get_state, set_state, ('total',))
    return total
'''


def test_for_with_continue():
    assert ag.to_code(sum_positive) == SUM_POSITIVE
    assert ag.to_graph(sum_positive)([3, -1, 4, -5]) == 7


def straight_line(x, y):
    z = x * y
    return z + 1


def test_code_without_control_flow_only_routes_calls():
    assert ag.to_code(straight_line) == textwrap.dedent('''\
        def straight_line(x, y):
            z = x * y
            return z + 1
        ''')


def expressions(a, b, items):
    assert a >= 0, 'a must be non-negative'
    big = a if a > b else b
    return (not big) or (b and len(items, ))


def test_expressions_become_lazy_operators():
    assert ag.to_code(expressions) == textwrap.dedent('''\
        def expressions(a, b, items):
            ag__.assert_stmt(a >= 0, lambda: 'a must be non-negative')
            big = ag__.if_exp(a > b, lambda: a, lambda: b, 'a if a > b else b')
            return ag__.or_(lambda: ag__.not_(big),
                            lambda: ag__.and_(lambda: b, lambda: ag__.converted_call(len, (items,), None)))
        ''')


def calls(f, args, kwargs):
    return f(1, *args, key=2, **kwargs)


def test_calls_keep_their_arguments_readable():
    assert "ag__.converted_call(f, (1, *args), {'key': 2, **kwargs})" in ag.to_code(calls)


def branch_defines(flag):
    if flag:
        value = 1
    return value


def test_variable_undefined_before_if_is_initialized_with_undefined():
    code = ag.to_code(branch_defines)
    assert "    value = ag__.Undefined('value')\n" in code
    assert code.index("ag__.Undefined('value')") < code.index('def if_body')
    assert ag.to_graph(branch_defines)(True) == 1


def test_names_stay_readable_when_constructs_repeat():
    def two_ifs(x):
        if x > 0:
            x = x - 1
        if x > 5:
            x = 5
        return x
    code = ag.to_code(two_ifs)
    for name in ('if_body', 'else_body', 'get_state', 'set_state', 'if_body_1', 'else_body_1',
                 'get_state_1', 'set_state_1'):
        assert f'def {name}(' in code
    assert 'tf__' not in code and 'FunctionScope' not in code and 'ag__.ld' not in code and 'try:' not in code


def doubled(v):
    return v * 2


def conditional_with_calls_and_slices(x, xs):
    return doubled(x) if len(xs[1:]) > 0 else xs[0]


def test_a_conditional_expression_carries_the_users_text_not_the_converted_one():
    code = ag.to_code(conditional_with_calls_and_slices)
    assert "'doubled(x) if len(xs[1:]) > 0 else xs[0]'" in code
    assert code.count('converted_call') == 2   # the branches themselves are converted


def staged_conditional_with_a_call(x):
    return doubled(x) if x > 0 else 0.5


def test_a_staged_conditional_expression_error_quotes_the_users_text():
    with pytest.raises(rt.errors.StateError, match=r"rt.cond: 'the value of `doubled\(x\) if x > 0 else 0.5`' in the "
                                                   r"false branch cannot be a tensor"):
        ag.function(staged_conditional_with_a_call)(rt.constant(3))
