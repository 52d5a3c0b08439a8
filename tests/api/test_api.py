"""Public API: to_graph/convert, to_code, do_not_convert, function; caching; closures; errors."""
import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import conversion
from autograph_lite.pyct import parser

COUNTER = 0


def test_exports_exactly_the_design_names():
    assert sorted(ag.__all__) == sorted(['function', 'to_code', 'to_graph', 'convert', 'do_not_convert',
                                        'run_functions_eagerly', 'functions_run_eagerly',
                                        'set_traceback_filtering', 'traceback_filtering', 'ConversionError',
                                        # interactive use (issue 12): no source -> a warning, or the error
                                        'set_strict_conversion', 'strict_conversion', 'UnconvertedWarning',
                                        'set_loop_options',   # + TF's loop options (issue 11)
                                        'testing',    # the toolkit for users' tests (issue 27), imported on first use
                                        'RetraceWarning'])  # a warnings category users can filter (issue 21)
    assert ag.convert is ag.to_graph


def test_the_testing_toolkit_is_imported_on_first_use():
    import subprocess
    import sys
    code = ('import sys, autograph_lite as ag; before = "autograph_lite.testing" in sys.modules; '
            'ag.testing.assert_converted_equivalent; print(before, "autograph_lite.testing" in sys.modules, '
            '"hypothesis" in sys.modules)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ['False', 'True', 'False']


def helper(x):
    if x > 0:
        return x * 2
    return -x


def uses_helper(values):
    return [helper(v) for v in values] + [helper(values[0])]


def test_converting_twice_returns_the_same_object():
    assert ag.to_graph(helper) is ag.to_graph(helper)
    assert ag.to_graph(ag.to_graph(helper)) is ag.to_graph(helper)


def test_helpers_are_converted_once(monkeypatch):
    def fresh_helper(x):
        while x > 10:
            x -= 10
        return x

    def caller(x):
        return fresh_helper(x) + fresh_helper(x + 1)

    parsed = []
    real_parse = parser.parse_entity
    monkeypatch.setattr(parser, 'parse_entity', lambda f: parsed.append(f.__name__) or real_parse(f))
    converted = ag.to_graph(caller)
    assert [converted(v) for v in (5, 25, 37)] == [11, 11, 15]
    # each once for its staged form (to_code's) and once for its plain form, never again per call
    assert parsed == ['caller', 'caller', 'fresh_helper', 'fresh_helper']
    assert conversion.is_converted(ag.to_graph(caller))


def test_nested_function_recreated_each_call_reuses_the_converted_code(monkeypatch):
    def outer(n):
        def inner(x):
            if x > n:
                return n
            return x
        return inner(3)

    parsed = []
    real_parse = parser.parse_entity
    monkeypatch.setattr(parser, 'parse_entity', lambda f: parsed.append(f.__name__) or real_parse(f))
    converted = ag.to_graph(outer)
    assert [converted(n) for n in (1, 5, 2)] == [1, 3, 2]
    assert parsed == ['outer', 'outer']   # staged and plain form; inner is converted as part of outer (staged)


def test_called_lambda_and_user_helper_are_converted(monkeypatch):
    def apply(f, x):
        return f(x)
    double = lambda v: v * 2 if v > 0 else 0  # noqa: E731
    calls = []
    real_instantiate = conversion.instantiate
    monkeypatch.setattr(conversion, 'instantiate', lambda f, ns: calls.append(f.__name__) or real_instantiate(f, ns))
    assert ag.to_graph(apply)(double, 4) == 8
    assert calls == ['apply', '<lambda>']


def test_closures_stay_live_and_nonlocal_works():
    scale = 2

    def scaled(x):
        return x * scale

    converted = ag.to_graph(scaled)
    assert converted(3) == 6
    scale = 10
    assert converted(3) == 30

    total = 0

    def accumulate(x):
        nonlocal total
        if x > 0:
            total += x
        return total

    converted = ag.to_graph(accumulate)
    assert [converted(v) for v in (1, -5, 4)] == [1, 1, 5]
    assert total == 5


def bump_counter(x):
    global COUNTER
    if x > 0:
        COUNTER += x
    return COUNTER


def test_globals_are_the_original_module_globals():
    global COUNTER
    COUNTER = 0
    converted = ag.to_graph(bump_counter)
    assert converted(2) == 2 and converted(-1) == 2 and COUNTER == 2
    assert 'ag__' not in globals()
    assert '    global COUNTER\n' in ag.to_code(bump_counter)


class Accumulator:
    def __init__(self):
        self.total = 0

    def add(self, x):
        if x > 0:
            self.total += x
        else:
            self.total -= 1
        return self.total

    def add_twice(self, x):
        self.add(x)
        return self.add(x)


def test_methods_bound_and_called_from_converted_code():
    acc = Accumulator()
    add = ag.to_graph(acc.add)
    assert add(3) == 3 and add(-3) == 2
    assert ag.to_graph(Accumulator.add_twice)(acc, 5) == 12
    assert 'self.total' in ag.to_code(Accumulator.add)


def test_do_not_convert_functions_are_called_as_is(monkeypatch):
    @ag.do_not_convert
    def legacy(x):
        if x:
            return 1
        return 0

    def caller(x):
        return legacy(x)

    calls = []
    real_instantiate = conversion.instantiate
    monkeypatch.setattr(conversion, 'instantiate', lambda f, ns: calls.append(f.__name__) or real_instantiate(f, ns))
    assert ag.to_graph(caller)(5) == 1
    assert calls == ['caller']
    assert ag.to_graph(legacy) is legacy


def test_library_and_builtin_calls_are_not_converted(monkeypatch):
    import json
    import numpy as np

    def caller(x):
        return json.dumps([int(np.sum(x)), len(x), abs(-2), max(x)])

    calls = []
    real_instantiate = conversion.instantiate
    monkeypatch.setattr(conversion, 'instantiate', lambda f, ns: calls.append(f.__name__) or real_instantiate(f, ns))
    assert ag.to_graph(caller)([1, 2, 3]) == '[6, 3, 2, 3]'
    assert calls == ['caller']


def test_generator_helpers_run_unconverted():
    def numbers(n):
        for i in range(n):
            yield i * i

    def caller(n):
        return sum(numbers(n))

    assert ag.to_graph(caller)(4) == 14


def test_function_decorator_with_and_without_parentheses():
    @ag.function
    def plain(x):
        if x > 0:
            return x
        return -x

    @ag.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def with_signature(x):
        if x > 0:
            return x
        return -x

    assert plain(rt.constant(-4)).numpy() == 4
    assert with_signature(rt.constant(-5)).numpy() == 5
    assert plain.python_function.__name__ == 'plain'


def test_function_without_autograph_does_not_convert():
    def python_if(x):
        if x > 0:
            return x
        return -x
    staged = ag.function(python_if, autograph=False)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError):
        staged(rt.constant(3))
    assert ag.function(python_if)(rt.constant(3)).numpy() == 3


