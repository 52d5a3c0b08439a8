"""A grammar of random differentiable programs for hypothesis (tests/gradients/test_gradient_programs.py).

``gradient_programs()`` draws the source of a module defining ``f(x, y, m, n)``: ``x``, ``y`` are float64
vectors of length 3, ``m`` a 3x3 float64 matrix, ``n`` an int32 trip count (1..3), ``V`` a module-level
Variable read inside. ``a``, ``b``, ``c`` are vectors of length 3 throughout, and ``f`` returns a scalar.
The statements mix elementwise math, matvec/matmul, reductions broadcast back, slicing, gather,
``a[i] = v`` item assignment, tensor ``if``s (nested, with early returns), tensor ``while``/``for`` loops
(with ``break``, with a list appended to and stacked after the loop, with loop-invariant values), list
comprehensions over tensor elements and calls of a nested helper with its own tensor ``if``; the ops with
their own kink conventions (sigmoid cross-entropy, softplus, logsumexp, cumprod, clip_by_value, the "safe
sqrt" ``where``), einsum (a subscript summed out of one input, a diagonal), and an ``rt.custom_gradient``
function whose gradient function is the exact one.

Values stay bounded (``tanh`` on every assignment, or an average with a ``sin``), so central differences
in float64 are accurate; kinks (relu, abs, maximum, where, a tensor ``if``'s condition) are allowed: the
test detects a kink near the input by comparing finite differences at two step sizes.
"""
from typing import List

from hypothesis import strategies as st

VECTORS = ['a', 'b', 'c']
READABLE = ['a', 'b', 'c', 'x', 'y', 'V']

PRELUDE = '''\
import numpy as np
import autograph_lite as ag
import runtime as rt

V = rt.Variable(np.array([0.3, -0.6, 0.9]))


@rt.custom_gradient
def smooth_step(u):
    """tanh with a hand-written gradient: the exact one, so finite differences still agree."""
    value = rt.tanh(u)
    return value, lambda dy: dy * (1.0 - value * value)


def helper(u, w):
    """A nested converted function: a tensor if with an early return."""
    if rt.reduce_sum(u * w) > 0.1:
        return rt.tanh(u - w * 0.5)
    s = rt.sin(u) * w
    return s + 0.25 * u


'''


def indent(lines: List[str]) -> List[str]:
    return ['    ' + line for line in lines]


class Scope:
    def __init__(self, loop_var=None, counters=None, lists_ok=True, bounded=False):
        self.loop_var = loop_var    # a float64 scalar expression of the enclosing loop's index, or None
        self.counters = counters if counters is not None else []
        self.lists_ok = lists_ok
        self.bounded = bounded      # every tensor loop has a bound known when compiling (jit_compile=True)

    def fresh(self, base):
        name = f'{base}{len(self.counters)}'
        self.counters.append(name)
        return name


