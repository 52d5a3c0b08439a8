"""Public API: to_graph / convert, to_code, do_not_convert, function.

>>> def simple_relu(x):
...     if x > 0:
...         return x
...     return 0
>>> to_graph(simple_relu)(-3)
0
"""
import functools
import os
import types
import warnings
import weakref
from typing import Any, Callable, List, Literal, Optional, Sequence

from runtime.core.errors import USER_FACING
from runtime.core.context import in_graph_mode, thread_state
from runtime.core.traceback_filtering import (api_boundary, filter_leaving_traceback, inline_api_boundary,  # noqa: F401 (public)
                                             set_traceback_filtering, traceback_filtering, unstaged)

from autograph_lite import conversion, error_locations
from autograph_lite.pyct.errors import ConversionError, SourceUnavailableError
from autograph_lite import calls
from autograph_lite.calls import DO_NOT_CONVERT
from runtime.tracing.function import Function

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, getattr, isinstance, setattr, str, type

# function -> a weak reference to its wrapper. The wrapper refers to the function, so holding it
# strongly here would keep every function ever converted alive (a closure made per call, with all
# it holds): the same wrapper comes back as long as someone holds it, a new one (from the cached
# conversion) after that.
_graph_cache: 'weakref.WeakKeyDictionary[Callable, weakref.ref]' = weakref.WeakKeyDictionary()
STRICT_ENV_VAR = 'AUTOGRAPH_LITE_STRICT_CONVERSION'
_strict = [os.environ.get(STRICT_ENV_VAR, '').strip().lower() not in ('', '0', 'false', 'no')]
_warned_unconverted: 'weakref.WeakSet[Callable]' = weakref.WeakSet()
# Wrappers to_graph returned while a graph was being built (ag.function converts at its first trace): to_graph
# outside a graph returns the plain form in their place.
_made_while_tracing: 'weakref.WeakSet[Callable]' = weakref.WeakSet()


class UnconvertedWarning(UserWarning):
    """A function given to ag.function/to_graph runs unconverted (its source code is not available)."""


def set_strict_conversion(flag: bool) -> None:
    """With True, a function whose source is unavailable is a ``SourceUnavailableError`` instead of a
    warning (and running it unconverted). The environment variable
    ``AUTOGRAPH_LITE_STRICT_CONVERSION=1`` sets it at import.

    >>> set_strict_conversion(False)
    """
    _strict[0] = bool(flag)


def strict_conversion() -> bool:
    """Whether ``set_strict_conversion(True)`` (or the environment variable) is in effect."""
    return _strict[0]


def _plain_function(entity: Any, caller: str) -> types.FunctionType:
    entity = calls.converted_from(entity) or entity
    if isinstance(entity, types.MethodType):
        entity = entity.__func__
    if isinstance(entity, Function):   # an ag.function / rt.Function (by type: functools.wraps copies attributes)
        entity = entity.python_function
    if not isinstance(entity, types.FunctionType):
        raise ConversionError(f'{caller} expects a Python function, method or lambda, '
                              f'got {type(entity).__name__}: {entity!r}')
    return entity


def to_graph(entity: Callable) -> Callable:
    """Convert a function (or method, or lambda) so its control flow can be staged.

    On Python values the result behaves exactly like ``entity``: it is the plain form of the conversion
    itself, one frame per call as the original (``functools.wraps``' metadata, ``__wrapped__`` included);
    with symbolic tensors, ``if``, ``while`` and ``for`` on tensors become graph control flow. Converting
    again returns the same object, brought up to date if ``entity``'s code or defaults were replaced since.
    Exceptions raised while tracing it name the user's file and line ("in user code:").

    >>> to_graph(lambda x: x if x > 0 else -x)(-2)
    2
    """
    if calls.converted_from(entity) is not None:
        calls.bring_up_to_date(entity)
        return entity
    if isinstance(entity, types.MethodType):
        return types.MethodType(to_graph(entity.__func__), entity.__self__)
    function = _plain_function(entity, 'to_graph')
    if getattr(function, DO_NOT_CONVERT, False):
        return function
    cached = _graph_cache.get(function)
    converted = cached() if cached is not None else None
    if converted is not None and (in_graph_mode() or converted not in _made_while_tracing):
        calls.bring_up_to_date(converted)
        return converted
    try:
        converted = _converted_in_place_of(function)
    except SourceUnavailableError as error:
        if _strict[0]:
            raise
        _warn_unconverted(function, error)
        return function
    _graph_cache[function] = weakref.ref(converted)
    return converted


def _warn_unconverted(function: types.FunctionType, error: SourceUnavailableError) -> None:
    """Once per function: it runs as written, so tensors trace but Python control flow on them is lost."""
    if function in _warned_unconverted:
        return
    _warned_unconverted.add(function)
    code = function.__code__
    warnings.warn_explicit(
        f"{error.problem}; it runs unconverted: its tensor ops still trace into the graph, but an if/while/for "
        "on a tensor inside it is not staged (it raises OperatorNotAllowedInGraphError). Define it in a file or "
        f"a notebook cell, or call ag.set_strict_conversion(True) (or set {STRICT_ENV_VAR}=1) to make this an "
        "error.", UnconvertedWarning, code.co_filename, code.co_firstlineno)


