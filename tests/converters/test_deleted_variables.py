"""A local removed with `del` (or by the end of its `except ... as e:` clause) raises exactly what Python
raises wherever converted code reads it:
UnboundLocalError in the function (also inside the branch/loop bodies and lambdas the converter makes),
NameError in a function nested in it, and the same error for a second `del`."""
import sys

import pytest

import autograph_lite as ag
from converted_forms import FORMS, in_form
import runtime as rt
from user_errors import raises

UNBOUND = "cannot access local variable 'a' where it is not associated with a value"


def in_and(b):
    a = 1
    del a
    return a and b


def in_or(b):
    a = 1
    del a
    return b or a


def in_not(b):
    a = 1
    del a
    return not a


def in_conditional_expression(b):
    a = 1
    del a
    return 1 if a else 2


def in_if_body(b):
    a = 1
    del a
    if b:
        return a
    return 0


def in_while_test(b):
    a = 1
    del a
    while a < b:
        b -= 1
    return b


def in_for_body(b):
    a = 1
    del a
    for i in range(b):
        b = a
    return b


def deleted_in_a_branch(b):
    a = 1
    if b:
        del a
    return a and b


def deleted_twice(b):
    a = 1
    del a
    if b:
        del a
    return 0


def in_a_nested_function(b):
    a = 1
    del a

    def read():
        return a
    return read()


def in_a_lambda(b):
    a = 1
    del a
    return (lambda: a)()


def in_a_generator_expression(b):
    a = 1
    del a
    return list(a for _ in range(2))


def in_a_list_comprehension(b):
    a = 1
    del a
    return [a for _ in range(2)]


def nonlocal_deleted_in_a_nested_function(b):
    a = 1

    def drop():
        nonlocal a
        del a
    drop()
    if b:
        return a
    return 0


def reassigned_after_del(b):
    a = 1
    del a
    a = b * 2
    if a > 2:
        return a and b
    return a or b


def del_of_items_and_several_names(b):
    a, c, d = 1, {'k': 1, 'j': 2}, 3
    del c['k'], a, d
    return (len(c), b and a)


def caught_name_read_after_the_clause(b):
    try:
        1 / 0
    except ZeroDivisionError as e:
        log = [str(e)]
    return e and b   # noqa: F821 - Python deleted e at the end of the clause


def caught_name_read_in_a_branch_after_the_clause(b):
    try:
        1 // b
    except ZeroDivisionError as e:
        pass
    if b:
        return 0
    return e   # noqa: F821


def caught_name_read_only_in_the_clause(b):
    try:
        1 // b
    except ZeroDivisionError as e:
        return str(e) and b
    return b


def class_attribute_deleted_in_its_body(b):
    class Local:
        x = 1
        y = x + b
        del x
    return hasattr(Local, 'x'), Local.y


def global_deleted():
    global DELETED_GLOBAL
    del DELETED_GLOBAL
    return DELETED_GLOBAL and 1


PYTHON_VALUE_CASES = [in_and, in_or, in_not, in_conditional_expression, in_if_body, in_while_test, in_for_body,
                      deleted_in_a_branch, deleted_twice, in_a_nested_function, in_a_lambda,
                      in_a_generator_expression, in_a_list_comprehension, nonlocal_deleted_in_a_nested_function,
                      reassigned_after_del, del_of_items_and_several_names, caught_name_read_after_the_clause,
                      caught_name_read_in_a_branch_after_the_clause, caught_name_read_only_in_the_clause,
                      class_attribute_deleted_in_its_body]


def outcome(function, *args):
    try:
        return 'value', function(*args)
    except Exception as error:
        return type(error), str(error)


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function', PYTHON_VALUE_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize('b', [0, 1, 3])
def test_converted_raises_exactly_what_the_original_raises(function, b, form):
    assert in_form(form, outcome, ag.to_graph(function), b) == outcome(function, b)


def test_the_errors_are_the_ones_python_gives_in_each_place():
    assert outcome(in_and, 1) == (UnboundLocalError, UNBOUND)
    free = NameError if sys.version_info < (3, 12) else UnboundLocalError   # comprehensions are inline
    assert outcome(ag.to_graph(in_a_nested_function), 1)[0] is NameError
    assert outcome(ag.to_graph(in_a_list_comprehension), 1)[0] is free


def test_a_deleted_global_is_left_to_python():
    globals()['DELETED_GLOBAL'] = 5
    with pytest.raises(NameError, match="name 'DELETED_GLOBAL' is not defined"):
        ag.to_graph(global_deleted)()


def test_the_generated_code_reads_a_deleted_local_through_defined():
    code = ag.to_code(in_and)
    assert "a = ag__.deleted(a, 'a')" in code
    assert "ag__.and_(lambda: ag__.defined(a), lambda: b)" in code
    assert "ag__.defined_free(a)" in ag.to_code(in_a_nested_function)


def test_while_tracing_the_error_names_the_users_line():
    raises(UnboundLocalError, ag.function(in_and), (rt.constant(True),), UNBOUND, at="return a and b")
    raises(UnboundLocalError, ag.function(in_if_body), (rt.constant(True),), UNBOUND, at="return a")


def test_a_caught_name_read_after_its_clause_is_deleted_there_as_python_does():
    assert outcome(caught_name_read_after_the_clause, 1) == (UnboundLocalError, UNBOUND.replace("'a'", "'e'"))
    code = ag.to_code(caught_name_read_after_the_clause)
    assert "except ZeroDivisionError as caught:" in code and "e = ag__.Undefined('e')" in code
    # Read only inside its clause: left exactly as written.
    assert "except ZeroDivisionError as e:" in ag.to_code(caught_name_read_only_in_the_clause)
