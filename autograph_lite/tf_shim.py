"""Builds ``autograph_lite.tf`` from the table in ``autograph_lite.tf_api``, and holds what the table points
to that lives nowhere else: ``tf.function``'s TensorFlow keywords, ``tf.executing_eagerly`` and friends.

Functions reached through the shim speak TensorFlow in their errors: a message that suggests
``rt.cast(x, rt.float32)`` says ``tf.cast(x, tf.float32)`` when the call came through ``tf.*``, and so do
the operators and methods of tensors (``x + y``, ``x[i]``, ``v.assign(value)``) used by a program written
with the shim (a module that has ``tf`` and not ``runtime``).

>>> from autograph_lite import tf
>>> tf.nn.conv2d  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AttributeError: tf.nn.conv2d is TensorFlow's, but autograph_lite's tf shim does not support it: convolutions ...
"""
from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
import types
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

import runtime as rt
from runtime.core import errors, source_locations
from runtime.core.traceback_filtering import filter_leaving_traceback, inline_api_boundary
from autograph_lite import api
from autograph_lite.tf_api import NAMESPACE, TABLE, Supported, Unsupported

__version__ = "autograph_lite (TensorFlow-compatible names)"
DType = type(rt.float32)

_SOURCES = {"rt": "runtime", "ag": "autograph_lite", "shim": "autograph_lite.tf_shim",
            "keras": "autograph_lite.tf_keras", "module": "autograph_lite.tf_module"}


# --- what the table points to ------------------------------------------------------------------------------
_EXPERIMENTAL_REFUSED = ("experimental_implements", "experimental_autograph_options", "experimental_attributes",
                         "experimental_follow_type_hints")


def function(func: Optional[Callable] = None, *, input_signature: Optional[Sequence] = None, autograph: bool = True,
             jit_compile: Optional[bool] = None, reduce_retracing: bool = False, **experimental: Any) -> Any:
    """``tf.function``: ``ag.function`` with TensorFlow's keywords.

    ``experimental_relax_shapes`` is TensorFlow's older name of ``reduce_retracing``, ``experimental_compile``
    of ``jit_compile`` (``jit_compile=True`` compiles through XLA with JAX, see docs/XLA.md). The other
    ``experimental_*`` options of TensorFlow are refused by name.

    >>> from autograph_lite import tf
    >>> @tf.function(reduce_retracing=True)
    ... def double(x):
    ...     return 2 * x
    >>> double(tf.constant([1, 2]))
    Tensor([2 4], shape=(2,), dtype=int32)
    """
    for keyword, value in experimental.items():
        if keyword not in ("experimental_relax_shapes", "experimental_compile", *_EXPERIMENTAL_REFUSED):
            raise TypeError(f"tf.function() got an unexpected keyword argument '{keyword}'")
        if keyword in _EXPERIMENTAL_REFUSED and value is not None:
            raise TypeError(f"tf.function: {keyword}= is not supported by autograph_lite's tf shim; remove it")
    experimental_relax_shapes = experimental.get("experimental_relax_shapes")
    experimental_compile = experimental.get("experimental_compile")
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes) or reduce_retracing
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile
    options: Dict[str, Any] = {"input_signature": input_signature, "autograph": autograph,
                               "reduce_retracing": reduce_retracing}
    if jit_compile is not None:
        if "jit_compile" not in inspect.signature(api.function).parameters:
            if jit_compile:
                raise NotImplementedError("tf.function(jit_compile=True): this version of autograph_lite has no "
                                          "XLA backend; remove jit_compile to run on the numpy executor")
        else:
            options["jit_compile"] = jit_compile

    def speaking_tf(python_function: Callable) -> rt.Function:
        traced = api.function(python_function, **options)
        traced.__class__ = _TfFunction
        return traced
    return speaking_tf if func is None else speaking_tf(func)


def executing_eagerly() -> bool:
    """True outside a traced function (and inside one run with ``run_functions_eagerly(True)``)."""
    return not rt.in_graph_mode()


def inside_function() -> bool:
    """True while a function is being traced into a graph."""
    return rt.in_graph_mode()


def get_static_value(tensor: Any) -> Optional[np.ndarray]:
    """The value of ``tensor`` if it is known without running a graph (an eager tensor, or a constant while
    tracing), else None.

    >>> get_static_value(rt.constant([1, 2]))
    array([1, 2], dtype=int32)
    """
    from runtime.ops.shape_ops import constant_value
    if isinstance(tensor, rt.Variable):
        return None if rt.in_graph_mode() else tensor.numpy()
    return constant_value(rt.convert_to_tensor(tensor))


# --- errors in the user's words ---------------------------------------------------------------------------
def _tf_spelling(message: str) -> str:
    """``rt.cast(x, rt.float32)`` -> ``tf.cast(x, tf.float32)`` for every ``rt.<name>`` the shim has as
    ``tf.<name>``; other names keep their ``rt.`` (they are not in the shim)."""
    top_level = TABLE["tf"]
    return re.sub(r"\brt\.(\w+)", lambda m: f"tf.{m.group(1)}" if isinstance(top_level.get(m.group(1)), Supported)
                  else m.group(0), message)


