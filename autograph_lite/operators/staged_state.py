"""What a staged ``if`` or loop may carry as state, and how to describe it in error messages.

A state variable of a staged construct must become a graph value: a tensor, a Python number/bool
(converted to a tensor), a numpy array, or a tuple/list/dict of those.  Anything else (``None``, strings,
functions, arbitrary objects) can only pass through unchanged.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import runtime as rt
from autograph_lite.contract import GLOBAL, RETURN_VALUE, Roles
from autograph_lite.operators.variables import PartialReturnValue, Undefined, UndefinedReturnValue

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import all, bool, dict, float, int, isinstance, len, list, str, tuple, type

_SCALARS = (bool, int, float, np.generic, np.ndarray)


def is_stageable(value: Any) -> bool:
    """True if ``value`` can be an input/output of a graph ``If``/``While``."""
    if isinstance(value, (rt.Tensor, rt.TensorList, rt.TensorArray) + _SCALARS):
        return True
    if isinstance(value, (tuple, list)) and value:
        return all(is_stageable(item) for item in value)
    if isinstance(value, dict) and value:
        return all(is_stageable(item) for item in value.values())
    return False


def describe(value: Any) -> str:
    """A short phrase for error messages: 'a tensor of dtype int32 and shape ()', 'None', ..."""
    if isinstance(value, (Undefined, UndefinedReturnValue)):
        return "undefined"
    if isinstance(value, PartialReturnValue):
        return describe(value.value)
    if value is None:
        return "None"
    if isinstance(value, rt.Tensor):
        shape = "unknown" if value.shape is None else tuple(value.shape)
        return f"a tensor of dtype {value.dtype.name} and shape {shape}"
    if isinstance(value, rt.TensorList):
        return f"a tensor list of {value.element_dtype.name} elements"
    if isinstance(value, rt.TensorArray):
        return f"a TensorArray of {value.dtype.name} elements"
    if isinstance(value, (tuple, list)):
        items = ", ".join(describe(item) for item in value)
        return f"a {type(value).__name__} of ({items})"
    if isinstance(value, dict):
        items = ", ".join(f"{key!r}: {describe(item)}" for key, item in value.items())
        return f"a dict of {{{items}}}"
    if isinstance(value, (bool, int, float)):
        return f"a Python {type(value).__name__} (staged as {rt.as_dtype(type(value)).name})"
    return f"a Python {type(value).__name__}"


def dtype_of(value: Any) -> Any:
    """The dtype ``value`` has (or gets when converted to a tensor); None for structures."""
    if isinstance(value, rt.Tensor):
        return value.dtype
    if isinstance(value, (np.ndarray, np.generic)):
        return rt.as_dtype(value.dtype)
    if isinstance(value, (bool, int, float)):
        return rt.as_dtype(type(value))
    return None


def placeholder_like(value: Any) -> Any:
    """Zeros with the dtype and structure of ``value`` (unknown dims become 0), built in the current graph.

    Stands in for a value that only some paths define, on the paths that do not need it.
    """
    if isinstance(value, PartialReturnValue):
        return placeholder_like(value.value)
    if isinstance(value, (tuple, list)):
        return type(value)(placeholder_like(item) for item in value)
    if isinstance(value, dict):
        return {key: placeholder_like(item) for key, item in value.items()}
    if isinstance(value, rt.TensorList):
        return rt.TensorList.empty(value.element_dtype, value.element_shape)
    if isinstance(value, rt.TensorArray):
        return rt.TensorArray(value.dtype, 0, dynamic_size=value.dynamic_size, element_shape=value.element_shape)
    if isinstance(value, rt.Tensor):
        shape = () if value.shape is None else tuple(0 if dim is None else dim for dim in value.shape)
        return rt.zeros(shape, value.dtype)
    return rt.zeros((), dtype_of(value))


def display_name(symbol_name: str, roles: Roles) -> str:
    """How error messages refer to a state variable: quoted, or 'the return value' for ``retval_``.

    >>> display_name('retval_', Roles({'retval_': RETURN_VALUE}, ['retval_'])), display_name('x', Roles({}, ['x']))
    ('the return value', "'x'")
    """
    if roles.of(symbol_name) == RETURN_VALUE:
        return "the return value"
    return f"'{symbol_name}'"


def check_no_rebound_globals(roles: Roles, symbol_names: Sequence[str], construct: str) -> None:
    """Refuse to stage an ``if``/loop (``construct``) that rebinds a Python global (role ``global``).

    Staged, the global's new value would be a symbolic tensor of a graph under construction, left in
    the module after the trace.  Called before any tracing, so the global keeps its value.

    >>> check_no_rebound_globals(Roles({'total': GLOBAL}, ['total']), ('total',), 'loop')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    runtime.core.errors.StateError: 'total' is a Python global rebound inside a tensor-dependent loop; ...
    """
    rebound = [name for name in symbol_names if roles.of(name) == GLOBAL]
    if not rebound:
        return
    names, first = " and ".join(f"'{name}'" for name in rebound), rebound[0]
    if len(rebound) == 1:
        problem = "is a Python global rebound", "its new value would be a symbolic tensor that exists"
    else:
        problem = "are Python globals rebound", "their new values would be symbolic tensors that exist"
    raise rt.errors.StateError(
        f"{names} {problem[0]} inside a tensor-dependent {construct}; {problem[1]} only while the graph runs, "
        "so a module global cannot keep it. Keep the value in a local variable (drop the `global` statement) "
        f"and return it, or make the global an rt.Variable and update it in place with {first}.assign(...) / "
        f"{first}.assign_add(...)")
