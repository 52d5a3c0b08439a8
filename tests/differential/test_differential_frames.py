"""Regressions the differential harness (tests/differential/) found in what converted code sees of its
surroundings: a decorator's recompiled code, imports in the body, the caller's frame and namespaces
(globals/locals/vars/dir/eval/exec), and zero-argument super(). The converter's own rewrites:
test_differential_regressions.py."""
import re
import sys

import pytest

import autograph_lite as ag
from converted_forms import FORMS, in_form

_MARKER = object()   # a module global: globals() seen by converted code must hold it


# inflect: typeguard's @typechecked recompiles a method with type checks inserted. Converting the
# method's source dropped them: inflect's tests that expect TypeCheckError saw none.

def recompiled_with_a_check(function):
    """A decorator in typeguard's manner: the same source, recompiled with a check inserted."""
    import ast
    import inspect
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    definition = tree.body[0]
    definition.decorator_list = []
    definition.body.insert(0, ast.parse('check_positive(count)').body[0])
    namespace = {}
    exec(compile(ast.fix_missing_locations(tree), inspect.getsourcefile(function), 'exec'),
         {**function.__globals__, 'check_positive': _check_positive}, namespace)
    checked = namespace[function.__name__]
    function.__code__ = checked.__code__.replace(co_firstlineno=function.__code__.co_firstlineno)
    function.__globals__['check_positive'] = _check_positive
    return function


def _check_positive(count):
    if count < 0:
        raise TypeError(f'count must be positive, got {count}')


@recompiled_with_a_check
def plural(word, count):
    if count == 1:
        return word
    return word + 's'


def plurals(words, count):
    return [plural(word, count) for word in words]


def test_a_function_whose_code_a_decorator_recompiled_is_called_not_converted():
    with pytest.raises(ag.ConversionError, match=r"'plural' cannot be converted: its code is not what its "
                                                 r"source says \(a decorator recompiled it: the code uses "
                                                 r"check_positive, which the source does not\)"):
        ag.to_graph(plural)
    with pytest.warns(UserWarning, match='plural is called unconverted'):
        assert ag.to_graph(plurals)(['cat', 'dog'], 2) == plurals(['cat', 'dog'], 2) == ['cats', 'dogs']
    with pytest.raises(TypeError, match='count must be positive, got -1'):
        ag.to_graph(plurals)(['cat'], -1)


def unused_captures(value):
    match value:
        case {'kind': kind, **others}:
            return kind
        case [first, *others]:
            return first
        case _ as anything:
            return None


def test_names_a_match_binds_and_never_reads_are_in_the_source():
    """`**others` is a bare name of the MatchMapping node (no Name node): the code's local 'others'
    was taken for a name a decorator added, and the function was refused."""
    converted = ag.to_graph(unused_captures)
    for value in ({'kind': 'a', 'x': 1}, [3, 4], 'text'):
        assert converted(value) == unused_captures(value)


def imports_inside(text):
    """python-dateutil's rrulestr._parse_rfc imports in its body (`from dateutil import parser`,
    `from . import tz`)."""
    from os import path
    import xml.etree.ElementTree as tree
    from json import decoder as json_decoder
    return path.basename(text), tree.__name__, json_decoder.__name__


def test_imports_in_the_body_are_in_the_source():
    """`from os import path` makes the code use 'os', which the ImportFrom's module field says: the
    function is converted, not refused as recompiled (dateutil's rrulestr tests all failed)."""
    converted = ag.to_graph(imports_inside)
    assert converted('/a/b.txt') == imports_inside('/a/b.txt') == ('b.txt', 'xml.etree.ElementTree', 'json.decoder')
    assert 'ag__.converted_call(path.basename' in ag.to_code(imports_inside)



def test_a_relative_import_is_in_the_source():
    """`from . import tz` compiles to the module name '' (dateutil's rrulestr._parse_date_value was refused)."""
    import gast
    from autograph_lite.pyct import rewritten_code
    source = 'def parse(text):\n    from . import tz\n    from .. import parser as p\n    return tz, p\n'
    code = next(c for c in compile(source, '<test>', 'exec').co_consts if hasattr(c, 'co_names'))
    assert '' in code.co_names
    assert rewritten_code.names_not_in_source(code, gast.parse(source).body[0]) == []


def globals_of_its_own():
    """globals() ran inside converted_call's frame: it returned autograph_lite.calls' globals."""
    namespace = globals()
    return namespace is sys.modules[__name__].__dict__, '_MARKER' in namespace


@pytest.mark.parametrize('form', FORMS)
def test_globals_in_converted_code_are_the_functions_own(form):
    assert in_form(form, ag.to_graph(globals_of_its_own)) == globals_of_its_own() == (True, True)


def reads_own_locals(x):
    y = x + 1
    if x:
        y = y * 2
    return sorted(locals().items())


def reads_own_vars(x):
    y = x
    return sorted(vars())


def reads_own_dir(x):
    y = x
    return dir()


def evaluates_in_own_frame(x):
    y = 2
    return eval('x * y')