def _respell(error: BaseException) -> None:
    if len(error.args) == 1 and isinstance(error.args[0], str) and "rt." in error.args[0] and \
            not isinstance(error, KeyError):
        error.args = (_tf_spelling(error.args[0]),)


def _in_the_callers_words(message: str) -> str:
    """``message`` spelled ``tf.`` when the user's code running now is written with the shim: what a tensor's
    operators and methods raise (``x + y``, ``x[i]``) pass no entry point of the shim (see
    ``runtime.core.errors.message_spellers``)."""
    return _tf_spelling(message) if "rt." in message and _user_code_speaks_tf() else message


def _user_code_speaks_tf() -> bool:
    """Whether the innermost user frame is in a module that has the shim (``from autograph_lite import tf``)
    and not ``runtime`` (a module that has both may spell either: it keeps ``rt.``)."""
    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None and source_locations.is_library_frame(frame.f_code.co_filename, frame.f_lineno):
        frame = frame.f_back
    if frame is None:
        return False
    shim = sys.modules.get("autograph_lite.tf")
    values = frame.f_globals.values()
    return any(value is shim for value in values) and not any(value is rt for value in values)


errors.message_spellers.append(_in_the_callers_words)


def _speaking_tf(function: Callable) -> Callable:
    """``function``, with the ``rt.`` names in the messages of the errors it raises spelled as ``tf.``."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as error:
            _respell(error)
            raise
    return call


class _TfFunction(rt.Function):
    """What ``tf.function`` returns: an ``rt.Function`` whose errors (raised while tracing or calling it)
    spell the names the shim has as ``tf.``."""

    @inline_api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return rt.Function.__call__(self, *args, **kwargs)
        except Exception as error:
            _respell(error)
            filter_leaving_traceback(error)
            raise

    @inline_api_boundary
    def get_concrete_function(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return rt.Function.get_concrete_function(self, *args, **kwargs)
        except Exception as error:
            _respell(error)
            filter_leaving_traceback(error)
            raise

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        bound = rt.Function.__get__(self, instance, owner)
        if bound is not self:
            bound.__class__ = _TfFunction   # a method's bound Function speaks tf too
        return bound


# --- building the namespaces -------------------------------------------------------------------------------
def _resolve(target: str) -> Any:
    source, _, path = target.partition(".")
    value: Any = importlib.import_module(_SOURCES[source])
    for part in path.split("."):
        value = getattr(value, part)
    return value


def missing(path: str, name: str) -> AttributeError:
    """The AttributeError for ``path.name``: why the shim lacks it and what to write instead, if it is
    TensorFlow's; else that the shim does not know the name."""
    entry = TABLE.get(path, {}).get(name)
    if isinstance(entry, Unsupported):
        return AttributeError(f"{path}.{name} is TensorFlow's, but autograph_lite's tf shim does not support it: "
                              f"{entry.reason}. Instead: {entry.alternative}")
    return AttributeError(f"autograph_lite's tf shim has no {path}.{name}: it is not among the TensorFlow names the "
                          f"shim knows (dir({path}) lists what it supports; autograph_lite/tf_api.py lists them all)")


def module_hooks(path: str):
    """A module's ``__getattr__`` (for names it lacks: ``missing``) and ``__dir__`` (its supported names)."""
    def __getattr__(name: str) -> Any:
        raise missing(path, name)

    def __dir__() -> list:
        return sorted(name for name, entry in TABLE[path].items() if isinstance(entry, Supported))
    return __getattr__, __dir__


def members(path: str) -> Dict[str, Any]:
    """The supported names of the namespace ``path`` (``"tf"``, ``"tf.math"``, ...) and their objects."""
    result = {}
    for name, entry in TABLE[path].items():
        if not isinstance(entry, Supported):
            continue
        if entry.target == NAMESPACE:
            result[name] = namespace(f"{path}.{name}")
            continue
        value = _resolve(entry.target)
        if isinstance(value, types.FunctionType) and entry.target.startswith("rt."):
            value = _speaking_tf(value)
        result[name] = value
    return result


_namespaces: Dict[str, Any] = {}


def namespace(path: str) -> Any:
    """The object behind ``tf.math`` & co.: its supported names as attributes; any other name raises
    AttributeError saying why (built once per path)."""
    if path in _namespaces:
        return _namespaces[path]

    def __getattr__(self: Any, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise missing(path, name)

    def __repr__(self: Any) -> str:
        return f"<autograph_lite tf shim namespace {path}>"

    def __dir__(self: Any) -> list:
        return sorted(vars(self))

    kind = type(path.replace(".", "_"), (), {"__getattr__": __getattr__, "__repr__": __repr__, "__dir__": __dir__,
                                              "__doc__": f"autograph_lite's {path}: see autograph_lite/tf_api.py"})
    instance = kind()
    _namespaces[path] = instance
    vars(instance).update(members(path))
    return instance

