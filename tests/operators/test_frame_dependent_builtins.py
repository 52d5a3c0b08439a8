"""Builtins whose result depends on the frame that runs them (eval, exec, locals, vars, dir, globals, super)
in the forms that dodged the check of direct calls (converters/frame_readers.py): namespaces passed through
*args/**kwargs, the builtin used as a value (`fn = eval`, `map(eval, ...)`), zero-argument super() in a
comprehension's own frame or in a nested def's defaults. Each is refused at conversion (then calls from
converted code run the function as it is: Python's exact values) or kept working; what the source cannot
show (`getattr(builtins, 'eval')`, a module-level alias) is a clear error when the call happens.

Before: eval('x + 1', *()) raised NameError, `l = locals; l()` returned converted_call's locals
(['args', 'f', 'kind', 'kwargs']), super() in a 3.11 comprehension returned the parent's value where Python
raises TypeError, and a nested def's default `super().val()` raised NameError ('obj')."""
import builtins
import functools
import re
import sys

import pytest

import autograph_lite as ag
from converted_forms import FORMS, in_form
from user_errors import full_message, line_of


def spread_namespaces(x, namespaces):
    return eval('x + 1', *namespaces)


def spread_keywords(x, keywords):
    return eval('x + 1', **keywords)


def exec_spread(x, namespaces):
    y = x
    exec('y = 5', *namespaces)
    return y


def vars_spread(x, objects):
    return sorted(vars(*objects))


def eval_by_another_name(x):
    fn = eval
    return fn('x + 1')


def locals_by_another_name(x):
    read = locals
    return sorted(read())


def eval_handed_to_map(x):
    return list(map(eval, ['x', 'x * 2']))


def exec_in_a_partial(x):
    namespace = {}
    functools.partial(exec, 'z = 3', None, namespace)()
    return namespace


def eval_from_the_builtins_module(x):
    return builtins.eval('x + 1')


def globals_from_the_builtins_module(x):
    return '_MARKER' in builtins.globals()


_MARKER = object()

REFUSED = [
    (spread_namespaces, (1, ()), 'eval() with its namespaces passed through *args/**kwargs', 2),
    (spread_keywords, (1, {}), 'eval() with its namespaces passed through *args/**kwargs', 2),
    (exec_spread, (1, ()), 'exec() with its namespaces passed through *args/**kwargs', 1),
    (vars_spread, (1, ()), 'vars() with its argument passed through *args/**kwargs', ['objects', 'x']),
    (eval_by_another_name, (1,), 'eval used as a value', 2),
    (locals_by_another_name, (1,), 'locals used as a value', ['read', 'x']),
    (eval_handed_to_map, (3,), 'eval used as a value', [3, 6]),
    (exec_in_a_partial, (1,), 'exec used as a value', {'z': 3}),
    (eval_from_the_builtins_module, (1,), 'eval() without explicit globals', 2),
    (globals_from_the_builtins_module, (1,), 'builtins.globals()', True),
]


