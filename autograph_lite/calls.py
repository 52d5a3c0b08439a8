"""``converted_call``: what every call in converted code goes through, and the policy of what to convert.

User functions, methods, nested functions and lambdas are converted on first call (then cached);
builtins that must understand tensors go to ``py_builtins``; everything else - other builtins,
the standard library, numpy, ``runtime``, ``autograph_lite``, ``do_not_convert`` functions,
``rt.Function`` objects, code without source - is called as it is.

>>> converted_call(len, ([1, 2],), None)
2
"""
import builtins
import functools
import inspect
import logging
import os
import sys
import sysconfig
import types
import warnings
import weakref
from typing import Any, Callable, Dict, NamedTuple, Optional

from autograph_lite import conversion
from autograph_lite import operators
from autograph_lite.converters import frame_readers
from autograph_lite.operators.py_builtins import BUILTIN_OVERRIDES
from autograph_lite.pyct.errors import ConversionError, SourceUnavailableError
from runtime.core.context import in_graph_mode

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, dict, getattr, isinstance, str, tuple, type

logger = logging.getLogger('autograph_lite')
_FunctionType, _BuiltinType = types.FunctionType, types.BuiltinFunctionType

DO_NOT_CONVERT = '__ag_do_not_convert__'
# Set by ag.to_graph on the wrapper it returns: the wrapper's own code, globals and defaults are
# the library's, so converting it again would run the original's source in the wrong namespace.
CONVERTED_FROM = '__ag_converted_from__'
# Also on that wrapper: a function returning what the wrapper runs now (its converted function, made
# again if the original's code or defaults were replaced). Converted code calls that directly: through
# the wrapper and its api boundary a call took 4 Python frames instead of 2, so recursive code hit the
# recursion limit at a quarter of its depth (pycparser's expression parser), and each call paid for
# the wrapper's error handling, which the outermost wrapper does anyway.
CURRENT_TARGET = '__ag_current_target__'
_LIBRARY_ROOTS = {'autograph_lite', 'runtime', 'numpy', 'builtins', 'gast', 'astunparse', '_pytest',
                  'pytest', 'hypothesis'}
_STDLIB = os.path.normcase(sysconfig.get_paths()['stdlib'])
# id(function) -> (weak reference to it, the code, defaults and keyword defaults it had, what to call
# in its place, None for the function itself). All three can be replaced after a first call (networkx's argmap compiles lazily and
# swaps in its own code): a converted copy is only good while they are the ones it was made from.
# A plain dict read by id, not a WeakKeyDictionary: its get() builds a weak reference per lookup,
# a third of a converted_call.
_targets: Dict[int, tuple] = {}


@functools.lru_cache(maxsize=None)
def _is_library_module(module: str, filename: str) -> bool:
    root = module.split('.')[0]
    if root in _LIBRARY_ROOTS or root in getattr(sys, 'stdlib_module_names', ()):
        return True
    path = os.path.normcase(filename)
    return 'site-packages' in path or 'dist-packages' in path or (
        path.startswith(_STDLIB) and not path.startswith(os.path.join(_STDLIB, 'site-packages')))


def _why_not_convert(function: types.FunctionType) -> Optional[str]:
    if getattr(function, DO_NOT_CONVERT, False):
        return 'marked do_not_convert'
    if conversion.is_converted(function):
        return 'already converted'
    if getattr(function, CONVERTED_FROM, None) is not None:
        return 'already converted (returned by ag.to_graph)'
    if _is_library_module(function.__module__ or '', function.__code__.co_filename):
        return f'library code ({function.__module__})'
    if inspect.isgeneratorfunction(function) or inspect.iscoroutinefunction(function) \
            or inspect.isasyncgenfunction(function):
        return 'generator or coroutine function'
    return None


class _StagedOnly(NamedTuple):
    """In place of the code in a ``_targets`` entry made while tracing: the target is the staged form only
    (the plain form is made at the first call outside a graph), so the fast path of converted_call misses."""
    code: types.CodeType


def _target_for(function: types.FunctionType) -> Callable:
    """The function to call in place of ``function`` (its converted copy, or itself)."""
    code, defaults, kwdefaults = function.__code__, function.__defaults__, function.__kwdefaults__
    cached = _targets.get(id(function))
    if (cached is not None and cached[0]() is function and cached[2] is defaults and cached[3] is kwdefaults
            and (cached[1] is code or (type(cached[1]) is _StagedOnly and cached[1].code is code
                                       and in_graph_mode()))):
        return function if cached[4] is None else cached[4]
    current = getattr(function, CURRENT_TARGET, None)
    if current is not None:   # no cache entry: the wrapper checks its original's code and defaults
        return current()
    reason = _why_not_convert(function)
    target = function
    # While tracing only the staged form runs: the plain form waits for a call outside a graph.
    staged_only = in_graph_mode() and function.__name__ != '<lambda>'
    if reason is None:
        try:
            target = (conversion.instantiate_staged if staged_only else conversion.instantiate)(function,
                                                                                                AG_NAMESPACE)
        except SourceUnavailableError as exc:
            reason = f'no source: {exc.problem}'
        except ConversionError as exc:
            reason = str(exc)
            warnings.warn(f'{function.__qualname__} is called unconverted: {exc}', stacklevel=3)
    if reason is not None:
        logger.debug('not converting %s: %s', getattr(function, '__qualname__', function), reason)
    key = id(function)

    def forget(reference, key=key, targets=_targets):   # when the function dies (its id may be reused)
        if targets.get(key, (None,))[0] is reference:
            del targets[key]

    code_slot = _StagedOnly(code) if staged_only and target is not function else code
    # None for 'call it as it is': the entry must not hold the function itself, or its weak reference
    # never dies and every lambda or nested function made per call in converted code (already
    # converted, so called as it is) stays alive with all its closure holds.
    _targets[key] = (weakref.ref(function, forget), code_slot, defaults, kwdefaults,
                     None if target is function else target)
    return target


