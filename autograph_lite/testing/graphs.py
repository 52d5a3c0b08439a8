"""Graph == eager: ``assert_graph_matches_eager`` and ``assert_no_stale_captures``.

The graph of an ``ag.function`` must compute what the Python function computes when it runs op by op
(``ag.run_functions_eagerly(True)``): the same results (to a tolerance), the same exception types, the same
values left in Variables. One classic way to break that is a *stale capture*: tracing reads a Python global or
closure value once and bakes it into the graph as a constant, so when the Python value changes later, the
graph keeps computing with the old one while the Python function follows the new one.
"""
from __future__ import annotations

import sys
import types
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

import runtime as rt
from autograph_lite.testing import forms, subjects
from autograph_lite.testing.traces import TraceCount, count_traces
from autograph_lite.testing.values import close_difference, leaves


class GraphEagerMismatch(AssertionError):
    """A graph computed something else than its Python function run eagerly."""


class GraphRun:
    """What ``assert_graph_matches_eager`` saw: ``graph`` and ``eager`` results, and the ``traces`` the check
    made (``traces.count``: new graphs; a second call with the same arguments must trace none)."""

    def __init__(self, graph: Any, eager: Any, traces: TraceCount):
        self.graph, self.eager, self.traces = graph, eager, traces

    def __repr__(self) -> str:
        return f'<GraphRun graph={self.graph!r} eager={self.eager!r} traces={self.traces.count}>'


