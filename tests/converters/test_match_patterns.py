"""``match`` with sequence, mapping, class, ``as`` and nested patterns (converters/match_statements.py ->
operators/patterns.py): on Python values exactly Python's results, exceptions and calls into the subject (in
both forms of converted code); on tensors the structure is decided in Python while tracing, a guard on
tensors stages an ``If``, and a structural pattern on a symbolic tensor is an error naming the line."""
import collections
import collections.abc
import dataclasses
import linecache

import pytest
from hypothesis import given, settings, strategies as st

import autograph_lite as ag
import runtime as rt
from tests.support.converted_forms import FORMS, in_form
from tests.support.user_errors import raises


@dataclasses.dataclass
class Point:
    x: object
    y: object


class Polar:
    __match_args__ = ('r', 'angle')

    def __init__(self, r, angle):
        self.r, self.angle = r, angle


class NoArgs:
    """A class pattern with positional sub-patterns but no ``__match_args__``: TypeError when tried."""


calls = []   # what the subject classes below were asked, in order


class LoggingSequence(collections.abc.Sequence):
    def __init__(self, *items):
        self.items = items

    def __len__(self):
        calls.append('len')
        return len(self.items)

    def __getitem__(self, index):
        calls.append(f'[{index}]')
        return self.items[index]

    def __iter__(self):
        calls.append('iter')
        return iter(self.items)

    def __repr__(self):
        return f'LoggingSequence{self.items}'


class LoggingMapping(collections.abc.Mapping):
    def __init__(self, items):
        self.items = dict(items)

    def __getitem__(self, key):
        calls.append(f'[{key!r}]')
        return self.items[key]

    def __len__(self):
        calls.append('len')
        return len(self.items)

    def __iter__(self):
        calls.append('iter')
        return iter(self.items)

    def get(self, key, default=None):
        calls.append(f'get {key!r}')
        return self.items.get(key, default)

    def keys(self):
        calls.append('keys')
        return self.items.keys()

    def __repr__(self):
        return f'LoggingMapping({self.items})'


def describe(shape):
    match shape:
        case Point(x=0, y=0):
            return 'origin'
        case Point(x=0, y=y) | Point(x=y, y=0):
            return ('axis', y)
        case Polar(r, angle=0):
            return ('polar on x', r)
        case Polar(0, _) as p:
            return ('polar zero', p.angle)
        case [Point(x=x1, y=y1), Point(x=x2, y=y2)] if x1 == x2:
            return ('vertical', y1, y2)
        case [Point() as first, *others]:
            return ('points', first.x, len(others))
        case [int(a), int(b), *rest] if a < b:
            return ('ascending', a, b, rest)
        case [a, *_, b]:
            return ('ends', a, b)
        case [] | ():
            return 'empty'
        case {'kind': 'circle', 'r': int() | float() as r}:
            return ('circle', r)
        case {'kind': str(kind), **rest} if rest:
            return ('shape', kind, sorted(rest))
        case {}:
            return 'other mapping'
        case str() | bytes():
            return ('text', len(shape))
        case bool(b):
            return ('bool', b)
        case int(n) | float(n):
            return ('number', n)
        case None:
            return 'none'
        case other:
            return ('other', type(other).__name__)


def bindings(value):
    """Names are bound only when a pattern matches, and before its guard (they stay if it fails)."""
    first = second = 'unset'
    match value:
        case [first, second, 0]:
            pass
        case [first, 1] if first > 100:
            pass
        case _:
            pass
    return first, second


def no_args(value):
    match value:
        case NoArgs(x):
            return x
        case int(a, b):
            return a + b
    return 'no match'


def _same(function, value):
    """The converted function (both forms) gives what Python gives: the result, or the exception type and
    message, and the same calls into the subject."""
    def outcome(call):
        calls.clear()
        try:
            result = ('returned', call(value))
        except Exception as error:   # noqa: BLE001 - compared, type and message
            result = ('raised', type(error), str(error))
        return result, list(calls)

    expected = outcome(function)
    converted = ag.to_graph(function)
    for form in FORMS:
        assert outcome(lambda v: in_form(form, converted, v)) == expected, (form, value)
    return expected


