"""The two forms of a converted function: the plain form (the user's own statements) runs on Python values
and eager tensors; the staged form (what ``ag.to_code`` shows) runs while a graph is being built.

Each behaviour is checked against the original function, in both forms (``converted_forms``).
"""
import inspect
import textwrap

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import calls, conversion
from autograph_lite.operators.forms import needs_staged_form, staged_form_always
from autograph_lite.pyct import parser
from autograph_lite.pyct.errors import ConversionError
from converted_forms import FORMS, in_form


def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_multiple(items, k):
    found = -1
    for item in items:
        if item % k == 0 and item > 0:
            found = item
            break
    return found


def _value(result):
    """Results as plain values (eager tensors -> numpy lists) for comparisons."""
    if isinstance(result, rt.Tensor):
        return ('tensor', result.numpy().tolist())
    if isinstance(result, (list, tuple)):
        return type(result)(_value(item) for item in result)
    return result


def same_in_both_forms(function, *args):
    """The converted function gives what the original gives, in each form; returns that."""
    expected = _value(function(*args))
    converted = ag.to_graph(function)
    for form in FORMS:
        assert _value(in_form(form, converted, *args)) == expected, form
    return expected


# --- what each form is ---------------------------------------------------------------------------------

def test_to_code_shows_the_staged_form_and_form_plain_the_plain_one():
    assert ag.to_code(collatz_steps).count('ag__.') == 2          # while_stmt, if_stmt
    assert ag.to_code(collatz_steps, form='staged') == ag.to_code(collatz_steps)
    assert ag.to_code(collatz_steps, form='plain') == textwrap.dedent('''\
        def collatz_steps(n):
            if ag__.needs_staged_form():
                return collatz_steps_staged(n)
            steps = 0
            while n > 1:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                steps += 1
            return steps
        ''')


def test_the_plain_form_keeps_only_calls_item_assignments_and_list_mutations_converted():
    def f(x, xs, *rest, scale=2, **options):
        """Docstring stays first."""
        assert x, 'x'
        xs.append(x)
        x[0] = scale
        return [v for v in rest if v and not options] or len(xs)
    assert ag.to_code(f, form='plain') == textwrap.dedent('''\
        def f(x, xs, *rest, scale=2, **options):
            """Docstring stays first."""
            if ag__.needs_staged_form():
                return f_staged(x, xs, *rest, scale=scale, **options)
            assert x, 'x'
            xs = ag__.list_append(xs, x)
            x = ag__.set_item(x, 0, scale)
            return [v for v in rest if v and (not options)] or (len if len is builtin_len else ag__.call_target(len))(xs)
        ''')


def test_the_staged_name_does_not_clash_with_the_users_names():
    def clash(clash_staged):
        return clash_staged + 1
    assert 'return clash_staged_1(clash_staged)' in ag.to_code(clash, form='plain')
    assert ag.to_graph(clash)(1) == 2


def test_a_form_that_does_not_exist_and_the_plain_form_of_a_lambda_are_errors():
    with pytest.raises(ValueError, match="form must be 'staged' or 'plain', got 'fast'"):
        ag.to_code(collatz_steps, form='fast')
    with pytest.raises(ValueError, match='a lambda has only the staged form'):
        ag.to_code(lambda x: x, form='plain')


