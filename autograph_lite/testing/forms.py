"""The ways a function can run: its two converted forms, and the four modes a test compares.

A converted function has two forms (docs/GENERATED_CODE.md): the *plain form*, which runs on Python
values outside a graph (the user's own statements), and the *staged form*, which runs while tracing (every
``if``/loop an ``ag__`` call). ``in_form`` runs converted code in one of them, so that tests can check the
staged form on Python values too (it is what runs for Python values while a graph is traced).

``MODES`` are the four ways a test of a function can run it: ``eager`` (the original Python function, op
by op, as under ``ag.run_functions_eagerly(True)``), ``graph`` (``ag.function``: traced, then run as a
graph), ``plain`` and ``staged`` (``ag.to_graph``, in each form).

>>> def magnitude(x):
...     return x if x > 0 else -x
>>> import autograph_lite as ag
>>> [in_form(form, ag.to_graph(magnitude), -3) for form in FORMS]
[3, 3]
>>> import runtime as rt
>>> [(mode.name, float(mode.run(magnitude, rt.constant(-2.0)))) for mode in MODES]
[('eager', 2.0), ('graph', 2.0), ('plain', 2.0), ('staged', 2.0)]
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, ContextManager, Dict, Iterator, Tuple

import runtime as rt
from autograph_lite import api, calls
from autograph_lite.operators.forms import staged_form_always

PLAIN_FORM = 'plain form'
STAGED_FORM = 'staged form'
FORMS: Tuple[str, str] = (PLAIN_FORM, STAGED_FORM)


def form_context(form: str) -> ContextManager[None]:
    """The context in which converted functions run ``form`` (one of ``FORMS``)."""
    if form not in FORMS:
        raise ValueError(f'unknown form {form!r}; one of {FORMS}')
    return staged_form_always() if form == STAGED_FORM else contextlib.nullcontext()


def in_form(form: str, function: Callable, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with converted functions running ``form``."""
    with form_context(form):
        return function(*args, **kwargs)


def python_function_of(function: Callable) -> Callable:
    """The Python function under an ``ag.function``/``rt.Function`` or an ``ag.to_graph`` wrapper (itself
    otherwise)."""
    if isinstance(function, rt.Function):
        function = function.python_function
    return calls.converted_from(function) or function


def graph_function_of(function: Callable) -> rt.Function:
    """``function`` if it is an ``ag.function``/``rt.Function`` (its traces are kept), else a new ``ag.function``."""
    if isinstance(function, rt.Function):
        return function
    if not callable(function):
        raise TypeError(f'expected a Python function or an ag.function, got {type(function).__name__}: {function!r}')
    return api.function(function)


@contextlib.contextmanager
def eagerly(flag: bool) -> Iterator[None]:
    """``ag.run_functions_eagerly(flag)`` inside the block, the previous setting after it."""
    was_eager = rt.functions_run_eagerly()
    rt.run_functions_eagerly(flag)
    try:
        yield
    finally:
        rt.run_functions_eagerly(was_eager)


class Mode:
    """One way of running a function: ``mode.run(f, *args, **kwargs)``.

    ``f`` may be a Python function or an ``ag.function``; ``graph`` runs an ``ag.function`` as it is (its
    traces are reused) and wraps a Python function in a new one.
    """

    def __init__(self, name: str, description: str, run: Callable[..., Any]):
        self.name = name
        self.description = description
        self._run = run

    def run(self, function: Callable, *args: Any, **kwargs: Any) -> Any:
        return self._run(function, args, kwargs)

    def __repr__(self) -> str:
        return f'<ag.testing mode {self.name}: {self.description}>'


def _run_eager(function: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    with eagerly(True):
        return graph_function_of(function)(*args, **kwargs)


def _run_graph(function: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    with eagerly(False):
        return graph_function_of(function)(*args, **kwargs)


def _converted_in(form: str) -> Callable[..., Any]:
    def run(function: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        return in_form(form, api.to_graph(python_function_of(function)), *args, **kwargs)
    return run


EAGER = Mode('eager', 'the original Python function, op by op (run_functions_eagerly)', _run_eager)
GRAPH = Mode('graph', 'ag.function: traced into a graph, run as a graph', _run_graph)
PLAIN = Mode('plain', 'ag.to_graph, its plain form (run on Python values outside a graph)', _converted_in(PLAIN_FORM))
STAGED = Mode('staged', 'ag.to_graph, its staged form (what a trace runs), run outside a graph',
              _converted_in(STAGED_FORM))
MODES: Tuple[Mode, ...] = (EAGER, GRAPH, PLAIN, STAGED)