@pytest.mark.parametrize('value, result', [
    (Point(0, 0), 'origin'), (Point(0, 3), ('axis', 3)), (Point(4, 0), ('axis', 4)), (Point(1, 2), ('other', 'Point')),
    (Polar(2, 0), ('polar on x', 2)), (Polar(0, 5), ('polar zero', 5)),
    ([Point(1, 2), Point(1, 5)], ('vertical', 2, 5)), ([Point(1, 2), Point(3, 5), 7], ('points', 1, 2)),
    ([1, 2, 3, 4], ('ascending', 1, 2, [3, 4])), ((2, 1, 9), ('ends', 2, 9)), ([5], ('other', 'list')),
    ([], 'empty'), ((), 'empty'), (range(0), 'empty'), (collections.deque([3, 1]), ('ends', 3, 1)),
    ({'kind': 'circle', 'r': 2.5}, ('circle', 2.5)), ({'kind': 'circle', 'r': '2'}, ('shape', 'circle', ['r'])),
    ({'kind': 'square', 'side': 2}, ('shape', 'square', ['side'])), ({'kind': 'square'}, 'other mapping'),
    (collections.OrderedDict(kind='x', a=1), ('shape', 'x', ['a'])),
    ('ab', ('text', 2)), (b'abc', ('text', 3)), (bytearray(b'a'), ('other', 'bytearray')),
    (True, ('bool', True)), (3, ('number', 3)), (2.5, ('number', 2.5)), (None, 'none'), ({1, 2}, ('other', 'set')),
])
def test_exact_values_in_both_forms(value, result):
    assert describe(value) == result
    assert _same(describe, value) == (('returned', result), [])


@pytest.mark.parametrize('value', [[1, 2, 0], [150, 1], [5, 1], 'xy', (7, 8, 9)])
def test_names_bound_only_by_a_match_and_before_its_guard(value):
    assert _same(bindings, value)[0][0] == 'returned'
    assert bindings([150, 1]) == (150, 'unset') and bindings([5, 1]) == (5, 'unset')
    assert bindings([1, 2, 3]) == ('unset', 'unset')   # [first, second, 0] failed at 3: nothing bound


@pytest.mark.parametrize('value', [NoArgs(), 3, 'x'])
def test_class_pattern_type_errors_are_pythons(value):
    _same(no_args, value)
    with pytest.raises(TypeError, match=r'NoArgs\(\) accepts 0 positional sub-patterns \(1 given\)'):
        in_form('staged form', ag.to_graph(no_args), NoArgs())
    with pytest.raises(TypeError, match=r'int\(\) accepts 1 positional sub-pattern \(2 given\)'):
        in_form('staged form', ag.to_graph(no_args), 3)


@pytest.mark.parametrize('value', [LoggingSequence(), LoggingSequence(1), LoggingSequence(1, 2),
                                   LoggingSequence(Point(1, 2), Point(1, 3)), LoggingSequence(1, 2, 3, 4),
                                   LoggingSequence('a', 'b', 'c'), LoggingMapping({'kind': 'circle', 'r': 1}),
                                   LoggingMapping({'kind': 'circle', 'r': 'x'}), LoggingMapping({'kind': 'k', 'a': 1}),
                                   LoggingMapping({'r': 1})])
def test_the_subject_is_asked_what_python_asks_in_the_same_order(value):
    (result, asked) = _same(describe, value)
    assert result[0] == 'returned' and asked   # e.g. len, iter / len, get 'kind', get 'r'


def test_subject_evaluated_once_and_a_rebinding_guard_does_not_change_it():
    def rebinding(x):
        match x:
            case 1 if (x := 2) > 5:
                return 'first'
            case 2:
                return 'second'
            case _:
                return x
    assert rebinding(1) == 2
    for form in FORMS:
        assert in_form(form, ag.to_graph(rebinding), 1) == 2


def test_generated_code_reads_like_the_patterns():
    code = ag.to_code(describe)
    assert 'subject = ag__.match_subject(shape)' in code
    assert "ag__.matches(subject, 'Point(x=0, y=y) | Point(x=y, y=0)', lambda: Point, lambda: Point)" in code
    assert "ag__.matches(subject, '[int(a), int(b), *rest]', lambda: int, lambda: int)" in code
    assert '(a, b, rest) = subject.captured' in code
    assert 'ag__.and_(lambda: subject.matched, lambda: ag__.defined(a) < ag__.defined(b))' in code
    assert 'subject.value is None' in code


# --- tensors -------------------------------------------------------------------------------------------

def pair(xs):
    match xs:
        case [a, b] if a > b:
            return a - b
        case (a, b):
            return b - a
        case {'a': a}:
            return a * 10
        case _:
            return rt.constant(0)


def test_structure_of_python_containers_of_tensors_is_python_and_guards_stage():
    f = ag.function(pair)
    assert int(f([rt.constant(1), rt.constant(5)])) == 4
    assert int(f([rt.constant(7), rt.constant(5)])) == 2   # the same graph: the guard is an If
    assert f.experimental_get_tracing_count() == 1
    assert int(f({'a': rt.constant(3)})) == 30
    assert int(f((1, 2, 3))) == 0
    assert [int(pair([rt.constant(1), rt.constant(5)])), int(ag.to_graph(pair)([rt.constant(7), rt.constant(5)]))] == [4, 2]
    graph = f.get_concrete_function([rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)]).graph
    assert 'If' in [op.type for op in graph.operations]


def sequence_of_a_tensor(t):
    match t:
        case [first, *_]:
            return first
    return t


