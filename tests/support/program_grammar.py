"""A small grammar of Python functions for hypothesis: converted must behave exactly like the original.

``python_functions(features)`` draws ``def f(x, y, log)`` over plain Python values (tests in
test_python_equivalence.py). Features beyond the core (assignments, if/elif/else, while/for with
break/continue and a logging ``else``, assert, return) are switched on by name:

- ``loop_else_jumps``: ``break``/``continue`` in a loop's ``else`` (they belong to the enclosing loop)
- ``nested_def``: nested functions with their own early returns, called from anywhere
- ``unpack``: tuple-unpacking assignment
- ``try``: try/except/finally (the body may divide by zero)
- ``with``: a logging context manager
- ``suppress``: a context manager that swallows ZeroDivisionError (the rest of its body is skipped)
- ``del``: deleting a variable (later reads raise UnboundLocalError)
- ``walrus``: ``:=`` in expressions and conditions
- ``scope``: a module global rebound through ``global``, and ``nonlocal`` in nested functions
- ``callables``: calls of what users and their libraries write around functions (``CALLABLES_PRELUDE``):
  nested functions under stacked ``functools.wraps`` decorators and ``functools.lru_cache``, callable
  objects, a ``functools.partial`` subclass with its own ``__call__``, a ``staticmethod`` ``__call__``,
  and ``unittest.mock`` objects whose recorded calls are logged (issue 23's bugs 1-4 live there)

Functions of a tensor (``tensor_functions``) also have ``python_returns`` (a return a Python condition
guards, inside tensor loops) and ``while_true`` (``while True:`` loops left by ``break`` or ``return``, and
functions that end in one), and the features of container_grammar.py (``containers``, ``match``,
``walrus_while``, ``chain``: dicts and lists changed in place, aliases, match statements, walrus tests).
"""
from typing import List

from hypothesis import strategies as st

from container_grammar import CONTAINER_HEAD, CONTAINER_KINDS, CONTAINER_READS, CONTAINER_TAIL, container_statements

VARS = ['a', 'b', 'c', 'x', 'y']
ALL_FEATURES = ('loop_else_jumps', 'nested_def', 'unpack', 'try', 'with', 'suppress', 'del', 'walrus', 'scope',
                'callables')

PRELUDE = '''\
G = 0


class Logged:
    """A context manager that logs entering and leaving."""

    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(('enter', self.tag))
        return self.tag

    def __exit__(self, *exc_info):
        self.log.append(('exit', self.tag, exc_info[0] is not None))
        return False


class Suppressing:
    """A context manager that swallows ZeroDivisionError (and logs it)."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return None

    def __exit__(self, kind, value, traceback):
        self.log.append(('suppressed', kind is ZeroDivisionError))
        return kind is ZeroDivisionError


'''

CALLABLES_PRELUDE = '''\
import functools
from unittest import mock


def traced(log, tag):
    """A decorator factory written with functools.wraps: logs each call and changes the result."""
    def decorate(func):
        @functools.wraps(func)
        def wrapper(v):
            log.append((tag, 'in', v))
            result = func(v)
            log.append((tag, 'out', result))
            return result + tag
        return wrapper
    return decorate


class Scaled:
    """A callable object with state and an early return."""

    def __init__(self, log, factor):
        self.log, self.factor = log, factor

    def __call__(self, v):
        self.log.append(('scaled', v))
        if v > 2:
            return v * self.factor
        return v - self.factor


class Tagged(functools.partial):
    """A partial subclass with its own __call__ (calling .func would skip it)."""

    def __call__(self, *args):
        return super().__call__(*args) + 1000


class StaticCall:
    """__call__ is a staticmethod: Python looks it up on the type and passes no instance."""
    __call__ = staticmethod(lambda v: v * 3 - 1)


def plus(a, v):
    return a + v


'''

CALLEES = ['Scaled(log, {k})', 'Tagged(plus, {k})', 'StaticCall()', 'functools.partial(plus, {k})',
           'traced(log, {k})(plus.__get__({k}))']


def indent(lines: List[str]) -> List[str]:
    return ['    ' + line for line in lines]


def expressions(names, depth):
    leaf = st.one_of(st.sampled_from(names), st.integers(-3, 5).map(str))
    if depth <= 0:
        return leaf
    sub = expressions(names, depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(['+', '-', '*', '//', '%', '<', '>=', '==', '!=']), sub)
        .map(lambda t: f'({t[0]} {t[1]} {t[2]})'),
        st.tuples(sub, st.sampled_from(['and', 'or']), sub).map(lambda t: f'({t[0]} {t[1]} {t[2]})'),
        sub.map(lambda e: f'(not {e})'),
        st.tuples(sub, sub, sub).map(lambda t: f'({t[0]} if {t[1]} else {t[2]})'),
    )