def test_outside_a_graph_no_control_flow_operator_runs(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError('the staged form ran')
    converted = ag.to_graph(first_multiple)
    for name in ('for_stmt', 'if_stmt', 'and_', 'not_'):
        monkeypatch.setattr(calls.AG_NAMESPACE, name, refuse)
    assert converted([3, 6, 9], 3) == 3
    with pytest.raises(AssertionError, match='the staged form ran'), staged_form_always():
        converted([3, 6, 9], 3)


def test_needs_staged_form_is_true_while_tracing_or_when_forced():
    seen = []

    @ag.function
    def traced(x):
        seen.append(needs_staged_form())
        return x + 1
    assert not needs_staged_form()
    traced(rt.constant(1))
    with staged_form_always():
        assert needs_staged_form()
        with staged_form_always():
            assert needs_staged_form()
        assert needs_staged_form()
    assert seen == [True] and not needs_staged_form()


def test_benchmark_functions_behave_like_the_original():
    assert same_in_both_forms(collatz_steps, 27) == 111
    items = list(range(1, 300)) + [600]
    assert same_in_both_forms(first_multiple, items, 600) == 600
    assert same_in_both_forms(first_multiple, items, 1000) == -1


# --- the function object ---------------------------------------------------------------------------------

def signature_rich(a, /, b: int, *args, c=3, d, **kwargs) -> tuple:
    """Every kind of parameter."""
    return a, b, args, c, d, kwargs


def test_the_plain_form_keeps_name_defaults_annotations_signature_and_is_converted():
    converted = ag.to_graph(signature_rich)
    assert conversion.is_converted(converted)
    assert conversion.is_plain_form(converted)
    for attribute in ('__name__', '__qualname__', '__module__', '__doc__', '__defaults__', '__kwdefaults__',
                      '__annotations__'):
        assert getattr(converted, attribute) == getattr(signature_rich, attribute), attribute
    assert inspect.signature(converted) == inspect.signature(signature_rich)


def test_every_kind_of_parameter_reaches_the_staged_form_while_tracing():
    def traced(x):
        return signature_rich(x, 2, 5, 6, d=x * 2, e=7)

    expected = signature_rich(1, 2, 5, 6, d=2, e=7)
    graph = ag.function(traced)(rt.constant(1))
    assert (int(graph[0]), graph[1], graph[2], graph[3], int(graph[4]), graph[5]) == expected
    assert same_in_both_forms(traced, 1) == expected


def test_converted_call_converts_a_function_once_and_never_its_converted_form(monkeypatch):
    instantiated = []
    real = conversion.instantiate
    monkeypatch.setattr(conversion, 'instantiate', lambda f, ns: instantiated.append(f.__name__) or real(f, ns))

    def helper(v):
        return v * 2

    def caller(v):
        return helper(v) + helper(v + 1)
    converted = ag.to_graph(caller)
    assert [converted(1), converted(2)] == [6, 10]
    assert calls.converted_call(calls.call_target(converted), (1,), None) == 6
    assert instantiated == ['caller', 'helper']


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def test_recursion_in_both_forms_and_while_tracing():
    assert same_in_both_forms(factorial, 10) == 3628800
    assert int(ag.function(lambda x: x * factorial(5))(rt.constant(2))) == 240


# --- statements on Python values ---------------------------------------------------------------------------

def test_a_variable_bound_in_one_branch_only_raises_pythons_unbound_local_error():
    def one_branch(x):
        if x > 0:
            y = x
        return y
    with pytest.raises(UnboundLocalError) as original:
        one_branch(-1)
    with pytest.raises(UnboundLocalError) as converted:
        ag.to_graph(one_branch)(-1)
    assert str(converted.value) == str(original.value)
    assert ag.to_graph(one_branch)(2) == 2


def test_try_except_finally_with_returns_inside():
    def guarded(items, log):
        for item in items:
            try:
                if item == 'stop':
                    return 'stopped'
                log.append(10 // item)
            except ZeroDivisionError:
                log.append('zero')
                continue
            finally:
                log.append('finally')
        return 'done'
    for items in ([1, 0, 2], [5, 'stop', 1], []):
        expected_log, expected = [], guarded(items, [])
        guarded(items, expected_log)
        for form in FORMS:
            log = []
            assert in_form(form, ag.to_graph(guarded), items, log) == expected
            assert log == expected_log, form


COUNTER = 0


def test_global_and_nonlocal():
    def bump(times):
        global COUNTER
        total = 0

        def add(v):
            nonlocal total
            total += v
        for i in range(times):
            add(i)
            COUNTER += 1
        return total
    global COUNTER
    for form in FORMS:
        COUNTER = 0
        assert in_form(form, ag.to_graph(bump), 4) == 6 and COUNTER == 4, form


def test_print_and_del(capsys):
    def talk(x):
        message = f'x is {x}'
        print(message, x * 2)
        del message
        return x
    same_in_both_forms(talk, 3)
    assert capsys.readouterr().out == 'x is 3 6\n' * 3


def test_a_generator_function_is_refused_and_runs_as_written_when_called():
    def numbers(n):
        yield from range(n)

    def uses(n):
        return sum(numbers(n))
    with pytest.raises(ConversionError, match="generator function 'numbers' cannot be converted"):
        ag.to_graph(numbers)
    assert same_in_both_forms(uses, 4) == 6


def test_defaults_keyword_only_and_variadic_arguments():
    def combine(a, b=10, *rest, scale=2, **named):
        return (a + b) * scale + sum(rest) + sum(named.values())
    converted = ag.to_graph(combine)
    for args, kwargs in (((1,), {}), ((1, 2, 3, 4), {'scale': 3, 'z': 5})):
        for form in FORMS:
            assert in_form(form, converted, *args, **kwargs) == combine(*args, **kwargs)


class Accumulator:
    def __init__(self, start):
        self.total = start

    def add_all(self, values):
        for v in values:
            if v < 0:
                continue
            self.total += v
        return self.total

    @classmethod
    def make(cls, start):
        return cls(start * 2)

    @staticmethod
    def clamp(v):
        return v if v < 10 else 10


def test_methods_classmethods_and_staticmethods():
    def use(values):
        acc = Accumulator.make(1)
        return acc.add_all(values), Accumulator.clamp(42)
    assert same_in_both_forms(use, [1, -2, 3]) == (6, 10)
    bound = ag.to_graph(Accumulator(5).add_all)
    assert bound([1, 2]) == 8
    assert conversion.is_converted(bound.__func__)


def test_nested_functions_are_the_staged_conversion_so_they_stage_when_traced_later():
    def make_relu():
        def relu(x):
            if x > 0:
                return x
            return 0 * x
        return relu
    relu = ag.to_graph(make_relu)()   # made by the plain form, outside any graph
    assert conversion.is_converted(relu)
    assert 'ag__.if_stmt' in ag.to_code(make_relu, form='plain')
    graph = ag.function(lambda x: relu(x))
    assert [int(graph(rt.constant(v))) for v in (3, -3)] == [3, 0]
    assert graph.experimental_get_tracing_count() == 1


# --- eager tensors, tensor lists, TensorArrays ----------------------------------------------------------------

def test_conditions_and_loops_on_eager_tensors():
    def on_tensors(t):
        total = rt.constant(0.0)
        for row in t:
            if row > 1.0:
                total += row
        while total > 10.0:
            total -= 4.0
        return total
    assert same_in_both_forms(on_tensors, rt.constant([1.0, 5.0, 8.0])) == ('tensor', 9.0)


def test_item_assignment_and_appends_on_eager_tensors_and_tensor_lists():
    def update(t, xs):
        t[1] = 7.0
        xs.append(rt.constant(4))
        return t, len(xs), rt.stack(xs)
    for form in FORMS:
        t, length, stacked = in_form(form, ag.to_graph(update), rt.constant([1.0, 2.0]),
                                     rt.TensorList.from_tensors([1, 2]))
        assert (t.numpy().tolist(), length, stacked.numpy().tolist()) == ([1.0, 7.0], 3, [1, 2, 4]), form


def test_eager_tensor_lists_and_arrays_are_true_when_not_empty_as_their_condition_says():
    def describe(xs):
        if xs:
            return 'some'
        return 'none'

    def total(xs):
        s = 0
        for x in xs:
            s += int(x)
        return s
    empty, full = rt.TensorList.empty(rt.int32), rt.TensorList.from_tensors([1, 2, 3])
    array = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    for value, expected in ((empty, 'none'), (full, 'some'), (array, 'none'), (array.write(0, 5), 'some')):
        assert describe(value) == expected
        for form in FORMS:
            assert in_form(form, ag.to_graph(describe), value) == expected, (form, value)
    assert (len(empty), len(full), [int(x) for x in full]) == (0, 3, [1, 2, 3])
    assert same_in_both_forms(total, full) == 6


def test_a_symbolic_tensor_list_has_no_python_truth_length_or_elements():
    def misuse(x, what):
        xs = rt.TensorList.from_tensors([x, x])
        return what(xs)
    for what, error, message in ((bool, rt.errors.OperatorNotAllowedInGraphError, 'is a tensor while tracing'),
                                 (len, TypeError, 'len() of a tensor list is a tensor while tracing'),
                                 (list, TypeError, 'is iterated by a tensor loop while tracing')):
        with pytest.raises(error, match=message.replace('(', r'\(').replace(')', r'\)')):
            rt.function(lambda x: misuse(x, what))(rt.constant(1))
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match='truth value of a TensorArray'):
        rt.function(lambda x: bool(rt.TensorArray(rt.int32, size=1).write(0, x)))(rt.constant(1))


def test_tracing_still_stages_tensor_control_flow_with_the_same_trace_counts():
    @ag.function
    def mixed(x, n):
        for i in range(n):      # Python loop: unrolled by the staged form
            if x > i:           # tensor condition: a Cond
                x = x - 1
        return x
    assert [int(mixed(rt.constant(v), 3)) for v in (5, 0, 2)] == [2, 0, 1]
    assert mixed.experimental_get_tracing_count() == 1
    assert int(mixed(rt.constant(5), 4)) == 2
    assert mixed.experimental_get_tracing_count() == 2
    assert np.isclose(same_in_both_forms(lambda_free_mixed, 5.0, 3), 2.0)


def lambda_free_mixed(x, n):
    for i in range(n):
        if x > i:
            x = x - 1
    return x


def test_a_source_that_changed_since_the_staged_form_leaves_only_the_staged_form(monkeypatch):
    def changes(x):
        return x + 1
    conversion.convert_code(changes)
    real_parse = parser.parse_entity

    def parse_with_an_extra_function(entity):
        node, filename = real_parse(entity)
        node.body.insert(0, parser.parse_str('def extra():\n    pass').body[0])
        return node, filename
    monkeypatch.setattr(parser, 'parse_entity', parse_with_an_extra_function)
    converted = ag.to_graph(changes)
    assert converted(1) == 2
    assert not conversion.is_plain_form(calls.call_target(converted))
    with pytest.raises(ValueError, match='has no plain form'):
        ag.to_code(changes, form='plain')


def test_while_tracing_only_the_staged_form_is_made_and_the_plain_one_at_the_first_call_outside(monkeypatch):
    made = []
    real_plain_code = conversion.plain_code
    monkeypatch.setattr(conversion, 'plain_code', lambda f: made.append(f.__name__) or real_plain_code(f))

    def helper(v):
        return v + 1

    def traced_first(x):
        return helper(x) * 2
    graph = ag.function(traced_first)
    assert int(graph(rt.constant(1))) == 4
    assert made == []
    converted = ag.to_graph(traced_first)   # outside a graph: the plain form itself, made now
    assert made == ['traced_first'] and conversion.is_plain_form(converted)
    assert converted(1) == 4
    assert made == ['traced_first', 'helper']
    assert int(graph(rt.constant(2))) == 6 and graph.experimental_get_tracing_count() == 1
