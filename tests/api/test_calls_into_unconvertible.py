"""Converted code calls what cannot be converted - generators - and gets Python's results; functions
with ``match`` statements (every kind of pattern) are converted like any other.

``ag.to_graph`` refuses a generator function at the root (a clear ConversionError,
tests/converters/test_converters_errors.py). Libraries are full of them, so a converted function that *calls* one
runs it as it is, silently (as TensorFlow's AutoGraph does). A function nested in a converted one is
left as written when it is a generator. Checked converted == unconverted on Python values and graph ==
Python with tensors.
"""
import warnings

import pytest

import autograph_lite as ag
import runtime as rt


class Tree:
    def __init__(self, *kids):
        self.kids = list(kids)

    def walk(self):
        yield self
        for kid in self.kids:
            yield from kid.walk()


def count_inner_nodes(tree):
    count = 0
    for node in tree.walk():
        if not node.kids:
            continue
        count += 1
    return count


def pairs_below(xs, limit):
    """A nested generator closing over the loop variable, with an early return; loop else."""
    out = []
    for x in xs:
        def pairs():
            for y in range(x):
                if y >= limit:
                    return
                yield x, y
        out.extend(pairs())
        if len(out) > 6:
            break
    else:
        out.append('all')
    return out


def first_and_rest(xs):
    evens = (x * 2 for x in xs if x % 2)
    return next(evens, None), list(evens)


def weighted_sum(t, weights):
    """Graph mode: a Python generator over Python weights feeds tensor arithmetic in a tensor loop."""
    def scaled():
        for w in weights:
            yield w * 2
    total = t * 0
    i = 0
    while i < t:
        for w in scaled():
            total += w
        i += 1
    return total


TREE = Tree(Tree(Tree(), Tree()), Tree(Tree()))


@pytest.mark.parametrize('function, args', [
    (count_inner_nodes, (TREE,)), (pairs_below, ([1, 2, 3, 4], 2)), (pairs_below, ([1, 1], 5)),
    (first_and_rest, ([1, 2, 3, 5],)), (first_and_rest, ([],))])
def test_converted_code_calls_generators_as_python_does(function, args):
    with warnings.catch_warnings():
        warnings.simplefilter('error')     # calling a generator is not worth a warning
        assert ag.to_graph(function)(*args) == function(*args)


def test_generators_called_in_a_tensor_loop_feed_the_graph():
    graph = ag.function(weighted_sum)
    for n in (0, 1, 3):
        assert int(graph(rt.constant(n), [1, 2]).numpy()) == weighted_sum(n, [1, 2]) == 6 * n
    assert count_inner_nodes(TREE) == ag.to_graph(count_inner_nodes)(TREE) == 3


def command(words):
    match words.split():
        case ['go', direction]:
            return direction
        case ['stop']:
            return 'halt'
        case _:
            return None


def run_commands(lines):
    done = []
    for line in lines:
        result = command(line)
        if result is None:
            continue
        done.append(result)
    return done


def nested_match(items):
    def key(item):
        match item:
            case {'k': value}:
                return value
            case [first, *_]:
                return first
            case _:
                return -1
    return [key(item) for item in items]


def scaled_by_command(t, line):
    if command(line) == 'halt':
        return t * 0
    return t * 3


def test_converted_code_calls_a_match_function_converted_without_a_warning():
    lines = ['go north', 'stop', 'jump', 'go 4']
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert ag.to_graph(run_commands)(lines) == run_commands(lines) == ['north', 'halt', '4']
    assert "ag__.matches(subject, \"['go', direction]\")" in ag.to_code(command)
    graph = ag.function(scaled_by_command)
    assert int(graph(rt.constant(5), 'stop').numpy()) == scaled_by_command(5, 'stop') == 0
    assert int(graph(rt.constant(5), 'go').numpy()) == scaled_by_command(5, 'go') == 15


def test_a_nested_function_with_match_is_converted():
    items = [{'k': 1}, [7, 8], 'x', {'j': 2}]
    assert ag.to_graph(nested_match)(items) == nested_match(items) == [1, 7, -1, -1]
    code = ag.to_code(nested_match)
    assert 'match item:' not in code and "ag__.matches(subject, '[first, *_]')" in code