convert = to_graph


def _converted_in_place_of(original: types.FunctionType) -> Callable:
    """What ``to_graph(original)`` returns: the plain form itself when there is one (no frame of ours on Python
    values), else (a lambda, a function converted while a graph is being built) a wrapper."""
    if in_graph_mode() or original.__code__.co_name == '<lambda>':
        # While tracing (ag.function converts on its first trace) only the staged form is made: the
        # wrapper makes the plain form at its first call outside a graph (to_graph then the function).
        wrapper = _with_user_locations(calls.convert(original, plain_form=not in_graph_mode()), original)
        if in_graph_mode() and original.__code__.co_name != '<lambda>':
            _made_while_tracing.add(wrapper)
        return wrapper
    converted = calls.convert(original)
    if not conversion.is_plain_form(converted):   # its source changed since its staged form was made
        return _with_user_locations(converted, original)
    _with_metadata(converted, original)
    # [what converted code calls in its place (None: the conversion itself, which the registry must not hold),
    # False (it has its plain form), and the code, defaults and keyword defaults of `original` it was made from]
    state: List[Any] = [None, False, original.__code__, original.__defaults__, original.__kwdefaults__]
    converted_ref = weakref.ref(converted)

    def current() -> Callable:
        """What converted code calling ``original`` runs now, after ``converted`` followed ``original``'s code and
        defaults replaced since (networkx's argmap compiles its wrapper at the first call and swaps in its code)."""
        now = converted_ref()
        if now is None:   # (its registry entry goes with it)
            return original
        if state[0] is None and state[2] is original.__code__:   # only its defaults were replaced: it takes them
            now.__defaults__, now.__kwdefaults__ = original.__defaults__, original.__kwdefaults__
        else:   # its code: `now` calls the new code's conversion from now on
            state[0] = _converted_or_itself(original, plain_form=True)
            if state[0] is not original:
                _with_metadata(state[0], original)
            conversion.redirect(now, state[0])
        state[1:] = [False, original.__code__, original.__defaults__, original.__kwdefaults__]
        return now if state[0] is None else state[0]
    calls.register_wrapper(converted, original, current, state)
    return converted


def _with_metadata(converted: types.FunctionType, original: types.FunctionType) -> None:
    """``functools.wraps``' metadata on the plain form ``converted`` of ``original`` (``instantiate`` copies the
    name, qualified name, docstring, module and annotations), so that introspection (``inspect.signature``)
    sees ``original``."""
    converted.__dict__.update(original.__dict__)
    converted.__wrapped__ = original  # type: ignore[attr-defined]


def _to_trace(entity: Callable) -> Callable:
    """What ``ag.function`` traces for ``entity``: ``to_graph(entity)`` under the error boundary, which names
    the user's lines in errors raised while tracing (the plain form ``to_graph`` returns has none: on Python
    values the user's exception leaves it as the original raises it, and it is one frame)."""
    converted = to_graph(entity)
    function = converted.__func__ if isinstance(converted, types.MethodType) else converted
    if calls.converted_from(function) is None or function.__code__ is _BOUNDARY_CODE:
        return converted   # not converted, or a wrapper (a lambda's, or one made while tracing)
    return functools.wraps(converted)(_with_error_boundary(lambda: converted))


def _with_error_boundary(function_now: Callable[[], Callable]) -> Callable:
    """A function calling ``function_now()`` with its arguments, an api boundary of its own."""
    def converted(*args, **kwargs):
        try:
            return function_now()(*args, **kwargs)
        except USER_FACING as error:
            if thread_state.graph is not None or isinstance(error, ConversionError):
                # Only while tracing (the traceback runs through generated code), and on our own errors about
                # the user's code. On Python values the user's exception leaves converted code exactly as the
                # original raises it: a note would change traceback.format_exception_only and doctests.
                error_locations.attach_user_location(error)
            filter_leaving_traceback(error)   # (called from this frame: the boundary it checks is this one)
            original_error = unstaged(error)
            if original_error is None:
                raise   # a bare raise keeps the (filtered) traceback and adds no frame of ours
        context = original_error.__context__
        try:
            raise original_error   # a StagedExceptionError leaving the last trace: the user's own exception
        except BaseException:
            original_error.__context__ = context
            filter_leaving_traceback(original_error)
            raise
    return inline_api_boundary(converted)


_BOUNDARY_CODE = _with_error_boundary(lambda: len).__code__


