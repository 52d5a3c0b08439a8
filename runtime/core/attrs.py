"""The kinds of attr values an op declares (``register_op(..., attrs={...})``), and the check of a node's attrs.

Each op declares, next to its kernel, the attrs it takes and the kind of each value (``OpDef.attrs``). The
loader (``runtime.backends.graph_codec``) checks every saved op with ``attr_problem`` before it rebuilds it:
an attr name the op does not declare, or a value of the wrong type or out of range, is a ``LoadError``
naming the op and the attr. An op that declares nothing takes no attrs. So a saved graph can only hold
what tracing itself could have produced, and nothing from a file reaches a kernel or the compiled executor
(which writes only declared names into its source) without having been checked here first.

``tests/runtime/ops/test_attr_declarations.py`` checks that the declarations match the kernels (every attr a
kernel needs is declared, every declared attr is one the kernel takes): an op added without its
declaration fails that test, not a user's load.

Kinds of values of types the ops room defines (a Variable, a random stream, a custom gradient) or that
need the graph module (a branch graph) are made by the ops that take them, with ``instance_of``/``AttrKind``.

>>> from runtime.ops.reduction_ops import SUM
>>> attr_problem(SUM, {"axis": (0,), "keepdims": False}, input_count=1) is None
True
>>> attr_problem(SUM, {"axis": "0", "keepdims": False}, input_count=1)
"attr 'axis' must be None or a tuple of ints, got '0'"
>>> attr_problem(SUM, {"axis": None, "keepdims": False, "hidden": 1}, input_count=1)
"unknown attr 'hidden'; Sum takes attrs 'axis', 'keepdims'"
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence, Tuple

import numpy as np

from runtime.core import dtypes

# Bounds on what a file may declare: far above anything a traced program holds, far below what would make
# a check itself slow or a number overflow an int64 in numpy.
MAX_INT = 2 ** 62
MAX_RANK = 64
MAX_TEXT = 1 << 20

# What an op's declaration may add to the per-attr checks: a check of the attrs against the node's input
# count (a slice key's index inputs, a template's data inputs), returning what is wrong or None.
AttrsCheck = Callable[[Mapping[str, Any], int], Optional[str]]


class AttrKind:
    """One kind of attr value: ``test(value) -> bool`` and the words an error uses for it.

    ``omittable``: a node may lack the attr (its kernel has a default); see ``omittable``.

    >>> COUNT.test(3), COUNT.test(-1), COUNT.description
    (True, False, 'an int >= 0')
    """

    __slots__ = ("description", "test", "omittable")

    def __init__(self, description: str, test: Callable[[Any], bool], omittable: bool = False):
        self.description = description
        self.test = test
        self.omittable = omittable

    def __repr__(self) -> str:
        return f"AttrKind({self.description!r}{', omittable' if self.omittable else ''})"


def optional(kind: AttrKind) -> AttrKind:
    """``kind``, or None."""
    return AttrKind(f"None or {kind.description}", lambda v: v is None or kind.test(v))


def omittable(kind: AttrKind) -> AttrKind:
    """``kind``, for an attr a node may be saved without (the kernel has a default for it)."""
    return AttrKind(kind.description, kind.test, omittable=True)


def one_of(*choices: str) -> AttrKind:
    """One of the strings ``choices``."""
    return AttrKind(" or ".join(repr(c) for c in choices), lambda v: type(v) is str and v in choices)


def instance_of(cls: type, description: str) -> AttrKind:
    """An instance of ``cls`` (a graph, a Variable, ...: objects the loader itself rebuilt)."""
    return AttrKind(description, lambda v: isinstance(v, cls))


def _is_int(v: Any) -> bool:
    return type(v) is int and -MAX_INT <= v <= MAX_INT


def _is_nonnegative_int(v: Any) -> bool:
    return _is_int(v) and v >= 0


def _is_shape(v: Any) -> bool:
    return type(v) is tuple and len(v) <= MAX_RANK and all(d is None or _is_nonnegative_int(d) for d in v)


def _is_reshape_target(v: Any) -> bool:   # a shape, but one size may be -1 (inferred)
    return type(v) is tuple and len(v) <= MAX_RANK and sum(d == -1 for d in v if d is not None) <= 1 and all(
        d is None or d == -1 or _is_nonnegative_int(d) for d in v)


def _is_text(v: Any) -> bool:
    return type(v) is str and len(v) <= MAX_TEXT


def _is_dynamic_number(v: Any) -> bool:
    """A number of a slice key: an int, None (a slice bound), or ("input", k): the k-th index input."""
    return v is None or _is_int(v) or (type(v) is tuple and len(v) == 2 and v[0] == "input"
                                       and _is_nonnegative_int(v[1]))


def _is_key_item(item: Any) -> bool:
    if type(item) is not tuple or not item:
        return False
    kind = item[0]
    if kind == "index":
        return len(item) == 2 and item[1] is not None and _is_dynamic_number(item[1])
    if kind == "slice":
        return len(item) == 4 and all(_is_dynamic_number(v) for v in item[1:])
    return kind in ("ellipsis", "newaxis") and len(item) == 1


def _key_inputs(key: tuple) -> set:
    return {v[1] for item in key for v in item[1:] if type(v) is tuple}


def _is_template_item(item: Any, depth: int = 0) -> bool:
    if type(item) is str:
        return len(item) <= MAX_TEXT
    if _is_nonnegative_int(item):
        return True
    if type(item) is not tuple or len(item) != 2 or depth > 32:
        return False
    kind, items = item
    if type(items) is not tuple:
        return False
    if kind == "dict":
        return all(type(pair) is tuple and len(pair) == 2 and type(pair[0]) is str
                   and _is_template_item(pair[1], depth + 1) for pair in items)
    return kind in ("list", "tuple") and all(_is_template_item(v, depth + 1) for v in items)


def _template_inputs(item: Any) -> set:
    if type(item) is int:
        return {item}
    if type(item) is str:
        return set()
    kind, items = item
    found: set = set()
    for v in items:
        found |= _template_inputs(v[1] if kind == "dict" else v)
    return found


INT = AttrKind("an int", _is_int)
COUNT = AttrKind("an int >= 0", _is_nonnegative_int)
BOOL = AttrKind("a bool", lambda v: type(v) is bool)
FLOAT = AttrKind("a float", lambda v: type(v) in (float, int) and not (type(v) is int and not _is_int(v)))
TEXT = AttrKind("a string", _is_text)
DTYPE = AttrKind("a dtype", lambda v: isinstance(v, np.dtype) and (v in dtypes.ALL or v == dtypes.variant))
SHAPE = AttrKind("a tuple of sizes (ints >= 0 or None)", _is_shape)
AXES = optional(AttrKind("a tuple of ints", lambda v: type(v) is tuple and len(v) <= MAX_RANK
                         and all(_is_int(a) for a in v)))
INTS = AttrKind("a tuple of ints", lambda v: type(v) is tuple and all(_is_int(a) for a in v))
PADDINGS = AttrKind("a tuple of (before, after) pairs of ints >= 0",
                    lambda v: type(v) is tuple and len(v) <= MAX_RANK and all(
                        type(p) is tuple and len(p) == 2 and all(_is_nonnegative_int(n) for n in p) for p in v))
ARRAY = AttrKind("a numeric or bool array",
                 lambda v: isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "biuf")
BOOLS = AttrKind("a tuple of bools",
                 lambda v: type(v) is tuple and len(v) <= MAX_INT and all(type(b) is bool for b in v))
SLICE_KEY = AttrKind("a subscript key", lambda v: type(v) is tuple and len(v) <= MAX_RANK
                     and all(_is_key_item(item) for item in v))
TEMPLATE = AttrKind("a print template", lambda v: type(v) is tuple and all(_is_template_item(item) for item in v))
OPTIONAL_SHAPE = optional(SHAPE)
OPTIONAL_COUNT = optional(COUNT)
# A static attr that stands in for an input when tracing knew its value; absent, the kernel reads the input.
STATIC_SHAPE = omittable(OPTIONAL_SHAPE)
STATIC_RESHAPE_TARGET = omittable(optional(AttrKind("a tuple of sizes (ints >= 0 or None, and at most one -1)",
                                                    _is_reshape_target)))
STATIC_COUNT = omittable(OPTIONAL_COUNT)
SORT_DIRECTION = one_of("ASCENDING", "DESCENDING")
PAD_MODE = one_of("CONSTANT", "REFLECT", "SYMMETRIC")


def key_check(first_index_input: int) -> AttrsCheck:
    """The check of an op whose attr ``key`` (a ``SLICE_KEY``) reads the inputs from ``first_index_input`` on."""
    def check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
        dynamic = input_count - first_index_input
        referred = _key_inputs(attrs["key"])
        if referred and max(referred) >= dynamic or len(referred) != dynamic:
            return f"attr 'key' reads index inputs {sorted(referred)}, but the node has {dynamic}"
        return None
    return check


def template_check(first_data_input: int) -> AttrsCheck:
    """The check of an op whose attr ``template`` (a ``TEMPLATE``) shows the inputs from ``first_data_input`` on."""
    def check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
        shown = set()
        for item in attrs["template"]:
            shown |= _template_inputs(item)
        data = input_count - first_data_input
        if shown and max(shown) >= data:
            return f"attr 'template' shows input {max(shown)}, but the node has {data} data input(s)"
        return None
    return check


def attr_problem(op_def: Any, attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    """What is wrong with ``attrs`` for an ``op_def`` (an ``OpDef``) node of ``input_count`` inputs, or None.

    Checks names (only declared attrs, each of them present unless omittable), each value's kind and range,
    the input count the op's declaration allows, and the op's own ``attrs_check`` (which index inputs a slice
    key reads, which data inputs a template shows, how many loop variables a While has).
    """
    declared: Mapping[str, AttrKind] = op_def.attrs
    for name in attrs:
        if name not in declared:
            known = ", ".join(repr(n) for n in declared) or "none"
            return f"unknown attr {_shown(name)}; {op_def.name} takes attrs {known}"
    for name, kind in declared.items():
        if name not in attrs:
            if kind.omittable:
                continue
            return f"attr {name!r} is missing"
        if not kind.test(attrs[name]):
            return f"attr {name!r} must be {kind.description}, got {_shown(attrs[name])}"
    arity = _arity_problem(op_def, input_count)
    if arity is not None:
        return arity
    check: Optional[AttrsCheck] = op_def.attrs_check
    return check(attrs, input_count) if check is not None else None


# Inputs that are sizes, shapes or positions (by their declared names): their kernels need integers.
_INTEGER_INPUTS = frozenset({"shape", "dims", "paddings", "num_samples", "depth", "repeats", "multiples", "k",
                             "segment_ids", "num_segments", "indices", "index", "size", "num_elements", "lengths"})


def input_problem(op_def: Any, input_dtypes: Sequence[np.dtype]) -> Optional[str]:
    """What is wrong with the dtypes of an ``op_def`` node's inputs that its shape inference need not see
    (a static attr stands in for the input), or None: a tensor list's handle (an input named ``handle`` or
    ``..._handle``) must be a handle, and a size, shape or index input an integer tensor."""
    names: Tuple[str, ...] = op_def.inputs
    starred = next((j for j, n in enumerate(names) if n.startswith("*")), None)
    for i, dtype in enumerate(input_dtypes):
        name = names[starred][1:] if starred is not None and i >= starred else op_def.input_name(i)
        if name == "handle" or name.endswith("_handle"):
            if dtype != dtypes.variant:
                return f"input {i} ({name}) must be a tensor list handle, got a {dtype} tensor"
        elif name in _INTEGER_INPUTS and dtype.kind not in "iu":
            return f"input {i} ({name}) must be an integer tensor, got a {dtype} tensor"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _arity_problem(op_def: Any, input_count: int) -> Optional[str]:
    names = op_def.inputs
    fixed = [n for n in names if not n.startswith("*")]
    variadic = len(fixed) != len(names) or op_def.variadic
    if input_count < len(fixed) or (not variadic and input_count != len(fixed)):
        expected = f"at least {len(fixed)}" if variadic else str(len(fixed))
        return f"{op_def.name} takes {expected} input(s), the node has {input_count}"
    return None
