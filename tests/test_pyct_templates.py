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
