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

Functions of a tensor are drawn by tensor_program_grammar.py, over the same features.
"""
from typing import List

from hypothesis import strategies as st


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
