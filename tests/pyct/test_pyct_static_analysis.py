"""Activity, liveness and reaching definitions on small snippets: exact sets."""
import gast
import pytest

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


# --- local helpers that rebind a variable through `nonlocal` ---------------------------------------
HELPER = ('def f(n):\n    count = 0\n    def bump(v):\n        nonlocal count\n        count += v\n')


def test_calling_a_nonlocal_helper_reads_and_modifies_what_it_rebinds():
    f = analyzed(HELPER + '    while n > 0:\n        bump(1)\n        n -= 1\n    return count\n')
    bump_def, loop, _ = f.body[1:]
    assert modified(bump_def) == ['bump']            # defining the helper rebinds nothing yet
    assert modified(loop) == ['count', 'n']
    assert modified(loop.body[0]) == ['count']
    assert reads(loop.body[0]) == ['bump', 'count']
    assert 'count' in anno.getanno(loop, anno.LOOP_HEAD_LIVE)


def test_converted_calls_of_the_helper_count_too():
    f = analyzed(HELPER + '    if n:\n        ag__.converted_call(bump, (1,), None)\n    return count\n')
    assert modified(f.body[2]) == ['count']


def test_helper_rebinding_through_its_own_nested_def_or_another_helper():
    f = analyzed('def f(n):\n    total = 0\n    def add_twice(v):\n        def add():\n'
                 '            nonlocal total\n            total += v\n        add()\n        add()\n'
                 '    def via_other():\n        add_twice(2)\n'
                 '    if n:\n        add_twice(1)\n    else:\n        via_other()\n    return total\n')
    if_ = f.body[3]
    assert modified(if_.body[0]) == ['total']
    assert modified(if_.orelse[0]) == ['total']


def test_a_helper_defined_later_in_the_loop_body_still_counts():
    f = analyzed('def f(n):\n    count = 0\n    while n:\n        if count:\n            bump()\n'
                 '        def bump():\n            nonlocal count\n            count += 1\n        bump()\n')
    loop = f.body[1]
    assert modified(loop.body[0]) == ['count']
    assert modified(loop) == ['bump', 'count']


def test_no_state_from_uncalled_read_only_or_shadowed_helpers():
    f = analyzed(HELPER + '    def peek():\n        return count\n    def outer():\n'
                 '        def show():\n            nonlocal count\n            count = 9\n        return show\n'
                 '    while n:\n'
                 '        def unused():\n            nonlocal count\n            count = 1\n'
                 '        peek()\n'
                 '        [bump(1) for bump in handlers]\n'
                 '        show()\n'
                 '        n -= 1\n')
    loop = f.body[4]
    assert [modified(s) for s in loop.body] == [['unused'], [], [], [], ['n']]
    assert modified(loop) == ['n', 'unused']


@pytest.mark.parametrize('escape', ['apply(bump)', 'apply(lambda: bump(1))', 'handlers = [bump]', 'run = bump'])
def test_a_helper_used_as_a_value_may_be_called_by_any_call(escape):
    """Passed on, stored or renamed, the helper may run in any call: every statement with a call carries
    what it rebinds (before, only calls by its own name did: the graph froze `count` at its traced value)."""
    f = analyzed(HELPER + f'    {escape}\n    while n:\n        peek()\n        n -= 1\n        x = n + 1\n'
                 '    return count\n')
    loop = f.body[3]
    assert [modified(s) for s in loop.body] == [['count'], ['n'], ['x']]
    assert 'count' in anno.getanno(loop, anno.LOOP_HEAD_LIVE)


def test_a_rebinding_helper_inside_a_nested_function_is_local_to_it():
    f = analyzed('def f(n):\n    def g():\n        k = 0\n        def inc():\n            nonlocal k\n'
                 '            k += 1\n        while n:\n            inc()\n        return k\n    return g\n')
    g = f.body[0]
    assert modified(g.body[2]) == ['k']
    assert anno.getanno(f, anno.SCOPE).locals == {'g', 'n'}


def test_a_helper_called_by_a_while_test_counts_for_that_loop():
    # The staged loop then sees the state change in its condition and refuses it by name.
    f = analyzed(HELPER + '    while bump(1):\n        pass\n    while n:\n        if bump(1):\n'
                 '            pass\n        n -= 1\n')
    test_loop, body_loop = f.body[2:]
    assert modified(test_loop) == ['count']
    assert modified(body_loop) == ['count', 'n']
    assert modified(body_loop.body[0]) == ['count']
