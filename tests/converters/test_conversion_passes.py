"""conversion.py skips the converters of constructs the user's code does not contain; where the code
has them (anywhere: a loop test, a nested function, a lambda) they are converted as before."""
import weakref

import autograph_lite as ag
import runtime as rt
from autograph_lite import conversion


def wrapped_everywhere(xs, limit):
    def pick(v):
        return v if v > 0 else -v
    total = 0
    while sum([pick(x) for x in xs]) > limit:
        xs = [x // 2 for x in xs]
        total += 1
    scale = lambda v: v * 2 if v < 10 else v  # noqa: E731
    return total, scale(total)


def test_constructs_in_tests_nested_functions_and_lambdas_are_converted():
    code = ag.to_code(wrapped_everywhere)
    assert code.count('ag__.list_comp(') == 2 and code.count('ag__.if_exp(') == 2
    converted = ag.to_graph(wrapped_everywhere)
    for xs, limit in (([40, -33, 7], 10), ([1, 2], 100), ([-300], 1)):
        assert converted(xs, limit) == wrapped_everywhere(xs, limit)


def test_a_function_without_them_skips_their_converters(monkeypatch):
    def count_down(n):
        steps = 0
        while n > 0:
            n -= 1
            steps += 1
        return steps

    ran = []
    for transformer in (conversion.comprehensions.ComprehensionTransformer,
                        conversion.conditional_expressions.ConditionalExpressionTransformer,
                        conversion.logical_expressions.LogicalExpressionTransformer):
        real_visit = transformer.visit
        monkeypatch.setattr(transformer, 'visit', lambda self, node, real_visit=real_visit, name=transformer.__name__:
                            ran.append(name) or real_visit(self, node))
    assert ag.to_graph(count_down)(4) == 4
    assert ran == []   # no and/or/not, `in` or chained comparison, and no converter writes a `not`
    staged = ag.function(count_down)
    assert int(staged(rt.constant(3)).numpy()) == 3


def _statement_converters_run(monkeypatch, function):
    ran = []
    for transformer in conversion._ONLY_FOR:
        real_visit = transformer.visit
        monkeypatch.setattr(transformer, 'visit', lambda self, node, real_visit=real_visit, name=transformer.__name__:
                            ran.append(name) or real_visit(self, node))
    conversion.convert_code(function)
    monkeypatch.undo()
    return set(ran)


def test_a_loop_without_jumps_asserts_items_or_tuples_skips_those_converters(monkeypatch):
    def collatz(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    assert _statement_converters_run(monkeypatch, collatz) == {'ConditionalExpressionTransformer'}
    assert ag.to_graph(collatz)(27) == collatz(27) == 111


def loop_else_without_break(xs):
    for x in xs:
        xs = xs + [x]
    else:
        xs = xs[1:]
    return xs


def each_trigger(xs, pairs):
    total = 0
    for a, b in pairs:
        if a < 0:
            continue
        if b > 100:
            break
        total += a * b
    assert total >= 0, 'negative total'
    xs.append(total)
    xs[0] = xs.pop()
    first, *rest = xs
    return first, rest


def return_in_loop(n):
    i = 0
    while i < n:
        if i * i > 20:
            return i
        i += 1
    return -1


def code_after_a_return(x):
    if x > 0:
        return x
    y = x * 2
    return y


def chained(x):
    if 0 < x < 5:
        x = x * 10
    return x


def returns_in_both_branches(x):
    if x > 0:
        return x
    else:
        return 0


def test_the_logical_converter_runs_where_a_converter_wrote_a_not_or_the_user_a_chain():
    # The `not do_return` of a loop test and of a guard, and `0 < x < 5`, must become ag__ calls: with
    # a tensor there, Python's `not` or chain would need bool() of a symbolic tensor.
    for function, needed in ((return_in_loop, 'ag__.not_('), (code_after_a_return, 'ag__.not_('),
                             (chained, 'ag__.and_(')):
        assert needed in ag.to_code(function)
    for function, values in ((return_in_loop, (3, 10)), (code_after_a_return, (4, -3)), (chained, (2, 7, -1)),
                             (returns_in_both_branches, (5, -5))):
        staged = ag.function(function)
        for value in values:
            assert int(staged(rt.constant(value)).numpy()) == function(value) == ag.to_graph(function)(value)


def test_skipped_converters_leave_the_code_as_the_full_pipeline_writes_it(monkeypatch):
    for function, expected_ran in (
            (loop_else_without_break, {'BreakTransformer', 'SliceTransformer', 'UnpackingTransformer'}),
            (each_trigger, {'BreakTransformer', 'ContinueTransformer', 'AssertTransformer', 'ListTransformer',
                            'SliceTransformer', 'UnpackingTransformer', 'LogicalExpressionTransformer'}),
            (return_in_loop, {'LogicalExpressionTransformer'}),
            (code_after_a_return, {'LogicalExpressionTransformer'}),
            (chained, {'LogicalExpressionTransformer'}),
            (returns_in_both_branches, set())):
        monkeypatch.setattr(conversion, '_code_cache', weakref.WeakKeyDictionary())
        assert _statement_converters_run(monkeypatch, function) == expected_ran
        skipping = conversion.convert_code(function).source
        monkeypatch.setattr(conversion, '_code_cache', weakref.WeakKeyDictionary())
        monkeypatch.setattr(conversion, '_ONLY_FOR', {})
        assert conversion.convert_code(function).source == skipping
        monkeypatch.undo()
    assert ag.to_graph(loop_else_without_break)([1, 2]) == loop_else_without_break([1, 2]) == [2, 1, 2]
    pairs = [(1, 2), (-1, 3), (4, 500)]
    assert ag.to_graph(each_trigger)([5], pairs) == each_trigger([5], pairs) == (2, [])
