"""``tf.Module`` and ``tf.saved_model`` for the ``tf`` shim.

A ``Module`` finds its variables by walking its attributes (nested Modules, lists, tuples and dicts too),
as TensorFlow's does. ``saved_model.save`` writes a traced ``tf.function``, or a Module's traced
``tf.function`` methods, with ``rt.save``; the methods of a Module go into one saved function (keyed by the
method's name), so variables they share stay shared after ``saved_model.load``.

>>> import tempfile
>>> from autograph_lite import tf
>>> class Scale(tf.Module):
...     def __init__(self):
...         super().__init__()
...         self.w = tf.Variable(2.0)
...     @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
...     def __call__(self, x):
...         return x * self.w
>>> model = Scale()
>>> [v.name for v in model.trainable_variables], model.name
(['Variable'], 'scale')
>>> path = tempfile.mkdtemp()
>>> tf.saved_model.save(model, path)
>>> tf.saved_model.load(path)(tf.constant(3.0))
Tensor(6.0, shape=(), dtype=float32)
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import runtime as rt
from runtime.core.errors import LoadError, SaveError

_MODULE_FILE = "tf_module.json"   # beside rt.save's graph.json: the names of a saved Module's methods
PathLike = Union[str, Path]


def _snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class _NameScope:
    """``module.name_scope``: a re-enterable ``with`` block naming the ops made inside ``module_name/...``."""

    def __init__(self, name: str):
        self.name = name
        self._entered: List[Any] = []

    def __enter__(self) -> str:
        scope = rt.name_scope(self.name)
        self._entered.append(scope)
        return scope.__enter__()

    def __exit__(self, *exc_info: Any) -> Any:
        return self._entered.pop().__exit__(*exc_info)


class Module:
    """A container of variables and sub-modules, as ``tf.Module``.

    ``variables`` and ``trainable_variables`` list every ``Variable`` reachable from the module's attributes
    (through nested Modules, lists, tuples and dicts), each once, in attribute-name order; ``submodules``
    lists the nested Modules. ``name_scope`` is a ``with`` block that prefixes op names with the module's name.

    >>> from autograph_lite import tf
    >>> class Dense(tf.Module):
    ...     def __init__(self):
    ...         super().__init__(name="dense")
    ...         self.w = tf.Variable([[1.0]])
    ...         self.b = tf.Variable([0.0], trainable=False)
    >>> layer = Dense()
    >>> len(layer.variables), len(layer.trainable_variables)
    (2, 1)
    """

    def __init__(self, name: Optional[str] = None):
        if name is None:
            name = _snake_case(type(self).__name__)
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"tf.Module: name must be a valid Python identifier, got {name!r}")
        self._name = name
        self._scope = _NameScope(name)

    @property
    def name(self) -> str:
        """The module's name (the snake_case class name unless given)."""
        return self._name

    @property
    def name_scope(self) -> _NameScope:
        """``with module.name_scope:`` prefixes the names of the ops made inside with the module's name."""
        return self._scope

    @property
    def variables(self) -> Tuple[rt.Variable, ...]:
        """Every Variable of this module and its sub-modules, each once."""
        return tuple(_unique(v for v in _walk(self) if isinstance(v, rt.Variable)))

    @property
    def trainable_variables(self) -> Tuple[rt.Variable, ...]:
        """The Variables created with ``trainable=True`` (the default)."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> Tuple[rt.Variable, ...]:
        """The Variables created with ``trainable=False``."""
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self) -> Tuple["Module", ...]:
        """Every Module reachable from this one's attributes (not itself), each once."""
        return tuple(_unique(m for m in _walk(self) if isinstance(m, Module)))

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorate a method so that its ops are made inside ``self.name_scope``."""
        @functools.wraps(method)
        def scoped(self: "Module", *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        return scoped

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name!r}>"


def _unique(values: Iterator[Any]) -> Iterator[Any]:
    seen = set()
    for value in values:
        if id(value) not in seen:
            seen.add(id(value))
            yield value


def _walk(module: Module) -> Iterator[Any]:
    """Variables and Modules reachable from ``module``'s attributes, depth first, in attribute-name order."""
    visited = {id(module)}

    def children(value: Any) -> List[Any]:
        if isinstance(value, Module):
            return [v for k, v in sorted(vars(value).items()) if not k.startswith("_")]
        if isinstance(value, dict):
            return [value[k] for k in sorted(value, key=repr)]
        if isinstance(value, (list, tuple)):
            return list(value)
        return []

    def walk(value: Any) -> Iterator[Any]:
        for child in children(value):
            if id(child) in visited:
                continue
            visited.add(id(child))
            if isinstance(child, (rt.Variable, Module)):
                yield child
            if not isinstance(child, rt.Variable):
                yield from walk(child)
    return walk(module)


