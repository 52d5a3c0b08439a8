"""The attrs each op takes: their names and the type and range of each value, declared once per op.

The loader (``runtime.backends.graph_codec``) checks every saved op against this before it rebuilds the
op: an attr name an op does not declare, or a value of the wrong type or out of range, is a ``LoadError``
naming the op and the attr. An op that declares nothing takes no attrs. So a saved graph can only hold
what tracing itself could have produced, and nothing from a file reaches a kernel or the compiled executor
without having been checked here first.

``tests/runtime/ops/test_attr_declarations.py`` checks that the declarations match the kernels (every attr a
kernel needs is declared, every declared attr is one the kernel takes): an op added without its
declaration fails that test, not a user's load.

>>> from runtime.ops.reduction_ops import SUM
>>> attr_problem(SUM, {"axis": (0,), "keepdims": False}, input_count=1) is None
True
>>> attr_problem(SUM, {"axis": "0", "keepdims": False}, input_count=1)
"attr 'axis' must be None or a tuple of ints, got '0'"
>>> attr_problem(SUM, {"axis": None, "keepdims": False, "hidden": 1}, input_count=1)
"unknown attr 'hidden'; Sum takes attrs 'axis', 'keepdims'"
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import CONST, PLACEHOLDER, Graph
from runtime.core.registry import OpDef
from runtime.ops import random_seeds, stateless_random_ops
from runtime.ops import (combine_ops, control_flow_ops, creation_ops, custom_gradient_ops, debugging, einsum_ops,
                         gradient_ops, indexing, list_gradients, logging_ops, manipulation_ops, nn_ops, random_ops,
                         reduction_ops, set_ops, shape_ops, sort_ops, split_ops, variables)
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, SQUEEZE, TILE, TRANSPOSE
from runtime.ops.cast_op import CAST

# Bounds on what a file may declare: far above anything a traced program holds, far below what would make
# a check itself slow or a number overflow an int64 in numpy.
MAX_INT = 2 ** 62
MAX_RANK = 64
MAX_TEXT = 1 << 20


class AttrKind:
    """One kind of attr value: ``test(value) -> bool`` and the words an error uses for it."""

    __slots__ = ("description", "test")

    def __init__(self, description: str, test: Callable[[Any], bool]):
        self.description = description
        self.test = test

    def __repr__(self) -> str:
        return f"AttrKind({self.description!r})"


def _is_int(v: Any) -> bool:
    return type(v) is int and -MAX_INT <= v <= MAX_INT


def _is_nonnegative_int(v: Any) -> bool:
    return _is_int(v) and v >= 0


def _optional(kind: AttrKind) -> AttrKind:
    return AttrKind(f"None or {kind.description}", lambda v: v is None or kind.test(v))


def _is_shape(v: Any) -> bool:
    return type(v) is tuple and len(v) <= MAX_RANK and all(d is None or _is_nonnegative_int(d) for d in v)


def _is_text(v: Any) -> bool:
    return type(v) is str and len(v) <= MAX_TEXT


def _one_of(*choices: str) -> AttrKind:
    return AttrKind(" or ".join(repr(c) for c in choices), lambda v: type(v) is str and v in choices)


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


def _is_variable(v: Any) -> bool:
    return isinstance(v, variables.Variable)


INT = AttrKind("an int", _is_int)
COUNT = AttrKind("an int >= 0", _is_nonnegative_int)
BOOL = AttrKind("a bool", lambda v: type(v) is bool)
FLOAT = AttrKind("a float", lambda v: type(v) in (float, int) and not (type(v) is int and not _is_int(v)))
TEXT = AttrKind("a string", _is_text)
DTYPE = AttrKind("a dtype", lambda v: isinstance(v, np.dtype) and (v in dtypes.ALL or v == dtypes.variant))
SHAPE = AttrKind("a tuple of sizes (ints >= 0 or None)", _is_shape)
AXES = _optional(AttrKind("a tuple of ints", lambda v: type(v) is tuple and len(v) <= MAX_RANK
                          and all(_is_int(a) for a in v)))
INTS = AttrKind("a tuple of ints", lambda v: type(v) is tuple and all(_is_int(a) for a in v))
PADDINGS = AttrKind("a tuple of (before, after) pairs of ints >= 0",
                    lambda v: type(v) is tuple and len(v) <= MAX_RANK and all(
                        type(p) is tuple and len(p) == 2 and all(_is_nonnegative_int(n) for n in p) for p in v))
ARRAY = AttrKind("a numeric or bool array",
                 lambda v: isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "biuf")
GRAPH = AttrKind("a graph", lambda v: isinstance(v, Graph))
GRADIENT_FUNCTION = AttrKind("a gradient function graph",
                             lambda v: isinstance(v, custom_gradient_ops.GradientFunction))
BOOLS = AttrKind("a tuple of bools",
                 lambda v: type(v) is tuple and len(v) <= MAX_INT and all(type(b) is bool for b in v))
VARIABLE = AttrKind("a Variable", _is_variable)
SLICE_KEY = AttrKind("a subscript key", lambda v: type(v) is tuple and len(v) <= MAX_RANK
                     and all(_is_key_item(item) for item in v))
TEMPLATE = AttrKind("a print template", lambda v: type(v) is tuple and all(_is_template_item(item) for item in v))
SEED = AttrKind("a random stream", lambda v: isinstance(v, random_seeds.RandomStream))
OPTIONAL_SHAPE = _optional(SHAPE)
OPTIONAL_COUNT = _optional(COUNT)
LIST_ELEMENT_SHAPE = OPTIONAL_SHAPE
SORT_DIRECTION = _one_of("ASCENDING", "DESCENDING")


def declare_attrs(op_def: OpDef, **kinds: AttrKind) -> None:
    """Declare the attrs ``op_def`` takes and the kind of each value (once per op)."""
    if op_def in _DECLARED:
        raise ValueError(f"op {op_def.name!r} already declares its attrs")
    _DECLARED[op_def] = dict(kinds)


_DECLARED: Dict[OpDef, Dict[str, AttrKind]] = {}


def declared_attrs(op_def: OpDef) -> Mapping[str, AttrKind]:
    """The attrs ``op_def`` declares (empty: it takes none)."""
    return _DECLARED.get(op_def, {})


def attr_problem(op_def: OpDef, attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    """What is wrong with ``attrs`` for an ``op_def`` node of ``input_count`` inputs, or None if nothing.

    Checks names (only declared attrs, each of them present), each value's kind and range, the input
    count the op's declaration allows, and what an attr says about the inputs (which index inputs a
    slice key reads, which data inputs a template shows, how many loop variables a While has).
    """
    declared = declared_attrs(op_def)
    for name in attrs:
        if name not in declared:
            known = ", ".join(repr(n) for n in declared) or "none"
            return f"unknown attr {_shown(name)}; {op_def.name} takes attrs {known}"
    for name, kind in declared.items():
        if name not in attrs:
            if name in _OPTIONAL.get(op_def, ()):
                continue
            return f"attr {name!r} is missing"
        if not kind.test(attrs[name]):
            return f"attr {name!r} must be {kind.description}, got {_shown(attrs[name])}"
    arity = _arity_problem(op_def, input_count)
    if arity is not None:
        return arity
    check = _CONSISTENCY.get(op_def)
    return check(attrs, input_count) if check is not None else None


# Inputs that are sizes, shapes or positions (by their declared names): their kernels need integers.
_INTEGER_INPUTS = frozenset({"shape", "dims", "paddings", "num_samples", "depth", "repeats", "multiples", "k",
                             "segment_ids", "num_segments", "indices", "index", "size", "num_elements", "lengths"})


def input_problem(op_def: OpDef, input_dtypes: Sequence[np.dtype]) -> Optional[str]:
    """What is wrong with the dtypes of an ``op_def`` node's inputs that its shape inference need not see
    (a static attr stands in for the input), or None: a tensor list's handle (an input named ``handle``, or
    both inputs of TensorListAddN) must be a handle, and a size, shape or index input an integer tensor."""
    names = op_def.inputs
    starred = next((j for j, n in enumerate(names) if n.startswith("*")), None)
    for i, dtype in enumerate(input_dtypes):
        name = names[starred][1:] if starred is not None and i >= starred else op_def.input_name(i)
        if op_def is list_gradients.TENSOR_LIST_ADD_N or name == "handle":
            if dtype != dtypes.variant:
                return f"input {i} ({name}) must be a tensor list handle, got a {dtype} tensor"
        elif name in _INTEGER_INPUTS and dtype.kind not in "iu":
            return f"input {i} ({name}) must be an integer tensor, got a {dtype} tensor"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _arity_problem(op_def: OpDef, input_count: int) -> Optional[str]:
    names = op_def.inputs
    fixed = [n for n in names if not n.startswith("*")]
    variadic = len(fixed) != len(names) or op_def in _VARIADIC
    if input_count < len(fixed) or (not variadic and input_count != len(fixed)):
        expected = f"at least {len(fixed)}" if variadic else str(len(fixed))
        return f"{op_def.name} takes {expected} input(s), the node has {input_count}"
    return None


def _key_consistency(first_index_input: int) -> Callable[[Mapping[str, Any], int], Optional[str]]:
    def check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
        dynamic = input_count - first_index_input
        referred = _key_inputs(attrs["key"])
        if referred and max(referred) >= dynamic or len(referred) != dynamic:
            return f"attr 'key' reads index inputs {sorted(referred)}, but the node has {dynamic}"
        return None
    return check


def _template_consistency(first_data_input: int) -> Callable[[Mapping[str, Any], int], Optional[str]]:
    def check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
        shown = set()
        for item in attrs["template"]:
            shown |= _template_inputs(item)
        data = input_count - first_data_input
        if shown and max(shown) >= data:
            return f"attr 'template' shows input {max(shown)}, but the node has {data} data input(s)"
        return None
    return check


def _const_consistency(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    if attrs["value"].dtype != attrs["dtype"]:
        return f"attr 'dtype' is {attrs['dtype']}, but attr 'value' holds {attrs['value'].dtype}"
    return None


def _while_consistency(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    if attrs["num_loop_vars"] > input_count:
        return f"attr 'num_loop_vars' is {attrs['num_loop_vars']}, but the node has {input_count} input(s)"
    return None


def _custom_gradient_consistency(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    graph = attrs["gradient"].graph
    named = attrs["num_outputs"] + attrs["num_inputs"] + attrs["num_variables"]
    if named > input_count:
        return f"attrs name {named} input(s), but the node has {input_count}"
    if len(attrs["gradient_returns"]) != attrs["num_inputs"] + attrs["num_variables"]:
        return "attr 'gradient_returns' needs one entry per tensor argument and variable"
    if len(graph.inputs) != attrs["num_outputs"] + input_count - named:
        return f"the gradient graph takes {len(graph.inputs)} input(s), the node gives it a different number"
    if len(graph.outputs) != sum(attrs["gradient_returns"]):
        return f"the gradient graph returns {len(graph.outputs)} gradient(s), attr 'gradient_returns' says otherwise"
    return None


# Ops declared with one input name that take any number of inputs after it.
_VARIADIC = {control_flow_ops.IF, control_flow_ops.WHILE, custom_gradient_ops.CUSTOM_GRADIENT}
_CONSISTENCY: Dict[OpDef, Callable[[Mapping[str, Any], int], Optional[str]]] = {
    CONST: _const_consistency,
    indexing.STRIDED_SLICE: _key_consistency(1),
    indexing.STRIDED_SLICE_UPDATE: _key_consistency(2),
    indexing.STRIDED_SLICE_GRAD: _key_consistency(2),
    logging_ops.PRINT: _template_consistency(0),
    debugging.ASSERT: _template_consistency(1),
    control_flow_ops.WHILE: _while_consistency,
    custom_gradient_ops.CUSTOM_GRADIENT: _custom_gradient_consistency,
}
# Attrs an op may be saved without (its kernel has a default for them).
_OPTIONAL: Dict[OpDef, Tuple[str, ...]] = {}


def _declare_all() -> None:
    lists = list_gradients
    reductions = [reduction_ops.SUM, reduction_ops.MEAN, reduction_ops.MAX, reduction_ops.MIN,
                  reduction_ops.reduce_prod.op_def, reduction_ops.reduce_any.op_def, reduction_ops.reduce_all.op_def]
    for op_def in reductions:
        declare_attrs(op_def, axis=AXES, keepdims=BOOL)
    declare_attrs(CONST, value=ARRAY, dtype=DTYPE)
    declare_attrs(PLACEHOLDER, dtype=DTYPE, shape=OPTIONAL_SHAPE)
    declare_attrs(control_flow_ops.IF, then_branch=GRAPH, else_branch=GRAPH)
    declare_attrs(control_flow_ops.WHILE, cond=GRAPH, body=GRAPH, num_loop_vars=COUNT,
                  maximum_iterations=OPTIONAL_COUNT)
    for op_def in (reduction_ops.ARG_MAX, reduction_ops.ARG_MIN):
        declare_attrs(op_def, axis=INT, output_type=DTYPE)
    for op_def in (sort_ops.SORT, sort_ops.ARG_SORT):
        declare_attrs(op_def, axis=INT, direction=SORT_DIRECTION)
    declare_attrs(sort_ops.TOP_K, index_type=DTYPE, static_k=OPTIONAL_COUNT)
    for op_def in (set_ops.UNIQUE, set_ops.UNIQUE_WITH_COUNTS):
        declare_attrs(op_def, out_idx=DTYPE)
    declare_attrs(debugging.ASSERT, template=TEMPLATE)
    declare_attrs(debugging.ENSURE_DEFINED, message=TEXT)
    declare_attrs(logging_ops.PRINT, template=TEMPLATE, sep=TEXT, end=TEXT,
                  output_stream=_one_of("stdout", "stderr"))
    for op_def in (variables.ASSIGN_VARIABLE, variables.ASSIGN_ADD_VARIABLE, variables.ASSIGN_SUB_VARIABLE,
                   variables.READ_VARIABLE):
        declare_attrs(op_def, variable=VARIABLE)
    declare_attrs(CAST, dtype=DTYPE)
    declare_attrs(EXPAND_DIMS, axis=INT)
    declare_attrs(SQUEEZE, axis=AXES)
    declare_attrs(TRANSPOSE, perm=_optional(INTS))
    declare_attrs(RESHAPE, static_shape=OPTIONAL_SHAPE)
    declare_attrs(TILE, static_multiples=OPTIONAL_SHAPE)
    declare_attrs(gradient_ops.BROADCAST_TO, static_shape=OPTIONAL_SHAPE)
    declare_attrs(gradient_ops.SUM_TO_SHAPE, static_shape=OPTIONAL_SHAPE)
    declare_attrs(creation_ops.FILL, static_shape=OPTIONAL_SHAPE)
    declare_attrs(creation_ops.RANGE, dtype=DTYPE, static_length=OPTIONAL_COUNT)
    for op_def in (combine_ops.CONCAT, combine_ops.STACK, nn_ops.SOFTMAX, nn_ops.LOG_SOFTMAX, indexing.GATHER):
        declare_attrs(op_def, axis=INT)
    for op_def in (reduction_ops.CUMSUM, reduction_ops.CUMPROD):
        declare_attrs(op_def, axis=INT, exclusive=BOOL, reverse=BOOL)
    declare_attrs(einsum_ops.EINSUM, equation=TEXT)
    declare_attrs(custom_gradient_ops.CUSTOM_GRADIENT, num_outputs=COUNT, num_inputs=COUNT, num_variables=COUNT,
                  gradient=GRADIENT_FUNCTION, gradient_returns=BOOLS, function=TEXT)
    declare_attrs(nn_ops.LEAKY_RELU, alpha=FLOAT)
    for op_def in (manipulation_ops.PAD, manipulation_ops.MIRROR_PAD):
        declare_attrs(op_def, mode=_one_of("CONSTANT", "REFLECT", "SYMMETRIC"), static_paddings=_optional(PADDINGS))
    declare_attrs(manipulation_ops.ONE_HOT, axis=INT, static_depth=OPTIONAL_COUNT)
    declare_attrs(manipulation_ops.REPEAT, axis=_optional(INT), static_repeats=_optional(INTS))
    declare_attrs(manipulation_ops.REVERSE, axis=INTS)
    declare_attrs(random_ops.CATEGORICAL, dtype=DTYPE, seed=SEED, static_num_samples=OPTIONAL_COUNT)
    for op_def in (random_ops.UNIFORM, random_ops.NORMAL):
        declare_attrs(op_def, dtype=DTYPE, seed=SEED, static_shape=OPTIONAL_SHAPE)
    for op_def in (stateless_random_ops.STATELESS_UNIFORM, stateless_random_ops.STATELESS_NORMAL):
        declare_attrs(op_def, dtype=DTYPE, static_shape=OPTIONAL_SHAPE)
    for op_def in (shape_ops.SHAPE, shape_ops.SIZE):
        declare_attrs(op_def, out_type=DTYPE)
    declare_attrs(split_ops.SPLIT, num=COUNT, sizes=_optional(INTS), axis=INT)
    declare_attrs(split_ops.UNSTACK, num=COUNT, axis=INT)
    declare_attrs(indexing.STRIDED_SLICE, key=SLICE_KEY)
    declare_attrs(indexing.STRIDED_SLICE_UPDATE, key=SLICE_KEY)
    declare_attrs(indexing.STRIDED_SLICE_GRAD, key=SLICE_KEY, static_shape=OPTIONAL_SHAPE)
    declare_attrs(indexing.UNSORTED_SEGMENT_SUM, static_num_segments=OPTIONAL_COUNT)
    # tensor lists and TensorArrays: attr ``array`` is the TensorArray's name in messages ("" if none)
    declare_attrs(lists.TENSOR_LIST_CONCAT, element_dtype=DTYPE, axis=INT, array=TEXT)
    declare_attrs(lists.TENSOR_LIST_FROM_TENSOR, element_dtype=DTYPE)
    declare_attrs(lists.TENSOR_LIST_FROM_TENSORS, element_dtype=DTYPE, element_shape=LIST_ELEMENT_SHAPE)
    declare_attrs(lists.TENSOR_LIST_GATHER, element_dtype=DTYPE, element_shape=LIST_ELEMENT_SHAPE, array=TEXT)
    declare_attrs(lists.TENSOR_LIST_GET_ITEM, element_dtype=DTYPE, array=TEXT)
    for op_def in (lists.TENSOR_LIST_INSERT, lists.TENSOR_LIST_POP, lists.TENSOR_LIST_PUSH_BACK,
                   lists.TENSOR_LIST_RESIZE, lists.TENSOR_LIST_SCATTER_ADD):
        declare_attrs(op_def, element_dtype=DTYPE)
    declare_attrs(lists.TENSOR_LIST_RESERVE, element_dtype=DTYPE, element_shape=LIST_ELEMENT_SHAPE, array=TEXT)
    for op_def in (lists.TENSOR_LIST_SCATTER, lists.TENSOR_LIST_SET_ITEM, lists.TENSOR_LIST_SPLIT):
        declare_attrs(op_def, element_dtype=DTYPE, array=TEXT, grow=BOOL, same_shape=BOOL)
    declare_attrs(lists.TENSOR_LIST_SPLIT_LIKE, element_dtype=DTYPE, axis=INT)
    declare_attrs(lists.TENSOR_LIST_STACK, element_dtype=DTYPE, element_shape=LIST_ELEMENT_SHAPE, array=TEXT,
                  length=OPTIONAL_COUNT)
    # kernel defaults: a node traced without these attrs is valid
    _OPTIONAL.update({
        lists.TENSOR_LIST_CONCAT: ("array",), lists.TENSOR_LIST_GATHER: ("array",),
        lists.TENSOR_LIST_GET_ITEM: ("array",), lists.TENSOR_LIST_RESERVE: ("array",),
        lists.TENSOR_LIST_SET_ITEM: ("array", "grow", "same_shape"),
        lists.TENSOR_LIST_STACK: ("array", "length"),
        RESHAPE: ("static_shape",), TILE: ("static_multiples",), gradient_ops.BROADCAST_TO: ("static_shape",),
        creation_ops.FILL: ("static_shape",), creation_ops.RANGE: ("static_length",),
        manipulation_ops.PAD: ("static_paddings",), manipulation_ops.MIRROR_PAD: ("static_paddings",),
        manipulation_ops.ONE_HOT: ("static_depth",), manipulation_ops.REPEAT: ("static_repeats",),
        random_ops.CATEGORICAL: ("static_num_samples",), random_ops.UNIFORM: ("static_shape",),
        random_ops.NORMAL: ("static_shape",), sort_ops.TOP_K: ("static_k",),
        stateless_random_ops.STATELESS_UNIFORM: ("static_shape",),
        stateless_random_ops.STATELESS_NORMAL: ("static_shape",),
        indexing.UNSORTED_SEGMENT_SUM: ("static_num_segments",),
        control_flow_ops.WHILE: ("maximum_iterations",),
    })


_declare_all()

