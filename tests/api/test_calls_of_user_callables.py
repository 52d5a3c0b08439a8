"""How converted code calls what users (and the packages they use) write: decorators over converted
functions, callable objects, mocks, partial subclasses, descriptors as ``__call__``, and builtins by
identity. Each result, exception and side effect must be the original's (issue 23, bugs 1-5)."""
import functools
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from autograph_lite import calls
from converted_forms import FORMS, in_form


def add_100(func):
    @functools.wraps(func)
    def wrapper(x):
        return func(x) + 100
    return wrapper


decorated_converted = add_100(ag.to_graph(lambda x: x))


def calls_decorated(x):
    return decorated_converted(x)


@pytest.mark.parametrize('form', FORMS)
def test_a_decorator_made_with_functools_wraps_over_a_converted_function_runs_its_body(form):
    # wraps copied the to_graph wrapper's __dict__ (its markers) onto the user's wrapper: converted code
    # took it for ours and called the inner function directly (1 where the original gives 101).
    assert calls_decorated(1) == 101
    assert in_form(form, ag.to_graph(calls_decorated), 1) == 101
    assert in_form(form, calls.converted_call, decorated_converted, (2,), None) == 102


def test_to_graph_and_to_code_of_a_decorator_over_a_converted_function_are_the_decorator():
    converted = ag.to_graph(decorated_converted)
    assert converted is not decorated_converted and converted(1) == 101
    assert 'ag__.converted_call(func, (x,), None) + 100' in ag.to_code(decorated_converted)
    assert calls.converted_from(decorated_converted) is None
    assert calls.converted_from(ag.to_graph(calls_decorated)) is calls_decorated


def test_a_decorator_copying_an_ag_function_is_not_taken_for_it():
    staged = ag.function(lambda x: x * 2)

    @functools.wraps(staged)   # copies python_function
    def doubled_plus_one(x):
        return staged(x) + 1

    assert ag.to_graph(doubled_plus_one)(rt.constant(3)).numpy() == 7
    assert 'converted_call(staged, (x,), None) + 1' in ag.to_code(doubled_plus_one)


def calls_twice(f, x):
    return f(x), f(x + 1)


@pytest.mark.parametrize('form', FORMS)
def test_a_mock_sees_only_the_calls_the_original_makes(form):
    # converted_call hashed every callable object (a lookup in the builtin-override table): the mock
    # recorded call.__hash__() between the user's calls.
    for kind in (mock.Mock, mock.MagicMock):
        original, converted = kind(return_value=5), kind(return_value=5)
        assert calls_twice(original, 1) == in_form(form, ag.to_graph(calls_twice), converted, 1) == (5, 5)
        converted.assert_has_calls([mock.call(1), mock.call(2)])
        assert converted.mock_calls == original.mock_calls == [mock.call(1), mock.call(2)]


class EqualToEverything:
    """A callable object whose __eq__ matches any builtin, with a side-effecting __hash__."""
    hashed = 0

    def __eq__(self, other):
        return True

    def __hash__(self):
        EqualToEverything.hashed += 1
        return hash(len)   # collides with len in any table keyed by value

    def __call__(self, x):
        return ('mine', x)


@pytest.mark.parametrize('form', FORMS)
def test_a_callable_equal_to_a_builtin_is_not_replaced_by_the_builtin(form):
    callable_object = EqualToEverything()
    EqualToEverything.hashed = 0
    assert in_form(form, ag.to_graph(calls_twice), callable_object, 1) == calls_twice(callable_object, 1) \
        == (('mine', 1), ('mine', 2))
    assert EqualToEverything.hashed == 0


class Unhashable:
    __hash__ = None

    def __call__(self, x):
        if x > 0:
            return x
        return -x


@pytest.mark.parametrize('form', FORMS)
def test_an_unhashable_callable_object_is_converted_and_called(form):
    assert in_form(form, ag.to_graph(calls_twice), Unhashable(), -3) == calls_twice(Unhashable(), -3) == (3, 2)


class LoggedPartial(functools.partial):
    def __call__(self, *args, **kwargs):
        return ('logged', super().__call__(*args, **kwargs))


class PlainPartial(functools.partial):
    pass


def add(a, b):
    return a + b


def calls_with_2(f):
    return f(2)


@pytest.mark.parametrize('form', FORMS)
def test_a_partial_subclass_keeps_its_own_call(form):
    # Converted code unwrapped every partial and called .func: 3 where the original gives ('logged', 3).
    converted = ag.to_graph(calls_with_2)
    for partial in (LoggedPartial(add, 1), PlainPartial(add, 1), functools.partial(add, 1)):
        assert in_form(form, converted, partial) == calls_with_2(partial)
    assert in_form(form, converted, LoggedPartial(add, 1)) == ('logged', 3)
    assert in_form(form, converted, functools.partial(add, b=10)) == 12


class ShiftedPartial(functools.partial):
    """Calls partial's own __call__ through super(), as a subclass adding to it does."""

    def __call__(self, *args, **kwargs):
        return super().__call__(*args, **kwargs) + 10


class ExplicitPartial(functools.partial):
    def __call__(self, *args, **kwargs):
        return functools.partial.__call__(self, *args, **kwargs) + 20


def distance_or_sum(a, v):
    if v > a:
        return v - a
    return a + v


def calls_partial_subclasses(n):
    return ShiftedPartial(distance_or_sum, 1)(n), ExplicitPartial(distance_or_sum, v=n)(1)


