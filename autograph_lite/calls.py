"""``converted_call``: what every call in converted code goes through, and the policy of what to convert.

User functions, methods, nested functions and lambdas are converted on first call (then cached);
while a graph is being built, builtins that must understand tensors go to ``py_builtins``; everything else - other
builtins,
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

from autograph_lite import conversion, error_locations
from autograph_lite import operators
from autograph_lite.operators import forms
from autograph_lite.operators.containers import data_structures
from autograph_lite.converters import frame_readers
from autograph_lite.operators.py_builtins import BUILTIN_OVERRIDES
from autograph_lite.pyct.errors import ConversionError, SourceUnavailableError
from runtime.core.context import in_graph_mode, thread_state, threads_building

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, dict, getattr, str, tuple, type

logger = logging.getLogger('autograph_lite')
_FunctionType, _BuiltinType, _MethodType = types.FunctionType, types.BuiltinFunctionType, types.MethodType
_MethodWrapperType = types.MethodWrapperType

DO_NOT_CONVERT = '__ag_do_not_convert__'
_LIBRARY_ROOTS = {'autograph_lite', 'runtime', 'numpy', 'builtins', 'gast', 'astunparse', '_pytest',
                  'pytest', 'hypothesis'}
_STDLIB = os.path.normcase(sysconfig.get_paths()['stdlib'])
# id(function) -> (weak reference to it, the code, defaults and keyword defaults it had, what to call
# in its place, None for the function itself). All three can be replaced after a first call (networkx's argmap
# compiles lazily and
# swaps in its own code): a converted copy is only good while they are the ones it was made from.
# A plain dict read by id, not a WeakKeyDictionary: its get() builds a weak reference per lookup,
# a third of a converted_call.
_targets: Dict[int, tuple] = {}
# id(conversion) -> (a weak reference to what ag.to_graph returned, the function it converts, a function
# bringing it up to date with the function's replaced code or defaults and returning what it runs then, its
# state: see register_wrapper). What ag.to_graph returns is the plain form itself, or for a lambda (or a
# function converted while tracing) a wrapper. Recognised by identity, never by an attribute: functools.wraps
# copies a function's __dict__ onto the user's own decorator, which then passed for ours and had its body
# skipped. Converted code calls what a wrapper runs directly (the wrapper's frame and error handling were 2
# more Python frames a call), and a plain form as it is (call_target knows converted code by its code).
_wrappers: Dict[int, tuple] = {}
# id(function) -> id of what ag.to_graph returned for it (a key of _wrappers): when converted code calls the
# function after its code or defaults were replaced, that (held by a module or a class in its place) is
# brought up to date too.
_wrapper_of: Dict[int, int] = {}


def register_wrapper(wrapper: Callable, original: types.FunctionType, current: Callable[[], Callable],
                     state: list) -> None:
    """Remember ``wrapper`` (returned by ag.to_graph for ``original``) for as long as it lives. ``state`` is
    the wrapper's [function it runs (None: itself, not held here), whether that still lacks its plain form,
    and the code, defaults and keyword defaults of ``original`` it was made from]: while they are
    ``original``'s, converted code calls the function without calling ``current``."""
    key, original_key = id(wrapper), id(original)

    def forget(reference, key=key, wrappers=_wrappers, wrapper_of=_wrapper_of):
        if wrappers.get(key, (None,))[0] is reference:
            del wrappers[key]
            if wrapper_of.get(original_key) == key:
                del wrapper_of[original_key]
    _wrappers[key] = (weakref.ref(wrapper, forget), original, current, state)
    _wrapper_of[original_key] = key
    _targets.pop(original_key, None)   # converted code calling `original` runs what the wrapper runs


def _wrapper_target(entry: tuple) -> Callable:
    """What the wrapper of a ``_wrappers`` entry runs now (None in its state: the wrapper itself)."""
    state, original = entry[3], entry[1]
    if (not state[1] and state[2] is original.__code__ and state[3] is original.__defaults__
            and state[4] is original.__kwdefaults__):
        return state[0] or entry[0]()
    return _brought_up_to_date(entry)