def _with_user_locations(converted: types.FunctionType, original: types.FunctionType) -> Callable:
    """A wrapper running ``converted`` (made from ``original``) under the error boundary, for the conversions
    that are not a plain form: lambdas (only a staged form), functions converted while tracing (their plain
    form is made at their first call outside a graph) and those whose source changed since."""
    # [the function to call, whether it still lacks its plain form (made while tracing), and the code,
    # defaults and keyword defaults of `original` it was made from]
    target: List[Any] = [converted, in_graph_mode() and original.__code__.co_name != '<lambda>',
                         original.__code__, original.__defaults__, original.__kwdefaults__]

    def current() -> Callable:
        """The function the wrapper runs now (converted code calls it directly: see calls._wrappers)."""
        if (target[2] is not original.__code__ or target[3] is not original.__defaults__
                or target[4] is not original.__kwdefaults__):
            # Replaced since: run what the function is now, as calling it would.
            now = _converted_or_itself(original, plain_form=not in_graph_mode())
            target[:] = [now, now is not original and in_graph_mode() and original.__code__.co_name != '<lambda>',
                         original.__code__, original.__defaults__, original.__kwdefaults__]
        if target[1] and not in_graph_mode():
            target[:2] = [calls.convert(original), False]
        return target[0]

    def function_now() -> Callable:
        if (target[1] or target[2] is not original.__code__ or target[3] is not original.__defaults__
                or target[4] is not original.__kwdefaults__):
            return current()
        return target[0]
    wrapper = functools.wraps(original)(_with_error_boundary(function_now))
    calls.register_wrapper(wrapper, original, current, target)
    return wrapper


def _converted_or_itself(function: types.FunctionType, plain_form: bool) -> Callable:
    """``function`` converted as it is now, or itself when its new code cannot be (as converted code calls it)."""
    try:
        return calls.convert(function, plain_form=plain_form)
    except ConversionError as error:
        # At the new code's own line: the caller's frame here is whichever converted call noticed the change
        code = function.__code__
        warnings.warn_explicit(f'{function.__qualname__} is called unconverted: its code was replaced after it was '
                               f'converted, and the new code cannot be: {error}', UnconvertedWarning,
                               code.co_filename, code.co_firstlineno)
        return function


FORMS = ('staged', 'plain')


def to_code(entity: Callable, form: Literal['staged', 'plain'] = 'staged') -> str:
    """The converted source of ``entity`` - valid, readable Python.

    A converted function has two forms (docs/GENERATED_CODE.md). ``form='staged'`` (the default) is
    the one that builds graphs: every ``if``/loop/``and`` is an ``ag__`` call. ``form='plain'`` is what
    runs on Python values outside a graph: the function's own statements, calling the staged form while
    a graph is being built. A lambda has only the staged form.

    >>> def f(x):
    ...     return x and 1
    >>> print(to_code(f), end='')
    def f(x):
        return ag__.and_(lambda: x, lambda: 1)
    >>> print(to_code(f, form='plain'), end='')
    def f(x):
        if ag__.needs_staged_form():
            return f_staged(x)
        return x and 1
    """
    if form not in FORMS:
        raise ValueError(f"to_code: form must be 'staged' or 'plain', got {form!r}")
    function = _plain_function(entity, 'to_code')
    if form == 'plain':
        if function.__code__.co_name == '<lambda>':
            raise ValueError("to_code: a lambda has only the staged form (call to_code without form='plain')")
        return conversion.plain_source(function)
    return conversion.converted_source(function)


def do_not_convert(func: Callable) -> Callable:
    """Mark ``func`` so converted code calls it as it is (it is never converted).

    >>> @do_not_convert
    ... def legacy(x):
    ...     return x
    """
    try:
        setattr(func, DO_NOT_CONVERT, True)
        return func
    except (AttributeError, TypeError):
        @functools.wraps(func)
        def unconverted(*args, **kwargs):
            return func(*args, **kwargs)
        setattr(unconverted, DO_NOT_CONVERT, True)
        return unconverted


def function(func: Optional[Callable] = None, *, input_signature: Optional[Sequence] = None,
             autograph: bool = True, reduce_retracing: bool = False, jit_compile=None,
             max_traces: Optional[int] = None):
    """Turn a Python function into a graph-building, signature-caching ``rt.Function``.

    Usable as ``ag.function(f)``, ``@ag.function`` or ``@ag.function(input_signature=[...])``.
    ``jit_compile=True`` compiles the graphs with XLA through JAX (docs/XLA.md); ``"auto"`` falls back to the
    numpy executor for a graph XLA cannot compile. ``max_traces=n`` keeps at most ``n`` graphs, evicting the
    least recently used; retracing on most calls warns with ``ag.RetraceWarning``.

    >>> @function
    ... def my_relu(x):
    ...     return rt.maximum(0., x)
    """
    if not isinstance(autograph, bool):
        raise TypeError(f"ag.function: autograph must be True or False, got {autograph!r}")

    def decorate(python_function: Callable):
        import runtime as rt
        return rt.Function(python_function, input_signature, reduce_retracing,
                           trace_with=_to_trace if autograph else None, jit_compile=jit_compile,
                           max_traces=max_traces)
    if func is None:
        return decorate
    return decorate(func)


def run_functions_eagerly(flag: bool) -> None:
    """Make every ag.function call run its original Python function op by op (for debugging)."""
    import runtime as rt
    rt.run_functions_eagerly(flag)


def functions_run_eagerly() -> bool:
    """True while run_functions_eagerly(True) is in effect."""
    import runtime as rt
    return rt.functions_run_eagerly()

