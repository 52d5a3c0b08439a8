"""The unparser: the standard library's text, each line's origin, and the wrapping of long call lines."""
import ast
import sys
import textwrap

import pytest
from hypothesis import given, settings, strategies as st

from autograph_lite.pyct import codegen, origin_info, parser

SOURCE = textwrap.dedent('''\
    def report(name, count):
        message = f"{name}: {count}\\n"
        banner = f"""first {name}
    second {count}"""
        print(message, banner)

        def inner(a, *args, b=2, **kwargs):
            return (a, -b, not a, a ** -b, (a, b)[0], {a: [b]}, lambda c=1: c + a)
        return inner(1) if count > 0 else None
    ''')


def _unparsed(source):
    tree = parser.parse_str(source)
    origin_info.resolve(tree, source.splitlines(), 'user.py', 1)
    return codegen.unparse(tree)


def test_text_is_what_the_standard_library_writes():
    text, _ = _unparsed(SOURCE)
    # ... plus a blank line after a nested def block.
    expected = ast.unparse(ast.parse(SOURCE)).replace('c + a)\n    return', 'c + a)\n\n    return') + '\n'
    assert text == expected


def test_each_statement_line_maps_to_its_own_line_after_f_strings_with_newlines():
    text, origins = _unparsed(SOURCE)
    lines = text.split('\n')
    assert lines[3] == "    print(message, banner)"
    # The f-strings above hold newlines: the origin after them is still the user's line 5.
    assert (origins[3].lineno, origins[3].source_line) == (5, 'print(message, banner)')
    assert lines[6].strip().startswith('return (a, -b') and origins[6].lineno == 8
    assert lines[8].strip().startswith('return inner(1)') and origins[8].lineno == 9


def test_long_call_lines_wrap_at_their_own_commas_only():
    line = ('ag__.if_stmt(ag__.converted_call(rt.greater, (x, 0), None), if_body, else_body, get_state, '
            "set_state, ('a, b', 'c)'), 2)")
    assert codegen._wrap(line) == [
        'ag__.if_stmt(ag__.converted_call(rt.greater, (x, 0), None), if_body, else_body,',
        "             get_state, set_state, ('a, b', 'c)'), 2)"]


def test_a_line_with_an_unterminated_quote_is_not_wrapped_inside_it():
    line = "    it's a long docstring line, " + 'word ' * 16 + '(a, b, c)'
    assert codegen._wrap(line) == [line]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(['x', 'f(a, b)', "'s, (t'", '"q]"', '[1, 2]', '{k: v}', '(y,)']),
                min_size=8, max_size=30))
def test_wrapped_pieces_are_the_same_call(arguments):
    line = 'result = ag__.call_with_a_long_name(' + ', '.join(arguments) + ')'
    pieces = codegen._wrap(line)
    assert all(len(piece) <= codegen.MAX_LINE or len(pieces) == 1 or ',' not in piece for piece in pieces)
    assert ast.dump(ast.parse(' '.join(p.strip() for p in pieces))) == ast.dump(ast.parse(line))


# Constructs where the stdlib unparser tests a node's class or reads a field gast spells differently:
# codegen reads gast trees directly there too (through stdlib twins of single nodes).
_TRICKY = [
    'def f(a: int = 1, /, b=2, *args: str, c, d=3, **kw: float) -> int:\n    """Doc."""\n    return a',
    'if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    x = 3\nelse:\n    x = 4',
    'if a:\n    x = 1\nelse:\n    if b:\n        x = 2\n    y = 3',
    'y = (1 .real, 1.5 .real, True .real, x[a, b], x[(*a, b)], x[a:b, c], x[()], x[a], x.y.z)',
    '(a): int = 1\nb: int\nc.d: str = e',
    'try:\n    pass\nexcept (E, F) as e:\n    raise\nexcept G:\n    pass\nelse:\n    pass\nfinally:\n    pass',
    "s = f'{a!r:>{w}} {b}' + f'{c}' + rf'\\d{d}'",
    'f = lambda a, *b, c=1, **d: a + (lambda: 0)()',
    'class C(B, metaclass=M):\n    """Doc."""\n    x = 1\n\n    def m(self):\n        return super().m()',
    'async def g():\n    async with a as b:\n        await c\n    async for i in d:\n        yield i',
    'with a as (b, c), d:\n    del e[0], f.g\n    global h\n    nonlocal_ = {**i, "k": [*j]}',
    'match x:\n    case [1, *rest] if rest:\n        pass\n    case {"k": v, **kw}:\n        pass\n'
    '    case C(a, b=c) | None:\n        pass\n    case _:\n        pass',
] + ([   # type parameters (PEP 695): the stdlib writes them from 3.12 on, codegen's own def writer too
    'def f[T: int, *Ts, **P](x: T) -> T:\n    return x\n\nclass C[U: (int, str)](B):\n    pass',
    'type A[V] = list[V]',
] if sys.version_info >= (3, 12) else [])


