"""Parsing live entities: functions, methods, nested functions, decorated functions, lambdas."""
import functools
import re

import gast
import pytest

from autograph_lite import ConversionError
from autograph_lite.pyct.errors import SourceUnavailableError
from autograph_lite.pyct import anno, parser


def decorate(f):
    @functools.wraps(f)
    def wrapper(*a):
        return f(*a)
    return wrapper


class Counter:
    def step(self, x):
        if x:
            return x
        return -1


def test_method_source_is_dedented():
    node, filename = parser.parse_entity(Counter.step)
    assert isinstance(node, gast.FunctionDef) and node.name == 'step'
    assert filename == __file__


def test_decorators_are_dropped_and_origins_point_at_the_file():
    @decorate
    def decorated(x):
        return x
    node, _ = parser.parse_entity(decorated.__wrapped__)
    assert node.decorator_list == []
    origin = anno.getanno(node.body[0], anno.ORIGIN)
    assert origin.filename == __file__
    assert origin.lineno == decorated.__wrapped__.__code__.co_firstlineno + 2
    assert origin.source_line == 'return x'
    assert origin.function_name == 'decorated'


def test_nested_function_with_closure():
    scale = 3

    def inner(x):
        return x * scale
    node, _ = parser.parse_entity(inner)
    assert node.name == 'inner'


def test_multiline_string_less_indented_than_the_code():
    def documented(x):
        text = """
no indentation here"""
        return text, x
    node, _ = parser.parse_entity(documented)
    assert node.name == 'documented'
    assert anno.getanno(node.body[1], anno.ORIGIN).source_line == 'return text, x'


def test_lambda_found_among_other_code_on_its_line():
    pairs = sorted([(1, 'b'), (0, 'a')], key=lambda p: p[0]); other = lambda q, r: q  # noqa: E702,E731
    node, _ = parser.parse_entity(other)
    assert isinstance(node, gast.Lambda) and [a.id for a in node.args.args] == ['q', 'r']
    assert pairs[0] == (0, 'a')


def test_lambdas_on_one_line_are_told_apart_by_their_code():
    first, second = (lambda v: v + 1), (lambda v: v * 2)
    node, _ = parser.parse_entity(second)
    assert isinstance(node.body.op, gast.Mult)
    assert first(1) == 2


def test_lambdas_on_one_line_that_cannot_be_told_apart_are_a_clear_error():
    k = 2
    first, second = (lambda v: v + k), (lambda v: v * k)
    with pytest.raises(ConversionError, match=r"cannot tell apart the 2 lambdas with arguments \['v'\] on one line"
                       r"(.|\n)*Put each lambda on its own line"):
        parser.parse_entity(first)
    assert second(2) == 4


def test_the_lambdas_of_a_file_come_from_one_parse_of_it_until_the_file_changes(tmp_path, monkeypatch):
    import importlib.util
    import linecache
    path = tmp_path / 'lambdas_here.py'
    path.write_text('double = lambda x: x * 2\nnegate = lambda x: -x\n')
    spec = importlib.util.spec_from_file_location('lambdas_here', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parses = []
    real_parse = parser._parse
    monkeypatch.setattr(parser, '_parse', lambda text: parses.append(text) or real_parse(text))
    double, _ = parser.parse_entity(module.double)
    negate, _ = parser.parse_entity(module.negate)
    again, _ = parser.parse_entity(module.double)
    assert len(parses) == 1 and isinstance(double.body.op, gast.Mult) and isinstance(negate.body.op, gast.USub)
    assert again is not double and gast.dump(again) == gast.dump(double)   # a copy each time: conversions change it
    anno.setanno(double.body, 'changed', True)
    assert not anno.hasanno(parser.parse_entity(module.double)[0].body, 'changed')
    path.write_text('double = lambda x: x + x\nnegate = lambda x: -x\n')
    linecache.checkcache(str(path))
    changed, _ = parser.parse_entity(module.double)
    assert len(parses) == 2 and isinstance(changed.body.op, gast.Add)


def test_no_source_is_a_clear_error(monkeypatch):
    import linecache
    # (A process started by `python -c` on 3.13, as pytest-xdist's workers are, has lines for '<string>': below.)
    monkeypatch.delitem(linecache.cache, '<string>', raising=False)
    namespace = {}
    exec('def made_by_exec(x):\n    return x\n', namespace)
    with pytest.raises(SourceUnavailableError, match="'made_by_exec': its source code is not available"):
        parser.parse_entity(namespace['made_by_exec'])


def test_lines_that_only_look_like_the_end_of_the_function():
    # A bracket continued at column 0, a comment at column 0 and a multi-line decorator: the source
    # is still the whole function (the quick indentation-based cut must not stop early).
    @functools.partial(
        decorate)
    def spread(x):
        total = (x +
1)
# a comment at column 0 inside the body
        return total
    node, _ = parser.parse_entity(spread.__wrapped__)
    assert [type(s).__name__ for s in node.body] == ['Assign', 'Return']
    origin = anno.getanno(node.body[1], anno.ORIGIN)
    assert (origin.lineno, origin.source_line) == (spread.__wrapped__.__code__.co_firstlineno + 6, 'return total')


def test_one_line_function_followed_by_code():
    def one_liner(x): return x + 1  # noqa: E704
    after = 5
    node, _ = parser.parse_entity(one_liner)
    assert [type(s).__name__ for s in node.body] == ['Return'] and after == 5


# Code compiled from a string without a file name gets compile()'s '<string>', as every such string does: the lines
# linecache holds for '<string>' (Python 3.13 puts the `python -c` program's there) are not its source, though a def or
# lambda of the same name and arguments may sit at its line.
SHARED_NAME_PROGRAM = 'def scaled(x):\n    return x + 100\nshift = lambda x: x + 100\n'


def exec_without_a_file_name(source):
    namespace = {}
    exec(source, namespace)
    return namespace


def test_code_under_the_shared_file_name_is_not_converted_from_other_code(monkeypatch):
    import linecache
    import autograph_lite as ag
    monkeypatch.setitem(linecache.cache, '<string>', (len(SHARED_NAME_PROGRAM), None,
                                                      SHARED_NAME_PROGRAM.splitlines(True), '<string>'))
    namespace = exec_without_a_file_name('def scaled(x):\n    return x * 2\nshift = lambda x: x * 2\n')
    for name, line in [('scaled', 1), ('shift', 3)]:
        function = namespace[name]
        message = (f"cannot convert '{function.__qualname__}': its code was compiled from a string without a file "
                   f"name of its own ('<string>', shared by every exec and compile not given one), and the source "
                   f"Python finds at its line {line} does not compile to its code")
        with pytest.raises(SourceUnavailableError, match=re.escape(message)):
            parser.parse_entity(function)
        with pytest.warns(ag.UnconvertedWarning, match=re.escape(message)):
            converted = ag.to_graph(function)
        assert converted(5) == 10   # (converted from the lines found, it was 105)


def test_code_under_the_shared_file_name_whose_source_is_there_is_converted(monkeypatch):
    import linecache
    monkeypatch.setitem(linecache.cache, '<string>', (len(SHARED_NAME_PROGRAM), None,
                                                      SHARED_NAME_PROGRAM.splitlines(True), '<string>'))
    namespace = exec_without_a_file_name(SHARED_NAME_PROGRAM)
    node, filename = parser.parse_entity(namespace['scaled'])
    assert (node.name, filename, gast.unparse(node.body[0]).strip()) == ('scaled', '<string>', 'return x + 100')
    node, _ = parser.parse_entity(namespace['shift'])
    assert gast.unparse(node.body).strip() == 'x + 100'
