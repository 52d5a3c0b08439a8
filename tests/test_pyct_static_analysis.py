"""Activity, liveness and reaching definitions on small snippets: exact sets."""
import gast

from autograph_lite.pyct import anno, static_analysis
from autograph_lite.pyct.parser import parse_str


def analyzed(source):
    node = parse_str(source).body[0]
    static_analysis.analyze(node)
    return node


def modified(node):
    return sorted(qn.text for qn in anno.getanno(node, anno.ACTIVITY).modified)


def reads(node):
    return sorted(anno.getanno(node, anno.ACTIVITY).reads)


def live_out(node):
    return sorted(anno.getanno(node, anno.LIVE_OUT))


def defined_in(node):
    return sorted(anno.getanno(node, anno.DEFINED_IN))


def test_activity_of_simple_statements():
    f = analyzed('def f(a):\n    b = a + c\n    d += b\n    self.x = y[0]\n    z[0] = 1\n    del e\n')
    assign, aug, attr, sub, delete = f.body
    assert (reads(assign), modified(assign)) == (['a', 'c'], ['b'])
    assert (reads(aug), modified(aug)) == (['b', 'd'], ['d'])
    assert (reads(attr), modified(attr)) == (['self', 'y'], ['self.x'])
    assert (reads(sub), modified(sub)) == (['z'], ['z[0]'])
    assert (reads(delete), modified(delete)) == (['e'], ['e'])


def test_activity_aggregates_compound_statements():
    f = analyzed('def f(a, xs):\n    if a:\n        b = 1\n    else:\n        c = a\n'
                 '    for x in xs:\n        total = x\n')
    if_, for_ = f.body
    assert (reads(if_), modified(if_)) == (['a'], ['b', 'c'])
    assert (reads(for_), modified(for_)) == (['x', 'xs'], ['total', 'x'])


def test_nested_functions_and_lambdas_read_their_free_variables():
    f = analyzed('def f(a):\n    def g(p):\n        return p + a + k\n    h = lambda q: q * m\n'
                 '    s = [v for v in w if v > t]\n')
    g_def, h_assign, comp = f.body
    assert (reads(g_def), modified(g_def)) == (['a', 'k'], ['g'])
    assert reads(h_assign) == ['m']
    assert reads(comp) == ['t', 'w']
    scope = anno.getanno(f, anno.SCOPE)
    assert sorted(scope.locals) == ['a', 'g', 'h', 's']
    assert sorted(scope.captured) == ['a']
    assert sorted(scope.free_reads) == ['k', 'm', 't', 'w']


def test_global_and_nonlocal_declarations_are_not_locals():
    f = analyzed('def f():\n    global g\n    nonlocal_user = 1\n    g = 2\n')
    scope = anno.getanno(f, anno.SCOPE)
    assert sorted(scope.globals) == ['g']
    assert sorted(scope.locals) == ['nonlocal_user']
    assert sorted(scope.always_live) == ['g']


def test_liveness_across_if():
    f = analyzed('def f(a):\n    b = a\n    if a:\n        b = 1\n        c = 2\n    return b\n')
    assign, if_, ret = f.body
    assert live_out(assign) == ['a', 'b']
    assert live_out(if_) == ['b']
    assert live_out(if_.body[0]) == ['b']
    assert live_out(if_.body[1]) == ['b']
    assert live_out(ret) == []


def test_liveness_in_loops_includes_next_iteration_reads():
    f = analyzed('def f(n):\n    i = 0\n    s = 0\n    t = 0\n    while i < n:\n'
                 '        t = i * 2\n        s = s + t\n        i += 1\n    return s\n')
    loop = f.body[3]
    assert live_out(f.body[2]) == ['i', 'n', 's']   # t is overwritten before any read
    assert sorted(anno.getanno(loop, anno.LOOP_HEAD_LIVE)) == ['i', 'n', 's']
    assert live_out(loop.body[0]) == ['i', 'n', 's', 't']
    assert live_out(loop.body[2]) == ['i', 'n', 's']
    assert live_out(loop) == ['s']


def test_for_loop_target_is_not_live_at_loop_head():
    f = analyzed('def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n')
    loop = f.body[1]
    assert sorted(anno.getanno(loop, anno.LOOP_HEAD_LIVE)) == ['total']
    assert sorted(anno.getanno(loop, anno.GEN)) == ['total', 'xs']


def test_captured_variables_stay_live():
    f = analyzed('def f(a):\n    show = lambda: a\n    if a:\n        a = 2\n    return show()\n')
    assert live_out(f.body[1]) == ['a', 'show']


def test_reaching_definitions():
    f = analyzed('def f(a):\n    if a:\n        b = 1\n    c = b\n    while a:\n        d = c\n'
                 '        e = d\n    return e\n')
    if_, assign_c, loop, ret = f.body
    assert defined_in(if_) == ['a']
    assert defined_in(if_.body[0]) == ['a']
    assert defined_in(assign_c) == ['a', 'b']
    assert defined_in(loop) == ['a', 'b', 'c']
    # the loop body sees what an earlier iteration defined
    assert defined_in(loop.body[0]) == ['a', 'b', 'c', 'd', 'e']
    assert defined_in(ret) == ['a', 'b', 'c', 'd', 'e']


def test_nested_functions_are_analyzed_as_their_own_scope():
    f = analyzed('def f(a):\n    def g(x):\n        if x:\n            y = 1\n        return y\n    return g\n')
    g = f.body[0]
    assert defined_in(g.body[0]) == ['x']
    assert live_out(g.body[0]) == ['y']
    assert isinstance(g, gast.FunctionDef)
