"""conversion.py skips the converters of constructs the user's code does not contain; where the code
has them (anywhere: a loop test, a nested function, a lambda) they are converted as before."""
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
    assert set(ran) == {'LogicalExpressionTransformer'}
    staged = ag.function(count_down)
    assert int(staged(rt.constant(3)).numpy()) == 3
