"""The unparser: the standard library's text, each line's origin, and the wrapping of long call lines."""
import ast
import textwrap

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
