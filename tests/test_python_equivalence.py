"""Converted == original on Python values: random small functions (hypothesis) and real algorithms."""
import itertools
import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph_lite as ag

_DIR = tempfile.mkdtemp(prefix='ag_equivalence_')
_counter = itertools.count()


def load(source: str, name: str = 'f'):
    """Define the function from source in a real file, so its source can be read back."""
    path = os.path.join(_DIR, f'generated_{next(_counter)}.py')
    with open(path, 'w') as f:
        f.write(source)
    namespace = {'__name__': 'generated'}
    exec(compile(source, path, 'exec'), namespace)
    return namespace[name]


def outcome(function, *args):
    log = []
    try:
        result = ('value', function(*args, log))
    except Exception as exc:  # compare what the user would observe
        result = ('raised', type(exc))
    return result, log


# --- a small grammar of Python functions -------------------------------------------------------

VARS = ['a', 'b', 'c', 'x', 'y']


def expressions(depth):
    leaf = st.one_of(st.sampled_from(VARS), st.integers(-3, 5).map(str))
    if depth <= 0:
        return leaf
    sub = expressions(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(['+', '-', '*', '//', '%', '<', '>=', '==', '!=']), sub)
        .map(lambda t: f'({t[0]} {t[1]} {t[2]})'),
        st.tuples(sub, st.sampled_from(['and', 'or']), sub).map(lambda t: f'({t[0]} {t[1]} {t[2]})'),
        sub.map(lambda e: f'(not {e})'),
        st.tuples(sub, sub, sub).map(lambda t: f'({t[0]} if {t[1]} else {t[2]})'),
    )


def indent(lines):
    return ['    ' + line for line in lines]


@st.composite
def blocks(draw, depth, loop_depth, counters):
    size = draw(st.integers(1, 3))
    return [line for _ in range(size) for line in draw(statements(depth, loop_depth, counters))]


@st.composite
def statements(draw, depth, loop_depth, counters):
    kinds = ['assign', 'augassign', 'log', 'return']
    if depth > 0:
        kinds += ['if', 'ifelse', 'elif', 'while', 'for', 'assert']
    if loop_depth > 0:
        kinds += ['break', 'continue']
    kind = draw(st.sampled_from(kinds))
    expr = expressions(2)
    var = draw(st.sampled_from(VARS))
    if kind == 'assign':
        return [f'{var} = {draw(expr)}']
    if kind == 'augassign':
        return [f'{var} {draw(st.sampled_from(["+=", "-=", "*="]))} {draw(expr)}']
    if kind == 'log':
        return [f'log.append({draw(expr)})']
    if kind == 'return':
        return [f'return {draw(expr)}'] if draw(st.booleans()) else ['return']
    if kind == 'break':
        return ['break']
    if kind == 'continue':
        return ['continue']
    if kind == 'assert':
        return [f'assert {draw(expr)}, "failed"']
    inner = blocks(depth - 1, loop_depth, counters)
    if kind == 'if':
        return [f'if {draw(expr)}:'] + indent(draw(inner))
    if kind == 'ifelse':
        return [f'if {draw(expr)}:'] + indent(draw(inner)) + ['else:'] + indent(draw(inner))
    if kind == 'elif':
        return ([f'if {draw(expr)}:'] + indent(draw(inner)) + [f'elif {draw(expr)}:'] + indent(draw(inner))
                + ['else:'] + indent(draw(inner)))
    loop_inner = blocks(depth - 1, loop_depth + 1, counters)
    orelse = ['else:'] + indent([f'log.append({draw(expr)})']) if draw(st.booleans()) else []
    if kind == 'for':
        target = draw(st.sampled_from(['i', 'j', 'a']))
        return [f'for {target} in range({draw(expr)} % 4):'] + indent(draw(loop_inner)) + orelse
    counter = f'n{len(counters)}'
    counters.append(counter)
    # A counter that always advances keeps every generated while loop finite.
    return ([f'{counter} = 0', f'while {counter} < 4 and {draw(expr)}:', f'    {counter} += 1']
            + indent(draw(loop_inner)) + orelse)


@st.composite
def functions(draw):
    body = draw(blocks(3, 0, []))
    lines = ['def f(x, y, log):', '    a = 1', '    b = 2', '    c = 0', '    i = j = 0'] + indent(body)
    lines.append(f'    return {draw(expressions(1))}')
    return '\n'.join(lines) + '\n'


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(functions(), st.lists(st.tuples(st.integers(-4, 6), st.integers(-4, 6)), min_size=3, max_size=6))
def test_random_functions_behave_like_the_original(source, inputs):
    original = load(source)
    converted = ag.to_graph(original)
    for x, y in inputs:
        assert outcome(converted, x, y) == outcome(original, x, y), (source, x, y, ag.to_code(original))
