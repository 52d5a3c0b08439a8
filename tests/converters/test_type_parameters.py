"""Type parameter syntax in converted functions (PEP 695, Python 3.12+): ``def f[T](x: T)``, a generic def nested in
a converted function, ``type`` aliases. The converter dropped every def's type parameters: a nested generic def was a
NameError when it ran (``U`` read by its annotations), and the converted function had no ``__type_params__``.

The programs are compiled from strings (this file must parse on 3.11), under file names of their own that linecache
holds, so they convert like functions in a file."""
import linecache
import sys

import pytest

import autograph_lite as ag
import runtime as rt

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason='type parameter syntax is Python 3.12+ (PEP 695)')

PROGRAM = '''\
def first[T](items: list[T]) -> T:
    assert T.__name__ == 'T'   # the body reads the type parameter too
    if items[0] > 0:
        return items[0]
    return -items[0]


def with_a_generic_inner(x):
    def inner[U: (int, float), *Ts, **P](y: U) -> U:
        return y * 2
    if x > 0:
        x = inner(x)
    assert inner.__type_params__[0].__constraints__ == (int, float)
    return x


def with_a_type_alias(x):
    type Pair[V] = tuple[V, V]
    if x > 0:
        x = x + 1
    return x, Pair.__type_params__[0].__name__, Pair.__value__
'''


def program():
    filename = f'<type parameters {len(linecache.cache)}>'
    linecache.cache[filename] = (len(PROGRAM), None, PROGRAM.splitlines(True), filename)
    namespace = {}
    exec(compile(PROGRAM, filename, 'exec'), namespace)
    return namespace


@pytest.mark.parametrize('value', [3, -3])
def test_a_generic_function_converts_with_its_type_parameters(value):
    first = program()['first']
    converted = ag.to_graph(first)
    assert converted.__type_params__ == first.__type_params__ and converted.__annotations__ == first.__annotations__
    assert converted([value]) == first([value]) == 3
    assert int(ag.function(first)([rt.constant(value)])) == 3
    # Its own type parameters come from the original's closure: the converted def has none.
    assert ag.to_code(first).startswith('def first(items: list[T]) -> T:\n')


@pytest.mark.parametrize('value', [2, -2])
def test_a_nested_generic_def_keeps_its_type_parameters(value):
    with_a_generic_inner = program()['with_a_generic_inner']
    assert '    def inner[U: (int, float), *Ts, **P](y: U) -> U:\n' in ag.to_code(with_a_generic_inner)
    expected = 4 if value > 0 else -2
    assert ag.to_graph(with_a_generic_inner)(value) == with_a_generic_inner(value) == expected
    assert int(ag.function(with_a_generic_inner)(rt.constant(value))) == expected


def test_a_type_alias_statement_converts():
    with_a_type_alias = program()['with_a_type_alias']
    assert '    type Pair[V] = tuple[V, V]\n' in ag.to_code(with_a_type_alias)
    result, parameter, value = ag.to_graph(with_a_type_alias)(1)
    assert (result, parameter, str(value)) == (2, 'V', 'tuple[V, V]') == with_a_type_alias(1)[:2] + ('tuple[V, V]',)