def _brought_up_to_date(entry: tuple) -> Callable:
    """What the wrapper of a ``_wrappers`` entry runs, after it followed its function's replaced code or
    defaults (or made its plain form). The function's own ``_targets`` entry is dropped: converted code calling
    the function next goes through ``_target_for``, which brings the wrapper up to date again if need be (it may
    have taken back the code the entry was made for)."""
    _targets.pop(id(entry[1]), None)
    return entry[2]()


def _function_target(f: types.FunctionType) -> Callable:
    """What to call in place of the function ``f`` (its converted copy, what a to_graph wrapper runs, or ``f``)."""
    cached = _targets.get(id(f))
    if (cached is not None and cached[0]() is f and cached[1] is f.__code__ and cached[2] is f.__defaults__
            and cached[3] is f.__kwdefaults__):
        return cached[4] or f   # None: called as it is
    return _target_for(f)


def bring_up_to_date(wrapper: Callable) -> None:
    """Make ``wrapper`` (returned by ag.to_graph) run its function's code and defaults as they are now, if they
    were replaced since it was made (ag.to_graph calls this when asked to convert the function again)."""
    entry = _wrappers.get(id(wrapper))
    if entry is not None and entry[0]() is wrapper:
        _wrapper_target(entry)


def converted_from(entity: Any) -> Optional[types.FunctionType]:
    """The function ``entity`` converts if it is a wrapper ag.to_graph returned, else None.

    >>> converted_from(len) is None
    True
    """
    entry = _wrappers.get(id(entity))
    return entry[1] if entry is not None and entry[0]() is entity else None


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
    wrapper = _wrappers.get(id(function))
    if wrapper is not None and wrapper[0]() is function and id(code) not in _converted_code_ids:
        # A wrapper ag.to_graph made (a lambda's, one made while tracing): what it runs now. The plain form
        # ag.to_graph returns is converted code, called as it is (as call_target does).
        return _wrapper_target(wrapper)
    wrapper = _wrappers.get(_wrapper_of.get(id(function), -1))
    if wrapper is not None and wrapper[1] is function and wrapper[0]() is not None:
        # Its conversion (patched into a module or a class in its place) follows replaced code or defaults.
        # Converted code calls a copy of its own: the conversion holds `function` (__wrapped__), and in
        # _targets it would never die.
        _wrapper_target(wrapper)
    reason = _why_not_convert(function)
    target = function
    # While tracing only the staged form runs: the plain form waits for a call outside a graph.
    staged_only = in_graph_mode() and function.__code__.co_name != '<lambda>'
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
    _remember(function, _StagedOnly(code) if staged_only and target is not function else code, defaults,
              kwdefaults, target)
    return target


def _remember(function: types.FunctionType, code_slot: Any, defaults: Any, kwdefaults: Any,
              target: Callable) -> None:
    """Converted code calls ``target`` in place of ``function`` while it has this code and these defaults."""
    key = id(function)

    def forget(reference, key=key, targets=_targets):   # when the function dies (its id may be reused)
        if targets.get(key, (None,))[0] is reference:
            del targets[key]

    # None for 'call it as it is': the entry must not hold the function itself, or its weak reference
    # never dies and every lambda or nested function made per call in converted code (already
    # converted, so called as it is) stays alive with all its closure holds.
    _targets[key] = (weakref.ref(function, forget), code_slot, defaults, kwdefaults,
                     None if target is function else target)


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
            error = ConversionError(
                f'{shown} was called from converted code through another name than its own (or from the builtins '
                'module): there it reads the frame of the library code calling it, not your function\'s, and '
                'would silently see other names and values',
                fix=f'Call {name} by its own name{_GIVEN.get(name, "")}, or mark the function with @ag.do_not_convert.')
            # Called from the plain form there is no boundary of ours above to say where: the caller's frames do.
            error_locations.attach_caller_location(error, sys._getframe(1))
            raise error
        return builtin(*args, **kwargs)
    guarded.__name__ = guarded.__qualname__ = name
    return guarded


# id(builtin) -> the version converted code calls. By identity only: a lookup by value hashed every
# callable object converted code called (a mock recorded the __hash__ call; a __hash__ with side effects
# ran) and, on a hash collision, compared it with a builtin (an object equal to `len` became len_).
# The builtins live as long as the interpreter, so their ids are never reused.
# Outside a graph there is no symbolic tensor for the builtins to understand, so only the frame guards
# replace builtins there: converted code calls the builtins themselves (their speed, their errors).
_FRAME_GUARDS: Dict[int, Callable] = {id(getattr(builtins, name)): _frame_guard(getattr(builtins, name))
                                      for name in sorted(frame_readers.FRAME_DEPENDENT)}