def test_run_functions_eagerly_is_reexported():
    assert ag.functions_run_eagerly() is False
    ag.run_functions_eagerly(True)
    try:
        assert ag.functions_run_eagerly() is True
    finally:
        ag.run_functions_eagerly(False)


def test_to_graph_rejects_non_functions():
    with pytest.raises(ag.ConversionError, match='to_graph expects a Python function, method or lambda, got int'):
        ag.to_graph(3)
    with pytest.raises(ag.ConversionError, match='to_code expects a Python function, method or lambda, got '
                                                 'builtin_function_or_method'):
        ag.to_code(len)



def seed_simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def test_seed_simple_relu_both_branches_in_a_graph():
    tf_simple_relu = ag.function(seed_simple_relu)
    assert tf_simple_relu(rt.constant(1)).numpy() == 1
    assert tf_simple_relu(rt.constant(-1)).numpy() == 0
    assert tf_simple_relu.experimental_get_tracing_count() == 1


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    @ag.function
    def apply(self, x):
        if x > 0:
            y = x * self.factor
        else:
            y = -x
        return y


def test_function_decorator_on_methods():
    scaler = Scaler(3)
    assert scaler.apply(rt.constant(2)).numpy() == 6
    assert scaler.apply(rt.constant(-2)).numpy() == 2


