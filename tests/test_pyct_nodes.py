"""pyct.nodes.children / walk give exactly gast's nodes, in gast's order, on real code."""
import glob
import os

import gast

from autograph_lite.pyct import nodes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_children_and_walk_match_gast_on_every_node_of_this_repository():
    files = sorted(glob.glob(os.path.join(ROOT, 'autograph_lite', '**', '*.py'), recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, 'tests', 'program_grammar.py')))
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
