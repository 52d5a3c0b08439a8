"""pyct.nodes.children / walk give exactly gast's nodes, in gast's order, on real code."""
import glob
import os

import gast

from autograph_lite.pyct import nodes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_children_and_walk_match_gast_on_every_node_of_this_repository():
    files = sorted(glob.glob(os.path.join(ROOT, 'autograph_lite', '**', '*.py'), recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, 'tests', 'support', '*program_grammar.py')))
    assert len(files) > 40
    checked = 0
    for path in files:
        with open(path) as f:
            tree = gast.parse(f.read())
        assert [id(n) for n in nodes.walk(tree)] == [id(n) for n in gast.walk(tree)], path
        for node in gast.walk(tree):
            assert [id(c) for c in nodes.children(node)] == [id(c) for c in gast.iter_child_nodes(node)]
            checked += 1
    assert checked > 40_000


# Constructs this repository's code does not use, whose fields mix names (skipped by children()
# as never holding a node) with nodes: match patterns, except*, async forms, f-string specs.
RARE_CONSTRUCTS = '''
match command:
    case [x, *rest] if x > 0:
        pass
    case {"a": 1, **others}:
        pass
    case Point(x=0, y=yy) as p:
        pass
    case None | True:
        pass
try:
    pass
except* ValueError as e:
    pass
async def f(a, /, b: int = 1, *args, c, d=2, **kwargs) -> None:
    global g
    async with a as b:
        await c
    async for i in j:
        yield i
    return [x async for x in y], lambda q=1: q, call(a, key=b, **kw)
from .package import name as alias, other
x: int = f"{a!r:>{width}}"
'''


def test_children_match_gast_on_rarer_constructs():
    tree = gast.parse(RARE_CONSTRUCTS)
    kinds = set()
    for node in gast.walk(tree):
        kinds.add(type(node).__name__)
        assert [id(c) for c in nodes.children(node)] == [id(c) for c in gast.iter_child_nodes(node)], node
    assert {'MatchAs', 'MatchStar', 'MatchMapping', 'MatchClass', 'MatchSingleton', 'TryStar', 'alias',
            'keyword', 'FormattedValue', 'AnnAssign', 'Global', 'comprehension'} <= kinds