def vectors(scope: Scope, depth: int):
    """Expressions whose value is a float64 vector of length 3."""
    leaves = list(READABLE)
    if scope.loop_var:
        leaves.append(f'(a * {scope.loop_var})')
    leaf = st.sampled_from(leaves)
    if depth <= 0:
        return leaf
    sub = vectors(scope, depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(['+', '-', '*']), sub).map(lambda t: f'({t[0]} {t[1]} {t[2]})'),
        st.tuples(sub, sub).map(lambda t: f'({t[0]} / (2.0 + rt.sin({t[1]})))'),
        st.tuples(st.sampled_from(['rt.sin', 'rt.tanh', 'rt.square', 'rt.sigmoid', 'rt.cos']), sub)
        .map(lambda t: f'{t[0]}({t[1]})'),
        st.tuples(st.sampled_from(['rt.nn.relu', 'rt.abs']), sub).map(lambda t: f'{t[0]}({t[1]})'),
        st.tuples(sub, sub).map(lambda t: f'rt.maximum({t[0]}, {t[1]})'),
        st.tuples(sub, sub).map(lambda t: f'rt.where({t[0]} > 0.1, {t[0]}, {t[1]})'),
        sub.map(lambda e: f'rt.linalg.matvec(m, {e})'),
        sub.map(lambda e: f'rt.matmul(rt.reshape({e}, [1, 3]), m)[0]'),
        sub.map(lambda e: f'rt.matmul(m, rt.expand_dims({e}, 1))[:, 0]'),
        st.tuples(st.sampled_from(['reduce_sum', 'reduce_mean', 'reduce_max', 'reduce_min', 'reduce_prod']),
                  sub, sub).map(lambda t: f'(rt.{t[0]}({t[1]}) * {t[2]})'),
        st.tuples(sub, sub).map(lambda t: f'(rt.reduce_sum({t[0]}, keepdims=True) + {t[1]})'),
        sub.map(lambda e: f'rt.reduce_sum(m * {e}, axis=0)'),
        sub.map(lambda e: f'rt.reduce_max(m * {e}, axis=1)'),
        sub.map(lambda e: f'rt.concat([{e}[1:], {e}[:1]], 0)'),
        sub.map(lambda e: f'{e}[::-1]'),
        st.tuples(sub, st.sampled_from(['[2, 0, 1]', '[0, 0, 2]', '[1, 1, 1]'])).map(
            lambda t: f'rt.gather({t[0]}, {t[1]})'),
        sub.map(lambda e: f'(rt.gather(m, [2, 0, 2])[1] * {e})'),
        sub.map(lambda e: f'rt.stack([{e}[2], {e}[0] * 2.0, {e}[1]])'),
        st.tuples(sub, sub).map(lambda t: f'rt.stack([{t[0]}[i] * {t[1]}[(i + 1) % 3] for i in range(3)])'),
        st.tuples(sub, sub).map(lambda t: f'(rt.stack([rt.reduce_sum(row * {t[0]}) for row in m]) + {t[1]})'),
        st.tuples(sub, sub).map(lambda t: f'helper({t[0]}, {t[1]})'),
        st.tuples(sub, sub).map(
            lambda t: f'rt.nn.sigmoid_cross_entropy_with_logits(labels=rt.sigmoid({t[0]}), logits={t[1]})'),
        sub.map(lambda e: f'rt.math.softplus({e})'),
        st.tuples(sub, sub).map(lambda t: f'(rt.reduce_logsumexp({t[0]}) * {t[1]})'),
        st.tuples(sub, st.sampled_from(['', ', exclusive=True', ', reverse=True'])).map(
            lambda t: f'rt.math.cumprod({t[0]}, 0{t[1]})'),
        sub.map(lambda e: f'rt.clip_by_value({e}, -0.5, 0.5)'),
        sub.map(lambda e: f'rt.where({e} > 0.1, rt.sqrt({e}), 0.0 * {e})'),
        st.tuples(sub, sub).map(lambda t: f'rt.einsum("i,j->i", {t[0]}, {t[1]})'),
        sub.map(lambda e: f'rt.einsum("ii,i->i", m, {e})'),
        sub.map(lambda e: f'smooth_step({e})'),
    )


def conditions(scope: Scope):
    return st.tuples(vectors(scope, 1), st.sampled_from(['>', '<']), st.sampled_from(['0.2', '-0.3', '1.0'])).map(
        lambda t: f'rt.reduce_sum({t[0]}) {t[1]} {t[2]}')


RESULT = 'rt.reduce_sum(a * 0.7 - b * 1.3 + c * 0.4)'


@st.composite
def blocks(draw, scope: Scope, depth: int, in_loop: bool):
    size = draw(st.integers(1, 3))
    return [line for _ in range(size) for line in draw(statements(scope, depth, in_loop))]


