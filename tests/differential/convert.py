"""Replace every function and method a package defines with its ``ag.to_graph`` conversion, in place.

Module attributes and class ``__dict__`` entries are patched (also inside ``staticmethod``,
``classmethod``, ``property`` and ``functools.cached_property``), so the package's own tests,
which import the package after this ran, call converted code everywhere. A function that cannot
be converted stays as it is and is counted as a refusal with its reason.
"""
import collections
import functools
import importlib
import os
import pkgutil
import re
import types
from typing import Dict, List, Tuple

import autograph_lite as ag
from autograph_lite.pyct.errors import ConversionError


class Report:
    """What one package's conversion did: converted functions and refusals by reason."""

    def __init__(self):
        self.converted = 0
        self.refusals: Dict[str, int] = collections.Counter()
        self.refused_examples: Dict[str, str] = {}
        self.converter_errors: Dict[str, int] = collections.Counter()
        self.import_errors: List[str] = []
        self.inside_objects = 0     # converted functions held by module-level package objects
        self.defaults_replaced = 0  # defaults that were package functions, now their conversions

    def as_dict(self) -> dict:
        return {'converted': self.converted, 'refusals': dict(self.refusals),
                'refused_examples': self.refused_examples,
                'converter_errors': dict(self.converter_errors), 'import_errors': self.import_errors,
                'inside_objects': self.inside_objects, 'defaults_replaced': self.defaults_replaced}


def refusal_reason(exc: Exception) -> str:
    """The reason without the function's name or location, so equal reasons count together."""
    problem = getattr(exc, 'problem', None) or str(exc).split('\n')[0]
    problem = re.sub(r"'[^']*'", "'…'", problem)
    problem = re.sub(r'\(<autograph_lite.*\)$|\(.*\)$', '', problem).strip()
    return f'{type(exc).__name__}: {problem}'


def _package_modules(import_name: str, report: Report) -> List[types.ModuleType]:
    package = importlib.import_module(import_name)
    modules = [package]
    for info in pkgutil.walk_packages(getattr(package, '__path__', []), prefix=import_name + '.'):
        if re.search(r'\.(tests?|testing|conftest|test_\w+)(\.|$)', info.name):
            continue   # the package's own tests are what we run, not what we convert
        try:
            modules.append(importlib.import_module(info.name))
        except Exception as exc:   # an optional dependency is missing: nothing to convert there
            report.import_errors.append(f'{info.name}: {type(exc).__name__}: {exc}')
    return modules


