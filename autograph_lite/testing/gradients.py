"""Gradients you can trust: our gradients (eager tape, graph tape) against central finite differences.

Every check differentiates ``sum(f(*xs) * w)`` for a random cotangent ``w`` (seeded), so a rule is tested
with a general output gradient, not only ones. Finite differences run in float64; at a kink (``relu`` at 0,
``abs`` at 0, a tie of ``max``) they are meaningless, so ``assert_gradients_match`` moves the point slightly
when its one-sided differences disagree, unless told to check the given points as they are.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

import runtime as rt
from autograph_lite import api
from autograph_lite.testing import forms, subjects, values

EPSILON = 1e-6
_KINK_RATIO = 1e-3   # one-sided differences further apart than this (relative): a kink, not curvature


def numeric_gradients(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray) -> List[np.ndarray]:
    """Central differences of ``sum(fn(*arrays) * cotangent)`` in float64, one array per input.

    >>> import runtime as rt
    >>> numeric_gradients(lambda x: x * x, [np.array([3.0])], np.array([1.0])).pop().round(6)
    array([6.])
    """
    return [central for central, _, _ in _one_sided(fn, arrays, cotangent)]


def _objective(fn: Callable, values: Sequence[np.ndarray], cotangent: np.ndarray) -> float:
    return float(np.sum(np.asarray(fn(*[rt.constant(v) for v in values])) * cotangent))


def _one_sided(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray):
    """Per input: (central, forward, backward) differences of ``sum(fn(*arrays) * cotangent)``."""
    base = _objective(fn, arrays, cotangent)
    results = []
    for index, array in enumerate(arrays):
        # In each input's own dtype (assert_gradients_match passes float64 arrays).
        central, forward, backward = (np.zeros_like(array) for _ in range(3))
        for position in np.ndindex(np.shape(array)):
            values = [np.array(a, copy=True) for a in arrays]
            values[index][position] += EPSILON
            up = _objective(fn, values, cotangent)
            values[index][position] -= 2 * EPSILON
            down = _objective(fn, values, cotangent)
            central[position] = (up - down) / (2 * EPSILON)
            forward[position], backward[position] = (up - base) / EPSILON, (base - down) / EPSILON
        results.append((central, forward, backward))
    return results


def graph_gradients(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray,
                    dynamic: bool = False) -> List[Optional[np.ndarray]]:
    """Our gradients, built by ``rt.gradients`` while tracing ``fn`` with ``rt.function`` (``dynamic``: every dim
    unknown). ``fn`` is traced as it is (not converted)."""
    specs = [rt.TensorSpec([None] * np.ndim(a) if dynamic else np.shape(a), rt.float64) for a in arrays]
    cotangent = np.asarray(cotangent)

    def traced(xs):
        y = fn(*xs)
        return rt.gradients(y, list(xs), grad_ys=rt.constant(cotangent) if not dynamic else
                            rt.reshape(rt.constant(cotangent.ravel()), rt.shape(y)))

    function = rt.function(traced, input_signature=[specs])
    return [None if g is None else np.asarray(g) for g in function([rt.constant(a) for a in arrays])]


def tape_gradients(fn: Callable, arrays: Sequence[np.ndarray], cotangent: np.ndarray) -> List[Optional[np.ndarray]]:
    """Our gradients, recorded eagerly by ``rt.GradientTape`` while ``fn`` runs op by op.

    >>> tape_gradients(lambda x: x * x, [np.array([3.0])], np.array([1.0]))
    [array([6.])]
    """
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(*xs)
    grads = tape.gradient(y, xs, output_gradients=rt.constant(cotangent))
    return [None if g is None else np.asarray(g) for g in grads]


def converted_tape_gradients(fn: Callable, arrays: Sequence[np.ndarray]):
    """Gradients of the converted ``fn`` by a GradientTape inside one ``ag.function``; returns them and that
    function."""
    @api.function
    def grads(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return tape.gradient(y, list(xs))
    return [None if g is None else np.asarray(g) for g in grads(*[rt.constant(a) for a in arrays])], grads


def converted_eager_tape_gradients(fn: Callable, arrays: Sequence[np.ndarray]) -> List[Optional[np.ndarray]]:
    """Gradients of the converted ``fn`` run eagerly: its tensor ifs and loops run as Python, the tape records
    the ops."""
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = api.to_graph(fn)(*xs)
    return [None if g is None else np.asarray(g) for g in tape.gradient(y, xs)]


def assert_close(ours: Sequence[Optional[np.ndarray]], expected: Sequence[np.ndarray], rtol: float = 1e-5,
                 atol: float = 1e-6) -> None:
    """Each of ``ours`` (None: no gradient, taken as zeros) is close to the same input's ``expected``."""
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    assert len(ours) == len(expected), f'{len(ours)} gradients != {len(expected)} inputs'
    for index, (got, want) in enumerate(zip(ours, expected)):
        got = np.zeros_like(want) if got is None else got
        assert got.shape == want.shape, f"input {index}: gradient shape {got.shape} != {want.shape}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"gradient of input {index}")


class GradientCheck:
    """What ``assert_gradients_match`` compared: the ``point`` (the arrays used, moved off kinks if needed),
    and per input the ``numeric``, ``tape`` (eager) and ``graph`` gradients (None when not computed)."""

    def __init__(self, point, numeric, tape, graph, moved):
        self.point, self.numeric, self.tape, self.graph, self.moved = point, numeric, tape, graph, moved


