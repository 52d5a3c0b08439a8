"""Builtins whose result depends on the frame that runs them, and the uses of them converted code cannot keep.

``locals()``, ``vars()``, ``dir()``, and ``eval``/``exec`` without explicit globals read the local
variables of the frame that calls them; ``globals()`` reads its globals; zero-argument ``super()`` reads
its first argument and ``__class__`` cell. Converted code calls through ``ag__.converted_call`` and keeps
variables in generated functions, so these would silently see other names and values. checks.py refuses
the function (``ag.ConversionError`` with the user's line; calls from converted code then run it as it is,
which is always right) when it

* calls one of them by its name in a way that reads the frame (``eval(s)``, ``vars()``; also when
  ``*args``/``**kwargs`` may or may not supply the namespace, as in ``exec(src, *namespaces)``);
* uses one as a value (``fn = eval``, ``map(eval, texts)``, ``functools.partial(exec, src)``): called later
  by other code, it reads whichever frame is running then;
* calls ``super()`` without arguments where Python runs it in a frame of its own: in a generator
  expression (and, before Python 3.12, in any comprehension), whose first argument is an iterator.

``globals()`` and zero-argument ``super()`` called by name elsewhere are kept working instead (call_trees.py).
A name the function itself binds (a parameter called ``dir``) is the user's, not the builtin.
What no reading of the source can see (``getattr(builtins, 'eval')(s)``, a module-level ``EVAL = eval``)
is caught when the call happens: operators/py_builtins.py raises a clear error there.

>>> import gast
>>> call = gast.parse('eval(text)').body[0].value
>>> reads_own_frame(call, 'eval')
'eval() without explicit globals'
"""
from typing import Optional

import gast

# Read the calling frame's locals when given no argument.
NO_ARGUMENT_READERS = ('locals', 'vars', 'dir')
# Read the calling frame's globals and locals when given no globals (or None).
EVALUATORS = ('eval', 'exec')
# Every builtin whose result depends on the frame that calls it.
FRAME_DEPENDENT = frozenset(NO_ARGUMENT_READERS + EVALUATORS + ('globals', 'super'))
_BUILTINS_MODULES = ('builtins', '__builtins__')


def builtin_named(node) -> Optional[str]:
    """The builtin ``node`` names when it is ``eval``, ``builtins.eval`` (or another frame-dependent builtin):
    its name, else None. Whether a bare name is the user's own is for the caller to decide."""
    if isinstance(node, gast.Name) and node.id in FRAME_DEPENDENT:
        return node.id
    if (isinstance(node, gast.Attribute) and node.attr in FRAME_DEPENDENT and isinstance(node.value, gast.Name)
            and node.value.id in _BUILTINS_MODULES):
        return node.attr
    return None


def _spread(call) -> bool:
    """True if ``*args`` or ``**kwargs`` decide some of the call's arguments."""
    return any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


def reads_own_frame(call, name: str) -> Optional[str]:
    """How the call of the builtin ``name`` reads its caller's frame, as the user would name it; None if
    it is given what it reads instead."""
    if name in NO_ARGUMENT_READERS:
        plain = [a for a in call.args if not isinstance(a, gast.Starred)]
        if not plain and not [k for k in call.keywords if k.arg is not None]:
            return f'{name}()' if not _spread(call) else f'{name}() with its argument passed through *args/**kwargs'
    elif name in EVALUATORS:
        if _spread(call):
            return f'{name}() with its namespaces passed through *args/**kwargs'
        given = call.args[1:2] + [k.value for k in call.keywords if k.arg == 'globals']
        if not given or (isinstance(given[0], gast.Constant) and given[0].value is None):
            return f'{name}() without explicit globals'
    return None