class Scope:
    """What the statements being drawn may read and assign, and what surrounds them."""

    def __init__(self, features, names, targets, counters, in_function=False):
        self.features = set(features)
        self.names = list(names)          # readable
        self.targets = list(targets)      # assignable
        self.counters = counters          # while-loop counters drawn so far (unique names)
        self.in_function = in_function    # inside a nested def: no further nesting of defs

    def has(self, feature: str) -> bool:
        return feature in self.features


@st.composite
def blocks(draw, scope: Scope, depth: int, loop_depth: int):
    size = draw(st.integers(1, 3))
    return [line for _ in range(size) for line in draw(statements(scope, depth, loop_depth))]


@st.composite
def statements(draw, scope: Scope, depth: int, loop_depth: int):
    kinds = ['assign', 'augassign', 'log', 'return']
    if depth > 0:
        kinds += ['if', 'ifelse', 'elif', 'while', 'for', 'assert']
        kinds += [k for k in ('try', 'with', 'suppress') if scope.has(k)]
        if scope.has('nested_def') and not scope.in_function:
            kinds.append('nested_def')
        if scope.has('callables') and not scope.in_function:
            kinds.append('decorated_def')
    if scope.has('callables'):
        kinds += ['callable_call', 'mock_call']
    if loop_depth > 0:
        kinds += ['break', 'continue']
    kinds += [k for k in ('unpack', 'del', 'walrus') if scope.has(k)]
    kind = draw(st.sampled_from(kinds))
    expr = expressions(scope.names, 2)
    var = draw(st.sampled_from(scope.targets))
    if kind == 'assign':
        return [f'{var} = {draw(expr)}']
    if kind == 'augassign':
        return [f'{var} {draw(st.sampled_from(["+=", "-=", "*="]))} {draw(expr)}']
    if kind == 'log':
        return [f'log.append({draw(expr)})']
    if kind == 'return':
        return [f'return {draw(expr)}'] if draw(st.booleans()) else ['return']
    if kind in ('break', 'continue'):
        return [kind]
    if kind == 'assert':
        return [f'assert {draw(expr)}, "failed"']
    if kind == 'unpack':
        first, second = draw(st.lists(st.sampled_from(scope.targets), min_size=2, max_size=2, unique=True))
        return [f'{first}, {second} = {draw(expr)}, {draw(expr)}']
    if kind == 'del':
        return [f'del {var}']
    if kind == 'walrus':
        if draw(st.booleans()):
            return [f'log.append(({var} := {draw(expr)}) + 1)']
        inner = blocks(scope, max(depth - 1, 0), loop_depth)
        return [f'if ({var} := {draw(expr)}) > 0:'] + indent(draw(inner))
    inner = blocks(scope, depth - 1, loop_depth)
    if kind == 'if':
        return [f'if {draw(expr)}:'] + indent(draw(inner))
    if kind == 'ifelse':
        return [f'if {draw(expr)}:'] + indent(draw(inner)) + ['else:'] + indent(draw(inner))
    if kind == 'elif':
        return ([f'if {draw(expr)}:'] + indent(draw(inner)) + [f'elif {draw(expr)}:'] + indent(draw(inner))
                + ['else:'] + indent(draw(inner)))
    if kind in ('try', 'suppress'):
        # `x // (expr)` divides by zero now and then, before or after other statements of the body (which
        # then run or not); return/break/continue in finally are refused.
        parts = [draw(statements(scope, depth - 1, loop_depth)) for _ in range(draw(st.integers(1, 3)))]
        parts.insert(draw(st.integers(0, len(parts))), [f'{var} = x // ({draw(expr)})'])
        body = [line for part in parts for line in part]
        if kind == 'suppress':
            return ['with Suppressing(log):'] + indent(body)
        lines = ['try:'] + indent(body)
        lines += ['except ZeroDivisionError:'] + indent(draw(inner))
        if draw(st.booleans()):
            lines += ['finally:'] + indent([f'log.append({draw(expr)})'])
        return lines
    if kind == 'with':
        return [f'with Logged(log, {draw(expr)}) as {var}:'] + indent(draw(inner))
    if kind == 'nested_def':
        return draw(nested_functions(scope, depth, loop_depth))
    if kind == 'decorated_def':
        return draw(decorated_functions(scope, depth, loop_depth))
    if kind == 'callable_call':
        callee = draw(st.sampled_from(CALLEES)).format(k=draw(st.integers(1, 3)))
        return [f'{var} = {callee}({draw(expr)})']
    if kind == 'mock_call':
        # What the mock records is logged: a call converted code adds (e.g. __hash__) shows up there.
        mocked = f'm{len(scope.counters)}'
        scope.counters.append(mocked)
        return [f'{mocked} = mock.Mock(side_effect=abs)', f'{var} = {mocked}({draw(expr)})',
                f'log.append(str({mocked}.mock_calls))']
    loop_inner = blocks(scope, depth - 1, loop_depth + 1)
    orelse = []
    if draw(st.booleans()):
        orelse_body = [f'log.append({draw(expr)})']
        if scope.has('loop_else_jumps') and loop_depth > 0 and draw(st.booleans()):
            # In a loop's else, break/continue belong to the enclosing loop.
            jump = draw(st.sampled_from(['break', 'continue']))
            orelse_body += [jump] if draw(st.booleans()) else [f'if {draw(expr)}:', f'    {jump}']
        orelse = ['else:'] + indent(orelse_body)
    if kind == 'for':
        target = draw(st.sampled_from(['i', 'j'] + scope.targets[:1]))
        return [f'for {target} in range({draw(expr)} % 4):'] + indent(draw(loop_inner)) + orelse
    counter = f'n{len(scope.counters)}'
    scope.counters.append(counter)
    # A counter that always advances keeps every generated while loop finite.
    return ([f'{counter} = 0', f'while {counter} < 4 and {draw(expr)}:', f'    {counter} += 1']
            + indent(draw(loop_inner)) + orelse)