@st.composite
def statements(draw, scope: Scope, depth: int, in_loop: bool):
    kinds = ['assign', 'assign', 'average', 'item']
    if depth > 0:
        kinds += ['if', 'ifelse', 'while', 'for', 'for_rows']
    if in_loop:
        kinds += ['break', 'invariant']
    kinds += ['return']
    kind = draw(st.sampled_from(kinds))
    var = draw(st.sampled_from(VECTORS))
    expr = vectors(scope, 2)
    if kind == 'assign':
        return [f'{var} = rt.tanh({draw(expr)})']
    if kind == 'average':
        return [f'{var} = 0.5 * {var} + 0.5 * rt.sin({draw(expr)})']
    if kind == 'item':
        index = draw(st.sampled_from(['0', '1', '2', '1:', ':2']))
        value = draw(st.sampled_from([f'rt.tanh(rt.reduce_sum({draw(expr)}))', f'rt.sin({draw(expr)}[2])']))
        if ':' in index:
            value = f'rt.tanh({draw(expr)}[{index}])'
        return [f'{var}[{index}] = {value}']
    if kind == 'return':
        return [f'return {RESULT}']
    if kind == 'break':
        return [f'if {draw(conditions(scope))}:', '    break']
    if kind == 'invariant':
        # Computed only from the function's inputs: the same in every iteration (hoisted or recomputed).
        name = scope.fresh('inv')
        return [f'{name} = rt.tanh(rt.linalg.matvec(m, x * 0.5) + V)',
                f'{var} = 0.5 * {var} + 0.5 * {name} * {draw(expr)}']
    inner = blocks(scope, depth - 1, in_loop)
    if kind == 'if':
        return [f'if {draw(conditions(scope))}:'] + indent(draw(inner))
    if kind == 'ifelse':
        return [f'if {draw(conditions(scope))}:'] + indent(draw(inner)) + ['else:'] + indent(draw(inner))
    collect = scope.lists_ok and draw(st.booleans())
    lines = []
    if collect:
        # Appended first in the body: the loop runs at least once, so the stack is never empty.
        acc = scope.fresh('acc')
        lines.append(f'{acc} = []')
    # With `bounded`, a loop over n (at most 3) says so, or counts to a Python int: both compile with XLA.
    bound = ['    ag.set_loop_options(maximum_iterations=3)'] if scope.bounded else []
    if kind == 'for_rows':
        row = scope.fresh('row')
        loop_scope = Scope(f'rt.reduce_sum({row})', scope.counters, lists_ok=False, bounded=scope.bounded)
        head = [f'for {row} in m:']
    elif kind == 'for':
        index = scope.fresh('t')
        loop_scope = Scope(f'rt.cast({index}, rt.float64)', scope.counters, lists_ok=False, bounded=scope.bounded)
        trips = draw(st.sampled_from(['n', '2'])) if scope.bounded else 'n'
        head = [f'for {index} in rt.range({trips}):'] + (bound if trips == 'n' else [])
    else:
        counter = scope.fresh('k')
        loop_scope = Scope(None, scope.counters, lists_ok=False, bounded=scope.bounded)
        lines.append(f'{counter} = rt.constant(0)')
        head = [f'while {counter} < n:'] + bound + [f'    {counter} += 1']
    body = draw(blocks(loop_scope, depth - 1, True))
    if collect:
        body = [f'{acc}.append(rt.tanh({draw(vectors(loop_scope, 1))}))'] + body
    lines += head + indent(body)
    if collect:
        lines.append(f'{var} = rt.tanh(rt.reduce_sum(rt.stack({acc}), 0) + {var})')
    return lines


@st.composite
def gradient_programs(draw, bounded=False):
    """The source of a module defining ``f(x, y, m, n)`` (a scalar of float64 inputs) and Variable ``V``; with
    ``bounded``, every tensor loop has a bound known when compiling (``maximum_iterations=3``, a static range or
    shape), as ``jit_compile=True`` needs for the values a gradient keeps (tests/runtime/backends/)."""
    scope = Scope(bounded=bounded)
    body = draw(blocks(scope, 3, False))
    head = ['a = x * 1.0', 'b = y + V', 'c = x * y']
    lines = ['def f(x, y, m, n):'] + indent(head + body + [f'return {RESULT}'])
    return PRELUDE + '\n'.join(lines) + '\n'
