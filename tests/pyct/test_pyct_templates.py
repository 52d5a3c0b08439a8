"""templates.replace: names, expressions, statement lists, spliced lists, renamed defs."""
import gast
import pytest

from autograph_lite.pyct import codegen, templates
from autograph_lite.pyct.parser import parse_str


def text(nodes):
    return codegen.unparse(nodes)[0]


def expr(source):
    return parse_str(source).body[0].value


def test_name_replaced_in_load_and_store_positions():
    nodes = templates.replace('target = ag__.not_(value)', target='flag', value='done')
    assert text(nodes) == 'flag = ag__.not_(done)\n'
    assert isinstance(nodes[0].targets[0].ctx, gast.Store)
    assert isinstance(nodes[0].value.args[0].ctx, gast.Load)


def test_expression_node_inserted_as_is():
    value = expr('a.b[0] + f(c)')
    nodes = templates.replace('retval_ = value', value=value)
    assert nodes[0].value is value
    assert text(nodes) == 'retval_ = a.b[0] + f(c)\n'


def test_expression_gets_store_context_in_a_target():
    nodes = templates.replace('target = 1', target=expr('self.x'))
    assert isinstance(nodes[0].targets[0].ctx, gast.Store)
    assert text(nodes) == 'self.x = 1\n'


def test_statement_list_spliced_where_placeholder_stands_alone():
    body = parse_str('x = 1\ny = x + 1').body
    nodes = templates.replace('def name():\n    decls\n    body', name='if_body',
                              decls=templates.replace('nonlocal names', names=['x', 'y']), body=body)
    assert text(nodes) == 'def if_body():\n    nonlocal x, y\n    x = 1\n    y = x + 1\n'


def test_lists_spliced_into_tuples_arguments_and_dicts():
    nodes = templates.replace('(targets,) = vars_\nf(args)\nd = {keys: values}',
                              targets=['a', 'b'], args=[expr('1'), expr('z')],
                              keys=[templates.literal('k'), None], values=[expr('v'), expr('kw')])
    assert text(nodes) == "(a, b) = vars_\nf(1, z)\nd = {'k': v, **kw}\n"


def test_function_parameters_can_be_replaced():
    nodes = templates.replace('def name(args):\n    pass', name='loop_body', args=['i'])
    assert text(nodes) == 'def loop_body(i):\n    pass\n'


def test_user_code_inside_replacements_is_not_substituted_again():
    value = expr('value + body')   # the user's own names happen to match placeholders
    nodes = templates.replace('body = value', body='out', value=value)
    assert text(nodes) == 'out = value + body\n'


def test_literal_and_expression_templates():
    assert text([gast.Expr(templates.literal(('do_return', 'retval_')))]) == "('do_return', 'retval_')\n"
    node = templates.replace_as_expression('lambda: value', value=expr('x'))
    assert isinstance(node, gast.Lambda)
    with pytest.raises(ValueError, match='not a single expression'):
        templates.replace_as_expression('x = 1')


# --- compiled templates (templates._compiled) make what the generic substitution makes --------------

_EVERY_CONVERTER = '''
import runtime as rt


def helper(*args, **kwargs):
    return args


class Box:
    def __init__(self):
        self.value = 0

    def bump(self, n):
        for i in range(n):
            if i % 2 == 0 and i != 3 or not i:
                self.value += i
        return super().__repr__()


def everything(x, xs, d, flag=True):
    global counter
    total = 0
    ys = [v * 2 for v in xs if v]
    ys.append(x)
    first, *rest = xs
    y = x if flag else -x
    assert x is not None, 'x is required'
    while total < 10:
        total += 1
        if total == 5:
            break
        if total == 2:
            continue
    else:
        total -= 1
    for i, v in enumerate(xs):
        if v > 3:
            return v
        ys[i] = v
    else:
        ys.pop()
    del d['k']
    match x:
        case 1 | 2:
            y = 1
        case [a, b]:
            y = a + b
        case _:
            y = 0

    def inner(z):
        nonlocal y
        y = z
        return lambda q=1: q + z

    if (n := len(xs)) > 2:
        y = n
    helper(x, *xs, k=1, **d)
    return rt.add(ys[1:3], y) if 0 < x < 3 else (first, rest, total, inner)
'''


def _same_copy(generic, compiled, template_nodes, where='result'):
    """The two builds are equal node for node (class, fields in the same order, values), share only the
    replacement values they were given, and neither reuses a node of the parsed template."""
    assert generic.__class__ is compiled.__class__, where
    if isinstance(generic, list):
        assert len(generic) == len(compiled), where
        for i, (a, b) in enumerate(zip(generic, compiled)):
            _same_copy(a, b, template_nodes, f'{where}[{i}]')
    elif isinstance(generic, gast.AST):
        assert id(generic) not in template_nodes and id(compiled) not in template_nodes, where
        if generic is compiled:
            return   # a replacement value, inserted as it is by both
        assert list(generic.__dict__) == list(compiled.__dict__), where
        for key, value in generic.__dict__.items():
            _same_copy(value, compiled.__dict__[key], template_nodes, f'{where}.{key}')
    else:
        assert generic == compiled, where


def test_compiled_templates_build_what_the_generic_substitution_builds(tmp_path, monkeypatch):
    import importlib.util

    from autograph_lite import conversion
    path = tmp_path / 'every_converter.py'
    path.write_text(_EVERY_CONVERTER)
    spec = importlib.util.spec_from_file_location('every_converter', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = set()

    def checked_replace(template, **replacements):
        statements = parse_str(template).body
        template_nodes = {id(node) for statement in statements for node in gast.walk(statement)}
        generic = templates._substituted_list(statements, replacements)
        compiled = templates._compiled(statements, frozenset(replacements))(replacements)
        _same_copy(generic, compiled, template_nodes)
        seen.add(template)
        return compiled

    monkeypatch.setattr(templates, 'replace', checked_replace)
    for entity in (module.everything, module.Box.bump, module.Box.__init__):
        source = conversion.converted_source(entity)
        assert source.startswith('def ')
        assert conversion.plain_source(entity).startswith('def ')
    assert len(seen) > 40   # the templates of every converter, or nearly


@pytest.mark.parametrize('template, replacements', [
    ('return value', dict(value=None)),                       # an optional field left out
    ('x = 1\nbody\ny = 2', dict(body=[])),                    # no statements where the placeholder stood
    ('body', dict(body=expr('f(a)'))),                        # an expression where a statement stood
    ('body', dict(body='name')),
    ('body', dict(body=parse_str('a = 1').body[0])),
    ('f(args, k=v)\nnonlocal names\nglobal names', dict(args=('a', expr('b + 1')), k='key', v=expr('w'), names=['p', 'q'])),
    ('def name(args):\n    return {keys: values}', dict(name='g', args=['i', 'j'], keys=[templates.literal('k'), None],
                                                       values=[expr('v'), expr('kw')])),
    ('(targets,) = vars_\ntarget.attr += 1', dict(targets=[expr('self.x'), 'y'], vars_='state', target=expr('a.b'))),
    ('lambda: value', dict(value=expr('(x, [y, z])'))),
])
def test_compiled_template_equals_generic_substitution(template, replacements):
    statements = parse_str(template).body
    template_nodes = {id(node) for statement in statements for node in gast.walk(statement)}
    generic = templates._substituted_list(statements, replacements)
    compiled = templates._compiled(statements, frozenset(replacements))(replacements)
    _same_copy(generic, compiled, template_nodes)
    assert text(compiled) == text(generic)
