"""Input signatures: the hashable cache key of a call, and the placeholders a trace gets for it.

A key holds one entry per parameter. Tensors and ndarrays (and ``TensorSpec``s given to
``get_concrete_function``) are keyed by dtype and shape; Python scalars, strings and None by type and
value (so ``1``, ``1.0`` and ``True`` differ); tuples, lists and dicts by structure and contents;
Variables and unhashable objects by identity; other hashable objects by value.

>>> import runtime as rt
>>> key, arrays = make_key((rt.constant([1.0, 2.0]), 3))
>>> describe_key(key[0]), describe_key(key[1])
('float32 Tensor, shape=(2,)', '3')
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np

from runtime.core import dtypes, nest
from runtime.core.shapes import format_shape, most_specific_common_shape
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, TensorSpec

Key = Tuple[Hashable, ...]


class _Marker:
    """A tag no user value can equal, so tensor/identity entries never collide with Python values."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


TENSOR = _Marker("tensor")      # (TENSOR, dtype, shape)
VARIABLE = _Marker("variable")  # (VARIABLE, id) — the variable is kept alive by the key's owner
IDENTITY = _Marker("identity")  # (IDENTITY, id) — an unhashable object, weakly held by the Function
PYTHON_SCALARS = frozenset((bool, int, float, complex, str, bytes, type(None)))  # keyed by type and value


class KeyBuilder:
    """Builds keys, collecting the arrays to feed and the objects keyed by identity."""

    def __init__(self):
        self.arrays: List[np.ndarray] = []
        self.variables: List[Any] = []
        self.by_identity: List[Any] = []

    def key(self, value: Any) -> Hashable:
        if isinstance(value, EagerTensor):
            array = value._value
            self.arrays.append(array)
            return (TENSOR, array.dtype, array.shape)
        if isinstance(value, np.ndarray):
            array = value if value.dtype in dtypes.ALL else value.astype(dtypes.as_dtype(value.dtype))
            self.arrays.append(array)
            return (TENSOR, array.dtype, array.shape)
        if isinstance(value, TensorSpec):
            return (TENSOR, value.dtype, value.shape)
        if isinstance(value, SymbolicTensor):
            raise TypeError(f"{value!r} is a symbolic tensor from another traced function; pass concrete tensors "
                            "or call this function from inside the one being traced")
        if isinstance(value, Tensor):  # a Variable: the trace reads and writes this very object
            self.variables.append(value)
            return (VARIABLE, id(value))
        if type(value) in PYTHON_SCALARS or isinstance(value, np.generic):
            return (type(value), value)
        if isinstance(value, (list, tuple)):
            return (type(value), tuple(self.key(item) for item in value))
        if isinstance(value, dict):
            return (type(value), tuple((k, self.key(value[k])) for k in nest.sorted_keys(value)))
        try:
            hash(value)
        except TypeError:
            self.by_identity.append(value)
            return (IDENTITY, id(value))
        return (type(value), value)


def make_key(values: Tuple[Any, ...]) -> Tuple[Key, List[np.ndarray]]:
    """The key of one call's canonical argument values (one per parameter) and the arrays to feed.

    The common call (eager tensors and Python scalars) is keyed here without a KeyBuilder: it is on the path
    of every ``Function`` call. The keys are the ones ``KeyBuilder.key`` gives.

    >>> from runtime.ops.convert import constant
    >>> key, arrays = make_key((constant([1.0, 2.0]), 3))
    >>> key, arrays
    (((<tensor>, dtype('float32'), (2,)), (<class 'int'>, 3)), [array([1., 2.], dtype=float32)])
    """
    key, arrays = [], []
    for value in values:
        kind = type(value)
        if kind is EagerTensor:
            array = value._value
            arrays.append(array)
            key.append((TENSOR, array.dtype, array.shape))
        elif kind in PYTHON_SCALARS:
            key.append((kind, value))
        else:
            builder = KeyBuilder()
            return tuple(builder.key(value) for value in values), builder.arrays
    return tuple(key), arrays