_OVERRIDES: Dict[int, Callable] = {**{id(builtin): override for builtin, override in BUILTIN_OVERRIDES.items()},
                                   **_FRAME_GUARDS}
_MISSING = object()
_converted_code_ids = conversion.converted_code_ids
_partial = functools.partial
_partial_call = functools.partial.__call__


def _dunder_call(kind: type) -> Any:
    """``kind.__call__`` as Python finds it to call an instance: the attribute in the type's MRO, not bound."""
    for klass in kind.__mro__:
        attribute = klass.__dict__.get('__call__', _MISSING)
        if attribute is not _MISSING:
            return attribute
    return None


def _marked_do_not_convert(f: Any) -> bool:
    """``f`` (a callable object) has do_not_convert's mark; read without running its __getattr__ or properties."""
    try:
        return bool(object.__getattribute__(f, DO_NOT_CONVERT))
    except AttributeError:
        return False


def _partial_called(f: Any, kind: type, args: tuple) -> Any:
    """The partial whose own ``__call__`` ``f`` is, called with ``args``, or None: a partial subclass's
    ``__call__`` reaching partial's (``super().__call__(...)``, ``functools.partial.__call__(self, ...)``) calls
    what the partial holds as the partial does, and that function is converted like any other."""
    if kind is _MethodWrapperType:
        partial = f.__self__
        if isinstance(partial, _partial) and f == _partial_call.__get__(partial):
            return partial
    elif f is _partial_call and args and isinstance(args[0], _partial):
        return args[0]
    return None


def _object_call(f: Any, kind: type, args: tuple, kwargs: dict) -> Any:
    """Call a callable object that is no function, method, builtin or class, as Python calls it."""
    call = _partial_call if kind is _partial else _dunder_call(kind)
    if call is _partial_call:
        # A partial, or a subclass keeping partial's own __call__ (a subclass's own __call__ runs as written
        # below): convert what it calls.
        return converted_call(f.func, f.args + tuple(args), {**f.keywords, **kwargs})
    if kind is _MethodWrapperType or f is _partial_call:
        partial = _partial_called(f, kind, args)
        if partial is not None:
            args = args[1:] if f is _partial_call else args
            return converted_call(partial.func, partial.args + tuple(args), {**partial.keywords, **kwargs})
    if issubclass(kind, type) or _marked_do_not_convert(f):
        return f(*args, **kwargs)
    call_kind = type(call)
    if call_kind is _FunctionType:   # a user class's __call__: converted, with the instance as `self`
        return _function_target(call)(f, *args, **kwargs)
    if call_kind is staticmethod and type(call.__func__) is _FunctionType:
        return _function_target(call.__func__)(*args, **kwargs)
    if call_kind is classmethod and type(call.__func__) is _FunctionType:
        return _function_target(call.__func__)(kind, *args, **kwargs)
    return f(*args, **kwargs)


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
        f = (_FRAME_GUARDS if thread_state.graph is None else _OVERRIDES).get(id(f), f)
        return f(*args, **kwargs) if kwargs else f(*args)
    if kwargs is None:
        kwargs = {}
    if kind is _MethodType and type(f.__func__) is _FunctionType:
        return _function_target(f.__func__)(f.__self__, *args, **kwargs)
    override = (_FRAME_GUARDS if thread_state.graph is None else _OVERRIDES).get(id(f))
    if override is not None:
        return override(*args, **kwargs)
    return _object_call(f, kind, args, kwargs)


