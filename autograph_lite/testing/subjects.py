"""The functions the assertions of ``autograph_lite.testing`` were given during the current test: the pytest
plugin shows their generated code when the test fails. Held weakly; the plugin clears the list per test.

>>> def f(x):
...     return x
>>> clear(); note(f); [g.__name__ for g in noted()]
['f']
>>> clear()
"""
from __future__ import annotations

import weakref
from typing import Callable, List

_noted: List['weakref.ref[Callable]'] = []


def note(function: Callable) -> None:
    """Remember ``function`` as a subject of the current test (once)."""
    if any(ref() is function for ref in _noted):
        return
    try:
        _noted.append(weakref.ref(function))
    except TypeError:  # not weakly referenceable: not shown
        pass


def noted() -> List[Callable]:
    """The subjects still alive, in the order first noted."""
    return [function for function in (ref() for ref in _noted) if function is not None]


def clear() -> None:
    _noted.clear()
