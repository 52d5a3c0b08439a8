"""Private names (``self.__x``) in converted methods are mangled as Python mangles them (bug class 3)."""
import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite.pyct.mangling import enclosing_class, mangled


class Matcher:
    """Private methods and attributes, used from methods and from functions nested in them."""

    def __init__(self, items):
        self.__items = list(items)
        self.__seen = 0

    def __chain(self, limit):
        total = 0
        for item in self.__items:
            if item > limit:
                break
            total += item
        self.__seen += 1
        return total

    def run(self, limit):
        if limit < 0:
            return self.__chain(0)
        return self.__chain(limit) + self.__seen

    def nested(self, limit):
        def __helper(k):
            return self.__chain(k) * 2

        def outer_helper():
            return [__helper(k) for k in range(limit)]
        return outer_helper()

    def counts(self, __bonus=0):
        __local = len(self.__items)
        while __local > 2:
            __local -= 1
        return __local + __bonus

    def staged(self, x):
        self.__scale = 3
        if x > 0:
            return x * self.__scale
        return -x

    @staticmethod
    def __private_static(x):
        return x + 1

    def via_static(self, x):
        return Matcher.__private_static(x) + self.__private_static(x)

    lam = lambda self: self.__seen   # noqa: E731


class SubMatcher(Matcher):
    """A subclass: its own ``__name`` mangle with its name, the base's stay the base's."""

    def __init__(self, items):
        super().__init__(items)
        self.__items = ['sub']

    def run(self, limit):
        base = super().run(limit)
        return base, self.__items, self._Matcher__items


def fresh(cls=Matcher):
    return cls([1, 2, 5, 3])


@pytest.mark.parametrize('limit', [-1, 0, 2, 4])
def test_private_methods_and_attributes_in_methods(limit):
    assert ag.to_graph(fresh().run)(limit) == fresh().run(limit)


def test_private_names_in_nested_functions_of_a_method():
    assert ag.to_graph(fresh().nested)(3) == fresh().nested(3) == [0, 2, 6]


def test_private_parameters_and_locals():
    assert ag.to_graph(fresh().counts)(5) == fresh().counts(5) == 7
    assert ag.to_graph(fresh().counts)(_Matcher__bonus=1) == fresh().counts(_Matcher__bonus=1) == 3


def test_private_static_method_through_the_class_and_the_instance():
    assert ag.to_graph(fresh().via_static)(1) == fresh().via_static(1) == 4


def test_lambda_in_a_class_body():
    assert ag.to_graph(Matcher.lam)(fresh()) == 0


@pytest.mark.parametrize('limit', [-1, 3])
def test_subclass_mangles_its_own_names_and_calls_the_base(limit):
    assert ag.to_graph(fresh(SubMatcher).run)(limit) == fresh(SubMatcher).run(limit)


def test_private_attribute_in_a_staged_method():
    for x in (2.0, -2.0):
        assert ag.function(fresh().staged)(rt.constant(x)).numpy() == fresh().staged(x)


def test_to_code_shows_the_mangled_names():
    code = ag.to_code(Matcher.run)
    assert 'self._Matcher__chain' in code and 'self.__chain' not in code


@pytest.mark.parametrize('qualname, expected', [
    ('f', None), ('f.<locals>.g', None), ('A.m', 'A'), ('A.m.<locals>.inner', 'A'),
    ('A.B.m', 'B'), ('f.<locals>.A.m.<locals>.g.<locals>.h', 'A'), ('A.<lambda>', 'A')])
def test_enclosing_class_from_the_qualname(qualname, expected):
    assert enclosing_class(qualname) == expected


@pytest.mark.parametrize('name, cls, expected', [
    ('__x', 'A', '_A__x'), ('__x', '_A', '_A__x'), ('__x__', 'A', '__x__'), ('_x', 'A', '_x'),
    ('__x', '___', '__x')])
def test_the_mangling_rule(name, cls, expected):
    assert mangled(name, cls) == expected
