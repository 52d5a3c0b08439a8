"""Counting traces: "these calls make one graph".

``count_traces()`` records every trace any ``ag.function`` makes inside it (or only those of the functions
it is given); ``assert_traces(f, calls, expected=N)`` makes the calls and fails, listing each trace's
signature and the call that caused it, unless exactly ``N`` graphs were traced.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple

import runtime as rt
from autograph_lite.testing import forms, subjects
from runtime.tracing import function as function_module


class Trace:
    """One trace: the function traced and the concrete function it made."""

    def __init__(self, function: rt.Function, concrete: rt.ConcreteFunction, call: Optional[int]):
        self.function = function
        self.concrete = concrete
        self.call = call  # the index of the call of assert_traces that caused it, if known

    def describe(self) -> str:
        caused = f' (call #{self.call})' if self.call is not None else ''
        return f'{self.concrete.pretty_printed_signature().splitlines()[0]}{caused}'


class TraceCount:
    """The traces recorded by ``count_traces``: ``count``, ``traces``, ``of(function)``."""

    def __init__(self, functions: Tuple[rt.Function, ...] = ()):
        self._functions = functions
        self.traces: List[Trace] = []
        self.graphs: Optional[int] = None   # set by assert_traces: the distinct graphs its calls used
        self._call: Optional[int] = None

    def _observe(self, function: rt.Function, concrete: rt.ConcreteFunction) -> None:
        if not self._functions or any(function is f for f in self._functions):
            self.traces.append(Trace(function, concrete, self._call))

    @property
    def count(self) -> int:
        """How many graphs were traced."""
        return len(self.traces)

    def of(self, function: Callable) -> int:
        """How many graphs ``function`` (an ``ag.function``, or the Python function under one) traced."""
        return sum(1 for trace in self.traces if trace.function is function or trace.function.python_function is
                   function)

    def describe(self) -> str:
        """One line per trace: the function, its signature, the call that caused it."""
        return '\n'.join(f'  {trace.describe()}' for trace in self.traces) or '  (no traces)'

    def __repr__(self) -> str:
        return f'<TraceCount {self.count}>'


@contextlib.contextmanager
def count_traces(*functions: rt.Function) -> Iterator[TraceCount]:
    """Count the traces made inside the ``with`` block: of every ``ag.function``, or only of ``functions``.

    >>> import autograph_lite as ag, runtime as rt
    >>> @ag.function
    ... def double(x):
    ...     return x * 2
    >>> with ag.testing.count_traces() as traces:
    ...     _ = double(rt.constant(1.0)), double(rt.constant(2.0)), double(rt.constant([1.0]))
    >>> traces.count, traces.of(double)
    (2, 2)
    """
    for function in functions:
        if not isinstance(function, rt.Function):
            raise TypeError(f'count_traces: {function!r} is not an ag.function (only those trace); pass the '
                            'decorated function')
    counter = TraceCount(functions)
    function_module.trace_observers.append(counter._observe)
    try:
        yield counter
    finally:
        function_module.trace_observers.remove(counter._observe)


def _as_call(call: Any) -> Tuple[Any, ...]:
    return call if isinstance(call, tuple) else (call,)


def assert_traces(function: Callable, calls: Iterable[Any], expected: int = 1) -> TraceCount:
    """Call ``function`` once per item of ``calls`` and assert that the calls use exactly ``expected`` graphs.

    ``function`` is an ``ag.function`` (a Python function is wrapped in a new one). Each item of ``calls`` is a
    tuple of positional arguments (anything else is the one argument). Graphs traced before count too: what
    is checked is how many distinct graphs serve these calls. Returns the ``TraceCount`` of the traces made
    now, with ``graphs`` set to that number. The failure lists the graph each call used and every trace made.

    >>> import autograph_lite as ag, runtime as rt
    >>> @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ... def total(x):
    ...     return rt.reduce_sum(x)
    >>> ag.testing.assert_traces(total, [rt.constant([1.0]), rt.constant([1.0, 2.0])], expected=1).graphs
    1
    """
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    graph_function = forms.graph_function_of(function)
    subjects.note(graph_function.python_function)
    calls = [_as_call(call) for call in calls]
    used: List[Any] = []   # the concrete function of each call
    with count_traces(graph_function) as counter:
        for index, call in enumerate(calls):
            counter._call = index
            used.append(graph_function.get_concrete_function(*call))
            graph_function(*call)   # runs it: a trace here would be a retrace of what was just traced
    graphs: List[Any] = []   # distinct, in first use order (by identity: concrete functions do not define ==)
    numbers = []
    for concrete in used:
        number = next((i for i, known in enumerate(graphs) if known is concrete), len(graphs))
        if number == len(graphs):
            graphs.append(concrete)
        numbers.append(number)
    counter.graphs = len(graphs)
    retraced = counter.count - sum(1 for trace in counter.traces if any(trace.concrete is c for c in used))
    if counter.graphs != expected or retraced:
        name = getattr(graph_function, '__name__', repr(graph_function))
        per_call = '\n'.join(f'  call #{i} {_short_call(call)} -> graph {number}: '
                             f'{concrete.pretty_printed_signature().splitlines()[0]}'
                             for i, (call, number, concrete) in enumerate(zip(calls, numbers, used)))
        retraces = f' ({retraced} retrace(s) of a signature just traced)' if retraced else ''
        raise AssertionError(
            f'{name}: {len(calls)} call(s) use {counter.graphs} graph(s), expected {expected}{retraces}:\n'
            f'{per_call}\n  traced during the calls ({counter.count}):\n{_indented(counter.describe())}\n'
            '  (a Python value in the arguments is part of the signature by value; a tensor by dtype and shape: '
            'pass tensors, or declare input_signature=[rt.TensorSpec([None], ...)], or reduce_retracing=True)')
    return counter


def _indented(text: str) -> str:
    return '\n'.join('  ' + line for line in text.splitlines())


def _short_call(call: Tuple[Any, ...]) -> str:
    text = ', '.join(repr(arg) for arg in call)
    text = text if len(text) < 80 else text[:77] + '...'
    return f'({text})'