_GIVEN = {'eval': ' with explicit globals', 'exec': ' with explicit globals', 'vars': ' or pass it an object',
          'dir': ' or pass it an object', 'super': ' or pass it the class and the instance'}


def _frame_guard(builtin: Callable) -> Callable:
    """``builtin`` (eval, exec, locals, vars, dir, globals, super), refusing the calls that would read the
    frame calling it: from converted code that is converted_call's (or a generated function's), not the
    user's. Calls by the builtin's own name that do so are refused at conversion (converters/frame_readers.py);
    these are the ones no reading of the source sees (``getattr(builtins, 'eval')(s)``, ``EVAL = eval`` at
    module level)."""
    name = builtin.__name__

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if name in frame_readers.EVALUATORS:
            reads = (args[1] if len(args) > 1 else kwargs.get('globals')) is None
        else:
            reads = not args and not kwargs
        if reads:
            shown = f'{name}() without explicit globals' if name in frame_readers.EVALUATORS else f'{name}()'
            raise ConversionError(
                f'{shown} was called from converted code through another name than its own (or from the builtins '
                'module): there it reads the frame of the library code calling it, not your function\'s, and '
                'would silently see other names and values',
                fix=f'Call {name} by its own name{_GIVEN.get(name, "")}, or mark the function with @ag.do_not_convert.')
        return builtin(*args, **kwargs)
    guarded.__name__ = guarded.__qualname__ = name
    return guarded


_OVERRIDES = {**BUILTIN_OVERRIDES, **{getattr(builtins, name): _frame_guard(getattr(builtins, name))
                                      for name in sorted(frame_readers.FRAME_DEPENDENT)}}


def converted_call(f: Callable, args: tuple, kwargs: Optional[dict]) -> Any:
    """Call ``f(*args, **kwargs)``, converting ``f`` first when it is user code."""
    # The common cases first, each with one dict lookup and no empty keyword dict to unpack.
    kind = type(f)
    if kind is _FunctionType:
        cached = _targets.get(id(f))
        if (cached is not None and cached[0]() is f and cached[1] is f.__code__ and cached[2] is f.__defaults__
                and cached[3] is f.__kwdefaults__):
            target = cached[4] or f   # None: called as it is
        else:
            target = _target_for(f)
        return target(*args, **kwargs) if kwargs else target(*args)
    if kind is _BuiltinType or kind is type:   # a builtin, or a class: its override, else itself
        f = _OVERRIDES.get(f, f)
        return f(*args, **kwargs) if kwargs else f(*args)
    if kwargs is None:
        kwargs = {}
    if kind is types.MethodType and type(f.__func__) is _FunctionType:
        return _target_for(f.__func__)(f.__self__, *args, **kwargs)
    try:
        override = _OVERRIDES.get(f)
    except TypeError:   # unhashable callable object
        override = None
    if override is not None:
        return override(*args, **kwargs)
    if isinstance(f, functools.partial):
        return converted_call(f.func, f.args + tuple(args), {**f.keywords, **kwargs})
    call = getattr(type(f), '__call__', None)
    if (not isinstance(f, type) and type(call) is types.FunctionType
            and not getattr(f, DO_NOT_CONVERT, False)):
        # A callable object of a user class: convert its __call__ (rt.Function is library code).
        return _target_for(call)(f, *args, **kwargs)
    return f(*args, **kwargs)


def _ag_namespace() -> types.ModuleType:
    namespace = types.ModuleType('ag__', 'The namespace converted code calls: the operators and converted_call.')
    for name in operators.__all__:
        setattr(namespace, name, getattr(operators, name))
    namespace.converted_call = converted_call
    return namespace


AG_NAMESPACE = _ag_namespace()


def convert(function: types.FunctionType, plain_form: bool = True) -> types.FunctionType:
    """The converted copy of ``function`` (not cached here: see ``converted_call`` for the cache); with
    ``plain_form=False`` its staged form only (see ``conversion.instantiate_staged``)."""
    if not plain_form:
        return conversion.instantiate_staged(function, AG_NAMESPACE)
    return conversion.instantiate(function, AG_NAMESPACE)