def _scalar_objective(fn: Callable, weights: List[np.ndarray]) -> Callable:
    """``xs -> sum_i sum(fn(*xs)[i] * weights[i])`` over the output's tensor leaves, with runtime ops."""
    def objective(*xs):
        leaves = values.leaves(fn(*xs))
        total = rt.reduce_sum(rt.cast(leaves[0], rt.float64) * rt.constant(weights[0]))
        for leaf, weight in zip(leaves[1:], weights[1:]):
            total = total + rt.reduce_sum(rt.cast(leaf, rt.float64) * rt.constant(weight))
        return total
    return objective


def _kinks(one_sided) -> List[Tuple[int, Tuple[int, ...], float, float]]:
    found = []
    for index, (_, forward, backward) in enumerate(one_sided):
        for position in np.ndindex(forward.shape):
            right, left = float(forward[position]), float(backward[position])
            if abs(right - left) > _KINK_RATIO * max(1.0, abs(right), abs(left)):
                found.append((index, position, right, left))
    return found


def assert_gradients_match(function: Callable, *args: Any, rtol: float = 1e-5, atol: float = 1e-6,
                           graph: bool = True, at_given_points: bool = False, seed: int = 0) -> GradientCheck:
    """Assert that our gradients of ``function`` at ``args`` match central finite differences, in float64.

    Every argument is an input to differentiate; it is made a float64 tensor (write the function so that it
    works in float64). The function may return a tensor or a tuple/list/dict of them: the check
    differentiates ``sum(output * w)`` summed over outputs, for random cotangents ``w`` (seeded by ``seed``).
    Compared with the finite differences: the eager tape (``rt.GradientTape`` while the function runs op by
    op) and, with ``graph=True``, the tape inside an ``ag.function`` (the converted function, traced: tensor
    ifs and loops become If/While ops with their gradients). A missing gradient (None) counts as zeros.

    Finite differences straddling a kink are meaningless: where the one-sided differences at a point disagree,
    the check moves the point by a small random offset (up to five times) and says so in its failure. With
    ``at_given_points=True`` it checks exactly the given points (for rules at a kink, or points you chose).
    Returns a ``GradientCheck``; a mismatch raises ``AssertionError`` with each input's gradients.

    >>> import autograph_lite as ag, runtime as rt
    >>> def leaky_square(x):
    ...     if rt.reduce_sum(x) > 0:
    ...         return rt.maximum(x, 0.1 * x) + x * x
    ...     return rt.exp(x) - 1.0
    >>> check = ag.testing.assert_gradients_match(leaky_square, [0.0, 2.0])  # x = 0.0 is a kink: moved off
    >>> check.moved, check.tape[0].shape
    (True, (2,))
    """
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    python_function = forms.python_function_of(function)
    subjects.note(python_function)
    rng = np.random.default_rng(seed)
    point = [np.array(np.asarray(arg), dtype=np.float64) for arg in args]
    outputs = values.leaves(python_function(*[rt.constant(a) for a in point]))
    weights = [rng.standard_normal(np.shape(leaf)) for leaf in outputs]
    objective = _scalar_objective(python_function, weights)
    one = np.float64(1.0)
    moved = False
    for attempt in range(6):
        one_sided = _one_sided(objective, point, one)
        kinks = _kinks(one_sided)
        if not kinks or at_given_points:
            break
        if attempt == 5:
            raise AssertionError(f'{_name(python_function)}: every point tried is at a kink (one-sided differences '
                                 f'disagree: {_kink_text(kinks)}); pass points away from kinks, or '
                                 'at_given_points=True to check these as they are')
        moved = True
        point = [p + rng.uniform(-1.0, 1.0, np.shape(p)) * 1e-3 * (1.0 + np.abs(p)) for p in point]
    numeric = [central for central, _, _ in one_sided]
    tape = tape_gradients(objective, point, one)
    # Our own module is never converted: the function is, explicitly, so that its tensor ifs and loops stage.
    graph_grads = converted_tape_gradients(_scalar_objective(api.to_graph(python_function), weights), point)[0] \
        if graph else None
    problems = []
    for label, ours in (('eager tape', tape), ('graph tape', graph_grads)):
        if ours is None:
            continue
        for index, (got, want) in enumerate(zip(ours, numeric)):
            got = np.zeros_like(want) if got is None else got
            if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
                problems.append(f'input {index}: the {label} gives {got!r}, finite differences {want!r}')
    if problems:
        where = ', '.join(repr(p) for p in point)
        text = [f'{_name(python_function)}: gradients do not match finite differences (rtol={rtol}, atol={atol}) at '
                f'({where}){" (moved off a kink)" if moved else ""}:'] + [f'  {p}' for p in problems]
        if kinks:
            text.append(f'  the point is at a kink (one-sided differences disagree: {_kink_text(kinks)})')
        raise AssertionError('\n'.join(text))
    return GradientCheck(point, numeric, tape, graph_grads, moved)


def _name(function: Callable) -> str:
    return getattr(function, '__qualname__', repr(function))


def _kink_text(kinks) -> str:
    return '; '.join(f'input {i} at {list(p)}: right {r:.6g}, left {left:.6g}' for i, p, r, left in kinks[:3])