def mapping_of_a_tensor(t):
    match t:
        case 0:
            return t + 1
        case {'k': v}:
            return v
    return t


def value_in_a_structure(xs):
    match xs:
        case [0, y]:
            return y
    return xs[0]


@pytest.mark.parametrize('function, fragments, line', [
    (sequence_of_a_tensor, ['a sequence pattern cannot match a symbolic tensor (t:0) while tracing',
                            'Index it instead'], 'case [first, *_]:'),
    (mapping_of_a_tensor, ['a mapping pattern cannot match a symbolic tensor', 'Match a Python dict of tensors'],
     "case {'k': v}:"),
    (value_in_a_structure, ['the value pattern 0 inside a structural pattern compares a symbolic tensor',
                            '`case [x, y] if x == 0:`'], 'case [0, y]:'),
])
def test_a_symbolic_tensor_in_a_structural_pattern_is_a_clear_error(function, fragments, line):
    argument = [rt.constant(0), rt.constant(2)] if function is value_in_a_structure else rt.constant(1)
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(function), (argument,), *fragments, at=line)


def test_eager_tensors_match_as_in_python():
    # An eager tensor is not a Python sequence or mapping: the same as Python, in both forms.
    for function in (sequence_of_a_tensor, mapping_of_a_tensor):
        for form in FORMS:
            expected = function(rt.constant(5))
            assert int(in_form(form, ag.to_graph(function), rt.constant(5))) == int(expected)


# --- random subjects --------------------------------------------------------------------------------------

_leaves = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 2.5, 'ab', 'circle', b'x', 'kind']))
_subjects = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.sampled_from(['kind', 'r', 'a', 'x']), inner, max_size=3),
        st.builds(Point, inner, inner), st.builds(Polar, inner, inner),
        st.lists(inner, max_size=4).map(lambda items: LoggingSequence(*items)),
        st.dictionaries(st.sampled_from(['kind', 'r', 'a']), inner, max_size=3).map(LoggingMapping)),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_subjects)
def test_random_subjects_match_as_in_python(value):
    _same(describe, value)
    _same(bindings, value)
    _same(no_args, value)


def first_of_a_tensor_list(n):
    xs = []
    for i in rt.range(n):
        xs.append(i)
    match xs:
        case [first, *_]:
            return first
    return -1


def test_a_tensor_list_is_not_matched_as_a_python_list():
    # It stands for a Python list whose length is known only when the graph runs.
    assert first_of_a_tensor_list(3) == 0
    raises(rt.errors.OperatorNotAllowedInGraphError, ag.function(first_of_a_tensor_list), (rt.constant(3),),
           'a sequence pattern cannot match a tensor list (a Python list that a tensor-dependent loop changed)',
           at='case [first, *_]:')


def pairs_in_a_tensor_loop(n):
    total = 0
    for i in rt.range(n):
        match (i, 2):
            case (a, 0):
                total += a
            case (a, b) if a > 1:
                total += a * b
            case _:
                total += 100
    return total


def test_a_match_on_python_structure_inside_a_tensor_loop():
    assert pairs_in_a_tensor_loop(4) == 210
    assert int(ag.function(pairs_in_a_tensor_loop)(rt.constant(4))) == 210


@pytest.mark.parametrize('pattern', ['[*_]', '[_]', '[*_, _]', '[_, *_]', '[*_, a]', '[a, *_]', '[*r, a]', '[_, _]',
                                     '()', '[*_, _, _]', '[a, *_, b, c]', '{"a": _, **r}', '{"a": 1}', '{**r}', '{}'])
def test_each_pattern_asks_the_subject_what_python_asks(pattern):
    source = f'def f(s):\n    match s:\n        case {pattern}:\n            return 1\n    return 0\n'
    filename = f'<match pattern {len(linecache.cache)}>'
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)   # so it is converted
    namespace = {}
    exec(compile(source, filename, 'exec'), namespace)
    assert 'ag__.matches(subject' in ag.to_code(namespace['f'])
    for n in (0, 1, 3, 4):
        mapping = pattern.startswith('{')
        subject = LoggingMapping({k: 1 for k in 'abcd'[:n]}) if mapping else LoggingSequence(*range(n))
        assert _same(namespace['f'], subject)[1] == _same(namespace['f'], subject)[1]


def kind_of(x):
    match x:
        case bool() | int() | float():
            return 'python number'
        case rt.Tensor(dtype=rt.float32):
            return x * 2.0
        case rt.Tensor():
            return x
    return None


def test_a_class_pattern_on_a_tensor_is_isinstance_decided_in_python():
    f = ag.function(kind_of)
    assert float(f(rt.constant(1.5))) == 3.0 and int(f(rt.constant(3))) == 3
    assert kind_of(2.0) == ag.to_graph(kind_of)(2.0) == 'python number'
    assert float(kind_of(rt.constant(1.5))) == 3.0   # eager, unconverted: the same case
