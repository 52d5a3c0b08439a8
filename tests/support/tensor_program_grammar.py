"""A grammar of functions of a tensor for hypothesis: the graph must compute what Python computes.

``tensor_functions(features)`` draws functions over an int tensor with the features of program_grammar.py
(whose prelude and helpers it shares). They also have ``python_returns`` (a return a Python condition
guards, inside tensor loops) and ``while_true`` (``while True:`` loops left by ``break`` or ``return``, and
functions that end in one), and the features of container_grammar.py (``containers``, ``match``,
``walrus_while``, ``chain``: dicts and lists changed in place, aliases, match statements, walrus tests).
"""

from hypothesis import strategies as st

from container_grammar import CONTAINER_HEAD, CONTAINER_KINDS, CONTAINER_READS, CONTAINER_TAIL, container_statements
from program_grammar import PRELUDE, indent


TENSOR_FEATURES = ('loop_else_jumps', 'nested_def', 'python_returns', 'unpack', 'try', 'with', 'walrus',
                   'del', 'scope', 'while_true', 'callables') + CONTAINER_KINDS

# ``callables`` on tensors: the same kinds of callees, with tensor conditions inside them (staged while tracing).
TENSOR_CALLABLES_PRELUDE = '''\
import functools


def shifted(k):
    """A decorator factory written with functools.wraps."""
    def decorate(func):
        @functools.wraps(func)
        def wrapper(v):
            return (func(v) + k) % 97
        return wrapper
    return decorate


class Scaled:
    """A callable object with state and an early return."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, v):
        if v > 2:
            return (v * self.factor) % 97
        return (v + self.factor) % 97


class Tagged(functools.partial):
    """A partial subclass with its own __call__."""

    def __call__(self, *args):
        return (super().__call__(*args) + 11) % 97


class StaticCall:
    __call__ = staticmethod(lambda v: (v * 3 + 1) % 97)


def plus(a, v):
    if v > a:
        return (v - a) % 97
    return (a + v) % 97


'''
TENSOR_CALLEES = ['Scaled({k})', 'Tagged(plus, {k})', 'StaticCall()', 'functools.partial(plus, {k})',
                  'shifted({k})(plus.__get__({k}))']


def int_expressions(names, depth):
    """Integer expressions kept small (mod 97) so int32 never overflows."""
    leaf = st.one_of(st.sampled_from(names), st.integers(0, 5).map(str))
    if depth <= 0:
        return leaf
    sub = int_expressions(names, depth - 1)
    return st.one_of(leaf, st.tuples(sub, st.sampled_from(['+', '-', '*']), sub)
                     .map(lambda t: f'({t[0]} {t[1]} {t[2]}) % 97'))


def conditions(names):
    expr = int_expressions(names, 1)
    compare = st.tuples(expr, st.sampled_from(['<', '>', '==', '!=', '<=']), expr).map(
        lambda t: f'{t[0]} {t[1]} {t[2]}')
    return st.one_of(compare, compare.map(lambda c: f'not {c}'))


class TensorScope:
    """``a, b, c`` start as Python ints and may become tensors; ``p`` only ever holds Python ints."""

    def __init__(self, features, counters):
        self.features = set(features)
        self.counters = counters
        self.names = ['a', 'b', 'c', 'n']

    def has(self, feature):
        return feature in self.features

    def fresh(self, base):
        name = f'{base}{len(self.counters)}'
        self.counters.append(name)
        return name


@st.composite
def tensor_blocks(draw, scope: TensorScope, depth: int, loop_depth: int):
    size = draw(st.integers(1, 3))
    return [line for _ in range(size) for line in draw(tensor_statements(scope, depth, loop_depth))]