@pytest.mark.parametrize('source', _TRICKY)
def test_gast_trees_unparse_as_their_stdlib_copies(source):
    from autograph_lite.pyct import python_ast
    tree = parser.parse_str(source)
    origin_info.resolve(tree, source.splitlines(), 'user.py', 1)
    direct = codegen._Unparser()
    text = direct.visit(tree)
    copied = codegen._Unparser()
    assert text == copied.visit(python_ast.from_gast(tree, codegen._keep_origin))
    assert direct.line_origins == copied.line_origins
    assert text == ast.unparse(ast.parse(source))   # none of codegen's readability tweaks apply here


def test_a_tree_missing_an_optional_field_unparses_through_its_stdlib_copy():
    from autograph_lite.pyct import templates
    # `value=None` leaves the return's value out of the node (a gast node has no default for it).
    tree = templates.replace('def f(a, *b, c=1, **d):\n    try:\n        return value\n    except E as e:\n'
                             '        return value', value=None)
    assert 'value' not in tree[0].body[0].body[0].__dict__
    text, origins = codegen.unparse(tree)
    assert text == 'def f(a, *b, c=1, **d):\n    try:\n        return\n    except E as e:\n        return\n'
    assert origins == [None] * 5


# What codegen._Unparser takes from ast._Unparser, a private class: the members it reads or calls and the hooks it
# overrides, which the stdlib's own visitors must still call. A Python release that changes one fails here, by name
# (3.13 dropped _avoid_backslashes, which every conversion then failed on).
_STDLIB_UNPARSER_MEMBERS = ['fill', 'traverse', 'visit', 'maybe_newline', 'get_raw_docstring', 'get_type_comment',
                            '_function_helper', '_write_docstring_and_traverse_body', 'binop', 'binop_precedence',
                            'binop_rassoc', 'cmpops', 'visit_arguments', 'visit_ExceptHandler', 'visit_If',
                            'visit_AnnAssign', 'visit_Attribute', 'visit_Subscript', 'visit_JoinedStr',
                            'visit_FormattedValue', 'visit_Constant', 'buffered', '_write_fstring_inner',
                            '_str_literal_helper']


def test_the_private_stdlib_unparser_has_what_codegen_uses():
    unparser = ast._Unparser()
    assert [name for name in _STDLIB_UNPARSER_MEMBERS if not hasattr(unparser, name)] == []
    assert isinstance(unparser._source, list) and unparser._indent == 0 and unparser._precedences == {}
    assert [p.name for p in ast._Precedence if p.name in ('TUPLE', 'TEST', 'CMP', 'ATOM')] == [
        'TUPLE', 'TEST', 'CMP', 'ATOM']


def test_unparsing_warns_of_nothing():
    # Python 3.13 warns (DeprecationWarning, an error from 3.15) of each required field not given to an ast node's
    # __init__: the stdlib copies of gast nodes are made without it.
    import warnings
    from autograph_lite.pyct import python_ast
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for source in [SOURCE] + _TRICKY:
            tree = parser.parse_str(source)
            assert codegen.unparse(tree)[0] == codegen._Unparser().visit(python_ast.from_gast(tree)) + '\n'


@pytest.mark.parametrize('source, text', [
    ('f"{d[\'key\']}: {x!r:>{w}}"', 'f"{d[\'key\']}: {x!r:>{w}}"'),
    ('f"{x:{\'>\'}10} it\'s"', 'f"{x:{\'>\'}10} it\'s"'),
    ("f\'\'\'{f\"{x}\"} {\'a\' if x else \"b\"}\'\'\'", 'f"{f\'{x}\'} {(\'a\' if x else \'b\')}"'),
    ("f\'\'\'{\'a\' + x}{x + \"\'\"}\'\'\'", 'f"""{\'a\' + x}{x + "\'"}"""'),
    ("f'{a}\\n{b}'", "f'{a}\\n{b}'"),
])
def test_an_f_string_takes_a_quote_none_of_its_expressions_holds_on_every_version(source, text):
    # From 3.12 the stdlib writes f'{d['key']}' (PEP 701 lets an expression hold the f-string's quote): to_code's
    # text would differ by version, and not run on 3.11.
    assert codegen.unparse(parser.parse_str(source))[0] == text + '\n'
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))