def bind_arguments(name: str, signature: inspect.Signature, args: Sequence[Any],
                   kwargs: Dict[str, Any]) -> Tuple[Any, ...]:
    """One value per parameter of ``signature``, defaults applied (``*args`` as a tuple, ``**kwargs`` as a
    dict): how a ``Function`` and a loaded function canonicalize a call. A TypeError names ``name``.

    >>> import inspect
    >>> bind_arguments("f", inspect.signature(lambda x, y=2, *rest, **options: None), (1,), {"z": 3})
    (1, 2, (), {'z': 3})
    """
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{name}(): {error}") from None
    bound.apply_defaults()
    return tuple(bound.arguments.get(p.name, () if p.kind is p.VAR_POSITIONAL else {})
                 for p in signature.parameters.values())


def signature_parameters(name: str, parameters: Sequence[inspect.Parameter],
                         count: int) -> List[inspect.Parameter]:
    """The parameters that an ``input_signature`` of ``count`` specs covers, as TensorFlow binds them: the
    first ``count`` positional parameters (specs beyond them fill ``*args``). A call binds only these; every
    other parameter keeps its default (so it must have one). A TypeError names ``name``.

    >>> import inspect
    >>> def det(input, name=None): ...
    >>> [p.name for p in signature_parameters("det", inspect.signature(det).parameters.values(), 1)]
    ['input']
    >>> def add(x, *more): ...
    >>> [p.name for p in signature_parameters("add", inspect.signature(add).parameters.values(), 3)]
    ['x', 'more_0', 'more_1']
    """
    parameters = list(parameters)
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    covered = positional[:count]
    if count > len(positional):
        varargs = next((p for p in parameters if p.kind is p.VAR_POSITIONAL), None)
        if varargs is None:
            raise TypeError(f"{name}() takes {len(positional)} positional argument(s) but its input_signature "
                            f"has {count} specs; give one rt.TensorSpec per positional parameter")
        covered += [inspect.Parameter(f"{varargs.name}_{index}", inspect.Parameter.POSITIONAL_ONLY)
                    for index in range(count - len(positional))]
    covered_names = {p.name for p in covered}
    missing = [p.name for p in parameters if p.name not in covered_names and p.default is p.empty
               and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if missing:
        raise TypeError(f"{name}(): parameter {missing[0]!r} is not covered by the input_signature ({count} specs) "
                        f"and has no default; add a rt.TensorSpec for it or give it a default value")
    # Positional-only first, then positional-or-keyword: keep the kinds inspect.Signature accepts in order.
    return covered


def is_tensor_entry(entry: Any) -> bool:
    return type(entry) is tuple and len(entry) == 3 and entry[0] is TENSOR


def has_tensors(entry: Any) -> bool:
    if is_tensor_entry(entry):
        return True
    return type(entry) is tuple and any(has_tensors(item) for item in entry)


def accepts(general: Any, specific: Any) -> bool:
    """True if a trace made for key ``general`` can run a call with key ``specific`` (None dims match)."""
    if is_tensor_entry(general):
        if not is_tensor_entry(specific) or general[1] != specific[1]:
            return False
        expected, actual = general[2], specific[2]
        if expected is None:
            return True
        return actual is not None and len(expected) == len(actual) and all(
            e is None or e == a for e, a in zip(expected, actual))
    if type(general) is tuple and type(specific) is tuple and len(general) == len(specific):
        return all(accepts(g, s) for g, s in zip(general, specific))
    return type(general) is type(specific) and general == specific


def shape_free(key: Any) -> Any:
    """``key`` with each tensor's shape replaced by its rank: the traces that could ``accept`` or ``relax``
    with a key all share its ``shape_free`` form (unknown-rank tensors excepted, see ``has_unknown_rank``).

    >>> import runtime as rt
    >>> shape_free(make_key((rt.constant([1.0, 2.0]), 3))[0])
    ((<tensor>, dtype('float32'), 1), (<class 'int'>, 3))
    """
    if is_tensor_entry(key):
        return (TENSOR, key[1], None if key[2] is None else len(key[2]))
    if type(key) is tuple:
        return tuple(shape_free(item) for item in key)
    return key


def has_unknown_dims(key: Any) -> bool:
    """True if some tensor of ``key`` has a None dim or an unknown rank (a trace for many shapes)."""
    if is_tensor_entry(key):
        return key[2] is None or None in key[2]
    return type(key) is tuple and any(has_unknown_dims(item) for item in key)


def has_unknown_rank(key: Any) -> bool:
    """True if some tensor of ``key`` has an unknown rank (it accepts tensors of every rank)."""
    if is_tensor_entry(key):
        return key[2] is None
    return type(key) is tuple and any(has_unknown_rank(item) for item in key)


def relax(a: Any, b: Any) -> Optional[Any]:
    """The key accepting both ``a`` and ``b`` by making differing dims None; None if they differ otherwise."""
    if is_tensor_entry(a):
        if not is_tensor_entry(b) or a[1] != b[1]:
            return None
        common = most_specific_common_shape(a[2], b[2])
        # a different (or unknown) rank is a different signature, not a relaxation
        return None if common is None else (TENSOR, a[1], common)
    if type(a) is tuple and type(b) is tuple and len(a) == len(b):
        items = [relax(x, y) for x, y in zip(a, b)]
        if any(item is None and not (x is None and y is None) for item, x, y in zip(items, a, b)):
            return None
        return tuple(items)
    return a if type(a) is type(b) and a == b else None


def describe_spec(dtype: np.dtype, shape) -> str:
    return f"{dtype.name} Tensor, shape={format_shape(shape)}"


def describe_key(entry: Any) -> str:
    """Readable text of a key entry: ``float32 Tensor, shape=(2,)``, ``[1, -1]``, ``'relu'``."""
    if is_tensor_entry(entry):
        return describe_spec(entry[1], entry[2])
    head, body = entry
    if head is VARIABLE:
        return f"Variable (id {body:#x})"
    if head is IDENTITY:
        return f"object (id {body:#x})"
    if isinstance(head, type) and issubclass(head, list):
        return "[" + ", ".join(describe_key(item) for item in body) + "]"
    if isinstance(head, type) and issubclass(head, tuple):
        inner = ", ".join(describe_key(item) for item in body)
        return f"({inner},)" if len(body) == 1 else f"({inner})"
    if isinstance(head, type) and issubclass(head, dict):
        return "{" + ", ".join(f"{k!r}: {describe_key(v)}" for k, v in body) + "}"
    return repr(body)


def substitute_placeholders(value: Any, entry: Any, graph, name: str) -> Any:
    """``value`` with each tensor leaf replaced by a placeholder of ``graph`` typed by its key entry."""
    if is_tensor_entry(entry):
        spec_name = value.name if isinstance(value, TensorSpec) and value.name else name
        return graph.add_placeholder(entry[1], entry[2], name=spec_name)
    if isinstance(value, (list, tuple)) and has_tensors(entry):
        items = [substitute_placeholders(v, e, graph, name) for v, e in zip(value, entry[1])]
        return nest.sequence_like(value, items)
    if isinstance(value, dict) and has_tensors(entry):
        replaced = {k: substitute_placeholders(value[k], e, graph, name) for k, e in entry[1]}
        return type(value)((k, replaced[k]) for k in value)
    return value


def spec_structure(value: Any, entry: Any, name: str) -> Any:
    """``value`` with tensor leaves shown as ``TensorSpec``s (for ``structured_input_signature``)."""
    if is_tensor_entry(entry):
        return TensorSpec(entry[2], entry[1], name=name)
    if isinstance(value, (list, tuple)) and has_tensors(entry):
        items = [spec_structure(v, e, name) for v, e in zip(value, entry[1])]
        return nest.sequence_like(value, items)
    if isinstance(value, dict) and has_tensors(entry):
        return {k: spec_structure(value[k], e, name) for k, e in entry[1]}
    return value


class _Shown:
    """Stands in for an argument held only weakly: shows like it, without keeping it alive."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def display_value(value: Any, entry: Any) -> Any:
    """``value`` for showing in signatures, with objects keyed by identity replaced by their repr."""
    if type(entry) is tuple and len(entry) == 2 and entry[0] is IDENTITY:
        return _Shown(repr(value))
    if isinstance(value, (list, tuple)) and type(entry) is tuple and len(entry) == 2 and \
            type(entry[1]) is tuple and len(entry[1]) == len(value):
        items = [display_value(v, e) for v, e in zip(value, entry[1])]
        return nest.sequence_like(value, items)
    if isinstance(value, dict) and type(entry) is tuple and len(entry) == 2 and type(entry[1]) is tuple:
        return {k: display_value(value[k], e) for k, e in entry[1]}
    return value


def contains(key: Any, entry: Any) -> bool:
    """True if the marker entry ``entry`` (e.g. ``(IDENTITY, id)``) occurs anywhere inside ``key``."""
    if type(key) is not tuple:
        return False
    if len(key) == 2 and key[0] is entry[0] and key[1] == entry[1]:
        return True
    return any(contains(item, entry) for item in key)