def _object_target(f: Any, kind: type) -> Callable:
    """What to call in place of a callable object that is no function, method, builtin or class."""
    call = _partial_call if kind is _partial else _dunder_call(kind)
    if call is _partial_call:   # a partial, or a subclass keeping partial's own __call__
        func = f.func
        target = call_target(func)
        return f if target is func else _partial(target, *f.args, **f.keywords)
    if kind is _MethodWrapperType:   # partial's own __call__ reached from a subclass's (no unbound form here)
        partial = _partial_called(f, kind, ())
        if partial is not None:
            target = call_target(partial.func)
            return f if target is partial.func else _partial(target, *partial.args, **partial.keywords)
    if issubclass(kind, type) or _marked_do_not_convert(f):
        return f
    call_kind = type(call)
    if call_kind is _FunctionType:   # a user class's __call__: converted, bound to the instance
        target = _function_target(call)
        return f if target is call else types.MethodType(target, f)
    if call_kind is staticmethod and type(call.__func__) is _FunctionType:
        return _function_target(call.__func__)
    if call_kind is classmethod and type(call.__func__) is _FunctionType:
        return types.MethodType(_function_target(call.__func__), kind)
    return f


def call_target(f: Callable) -> Callable:
    """What converted code calls in place of ``f``: its converted form, bound as ``f`` is (a method, a
    callable object's ``__call__``, a partial's function), or a builtin's override while a graph is being
    built, or ``f`` itself. The plain form calls the result from its own frame (``call_target(f)(x)``), so
    a converted call takes one Python frame, as the original's does.

    >>> call_target(len) is len
    True
    """
    # _function_target and _wrapper_target written out for functions and methods: this runs for every call
    # the plain form makes that is not a builtin called by its name, and each step it saves is a few percent
    # of a converted call. Methods and functions first: the plain form calls most methods of builtin types
    # without us (converters/call_trees.py), and builtins by their names.
    kind = type(f)
    if kind is _MethodType:
        func = f.__func__
        if type(func) is not _FunctionType:
            return f
        code = func.__code__   # read once: a function's attributes are generic lookups in 3.11 (~30 ns each)
        if id(code) in _converted_code_ids:
            return f   # a converted function (a plain form converted in place, a method ag.to_graph made): itself
    elif kind is _FunctionType:
        func = f
        code = f.__code__
        if id(code) in _converted_code_ids:
            return f
    elif kind is _BuiltinType or kind is type:   # a builtin, a builtin type's method (str.lower), a class
        # Its override (range, int, ...) or frame guard, else itself. No graph on any thread (a list read) says
        # "outside a graph" without reading the thread's state.
        return (_OVERRIDES if threads_building[0] and thread_state.graph is not None else _FRAME_GUARDS).get(
            id(f), f)
    else:
        override = (_OVERRIDES if threads_building[0] and thread_state.graph is not None else _FRAME_GUARDS).get(
            id(f))
        return override if override is not None else _object_target(f, kind)
    key = id(func)
    cached = _targets.get(key)
    if cached is not None:
        if (cached[1] is code and cached[0]() is func and cached[2] is func.__defaults__
                and cached[3] is func.__kwdefaults__):
            target = cached[4]   # None: called as it is
            if target is None:
                return f
            return target if kind is _FunctionType else _MethodType(target, f.__self__)
        target = _target_for(func)
    else:
        entry = _wrappers.get(key)
        if entry is not None and entry[0]() is func:   # a to_graph wrapper: what it runs now
            state, original = entry[3], entry[1]
            if (not state[1] and state[2] is original.__code__ and state[3] is original.__defaults__
                    and state[4] is original.__kwdefaults__):
                target = state[0] or func   # None: the wrapper itself
            else:
                target = _brought_up_to_date(entry)
        else:
            target = _target_for(func)
    if kind is _FunctionType or target is func:
        return target if kind is _FunctionType else f
    return _MethodType(target, f.__self__)


data_structures.method_target[0] = call_target


def _ag_namespace() -> types.ModuleType:
    namespace = types.ModuleType('ag__', 'The namespace converted code calls: the operators and converted_call.')
    for name in operators.__all__:
        setattr(namespace, name, getattr(operators, name))
    namespace.converted_call = converted_call
    namespace.call_target = call_target
    forms.register_namespace(namespace)
    return namespace


AG_NAMESPACE = _ag_namespace()


def convert(function: types.FunctionType, plain_form: bool = True) -> types.FunctionType:
    """The converted copy of ``function`` (not cached here: see ``converted_call`` for the cache); with
    ``plain_form=False`` its staged form only (see ``conversion.instantiate_staged``)."""
    if not plain_form:
        return conversion.instantiate_staged(function, AG_NAMESPACE)
    return conversion.instantiate(function, AG_NAMESPACE)