@pytest.mark.parametrize('function, args, shown, expected', REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_forms_that_dodged_the_check_are_refused_with_the_users_line(function, args, shown, expected):
    assert function(*args) == expected
    with pytest.raises(ag.ConversionError, match=re.escape(shown) + ' cannot be converted') as caught:
        ag.to_graph(function)
    assert 'test_frame_dependent_builtins.py", line ' in str(caught.value)
    assert '@ag.do_not_convert' in str(caught.value)


def calls_them_all(x):
    return (spread_namespaces(x, ()), spread_keywords(x, {}), exec_spread(x, ()), vars_spread(x, ()),
            eval_by_another_name(x), locals_by_another_name(x), eval_handed_to_map(x), exec_in_a_partial(x),
            eval_from_the_builtins_module(x), globals_from_the_builtins_module(x))


@pytest.mark.filterwarnings('ignore:.*is called unconverted')
@pytest.mark.parametrize('form', FORMS)
def test_converted_code_runs_the_refused_functions_as_they_are(form):
    expected = (5, 5, 4, ['objects', 'x'], 5, ['read', 'x'], [4, 8], {'z': 3}, 5, True)
    assert calls_them_all(4) == expected
    assert in_form(form, ag.to_graph(calls_them_all), 4) == expected


def given_through_spread(x):
    namespace = {}
    return eval('x + 1', *({'x': 10},)), exec('y = x * 2', *({'x': 3}, namespace)) or namespace['y']


def test_spread_namespaces_that_supply_globals_are_refused_too_and_run_as_written():
    # Whether *args supplies the globals cannot be read from the source: refused, so always right.
    with pytest.raises(ag.ConversionError, match=re.escape('eval() with its namespaces passed through')):
        ag.to_graph(given_through_spread)
    assert given_through_spread(1) == (11, 6)


def own_names(dir, vars):
    """Parameters called like the builtins are the user's own values: converted as usual."""
    return [step for step in dir] + list(vars)


@pytest.mark.parametrize('form', FORMS)
def test_the_users_own_names_like_builtins_are_converted(form):
    assert in_form(form, ag.to_graph(own_names), 'ab', (1,)) == own_names('ab', (1,)) == ['a', 'b', 1]
    assert 'ag__' in ag.to_code(own_names)


EVAL = eval
DIR = getattr(builtins, 'dir')


def module_alias(x):
    return EVAL('x + 1')


def module_alias_with_globals(x):
    return EVAL('x + 1', {'x': 5}), sorted(DIR(object()))[0]


def looked_up_at_run_time(x):
    return getattr(builtins, 'locals')()


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('function, shown, fix', [
    (module_alias, 'eval() without explicit globals', 'Call eval by its own name with explicit globals'),
    (looked_up_at_run_time, 'locals()', 'Call locals by its own name')])
def test_aliases_the_source_cannot_show_are_a_clear_error_when_called(function, shown, fix, form):
    with pytest.raises(ag.ConversionError) as caught:
        in_form(form, ag.to_graph(function), 1)
    message = full_message(caught.value)
    assert message.startswith(f'{shown} was called from converted code through another name than its own (or '
                              'from the builtins module): there it reads the frame of the library code calling '
                              "it, not your function's"), message
    assert fix in message
    line = line_of(function, 'return')
    assert f'test_frame_dependent_builtins.py", line {line}' in message, message


@pytest.mark.parametrize('form', FORMS)
def test_aliases_given_what_they_read_work(form):
    assert in_form(form, ag.to_graph(module_alias_with_globals), 1) == module_alias_with_globals(1) == (6, '__class__')


# --- zero-argument super() ----------------------------------------------------------------------------

class Base:
    def value(self):
        return 10

    def items(self):
        return [1, 2]


class Child(Base):
    def value(self):
        return 1

    def in_a_list_comprehension(self):
        return [super().value() for _ in range(2)]

    def in_a_generator_expression(self):
        return sum(super().value() for _ in range(2))

    def in_a_comprehension_in_a_lambda(self):
        return (lambda other: [super().value() for _ in range(2)])(self)

    def in_the_first_iterable(self):
        """The first iterable is evaluated in the method's frame: super() there is the method's."""
        return [item for item in super().items()]

    def in_a_lambda_in_a_comprehension(self):
        return [(lambda other: super().value())(self) for _ in range(2)]

    def in_a_nested_defs_default(self):
        def helper(other=super().value()):
            return other
        return helper()

    def in_a_nested_defs_decorator(self):
        @tagged(super().value())
        def helper(other):
            return other
        return helper.tag

    def in_a_nested_def(self):
        def helper(other):
            return super().value()
        return helper(self)

    def bound_before(self):
        parent = super()
        return sum(parent.value() for _ in range(2))


class OwnIterator(Base):
    """Its own iterator (one item): a comprehension over it gets it as the first argument of its frame, so
    super() there works in Python."""

    def __init__(self):
        self.left = 1

    def value(self):
        return 2

    def __iter__(self):
        return self

    def __next__(self):
        if not self.left:
            raise StopIteration
        self.left -= 1
        return self.left

    def in_a_list_comprehension(self):
        return [super().value() for _ in self]


def tagged(value):
    def tag(function):
        function.tag = value
        return function
    return tag


SEPARATE_FRAME = sys.version_info < (3, 12)   # since 3.12 list/set/dict comprehensions run inline (PEP 709)
IN_OWN_FRAME = [('in_a_generator_expression', 'generator expression')] + (
    [('in_a_list_comprehension', 'comprehension'), ('in_a_comprehension_in_a_lambda', 'comprehension')]
    if SEPARATE_FRAME else [])


# Python's words for super() given the comprehension's iterator as its object (3.13 names both types).
SUPER_REFUSED = (r'super\(type, obj\): obj (must be|\(instance of range_iterator\) is not) an instance or subtype '
                 r'of type')


@pytest.mark.parametrize('method, kind', IN_OWN_FRAME)
def test_super_in_a_comprehensions_own_frame_is_refused(method, kind):
    with pytest.raises(TypeError, match=SUPER_REFUSED):
        getattr(Child(), method)()
    with pytest.raises(ag.ConversionError, match=re.escape(
            f"super() without arguments inside a {kind} cannot be converted: Python runs it in the {kind}'s own "
            "frame")) as caught:
        ag.to_graph(getattr(Child, method))
    assert f'Bind `parent = super()` before the {kind}' in str(caught.value)


def call_method(obj, name):
    return getattr(obj, name)()


@pytest.mark.filterwarnings('ignore:.*is called unconverted')
@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('method', [m for m, _ in IN_OWN_FRAME])
def test_converted_callers_see_what_python_raises(method, form):
    with pytest.raises(TypeError, match=SUPER_REFUSED) as raised_by_python:
        call_method(Child(), method)
    with pytest.raises(TypeError, match=f'^{re.escape(str(raised_by_python.value))}$'):
        in_form(form, ag.to_graph(call_method), Child(), method)


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('method, expected', [
    ('in_the_first_iterable', [1, 2]), ('in_a_lambda_in_a_comprehension', [10, 10]),
    ('in_a_nested_defs_default', 10), ('in_a_nested_defs_decorator', 10), ('in_a_nested_def', 10),
    ('bound_before', 20)] + ([] if SEPARATE_FRAME else [('in_a_list_comprehension', [10, 10])]))
def test_super_elsewhere_is_the_frames_own(method, expected, form):
    assert getattr(Child(), method)() == expected
    assert in_form(form, ag.to_graph(getattr(Child, method)), Child()) == expected


@pytest.mark.filterwarnings('ignore:.*is called unconverted')
@pytest.mark.parametrize('form', FORMS)
def test_a_comprehension_over_an_instance_runs_as_python_does(form):
    expected = OwnIterator().in_a_list_comprehension()
    assert expected == [10]
    assert in_form(form, ag.to_graph(call_method), OwnIterator(), 'in_a_list_comprehension') == expected


def super_by_another_name_caller():
    return AliasSuper().aliased()


class AliasSuper(Base):
    def value(self):
        return 3

    def aliased(self):
        parent_of = super
        return parent_of().value()


@pytest.mark.filterwarnings('ignore:.*is called unconverted')
@pytest.mark.parametrize('form', FORMS)
def test_super_as_a_value_is_refused(form):
    """It raised RuntimeError('super(): __class__ cell not found') in converted code; Python gives 10."""
    with pytest.raises(ag.ConversionError, match=re.escape('super used as a value cannot be converted')):
        ag.to_graph(AliasSuper.aliased)
    assert in_form(form, ag.to_graph(super_by_another_name_caller)) == super_by_another_name_caller() == 10