@st.composite
def nested_functions(draw, scope: Scope, depth: int, loop_depth: int):
    """``def h(v)`` with its own early returns (and maybe ``nonlocal``), then a call of it."""
    name = f'h{len(scope.counters)}'
    scope.counters.append(name)
    declarations, targets = [], ['v', 'w']
    if scope.has('scope') and draw(st.booleans()):
        shared = draw(st.sampled_from(['a', 'b', 'c']))
        declarations, targets = [f'nonlocal {shared}'], targets + [shared]
    inner = Scope(scope.features, ['v', 'w'] + [n for n in scope.names if n in ('a', 'b', 'c')], targets,
                  scope.counters, in_function=True)
    expr = expressions(inner.names, 1)
    body = draw(blocks(inner, max(depth - 1, 0), 0))
    lines = [f'def {name}(v):'] + indent(declarations + ['w = v * 2', f'if {draw(expr)}:',
                                                         f'    return {draw(expr)}'] + body
                                         + [f'return {draw(expr)}'])
    var = draw(st.sampled_from(scope.targets))
    return lines + [f'{var} = {name}({draw(expressions(scope.names, 1))})']


@st.composite
def decorated_functions(draw, scope: Scope, depth: int, loop_depth: int):
    """A nested ``def h(v)`` under one to three decorators (``traced`` made with functools.wraps, or
    ``functools.lru_cache``), then a call of it, sometimes through its ``__wrapped__``."""
    lines = draw(nested_functions(scope, depth, loop_depth))
    name = lines[0][len('def '):lines[0].index('(')]
    decorators = draw(st.lists(st.one_of(st.integers(1, 3).map(lambda k: f'@traced(log, {k})'),
                                         st.just('@functools.lru_cache(maxsize=None)')), min_size=1, max_size=3))
    call = lines[-1]
    if draw(st.booleans()) and decorators[0].startswith('@traced'):
        call = call.replace(f'= {name}(', f'= {name}.__wrapped__(', 1)
    return decorators + lines[:-1] + [call]


@st.composite
def python_functions(draw, features=()):
    """The source of a module defining ``f(x, y, log)`` (plus the Logged helper and a global G)."""
    names = VARS + (['G'] if 'scope' in features else [])
    scope = Scope(features, names, VARS, [])
    body = draw(blocks(scope, 3, 0))
    head = ['a = 1', 'b = 2', 'c = 0', 'i = j = 0']
    if 'scope' in features:
        head = ['global G', 'G = 0'] + head
        body = body + [f'G = {draw(expressions(names, 1))}']
    lines = ['def f(x, y, log):'] + indent(head + body + [f'return {draw(expressions(names, 1))}'])
    return PRELUDE + (CALLABLES_PRELUDE if 'callables' in features else '') + '\n'.join(lines) + '\n'


# --- functions of a tensor: the graph must compute what Python computes -------------------------

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
