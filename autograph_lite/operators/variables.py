"""Placeholders for variables that have no value yet at some point of a converted function.

``Undefined('x')`` stands for a local that Python would not have bound yet (the converter emits
``x = ag__.Undefined('x')`` before an ``if``/loop that may define it).  On Python values it behaves
like the missing variable: any use raises ``UnboundLocalError`` just as the original would.

``UndefinedReturnValue()`` is the initial ``retval_`` of a function with ``return`` statements.
``return_value(retval_)`` turns what ``retval_`` holds at the end of the function into the value the
caller sees (``None`` when no ``return`` ran, as in Python).

>>> x = Undefined('x')
>>> x + 1
Traceback (most recent call last):
  ...
UnboundLocalError: cannot access local variable 'x' where it is not associated with a value
"""
from __future__ import annotations

from typing import Any, Callable, NoReturn

from runtime.core import errors

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import IndexError, KeyError, delattr, getattr, str, type


UNBOUND_MESSAGE = "cannot access local variable '{}' where it is not associated with a value"  # Python's words


class Undefined:
    """A variable named ``symbol_name`` that has not been assigned yet.

    >>> Undefined('y').symbol_name
    'y'
    """

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str):
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name!r})"

    def _unbound(self, *args: Any, **kwargs: Any) -> NoReturn:
        # Same type and wording as the running CPython for reading an unassigned local; the name rides
        # along so a staged loop can tell which of its variables was read too early.
        error = UnboundLocalError(UNBOUND_MESSAGE.format(self.symbol_name))
        error.symbol_name = self.symbol_name
        raise error

    def __getattr__(self, name: str) -> NoReturn:
        self._unbound()

    # Every use Python would reach by evaluating the name; __repr__ stays usable for debugging.
    __str__ = __format__ = __bool__ = __len__ = __iter__ = __call__ = _unbound
    __getitem__ = __setitem__ = __delitem__ = __contains__ = _unbound
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unbound
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unbound
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = _unbound
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = _unbound
    __lshift__ = __rshift__ = __int__ = __float__ = __index__ = __hash__ = _unbound


def defined(value: Any) -> Any:
    """``value``, read where Python evaluates a name that may have no value yet (what a ``return``
    returns): an ``Undefined`` raises UnboundLocalError, as reading the unassigned local would.

    >>> defined(3)
    3
    >>> defined(Undefined('j'))
    Traceback (most recent call last):
      ...
    UnboundLocalError: cannot access local variable 'j' where it is not associated with a value
    """
    if type(value) is Undefined:
        value._unbound()
    return value


FREE_UNBOUND_MESSAGE = "cannot access free variable '{}' where it is not associated with a value in enclosing scope"


def defined_free(value: Any) -> Any:
    """``value``, read by a function nested in the one that deleted it: an ``Undefined`` raises the
    NameError Python raises for an empty free variable.

    >>> defined_free(Undefined('a'))
    Traceback (most recent call last):
      ...
    NameError: cannot access free variable 'a' where it is not associated with a value in enclosing scope
    """
    if type(value) is Undefined:
        raise NameError(FREE_UNBOUND_MESSAGE.format(value.symbol_name))
    return value


def deleted(value: Any, symbol_name: str) -> Undefined:
    """What ``del x`` leaves in ``x`` (converters/deletions.py): ``Undefined('x')``, after raising as
    Python does when ``x`` has no value to delete.

    >>> deleted(3, 'x')
    Undefined('x')
    >>> deleted(Undefined('x'), 'x')
    Traceback (most recent call last):
      ...
    UnboundLocalError: cannot access local variable 'x' where it is not associated with a value
    """
    defined(value)
    return Undefined(symbol_name)


def value_or_undefined(read: Callable[[], Any], symbol_name: str) -> Any:
    """``read()``, or ``Undefined(symbol_name)`` when the attribute/item it reads does not exist yet (or the
    variable it reads was deleted with ``del``).

    >>> value_or_undefined(lambda: {}['key'], "d['key']")
    Undefined("d['key']")
    """
    try:
        return read()
    except (AttributeError, KeyError, IndexError, NameError):   # NameError: a variable the construct deleted
        return Undefined(symbol_name)


def del_attr_if_undefined(owner: Any, attribute: str) -> None:
    """Remove ``owner.attribute`` if it holds an ``Undefined``: what set_state ends with for an attribute that
    may not exist before an if/loop (``value_or_undefined``), so that restoring the state before it leaves the
    object without the attribute, as it was, instead of holding the placeholder.

    >>> class Box: pass
    >>> box = Box(); box.value = Undefined('box.value')
    >>> del_attr_if_undefined(box, 'value'); hasattr(box, 'value')
    False
    """
    if type(getattr(owner, attribute, None)) is Undefined:
        delattr(owner, attribute)


def del_item_if_undefined(owner: Any, key: Any) -> None:
    """``del_attr_if_undefined`` for an item (``d['key']``).

    >>> d = {'key': Undefined("d['key']"), 'other': 1}
    >>> del_item_if_undefined(d, 'key'); d
    {'other': 1}
    """
    try:
        value = owner[key]
    except (KeyError, IndexError):
        return
    if type(value) is Undefined:
        del owner[key]


class UndefinedReturnValue:
    """The value of ``retval_`` before any ``return`` statement ran."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UndefinedReturnValue()"


class PartialReturnValue:
    """``retval_`` after a staged ``if``/loop where only some paths executed a ``return``.

    ``value`` is what was returned on the paths that returned (a placeholder of the same dtype and
    shape on the others).  It becomes a normal value as soon as a later statement returns on the
    remaining paths; if the end of the function is reached first, ``return_value`` raises.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __repr__(self) -> str:
        return f"PartialReturnValue({self.value!r})"


MISSING_RETURN_MESSAGE = (
    "a return inside a tensor-dependent if or loop must return a value on every path: some paths of "
    "this function reach its end without a return, and a graph cannot return a tensor on some runs "
    "and None on others. Add a return (of the same dtype and structure) after the if/loop")


def return_value(retval: Any, every_path_returns: bool = False) -> Any:
    """What a converted function returns, given the final ``retval_``. ``every_path_returns``: the converter
    knows that only a ``return`` reaches this point (the function ends in a ``while True:`` loop), so a
    value that a staged loop returned on some of its paths was returned on all of them.

    >>> return_value(UndefinedReturnValue()) is None
    True
    >>> return_value(PartialReturnValue(7), every_path_returns=True)
    7
    """
    if type(retval) is UndefinedReturnValue:
        return None
    if type(retval) is PartialReturnValue:
        if every_path_returns:
            return retval.value
        raise errors.StateError(MISSING_RETURN_MESSAGE)
    return retval
