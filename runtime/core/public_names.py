"""Public functions made by a factory (one per op) get the name they are published under, and a
TensorFlow alias (``rt.math.floormod`` for ``rt.mod``) is a copy named for itself, so ``help()``,
``repr``, tracebacks and ``__name__`` show the name the user called.

>>> def make():
...     def op(x):
...         "Doubles x."
...         return 2 * x
...     return named(op, "double")
>>> double = make()
>>> double.__name__, double.__qualname__
('double', 'double')
>>> twice = alias(double, "twice", __name__)
>>> twice.__name__, twice(4), twice.__doc__
('twice', 8, 'Doubles x.\\n\\nThe same function as ``double``, under the name ``twice``.')
"""
from __future__ import annotations

import types
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)


def named(function: F, name: str) -> F:
    """``function`` with ``__name__`` and ``__qualname__`` set to ``name`` (it stays the same object)."""
    function.__name__ = function.__qualname__ = name
    return function


def alias(function: F, name: str, module: str) -> F:
    """A copy of ``function`` (same code, defaults, closure and attributes, e.g. ``op_def``) published as
    ``module.name``; calling it is exactly calling ``function``."""
    copy = types.FunctionType(function.__code__, function.__globals__, name, function.__defaults__,
                              function.__closure__)
    copy.__dict__.update(function.__dict__)
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__annotations__ = dict(function.__annotations__)
    copy.__qualname__, copy.__module__ = name, module
    copy.__doc__ = f"{function.__doc__}\n\nThe same function as ``{function.__name__}``, under the name ``{name}``."
    return copy