def _variables_of(graph_function: rt.Function, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> List[rt.Variable]:
    found = [leaf for leaf in leaves((args, kwargs)) if isinstance(leaf, rt.Variable)]
    for concrete in graph_function.concrete_functions:
        found += [v for v in concrete.variables if isinstance(v, rt.Variable)]
    unique: Dict[int, rt.Variable] = {}
    for variable in found:
        unique.setdefault(id(variable), variable)
    return list(unique.values())


def _call(graph_function: rt.Function, args: Tuple[Any, ...], kwargs: Dict[str, Any],
          eagerly: bool) -> Tuple[Any, Optional[BaseException]]:
    try:
        with forms.eagerly(eagerly):
            return graph_function(*args, **kwargs), None
    except Exception as error:  # the exception is an outcome both sides must share
        return None, error


def _describe(result: Any, error: Optional[BaseException]) -> str:
    return f'raised {type(error).__name__}: {error}' if error is not None else f'returned {result!r}'


def _compare(graph_function: rt.Function, args: Tuple[Any, ...], kwargs: Dict[str, Any], rtol: float,
             atol: float) -> Tuple[List[str], Dict[str, Any]]:
    """Run the graph, then (Variables restored) the Python function eagerly; what differs, and what was seen."""
    with count_traces(graph_function) as traces:
        try:  # trace first, so the Variables the graph captures are known before it runs
            graph_function.get_concrete_function(*args, **kwargs)
        except Exception:
            pass  # the call below raises it again, as the outcome to compare
        traced_before_call = traces.count
        variables = _variables_of(graph_function, args, kwargs)
        before = [np.array(v.numpy(), copy=True) for v in variables]
        graph_result, graph_error = _call(graph_function, args, kwargs, eagerly=False)
    after_graph = [np.array(v.numpy(), copy=True) for v in variables]
    for variable, value in zip(variables, before):
        variable.assign(value)
    eager_result, eager_error = _call(graph_function, args, kwargs, eagerly=True)
    found = []
    if traces.count > traced_before_call:
        found.append(f'the call retraced: {traces.count - traced_before_call} more graph(s) for the arguments '
                     'it had just traced (its signature key is not stable)')
    if (graph_error is None) != (eager_error is None):
        found.append(f'outcome: the graph {_describe(graph_result, graph_error)}; eagerly it '
                     f'{_describe(eager_result, eager_error)}')
    elif graph_error is not None:
        if type(graph_error) is not type(eager_error):
            found.append(f'exception type: graph {type(graph_error).__name__} != eager {type(eager_error).__name__}')
    else:
        mismatch = close_difference(graph_result, eager_result, rtol, atol)
        if mismatch:
            found.append(f'result{"" if mismatch.startswith("[") else ": "}{mismatch}')
    for variable, graph_value in zip(variables, after_graph):
        mismatch = close_difference(graph_value, np.array(variable.numpy()), rtol, atol)
        if mismatch:
            found.append(f'Variable {variable.name!r} afterwards: graph vs eager: {mismatch}')
    seen = dict(graph=(graph_result, graph_error), eager=(eager_result, eager_error), traces=traces)
    return found, seen


def _call_text(function: rt.Function, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> str:
    shown = ', '.join([repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()])
    return f'{getattr(function, "__name__", "function")}({shown})'


def assert_graph_matches_eager(function: Callable, *args: Any, rtol: float = 1e-6, atol: float = 1e-6,
                               **kwargs: Any) -> GraphRun:
    """Assert that ``function`` run as a graph gives what it gives run eagerly, op by op, on these arguments.

    ``function`` is an ``ag.function`` (its traces are reused) or a Python function (wrapped in a new one).
    Compared: results (same structure, dtypes and shapes; numbers within ``rtol``/``atol``), the exception
    type when one raises, and the values left in Variables (those among the arguments and those the graph
    captured; they are restored between the two runs, so each starts from the same state and the function
    runs as if called once). It also checks the trace count: the check traces at most one new graph, and a
    call with the arguments just traced must not retrace. Returns a ``GraphRun`` (``graph``, ``eager``,
    ``traces``); the failure (``GraphEagerMismatch``) shows both sides and the traces.

    >>> import autograph_lite as ag, runtime as rt
    >>> def soft_clip(x):
    ...     while rt.reduce_max(rt.abs(x)) > 1.0:
    ...         x = x / 2
    ...     return x
    >>> run = ag.testing.assert_graph_matches_eager(soft_clip, rt.constant([3.0, -1.0]))
    >>> run.graph, run.traces.count
    (Tensor([ 0.75 -0.25], shape=(2,), dtype=float32), 1)
    """
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    graph_function = forms.graph_function_of(function)
    subjects.note(graph_function.python_function)
    found, seen = _compare(graph_function, args, kwargs, rtol, atol)
    if found:
        traces = seen['traces']
        raise GraphEagerMismatch('\n'.join(
            [f'{_call_text(graph_function, args, kwargs)}: the graph does not match eager execution:']
            + [f'  {item}' for item in found]
            + [f'  graph: {_describe(*seen["graph"])}', f'  eager: {_describe(*seen["eager"])}',
               f'  traces made by this check ({traces.count}; the function holds '
               f'{graph_function.experimental_get_tracing_count()} in all):', traces.describe()]))
    return GraphRun(seen['graph'][0], seen['eager'][0], seen['traces'])


# --- stale captures -------------------------------------------------------------------------------------
_LIBRARY_ROOTS = frozenset({'autograph_lite', 'runtime', 'numpy', 'builtins', 'hypothesis', 'pytest', '_pytest'}
                           | set(getattr(sys, 'stdlib_module_names', ())))


def _is_user_function(value: Any) -> bool:
    return isinstance(value, types.FunctionType) and \
        (getattr(value, '__module__', None) or '').split('.')[0] not in _LIBRARY_ROOTS


def _names_read(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _names_read(constant)


class _Capture:
    """A global or closure value a function reads: its place, so that it can be changed and put back."""

    def __init__(self, name: str, description: str, read: Callable[[], Any], write: Callable[[Any], None]):
        self.name, self.description, self.read, self.write = name, description, read, write


def _captures(function: Callable, seen: Optional[set] = None) -> Iterator[_Capture]:
    """The globals and closure values ``function`` (and the user functions it refers to) read."""
    seen = set() if seen is None else seen
    function = getattr(function, '__func__', function)
    if not isinstance(function, types.FunctionType) or function.__code__ in seen:
        return
    seen.add(function.__code__)
    module_globals = function.__globals__
    for name in dict.fromkeys(_names_read(function.__code__)):
        if name in module_globals:
            value = module_globals[name]
            if _is_user_function(value):
                yield from _captures(value, seen)
            else:
                yield _Capture(name, f'global {name!r} (module {module_globals.get("__name__", "?")})',
                               lambda name=name: module_globals[name],
                               lambda new, name=name: module_globals.__setitem__(name, new))
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if _is_user_function(value):
            yield from _captures(value, seen)
        else:
            yield _Capture(name, f'closure variable {name!r} of {function.__qualname__}',
                           lambda cell=cell: cell.cell_contents,
                           lambda new, cell=cell: setattr(cell, 'cell_contents', new))


def changed_value(value: Any) -> Any:
    """A different value of the same kind, to see whether a graph follows it; ``None``: not a value a graph
    would bake in (functions, modules, Variables, strings...)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value + 1 if value != -1 else value + 2
    if isinstance(value, np.ndarray) and value.dtype.kind in 'biuf':
        return ~value if value.dtype.kind == 'b' else value + 1
    if isinstance(value, rt.Tensor) and not isinstance(value, rt.Variable) and not rt.is_symbolic(value):
        changed = changed_value(value.numpy())
        return None if changed is None else rt.constant(changed, value.dtype)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, float)) for v in value):
        return type(value)(changed_value(v) for v in value)
    return None


def assert_no_stale_captures(function: Callable, *args: Any, rtol: float = 1e-6, atol: float = 1e-6,
                             constants: Sequence[str] = (), **kwargs: Any) -> None:
    """Assert that the graph of ``function`` does not hold on to Python global or closure values.

    First the graph as it is now must match eager execution (an ``ag.function`` traced earlier, when a global
    held another value, fails here). Then every number, bool, array, constant tensor or list of numbers the
    function reads from its globals and closures (and from those of the user functions it refers to) is
    changed in turn: where the Python function follows the new value and the graph, reused without a retrace,
    does not, the value was baked into the graph when it was traced. Each value is put back afterwards.
    Values that change nothing eagerly are not reported; ``constants`` names globals and closure variables that
    never change (a graph may keep them). The failure names each stale value and says how to fix it.

    >>> import autograph_lite as ag, runtime as rt
    >>> OFFSET = rt.Variable(1.0)          # a Variable is read on every call: never stale
    >>> def shifted(x):
    ...     return x + OFFSET
    >>> ag.testing.assert_no_stale_captures(shifted, rt.constant(2.0))
    >>> EPSILON = 1e-7                     # never changes: a graph may keep it
    >>> def safe_inverse(x):
    ...     return 1.0 / (x + EPSILON)
    >>> ag.testing.assert_no_stale_captures(safe_inverse, rt.constant(2.0), constants=['EPSILON'])
    """
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    graph_function = forms.graph_function_of(function)
    python_function = graph_function.python_function
    subjects.note(python_function)
    problems = []
    found, seen = _compare(graph_function, args, kwargs, rtol, atol)
    if found:
        problems.append('the graph as traced does not match eager execution now (a Python value it captured when '
                        'it was traced has changed since?):\n' + '\n'.join(f'    {item}' for item in found))
    for capture in _captures(python_function):
        if capture.name in constants:
            continue
        value = capture.read()
        new = changed_value(value)
        if new is None:
            continue
        capture.write(new)
        try:
            found, seen = _compare(graph_function, args, kwargs, rtol, atol)
        finally:
            capture.write(value)
        if found and not any(item.startswith('the call retraced') for item in found):
            problems.append(
                f'{capture.description} = {value!r} was baked into the graph when it was traced: with it set to '
                f'{new!r}, eagerly the function {_describe(*seen["eager"])}, but the graph (not retraced) still '
                f'{_describe(*seen["graph"])}')
    if problems:
        raise GraphEagerMismatch(
            f'{_call_text(graph_function, args, kwargs)}: stale captures:\n' + '\n'.join(f'  {p}' for p in problems)
            + '\n  A graph reads Python values once, while tracing. Pass the value as an argument (a tensor, e.g. '
              'rt.constant(value), so it is read on every call), hold it in an rt.Variable and assign to it, or '
              'keep it constant for the life of the function.')