def add_range_to_attribute(obj, n):
    i = rt.constant(0)
    while i < n:
        obj.total = obj.total + i
        i += 1
    return obj.total


class Box:
    pass


def test_attribute_is_loop_state_in_a_staged_loop():
    assert "('i', 'obj.total')" in ag.to_code(add_range_to_attribute)
    staged, eager = Box(), Box()
    staged.total, eager.total = rt.constant(0), rt.constant(0)
    assert ag.function(add_range_to_attribute)(staged, rt.constant(4)).numpy() == 6
    assert ag.to_graph(add_range_to_attribute)(eager, rt.constant(4)).numpy() == 6


@ag.function
def traced_increment(x):
    return x + 1


def calls_a_function_object(x):
    return traced_increment(x) * 2


def partial_target(x):   # converted by this test only (helper's conversion may be made already)
    return helper(x)


class Doubler:
    def __call__(self, x):
        if x > 0:
            return x * 2
        return 0


def test_function_objects_partials_and_callable_objects_from_converted_code(monkeypatch):
    import functools
    assert ag.to_graph(calls_a_function_object)(rt.constant(1)).numpy() == 4
    assert traced_increment.experimental_get_tracing_count() == 1

    def caller(f, g, x):
        return f(x) + g(x)

    calls = []
    real_instantiate = conversion.instantiate
    monkeypatch.setattr(conversion, 'instantiate', lambda f, ns: calls.append(f.__qualname__) or real_instantiate(f, ns))
    assert ag.to_graph(caller)(functools.partial(partial_target), Doubler(), 3) == 12
    assert calls[:2] == ['test_function_objects_partials_and_callable_objects_from_converted_code.<locals>.caller',
                         'partial_target'] and calls[-1] == 'Doubler.__call__'


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def mixed_features(xs, *rest, scale=2, **opts):
    key = lambda v: -v if v % 2 else v  # noqa: E731
    ordered = sorted(xs, key=key)

    def inner(v, bias=opts.get('bias', 0)):
        total = 0
        for i in range(v):
            if i % 3 == 0:
                continue
            total += i * scale + bias
        return total
    words = {w: len(w) for w in rest if w and len(w) > 1}
    return [inner(v) for v in ordered], words, (rest[0] if rest else None) or 'none'


class Base:
    def value(self):
        return 1


class Child(Base):
    def value(self):
        if self is not None:
            base = super().value()
        return base + 1


def test_recursion_nested_functions_defaults_varargs_and_super():
    assert [ag.to_graph(factorial)(n) for n in range(6)] == [factorial(n) for n in range(6)]
    for args, kwargs in [(([3, 1, 4, 5], 'ab', '', 'c'), {'scale': 3, 'bias': 1}), (([],), {})]:
        assert ag.to_graph(mixed_features)(*args, **kwargs) == mixed_features(*args, **kwargs)
    assert ag.to_graph(Child().value)() == 2
    assert 'super(__class__, self).value' in ag.to_code(Child.value)


@pytest.mark.filterwarnings('ignore:Assigning a code object of non-matching type:DeprecationWarning')   # 3.13+
def test_code_replaced_by_code_that_cannot_be_converted_runs_as_it_is_and_the_warning_names_the_new_codes_line():
    def increment(x):
        return x + 1

    def counting(x):
        yield x

    converted = ag.to_graph(increment)   # (held: a conversion nobody holds is freed, and asking again converts anew)
    assert converted(1) == 2
    increment.__code__ = counting.__code__
    with pytest.warns(ag.UnconvertedWarning, match="increment is called unconverted: its code was replaced after "
                      "it was converted, and the new code cannot be: generator function 'counting'") as caught:
        again = ag.to_graph(increment)
    assert list(again(5)) == [5]
    [warning] = caught.list
    assert (warning.filename, warning.lineno) == (__file__, counting.__code__.co_firstlineno)