@pytest.mark.parametrize('form', FORMS)
def test_partials_own_call_from_a_subclass_converts_the_function_it_holds(form):
    # super().__call__ (partial's C __call__) was called as it is: the function the partial holds ran
    # unconverted, and its `if` on a tensor raised OperatorNotAllowedInGraphError while tracing.
    traced = ag.function(calls_partial_subclasses)
    for n in (0, 3):
        expected = calls_partial_subclasses(n)
        assert in_form(form, ag.to_graph(calls_partial_subclasses), n) == expected
        assert tuple(int(t.numpy()) for t in traced(rt.constant(n))) == expected
    assert calls_partial_subclasses(0) == (11, 21) and calls_partial_subclasses(3) == (12, 22)
    assert traced.experimental_get_tracing_count() == 1


class StaticCall:
    __call__ = staticmethod(lambda x: x * 21)


class StaticDefCall:
    @staticmethod
    def __call__(x):
        if x > 1:
            return 42
        return 0


class ClassCall:
    @classmethod
    def __call__(cls, x):
        return (cls.__name__, x)


class InstanceOverride:
    """Python looks __call__ up on the type: an instance attribute of that name is never called."""

    def __init__(self):
        self.__call__ = lambda x: 'instance attribute'

    def __call__(self, x):
        return 'class method'


@pytest.mark.parametrize('form', FORMS)
def test_call_is_looked_up_on_the_type_as_python_does(form):
    # `__call__ = staticmethod(fn)`: converted code passed the instance as an extra argument (TypeError).
    converted = ag.to_graph(calls_with_2)
    for callable_object in (StaticCall(), StaticDefCall(), ClassCall(), InstanceOverride()):
        assert in_form(form, converted, callable_object) == calls_with_2(callable_object)
    assert in_form(form, converted, StaticCall()) == in_form(form, converted, StaticDefCall()) == 42
    assert in_form(form, converted, InstanceOverride()) == 'class method'


def calls_it(f, *args, **kwargs):
    return f(*args, **kwargs)


def raised_by(function, *args, **kwargs):
    with pytest.raises(Exception) as info:
        function(*args, **kwargs)
    return type(info.value), str(info.value)


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('builtin, args, kwargs', [
    (range, (), {'stop': 3}), (len, (), {}), (len, ([1],), {'obj': [1]}), (len, (), {'obj': [1]}),
    (abs, (), {}), (abs, (1, 2), {}), (enumerate, (), {}), (sum, (), {}), (sum, ([1],), {'begin': 1}),
    (any, (), {}), (all, ([], []), {}), (max, (), {}), (min, ([],), {}), (zip, ([1],), {'strict': 1, 'x': 2}),
    (int, ('1',), {'base': 1}), (float, (1, 2), {}), (isinstance, (1,), {})])
def test_an_overridden_builtin_raises_exactly_what_the_builtin_raises(form, builtin, args, kwargs):
    # range(stop=3) named our internal range_() ("range_() got an unexpected keyword argument").
    expected = raised_by(builtin, *args, **kwargs)
    assert raised_by(in_form, form, ag.to_graph(calls_it), builtin, *args, **kwargs) == expected

    def traced(x):
        return calls_it(builtin, *args, **kwargs)
    with pytest.raises(expected[0]) as info:   # while tracing, where the overrides replace the builtins
        ag.function(traced)(rt.constant(1.0))
    assert str(info.value).split('\n')[0] == expected[1]


def keyword_builtins(values):
    return (list(enumerate(iterable=values, start=1)), sum(values, start=10), list(range(*values[:2])))


@pytest.mark.parametrize('form', FORMS)
def test_builtins_called_with_keywords_they_accept(form):
    assert in_form(form, ag.to_graph(keyword_builtins), [1, 2]) == keyword_builtins([1, 2])


# --- a property: any stack of the callable kinds above, converted, behaves as the original ----------------

def _kinds():
    def plain(g):
        def plain_call(x):
            return g(x)
        return plain_call

    def wrapped(g):
        @functools.wraps(g)
        def decorated(x):
            return g(x) + 1
        return decorated

    def converted(g):
        return ag.to_graph(wrapped(g))

    def partial(g):
        return functools.partial(lambda g, x: g(x) * 2, g)

    def logged_partial(g):
        return LoggedPartial(lambda g, x: g(x) - 3, g)

    def static_call(g):
        class Static:
            __call__ = staticmethod(lambda x: g(x) * 3)
        return Static()

    def bound(g):
        class Holder:
            def method(self, x):
                if x > 10:
                    return g(x) - 10
                return g(x)
        return Holder().method

    def mocked(g):
        return mock.Mock(side_effect=g)

    return [plain, wrapped, converted, partial, logged_partial, static_call, bound, mocked]


def _base(x):
    if x == 13:
        raise ValueError('unlucky')
    return x + 1


def outcome(function, x):
    try:
        return 'value', function(x)
    except Exception as error:   # noqa: BLE001 - the exact exception is what is compared
        return 'raised', type(error), str(error), getattr(error, '__notes__', None)


def calls_through(f, x):
    return f(x)


@settings(max_examples=15, deadline=None)
@given(stack=st.lists(st.integers(0, 7), min_size=1, max_size=4), x=st.integers(-3, 16),
       form=st.sampled_from(FORMS))
def test_any_stack_of_callable_kinds_converted_behaves_as_the_original(stack, x, form):
    """Decorators (functools.wraps, to_graph), partials and a partial subclass, a staticmethod __call__, bound
    methods and mocks, stacked in any order around a function that may raise: same value or same exception."""
    kinds = _kinds()
    f = _base
    for index in stack:
        f = kinds[index](f)
    converted = ag.to_graph(calls_through)
    assert in_form(form, outcome, lambda y: converted(f, y), x) == outcome(lambda y: calls_through(f, y), x)