@st.composite
def tensor_statements(draw, scope: TensorScope, depth: int, loop_depth: int):
    kinds = ['assign', 'assign']
    if depth > 0:
        kinds += ['if', 'ifelse', 'while', 'for', 'python_for']
        kinds += [k for k in ('nested_def', 'try', 'with', 'while_true') if scope.has(k)]
        if scope.has('callables'):
            kinds.append('decorated_def')
    if scope.has('callables'):
        kinds.append('callable_call')
    if loop_depth > 0:
        kinds += ['break', 'continue']
        if scope.has('python_returns'):
            kinds.append('python_return')
    kinds += [k for k in ('unpack', 'walrus', 'del', 'containers', 'chain') if scope.has(k)]
    if depth > 0:
        kinds += [k for k in ('match', 'walrus_while') if scope.has(k)]
    kind = draw(st.sampled_from(kinds))
    expr = int_expressions(scope.names, 2)
    cond = conditions(scope.names)
    if kind in CONTAINER_KINDS:
        return draw(container_statements(kind, scope, expr, cond, tensor_blocks(scope, max(depth - 1, 0), loop_depth),
                                         tensor_blocks(scope, max(depth - 1, 0), loop_depth + 1)))
    var = draw(st.sampled_from(['a', 'b', 'c']))
    if kind == 'assign':
        return [f'{var} = {draw(expr)}']
    if kind in ('break', 'continue'):
        return [f'if {draw(cond)}:', f'    {kind}']
    if kind == 'python_return':
        # p is a Python int that stays 0: the return never happens, inside a tensor loop.
        return ['if p == 1:', f'    return {draw(expr)}']
    if kind == 'unpack':
        return [f'a, b = {draw(expr)}, {draw(expr)}']
    if kind == 'walrus':
        return [f'{var} = ((t := {draw(expr)}) + t) % 97']
    if kind == 'del':
        temp = scope.fresh('tmp')
        return [f'{temp} = {draw(expr)}', f'{var} = ({temp} + 1) % 97', f'del {temp}']
    inner = tensor_blocks(scope, depth - 1, loop_depth)
    if kind == 'if':
        return [f'if {draw(cond)}:'] + indent(draw(inner))
    if kind == 'ifelse':
        return [f'if {draw(cond)}:'] + indent(draw(inner)) + ['else:'] + indent(draw(inner))
    if kind == 'try':
        return (['try:'] + indent(draw(inner)) + ['except ZeroDivisionError:'] + indent(['p = 2'])
                + ['finally:'] + indent([f'{var} = ({var} + 1) % 97']))
    if kind == 'with':
        return ['with Logged([], 0):'] + indent(draw(inner))
    if kind == 'callable_call':
        callee = draw(st.sampled_from(TENSOR_CALLEES)).format(k=draw(st.integers(1, 3)))
        return [f'{var} = {callee}({draw(expr)})']
    if kind in ('nested_def', 'decorated_def'):
        name = scope.fresh('h')
        body = [f'def {name}(v):'] + indent([f'if {draw(conditions(["v", "n"]))}:',
                                              f'    return {draw(int_expressions(["v", "n"], 1))}',
                                              f'return {draw(int_expressions(["v", "n"], 1))}'])
        if scope.has('scope') and draw(st.booleans()):
            body = [f'def {name}(v):'] + indent(['nonlocal c', 'c = (c + v) % 97', 'return c'])
        if kind == 'decorated_def':
            body = [f'@shifted({k})' for k in draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))] + body
        return body + [f'{var} = {name}({draw(expr)})']
    loop_inner = tensor_blocks(scope, depth - 1, loop_depth + 1)
    orelse = []
    if kind in ('while', 'for') and draw(st.booleans()):
        orelse_body = [f'{var} = {draw(expr)}']
        if scope.has('loop_else_jumps') and loop_depth > 0 and draw(st.booleans()):
            orelse_body += [draw(st.sampled_from(['break', 'continue']))]
        orelse = ['else:'] + indent(orelse_body)
    if kind == 'python_for':
        target = scope.fresh('k')
        return [f'for {target} in range(2):'] + indent(draw(loop_inner)) + orelse
    if kind == 'for':
        target = scope.fresh('i')
        return [f'for {target} in range(n):'] + indent(draw(loop_inner)) + orelse
    counter = scope.fresh('w')
    if kind == 'while_true':
        # Left by its break or return, tested first (a `continue` in the body cannot skip it).
        leave = draw(st.sampled_from(['break', f'return {draw(expr)}']))
        return ([f'{counter} = 0', 'while True:', f'    {counter} += 1', f'    if {counter} > n:', f'        {leave}']
                + indent(draw(loop_inner)))
    # The counter advances first, so the loop ends (n is at most 5).
    return ([f'{counter} = 0', f'while {counter} < n:', f'    {counter} += 1'] + indent(draw(loop_inner))
            + orelse)


@st.composite
def tensor_functions(draw, features=()):
    """The source of a module defining ``f(n)``: Python on an int, a graph on an int32 tensor."""
    scope = TensorScope(features, [])
    head = ['a = n % 7', 'b = 1', 'c = 0', 'p = 0']
    tail = ['return (a * 3 + b * 5 + c) % 1009']
    if 'containers' in features:
        scope.names += CONTAINER_READS
        head += CONTAINER_HEAD
        tail = [f'return (a * 3 + b * 5 + c + {CONTAINER_TAIL}) % 1009']
    body = draw(tensor_blocks(scope, 3, 0))
    if 'while_true' in features and draw(st.booleans()):
        # The function ends in a `while True:` that only its return leaves: no return after it.
        # (Its body has no break of its own: falling out of the loop would return None.)
        tail = ['wt = 0', 'while True:'] + indent(['wt += 1', 'if wt > n:'] + indent(tail) + draw(
            tensor_blocks(scope, 1, 0)))
    lines = ['def f(n):'] + indent(head + body + tail)
    return PRELUDE + (TENSOR_CALLABLES_PRELUDE if 'callables' in features else '') + '\n'.join(lines) + '\n'