class PackageConverter:
    """Converts the functions whose code lives under ``roots`` (the package folders)."""

    def __init__(self, roots: List[str], report: Report):
        self.roots = tuple(os.path.realpath(r) + os.sep for r in roots)
        self.report = report
        self.done: Dict[int, object] = {}     # id(original) -> what replaces it
        self.keep_alive: List[object] = []
        self.visited_classes = set()
        self.visited_objects = set()

    def owns(self, function) -> bool:
        code = getattr(function, '__code__', None)
        return code is not None and os.path.realpath(code.co_filename).startswith(self.roots)

    def function(self, function):
        if id(function) in self.done:
            return self.done[id(function)]
        replacement = function
        if self.owns(function):
            try:
                replacement = ag.to_graph(function)
                self.report.converted += 1
            except ConversionError as exc:
                reason = refusal_reason(exc)
                self.report.refusals[reason] += 1
                self.report.refused_examples.setdefault(reason, function.__qualname__)
            except Exception as exc:   # a converter bug (e.g. generated code that does not compile)
                reason = 'converter bug: ' + refusal_reason(exc)
                self.report.converter_errors[reason] += 1
                self.report.refused_examples.setdefault(reason, function.__qualname__)
        self.done[id(function)] = replacement
        self.keep_alive.append(function)
        return replacement

    def value(self, value):
        """What replaces one module attribute or class dict entry (the value itself if nothing)."""
        if isinstance(value, types.FunctionType):
            return self.function(value)
        if isinstance(value, staticmethod):
            converted = self.value(value.__func__)
            return value if converted is value.__func__ else staticmethod(converted)
        if isinstance(value, classmethod):
            converted = self.value(value.__func__)
            return value if converted is value.__func__ else classmethod(converted)
        if isinstance(value, property):
            parts = [self.value(p) if p is not None else None for p in (value.fget, value.fset, value.fdel)]
            if all(new is old for new, old in zip(parts, (value.fget, value.fset, value.fdel))):
                return value
            return type(value)(*parts, value.__doc__) if type(value) is property else value
        if isinstance(value, functools.cached_property):
            converted = self.value(value.func)
            if converted is not value.func:
                value.func = converted
            return value
        if isinstance(value, type):
            self.klass(value)
        elif self._defined_here(type(value)):
            self.instance(value)
        return value

    def instance(self, obj) -> None:
        """A module-level object of a package class that holds package functions (networkx's
        ``_dispatchable`` keeps the algorithm in ``orig_func``): convert those attributes."""
        if id(obj) in self.visited_objects:
            return
        self.visited_objects.add(id(obj))
        attributes = getattr(obj, '__dict__', None)
        if not isinstance(attributes, dict):
            return
        for name, entry in list(attributes.items()):
            if name.startswith('__') or not isinstance(entry, types.FunctionType):
                continue   # __wrapped__ stays the original: introspection, not calls
            replacement = self.function(entry)
            if replacement is not entry:
                try:
                    setattr(obj, name, replacement)
                    self.report.inside_objects += 1
                except (AttributeError, TypeError) as exc:
                    reason = f'object attribute not writable ({type(exc).__name__})'
                    self.report.refusals[reason] += 1
                    self.report.refused_examples.setdefault(reason, f'{type(obj).__qualname__}.{name}: {exc}')

    def klass(self, cls: type) -> None:
        if id(cls) in self.visited_classes or not self._defined_here(cls):
            return
        self.visited_classes.add(id(cls))
        for name, entry in list(vars(cls).items()):
            replacement = self.value(entry)
            if replacement is not entry:
                if hasattr(getattr(type(cls), name, None), '__set__'):
                    # setattr would run the metaclass's descriptor, not write the class dict (wrapt's proxy
                    # metaclass keeps the class's real __module__/__doc__ behind such properties).
                    reason = 'class attribute behind a metaclass descriptor'
                    self.report.refusals[reason] += 1
                    self.report.refused_examples.setdefault(reason, f'{cls.__qualname__}.{name}')
                    continue
                try:
                    setattr(cls, name, replacement)
                except (AttributeError, TypeError) as exc:   # a C type or a read-only slot
                    reason = f'class attribute not writable ({type(exc).__name__})'
                    self.report.refusals[reason] += 1
                    self.report.refused_examples.setdefault(reason, f'{cls.__qualname__}.{name}: {exc}')

    def _defined_here(self, cls: type) -> bool:
        module = importlib.sys.modules.get(getattr(cls, '__module__', None) or '')
        return module is not None and self.owns_file(getattr(module, '__file__', None))

    def owns_file(self, path) -> bool:
        return bool(path) and os.path.realpath(path).startswith(self.roots)

    def module(self, module: types.ModuleType) -> None:
        for name, entry in list(vars(module).items()):
            replacement = self.value(entry)
            if replacement is not entry:
                setattr(module, name, replacement)

    def defaults(self) -> None:
        """A default a package function took at ``def`` time that is another package function (a
        sentinel lambda, ``key=hashkey``) becomes what replaced that function, as if the package had been
        converted when it was defined: ``factory is PFIELD_NO_FACTORY`` and pickling by name then see one
        object, not the original in the default and the converted one in the module. A function that is its
        own default keeps itself: it holds itself to change itself (networkx's argmap swaps its ``__code__``
        through ``__wrapper=func`` at the first call, which the converted function follows; the conversion's
        code has free variables the swapped-in code has not, so the swap onto it fails)."""
        for function in self.keep_alive:
            if not isinstance(function, types.FunctionType):
                continue
            if function.__defaults__:
                replaced = tuple(d if d is function else self._replaced(d) for d in function.__defaults__)
                if any(new is not old for new, old in zip(replaced, function.__defaults__)):
                    function.__defaults__ = replaced
                    self.report.defaults_replaced += 1
                    if self.done.get(id(function), function) is not function:
                        ag.to_graph(function)   # its conversion (the plain form itself) takes them too
            if function.__kwdefaults__:
                for name, value in function.__kwdefaults__.items():
                    if value is not function and self._replaced(value) is not value:
                        function.__kwdefaults__[name] = self._replaced(value)
                        self.report.defaults_replaced += 1

    def _replaced(self, value):
        return self.done.get(id(value), value) if isinstance(value, types.FunctionType) else value


def convert_packages(import_names: List[str], only: Tuple[str, ...] = ()) -> Report:
    """Import each package with all its submodules, then convert everything they define in place
    (only in the modules named by the prefixes ``only``, when given: a quick run of a big package)."""
    report = Report()
    modules = [m for name in import_names for m in _package_modules(name, report)
               if not only or m.__name__.startswith(tuple(only))]
    roots = [os.path.dirname(importlib.import_module(name).__file__) for name in import_names]
    converter = PackageConverter(roots, report)
    for module in modules:
        converter.module(module)
    converter.defaults()
    return report
