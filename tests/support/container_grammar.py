"""More statements for ``tensor_functions`` (tensor_program_grammar.py): the constructs added last, drawn where a
tensor ``if`` or loop may surround them.

- ``containers``: a local dict ``d`` and list ``xs`` (three items) changed in place: item assignment,
  augmented item assignment, ``append`` then ``pop``, ``d.update``, and an alias made on the spot
  (``ys = xs`` then ``ys[k] = ...``); their items are read by expressions and by the return value
- ``match``: a ``match`` on a variable with value, ``|``, guard and ``as`` cases
- ``walrus_while``: a ``while`` whose test advances its counter with ``:=``
- ``chain``: a comparison chain whose middle operand is a walrus (``if 0 <= (a := e) < 50:``)

Every drawn program ends (counters advance first) and keeps its ints small (``% 97``).
"""
from typing import List

from hypothesis import strategies as st

CONTAINER_KINDS = ('containers', 'match', 'walrus_while', 'chain')
# What the return value adds when the function has the containers (so every change is observed).
CONTAINER_TAIL = "d['u'] * 7 + d['v'] * 11 + xs[0] * 13 + xs[1] * 17 + xs[2] * 19"
CONTAINER_HEAD = ["d = {'u': 0, 'v': 1}", 'xs = [1, 2, 3]']
CONTAINER_READS = ["d['u']", 'xs[1]']


def _indent(lines: List[str]) -> List[str]:
    return ['    ' + line for line in lines]


@st.composite
def container_statements(draw, kind: str, scope, expr, cond, inner, loop_inner) -> List[str]:
    """The lines of one statement of ``kind`` (a feature of CONTAINER_KINDS); ``expr``/``cond`` draw an int
    expression and a condition, ``inner``/``loop_inner`` a nested block (in a loop for the latter)."""
    var = draw(st.sampled_from(['a', 'b', 'c']))
    if kind == 'containers':
        k = draw(st.integers(0, 2))
        # An alias now and then: with one, a tensor loop that changes xs anywhere is a (documented) refusal.
        form = draw(st.sampled_from(['set_dict', 'aug_dict', 'set_list', 'aug_list', 'append_pop', 'update'] * 3
                                    + ['alias']))
        if form == 'set_dict':
            return [f"d['{draw(st.sampled_from('uv'))}'] = {draw(expr)}"]
        if form == 'aug_dict':
            key = draw(st.sampled_from('uv'))
            return [f"d['{key}'] += {draw(expr)}", f"d['{key}'] = d['{key}'] % 97"]
        if form == 'set_list':
            return [f'xs[{k}] = {draw(expr)}']
        if form == 'aug_list':
            return [f'xs[{k}] += {draw(expr)}', f'xs[{k}] = xs[{k}] % 97']
        if form == 'append_pop':
            popped = scope.fresh('q')
            return [f'xs.append({draw(expr)})', f'{popped} = xs.pop()', f'xs[{k}] = (xs[{k}] + {popped}) % 97']
        if form == 'update':
            return [f"d.update(u={draw(expr)})"]
        alias = scope.fresh('ys')
        return [f'{alias} = xs', f'{alias}[{k}] = {draw(expr)}']
    if kind == 'match':
        bound = scope.fresh('m')
        lines = [f'match {var}:', '    case 0:'] + _indent(_indent(draw(inner)))
        lines += ['    case 1 | 2:'] + _indent(_indent(draw(inner)))
        lines += [f'    case {bound} if {bound} > 40:', f'        {var} = ({bound} - 40) % 97']
        lines += [f'    case (3 | 4) as {bound}:', f'        b = ({bound} * 5) % 97']
        lines += ['    case _:'] + _indent(_indent(draw(inner)))
        return lines
    if kind == 'walrus_while':
        counter = scope.fresh('w')
        lines = [f'{counter} = 0', f'while ({counter} := {counter} + 1) <= n:'] + _indent(draw(loop_inner))
        if draw(st.booleans()):
            lines += ['else:', f'    {var} = ({var} + {counter}) % 97']
        return lines
    # chain: the walrus is the middle operand, so it is always evaluated (the last one is not).
    low, high = draw(st.integers(0, 10)), draw(st.integers(20, 60))
    return [f'if {low} <= ({var} := {draw(expr)}) < {high}:'] + _indent(draw(inner))