# --- saved_model --------------------------------------------------------------------------------------------
def _traced_methods(module: Module) -> Dict[str, Any]:
    """The module's public ``tf.function`` methods (and ``__call__``), bound, by name."""
    methods = {}
    for klass in reversed(type(module).__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, rt.Function) and (name == "__call__" or not name.startswith("_")):
                methods[name] = getattr(module, name)
    return methods


def _trace_from_signature(function: Any, name: str) -> Any:
    try:
        return function.get_concrete_function()   # from its input_signature
    except TypeError:
        raise SaveError(f"tf.saved_model.save: {name} has not been traced yet and has no input_signature; "
                        "call it once, or give it an input_signature") from None


def save(obj: Any, export_dir: PathLike, signatures: Any = None, options: Any = None) -> None:
    """Save a traced ``tf.function``, or a ``tf.Module``'s traced ``tf.function`` methods, to ``export_dir``.

    Each function is saved with every signature traced so far (or declared by ``input_signature``); a method
    that was never traced and has no ``input_signature`` is a ``SaveError``. Variables are saved with their
    current values. ``signatures`` and ``options`` (TensorFlow serving options) are not supported.
    """
    if signatures is not None or options is not None:
        raise SaveError("tf.saved_model.save: signatures= and options= are not supported; the saved object's "
                        "functions keep the signatures they were traced with (see docs/SAVING.md)")
    if isinstance(obj, (rt.Function, rt.ConcreteFunction)):
        if isinstance(obj, rt.Function) and not list(obj.concrete_functions):
            _trace_from_signature(obj, getattr(obj, "__name__", "the function"))
        rt.save(obj, export_dir)
        return
    if not isinstance(obj, Module):
        raise SaveError(f"tf.saved_model.save expects a tf.function or a tf.Module, got {type(obj).__name__}")
    methods = _traced_methods(obj)
    if not methods:
        raise SaveError(f"tf.saved_model.save: {type(obj).__name__} has no @tf.function methods to save")
    traces: List[Tuple[str, Any, Any]] = []
    for name, method in methods.items():
        concrete_functions = list(method.concrete_functions) or [
            _trace_from_signature(method, f"{type(obj).__name__}.{name}")]
        for concrete in concrete_functions:
            args, kwargs = concrete.structured_input_signature
            traces.append((name, tuple(args), dict(kwargs)))

    def call_method(method: str, args: tuple, kwargs: dict) -> Any:
        return methods[method](*args, **kwargs)

    dispatcher = rt.Function(call_method)
    for name, args, kwargs in traces:
        dispatcher.get_concrete_function(name, args, kwargs)
    rt.save(dispatcher, export_dir)
    (Path(export_dir) / _MODULE_FILE).write_text(json.dumps({"methods": sorted(methods)}), encoding="utf-8")


class _LoadedModule:
    """What ``saved_model.load`` returns for a saved Module: its methods, sharing the loaded variables."""

    def __init__(self, loaded: Any, methods: List[str]):
        self._loaded, self._methods = loaded, tuple(methods)
        for method in methods:
            if method != "__call__":
                setattr(self, method, self._method(method))

    def _method(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self._loaded(name, args, kwargs)
        call.__name__ = name
        return call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "__call__" not in self._methods:
            raise TypeError("the saved module had no @tf.function __call__ method; its methods are "
                            f"{', '.join(self._methods)}")
        return self._loaded("__call__", args, kwargs)

    @property
    def variables(self) -> Tuple[rt.Variable, ...]:
        """The loaded variables (shared by every method)."""
        return tuple(self._loaded.variables)

    @property
    def trainable_variables(self) -> Tuple[rt.Variable, ...]:
        return tuple(v for v in self._loaded.variables if v.trainable)

    def __repr__(self) -> str:
        return f"<loaded tf.Module with methods {', '.join(self._methods)}>"


def load(export_dir: PathLike, tags: Any = None, options: Any = None) -> Any:
    """Load what ``save`` wrote: a function (called as before), or an object with the Module's methods."""
    module_file = Path(export_dir) / _MODULE_FILE
    loaded = rt.load(export_dir)
    if not module_file.exists():
        return loaded
    try:
        methods = json.loads(module_file.read_text(encoding="utf-8"))["methods"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise LoadError(f"{module_file}: not a method list written by tf.saved_model.save ({error})") from None
    if not isinstance(methods, list) or not methods or not all(
            isinstance(m, str) and m.isidentifier() and (m == "__call__" or not m.startswith("_")) for m in methods):
        raise LoadError(f"{module_file}: 'methods' must be a non-empty list of public method names")
    return _LoadedModule(loaded, methods)
