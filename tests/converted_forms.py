"""Run converted code in each of its two forms (docs/GENERATED_CODE.md): the plain form, which runs on
Python values outside a graph, and the staged form, which runs while tracing (also for Python values,
e.g. a Python loop that unrolls). Tests that compare converted with original code on Python values
check both, so the staged form keeps its coverage on Python values.

>>> def f(x):
...     return x if x > 0 else -x
>>> import autograph_lite as ag
>>> [in_form(form, ag.to_graph(f), -3) for form in FORMS]
[3, 3]
"""
import contextlib
from typing import Any, Callable

from autograph_lite.operators.forms import staged_form_always

FORMS = ('plain form', 'staged form')


def form_context(form: str):
    """The context in which converted functions run ``form``."""
    if form not in FORMS:
        raise ValueError(f'unknown form {form!r}; one of {FORMS}')
    return staged_form_always() if form == 'staged form' else contextlib.nullcontext()


def in_form(form: str, function: Callable, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with converted functions running ``form``."""
    with form_context(form):
        return function(*args, **kwargs)