def executes_in_own_frame(x):
    namespace = {}
    exec('z = 3', None, namespace)
    return namespace


class Point:
    def __init__(self, x):
        self.x = x


def evaluates_with_its_namespaces(x):
    namespace = {}
    exec('z = x + 1', {'x': x}, namespace)
    return eval('x * 3', {}, {'x': x}), eval('x - 1', {'x': x}), vars(Point(x)), sorted(dir(Point(x)))[-1], namespace


def calls_the_frame_readers(x):
    return reads_own_locals(x), reads_own_vars(x), reads_own_dir(x), evaluates_in_own_frame(x)


@pytest.mark.parametrize('function, shown', [
    (reads_own_locals, 'locals()'), (reads_own_vars, 'vars()'), (reads_own_dir, 'dir()'),
    (evaluates_in_own_frame, 'eval() without explicit globals'),
    (executes_in_own_frame, 'exec() without explicit globals')])
def test_builtins_reading_the_callers_locals_are_refused(function, shown):
    """locals()/vars()/dir()/eval(s)/exec(s) in converted code read converted_call's frame (or a generated
    body function's): locals() returned {'f': locals, 'args': (), ...} and eval('x * y') raised NameError.
    Refused, with the user's line; converted code calls such a function as it is (exact values)."""
    with pytest.raises(ag.ConversionError, match=re.escape(f"{shown} cannot be converted: it reads the "
                                                           "function's own local variables")) as caught:
        ag.to_graph(function)
    assert 'test_differential_frames.py' in str(caught.value)
    assert '@ag.do_not_convert' in str(caught.value)


@pytest.mark.filterwarnings('ignore:.*is called unconverted')   # warned once per function, at its first call
@pytest.mark.parametrize('form', FORMS)
def test_converted_code_calls_functions_reading_their_locals_as_they_are(form):
    got = in_form(form, ag.to_graph(calls_the_frame_readers), 3)
    assert got == calls_the_frame_readers(3) == ([('x', 3), ('y', 8)], ['x', 'y'], ['x', 'y'], 6)


@pytest.mark.parametrize('form', FORMS)
def test_eval_exec_vars_and_dir_given_their_namespace_are_converted(form):
    expected = (12, 3, {'x': 4}, 'x', {'z': 5})
    assert in_form(form, ag.to_graph(evaluates_with_its_namespaces), 4) == evaluates_with_its_namespaces(4) == expected


class Named:
    def __init__(self, name):
        self.name = name

    def who(self):
        return self.name


class NamedChild(Named):
    def names_of(self, people):
        """super() in a lambda is super(__class__, <the lambda's first argument>), as in a def."""
        return list(map(lambda person: super().who(), people))

    def without_arguments(self):
        return (lambda: super().who())()


def asks_names(names):
    return NamedChild('me').names_of([NamedChild(n) for n in names])


def asks_without_arguments():
    return NamedChild('me').without_arguments()


@pytest.mark.parametrize('form', FORMS)
def test_zero_argument_super_in_a_lambda_uses_the_lambdas_first_argument(form):
    # It became super(__class__, self) with the method's self: ['me', 'me'], silently.
    assert in_form(form, ag.to_graph(asks_names), ['a', 'b']) == asks_names(['a', 'b']) == ['a', 'b']
    with pytest.raises(RuntimeError, match=r'super\(\): no arguments'):
        asks_without_arguments()
    with pytest.raises(RuntimeError, match=r'super\(\): no arguments'):
        in_form(form, ag.to_graph(asks_without_arguments))



# networkx: argmap compiles its wrapper from a string under the file name "<class 'argmap'>
# compilation N" and gives it a real module's name. inspect then lends that module's whole source to
# the made-up file name, and the code's line numbers point into it: the def found at that line was
# converted in place of the compiled code (a silently different function). Here the module is
# converted_forms (pytest's assertion rewriter, which loads test modules, lends no source).

def compiled_from_a_string():
    import inspect
    import converted_forms
    line = inspect.getsourcelines(converted_forms.in_form)[1]
    source = '\n' * (line - 1) + 'def in_form(form, function, *args):\n    return (form, function(*args) * 100)\n'
    namespace = {'__name__': 'converted_forms'}
    exec(compile(source, f"<class 'argmap'> compilation {line}", 'exec'), namespace)
    return namespace['in_form']


def calls_it(function, x):
    if x > 0:
        return function('compiled', abs, x)
    return 0


@pytest.mark.parametrize('form', FORMS)
def test_code_compiled_from_a_string_is_not_converted_from_its_modules_source(form):
    compiled = compiled_from_a_string()
    assert compiled.__module__ == 'converted_forms' and compiled('compiled', abs, -2) == ('compiled', 200)
    with pytest.warns(ag.UnconvertedWarning, match="compiled from a string .* the whole of module 'converted_forms'"):
        converted = ag.to_graph(compiled)
    assert in_form(form, converted, 'compiled', abs, -2) == ('compiled', 200)
    assert in_form(form, ag.to_graph(calls_it), compiled, 2) == ('compiled', 200)   # called as it is
