"""Run converted code in each of its two forms (docs/GENERATED_CODE.md) -- now the public
``autograph_lite.testing.forms`` (kept here so that ``from converted_forms import ...`` keeps working).

>>> def f(x):
...     return x if x > 0 else -x
>>> import autograph_lite as ag
>>> [in_form(form, ag.to_graph(f), -3) for form in FORMS]
[3, 3]
"""
from typing import Any, Callable

from autograph_lite.testing import forms
from autograph_lite.testing.forms import FORMS, form_context  # noqa: F401


def in_form(form: str, function: Callable, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with converted functions running ``form``.

    A def of this module, not an import: test_differential_frames.py compiles a function from a string
    under this module's name at this def's line."""
    return forms.in_form(form, function, *args, **kwargs)
