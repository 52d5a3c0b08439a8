"""ONNX converters for ordering, neural-network, linear-algebra, array, indexing and creation ops.

They register into ``runtime.backends.onnx.ops.CONVERTERS`` when imported (the export module imports
both); the table, its helpers and the elementwise, shape and reduction converters live there.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import List

import numpy as np

from runtime.core.errors import ExportError
from runtime.backends.onnx.checked_indexing import checked_python_index
from runtime.backends.onnx.ops import CONVERTERS, Converter, _converts, _int64, _onnx_type
from runtime.ops.combine_ops import CONCAT, SELECT, STACK, WHERE
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.creation_ops import FILL, ONES_LIKE, RANGE, ZEROS_LIKE
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT
from runtime.ops.einsum_ops import EINSUM
from runtime.ops.gradient_ops import BROADCAST_TO
from runtime.ops.indexing import STRIDED_SLICE, STRIDED_SLICE_GRAD, STRIDED_SLICE_UPDATE
from runtime.ops.linalg_ops import DET
from runtime.ops.manipulation_ops import CLIP_BY_VALUE, MIRROR_PAD, ONE_HOT, PAD, REVERSE
from runtime.ops.nn_ops import ELU, LEAKY_RELU, LOG_SOFTMAX, RELU, RELU6, SIGMOID_CROSS_ENTROPY, SOFTMAX
from runtime.ops.set_ops import UNIQUE, UNIQUE_WITH_COUNTS
from runtime.ops.sort_ops import ARG_SORT, SORT, TOP_K
from runtime.ops.split_ops import SPLIT, UNSTACK


# --- ordering: ONNX TopK lists the lower index first among equal values, as our kernels do ---------
def _as_k(b, k: str, hint: str) -> str:
    return b.one("Reshape", [_int64(b, k, hint + "/int64"), b.constant(np.array([1], np.int64), hint + "/one")],
                 hint)


def _top_k_node(b, op, x: str, k: str, axis: int, largest: bool) -> List[str]:
    return b.node("TopK", [x, k], op.name + "/topk", 2, axis=axis, largest=int(largest), sorted=1)


@_converts(TOP_K)
def _top_k(b, op, inputs):
    values, indices = _top_k_node(b, op, inputs[0], _as_k(b, inputs[1], op.name + "/k"), -1, True)
    return [b.one("Identity", [values], op.name),
            b.one("Cast", [indices], op.name + "/indices", to=_onnx_type(b, op.attrs["index_type"]))]


def _whole_axis(b, op, x: str) -> str:
    axis = b.constant(np.array([op.attrs["axis"]], np.int64), op.name + "/axis")
    return b.one("Gather", [b.one("Shape", [x], op.name + "/shape"), axis], op.name + "/length", axis=0)


@_converts(SORT)
def _sort(b, op, inputs):
    values, _ = _top_k_node(b, op, inputs[0], _whole_axis(b, op, inputs[0]), op.attrs["axis"],
                            op.attrs["direction"] == "DESCENDING")
    return [b.one("Identity", [values], op.name)]


@_converts(ARG_SORT)
def _arg_sort(b, op, inputs):
    _, indices = _top_k_node(b, op, inputs[0], _whole_axis(b, op, inputs[0]), op.attrs["axis"],
                             op.attrs["direction"] == "DESCENDING")
    return [b.one("Cast", [indices], op.name, to=b.onnx.TensorProto.INT32)]


# --- unique: ONNX Unique with sorted=0 lists values in order of first appearance, as our kernels do ------
# onnxruntime's Unique runs on float32, float64 and int64 only: other dtypes go through int64 (or float32) and back
def _unique_nodes(b, op, x: str) -> List[str]:
    dtype = op.inputs[0].dtype
    wide = dtype if dtype in (np.float32, np.float64, np.int64) else np.float32 if dtype.kind == "f" else np.int64
    if wide != dtype:
        x = b.one("Cast", [x], op.name + "/wide", to=_onnx_type(b, np.dtype(wide)))
    y, first, inverse, counts = b.node("Unique", [x], op.name + "/unique", 4, sorted=0)
    if wide != dtype:
        y = b.one("Cast", [y], op.name + "/narrow", to=_onnx_type(b, dtype))
    return [y, first, inverse, counts]


@_converts(UNIQUE)
def _unique(b, op, inputs):
    y, _, inverse, _ = _unique_nodes(b, op, inputs[0])
    return [b.one("Identity", [y], op.name),
            b.one("Cast", [inverse], op.name + "/idx", to=_onnx_type(b, op.attrs["out_idx"]))]


@_converts(UNIQUE_WITH_COUNTS)
def _unique_with_counts(b, op, inputs):
    y, _, inverse, counts = _unique_nodes(b, op, inputs[0])
    index_type = _onnx_type(b, op.attrs["out_idx"])
    return [b.one("Identity", [y], op.name), b.one("Cast", [inverse], op.name + "/idx", to=index_type),
            b.one("Cast", [counts], op.name + "/count", to=index_type)]


# --- neural-network functions ----------------------------------------------------------------------
def _scalar_like(b, op, value, hint: str) -> str:
    return b.constant(np.array(value, dtype=op.outputs[0].dtype), op.name + hint)


@_converts(RELU)
def _relu(b, op, inputs):
    if op.outputs[0].dtype.kind == "f":
        return [b.one("Relu", inputs, op.name)]
    return [b.one("Max", [inputs[0], _scalar_like(b, op, 0, "/zero")], op.name)]  # integer Relu: Max


@_converts(RELU6)
def _relu6(b, op, inputs):
    positive = b.one("Max", [inputs[0], _scalar_like(b, op, 0, "/zero")], op.name + "/relu")
    return [b.one("Min", [positive, _scalar_like(b, op, 6, "/six")], op.name)]


@_converts(LEAKY_RELU)
def _leaky_relu(b, op, inputs):
    return [b.one("LeakyRelu", inputs, op.name, alpha=float(op.attrs["alpha"]))]


@_converts(ELU)
def _elu(b, op, inputs):
    # ONNX Elu is exp(x) - 1 below 0, which loses every digit near 0 (-1e-30 gave 0); ours is expm1(x). ONNX has
    # no Expm1, but expm1(x) = 2t / (1 - t) with t = tanh(x / 2) keeps them (tanh(x/2) ~ x/2 near 0).
    x = inputs[0]
    dtype = op.outputs[0].dtype
    const = lambda value, hint: b.constant(np.array(value, dtype), f"{op.name}/{hint}")  # noqa: E731
    half = b.one("Tanh", [b.one("Mul", [b.one("Min", [x, const(0.0, "zero")], op.name + "/neg_part"),
                                        const(0.5, "half")], op.name + "/half_x")], op.name + "/t")
    expm1 = b.one("Div", [b.one("Add", [half, half], op.name + "/two_t"),
                          b.one("Sub", [const(1.0, "one"), half], op.name + "/one_minus_t")], op.name + "/expm1")
    return [b.one("Where", [b.one("Greater", [x, const(0.0, "zero_again")], op.name + "/positive"), x, expm1],
                  op.name)]


@_converts(CUSTOM_GRADIENT)
def _custom_gradient(b, op, inputs):  # the forward values; the custom gradient is not part of an exported model
    return [b.one("Identity", [name], f"{op.name}/{i}") for i, name in enumerate(inputs[:op.attrs["num_outputs"]])]


@_converts(SIGMOID_CROSS_ENTROPY)
def _sigmoid_cross_entropy(b, op, inputs):  # max(x, 0) - x z + softplus(-|x|): softplus of a value <= 0 is exact
    labels, logits = inputs
    name = op.name
    hinge = b.one("Sub", [b.one("Relu", [logits], name + "/relu"), b.one("Mul", [logits, labels], name + "/xz")],
                  name + "/hinge")
    tail = b.one("Softplus", [b.one("Neg", [b.one("Abs", [logits], name + "/abs")], name + "/neg")], name + "/tail")
    return [b.one("Add", [hinge, tail], name)]


@_converts(SOFTMAX, LOG_SOFTMAX)
def _softmax(b, op, inputs):
    return [b.one(op.type, inputs, op.name, axis=op.attrs["axis"])]


# --- linear algebra and array ops ------------------------------------------------------------------
@_converts(DET)
def _det(b, op, inputs):
    return [b.one("Det", inputs, op.name)]


@_converts(EINSUM)
def _einsum(b, op, inputs):
    return [b.one("Einsum", inputs, op.name, equation=op.attrs["equation"])]


@_converts(CLIP_BY_VALUE)
def _clip_by_value(b, op, inputs):
    t, low, high = inputs  # Min then Max, like our kernel: bounds may be tensors, and min > max gives min
    return [b.one("Max", [b.one("Min", [t, high], op.name + "/min"), low], op.name)]


@_converts(ONE_HOT)
def _one_hot(b, op, inputs):
    """indices[..., None] == range(depth) picks on_value or off_value, as our kernel does: an index outside
    [0, depth) matches nothing (ONNX OneHot would count negative ones from the end)."""
    indices, depth, on_value, off_value = inputs
    rank = op.inputs[0].ndim
    if rank is None:
        raise ExportError(f"{op.name}: OneHot of indices of unknown rank cannot be exported")
    position = rank if op.attrs["axis"] == -1 else op.attrs["axis"]
    wide = b.one("Unsqueeze", [_int64(b, indices, op.name + "/indices"),
                               b.constant(np.array([position], np.int64), op.name + "/axis")], op.name + "/expand")
    classes = b.one("Range", [b.constant(np.array(0, np.int64), op.name + "/zero"),
                              _int64(b, depth, op.name + "/depth"),
                              b.constant(np.array(1, np.int64), op.name + "/one")], op.name + "/classes")
    trailing = rank - position  # the class axis of `classes` lines up with `position`
    classes = b.one("Reshape", [classes, b.constant(np.array([-1] + [1] * trailing, np.int64), op.name + "/column")],
                    op.name + "/aligned")
    hot = b.one("Equal", [wide, classes], op.name + "/hot")
    return [b.one("Where", [hot, on_value, off_value], op.name)]


def _onnx_pads(b, op, paddings: str) -> str:
    """Our [[before, after], ...] as ONNX's [before..., after...] int64."""
    flat = b.one("Transpose", [_int64(b, paddings, op.name + "/paddings")], op.name + "/by_side", perm=[1, 0])
    return b.one("Reshape", [flat, b.constant(np.array([-1], np.int64), op.name + "/flat")], op.name + "/pads")


@_converts(PAD)
def _pad(b, op, inputs):
    return [b.one("Pad", [inputs[0], _onnx_pads(b, op, inputs[1]), inputs[2]], op.name, mode="constant")]


@_converts(MIRROR_PAD)
def _mirror_pad(b, op, inputs):
    if op.attrs["mode"] != "REFLECT":
        raise ExportError(f"{op.name}: MirrorPad mode {op.attrs['mode']} cannot be exported (ONNX Pad has "
                          "'reflect' but no 'symmetric')")
    return [b.one("Pad", [inputs[0], _onnx_pads(b, op, inputs[1])], op.name, mode="reflect")]


@_converts(REVERSE)
def _reverse(b, op, inputs):
    axes = op.attrs["axis"]
    if not axes:
        return [b.one("Identity", inputs, op.name)]
    count = len(axes)
    return [b.one("Slice", [inputs[0], b.constant(np.full(count, -1, np.int64), op.name + "/starts"),
                            b.constant(np.full(count, _INT64_MIN, np.int64), op.name + "/ends"),
                            b.constant(np.array(axes, np.int64), op.name + "/axes"),
                            b.constant(np.full(count, -1, np.int64), op.name + "/steps")], op.name)]


def _split_nodes(b, op, x: str, axis: int, sizes) -> List[str]:
    count = len(op.outputs)
    if sizes is None:
        return b.node("Split", [x], op.name + "/split", count, axis=axis, num_outputs=count)
    return b.node("Split", [x, b.constant(np.array(sizes, np.int64), op.name + "/sizes")], op.name + "/split",
                  count, axis=axis)


@_converts(SPLIT)
def _split(b, op, inputs):
    sizes = op.attrs["sizes"]
    if sizes is not None and -1 in sizes:
        sizes = [t.shape[op.attrs["axis"]] if t.shape is not None else None for t in op.outputs]
        if None in sizes:
            raise ExportError(f"{op.name}: a -1 split size over an axis of unknown size cannot be exported")
    pieces = _split_nodes(b, op, inputs[0], op.attrs["axis"], sizes)
    return [b.one("Identity", [piece], f"{op.name}/output{i}") for i, piece in enumerate(pieces)]


@_converts(UNSTACK)
def _unpack(b, op, inputs):
    axis = op.attrs["axis"]
    axes = b.constant(np.array([axis], np.int64), op.name + "/axis")
    pieces = _split_nodes(b, op, inputs[0], axis, [1] * len(op.outputs))
    return [b.one("Squeeze", [piece, axes], f"{op.name}/output{i}") for i, piece in enumerate(pieces)]


# --- combining, creating, indexing -----------------------------------------------------------------
@_converts(CONCAT)
def _concat(b, op, inputs):
    return [b.one("Concat", inputs, op.name, axis=op.attrs["axis"])]


@_converts(STACK)
def _pack(b, op, inputs):
    axes = b.constant(np.array([op.attrs["axis"]], dtype=np.int64), op.name + "/axes")
    expanded = [b.one("Unsqueeze", [name, axes], op.name + "/expand") for name in inputs]
    return [b.one("Concat", expanded, op.name, axis=op.attrs["axis"])]


@_converts(SELECT)
def _select(b, op, inputs):
    return [b.one("Where", inputs, op.name)]


@_converts(WHERE)
def _where(b, op, inputs):
    return [b.one("Transpose", [b.one("NonZero", inputs, op.name + "/nonzero")], op.name, perm=[1, 0])]


@_converts(FILL)
def _fill(b, op, inputs):
    return [b.one("Expand", [inputs[1], _int64(b, inputs[0], op.name + "/dims")], op.name)]


@_converts(BROADCAST_TO)
def _broadcast_to(b, op, inputs):
    return [b.one("Expand", [inputs[0], _int64(b, inputs[1], op.name + "/shape")], op.name)]


def _like(value: int) -> Converter:
    def convert(b, op, inputs):
        scalar = b.constant(np.array(value, dtype=op.outputs[0].dtype), op.name + "/value")
        return [b.one("Expand", [scalar, b.one("Shape", inputs, op.name + "/shape")], op.name)]
    return convert


CONVERTERS[ZEROS_LIKE] = _like(0)
CONVERTERS[ONES_LIKE] = _like(1)


@_converts(RANGE)
def _range(b, op, inputs):
    return [b.one("Range", inputs, op.name)]


_INT64_MAX, _INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


@_converts(STRIDED_SLICE)
def _strided_slice(b, op, inputs):
    """``x[key]`` item by item: slices → Slice, indices → Gather (drops the axis), None → Unsqueeze."""
    value, dynamic = inputs[0], inputs[1:]
    key = op.attrs["key"]
    rank = op.inputs[0].ndim
    consumed = sum(1 for item in key if item[0] in ("index", "slice"))
    position = 0

    def number(component, default, hint):
        if component is None:
            return b.constant(np.array([default], dtype=np.int64), hint)
        if type(component) is tuple:
            wide = _int64(b, dynamic[component[1]], hint + "/int64")
            return b.one("Reshape", [wide, b.constant(np.array([1], np.int64), hint + "/one")], hint)
        return b.constant(np.array([component], dtype=np.int64), hint)

    def axis():
        return b.constant(np.array([position], dtype=np.int64), op.name + "/axis")

    for item in key:
        kind = item[0]
        if kind == "index":
            index = item[1]
            if type(index) is tuple:  # a run-time index: checked, as our kernel checks it
                value = checked_python_index(b, value, dynamic[index[1]], position, op.name)
            else:  # a constant: checked while tracing when the dim was known, else by the runtime's Gather
                value = b.one("Gather", [value, b.constant(np.array(index, dtype=np.int64), op.name + "/index")],
                              op.name + "/gather", axis=position)
        elif kind == "slice":
            start, stop, step = item[1:]
            if type(step) is tuple and (start is None or stop is None):
                raise ExportError(f"{op.name}: a slice with a run-time step and an open end cannot be exported")
            backwards = step is not None and type(step) is not tuple and step < 0
            starts = number(start, _INT64_MAX if backwards else 0, op.name + "/start")
            ends = number(stop, _INT64_MIN if backwards else _INT64_MAX, op.name + "/stop")
            steps = number(step, 1, op.name + "/step")
            value = b.one("Slice", [value, starts, ends, axis(), steps], op.name + "/slice")
            position += 1
        elif kind == "newaxis":
            value = b.one("Unsqueeze", [value, axis()], op.name + "/newaxis")
            position += 1
        else:  # ellipsis: skip the dims no other item consumes
            if rank is None:
                raise ExportError(f"{op.name}: '...' in a subscript of a tensor of unknown rank cannot be exported")
            position += rank - consumed
    return [b.one("Identity", [value], op.name)]


@_converts(STRIDED_SLICE_UPDATE)
def _strided_slice_update(b, op, inputs):
    """``x[key] = v``: number x's elements (an int64 grid shaped like x), slice the grid with ``key`` exactly as
    ``x[key]`` is exported, and write the broadcast value at those flat positions with ScatterND."""
    x, value, dynamic = inputs[0], inputs[1], inputs[2:]
    name = op.name
    shape = b.one("Shape", [x], name + "/shape")
    size = b.one("ReduceProd", [shape], name + "/size", keepdims=0)
    zero, one = b.constant(np.array(0, np.int64), name + "/zero"), b.constant(np.array(1, np.int64), name + "/one")
    grid = b.one("Reshape", [b.one("Range", [zero, size, one], name + "/range"), shape], name + "/grid")
    reading = SimpleNamespace(name=name + "/read", attrs=op.attrs, inputs=op.inputs)
    (positions,) = _strided_slice(b, reading, [grid, *dynamic])
    flat_positions = b.one("Reshape", [positions, b.constant(np.array([-1, 1], np.int64), name + "/column")],
                           name + "/positions")
    values = b.one("Expand", [value, b.one("Shape", [positions], name + "/part_shape")], name + "/expand")
    flat_values = b.one("Reshape", [values, b.constant(np.array([-1], np.int64), name + "/flat")], name + "/values")
    flat = b.one("Reshape", [x, b.constant(np.array([-1], np.int64), name + "/flat_x")], name + "/flat_input")
    updated = b.one("ScatterND", [flat, flat_positions, flat_values], name + "/scatter")
    return [b.one("Reshape", [updated, shape], name)]


@_converts(STRIDED_SLICE_GRAD)
def _strided_slice_grad(b, op, inputs):
    """The gradient of ``x[key]``: zeros of x's shape with the gradient written at ``key``, exported exactly as
    ``zeros[key] = grad`` is (a strided slice selects each element at most once, so writing is adding)."""
    shape, grad, dynamic = inputs[0], inputs[1], inputs[2:]
    dtype = op.outputs[0].dtype
    zeros = b.one("ConstantOfShape", [_int64(b, shape, op.name + "/shape")], op.name + "/zeros",
                  value=b.onnx.numpy_helper.from_array(np.zeros([1], dtype), name=b.fresh(op.name + "/zero")))
    static = op.attrs["static_shape"]
    like = SimpleNamespace(ndim=None if static is None else len(static), shape=static, dtype=dtype)
    writing = SimpleNamespace(name=op.name, attrs={"key": op.attrs["key"]}, inputs=[like, *op.inputs[1:]])
    return _strided_slice_update(b, writing, [zeros, grad, *dynamic])


# --- control flow ----------------------------------------------------------------------------------
@_converts(IF)
def _if(b, op, inputs):
    condition, branch_inputs = inputs[0], inputs[1:]
    branches = {}
    for attr in ("then_branch", "else_branch"):
        graph = op.attrs[attr]
        bindings = dict(zip(graph.inputs, branch_inputs))  # branches read outer names directly
        branches[attr] = b.subgraph(graph, bindings, graph.outputs, f"{op.name}_{attr}")
    return b.node("If", [condition], op.name, len(op.outputs), **branches)


@_converts(WHILE)
def _while(b, op, inputs):
    count = op.attrs["num_loop_vars"]
    initial, captured = inputs[:count], inputs[count:]
    cond_graph, body_graph = op.attrs["cond"], op.attrs["body"]
    first_test = b.emit(cond_graph, dict(zip(cond_graph.inputs, inputs)), cond_graph.outputs)[0]
    limit = op.attrs.get("maximum_iterations")
    trip_count = "" if limit is None else b.constant(np.array(int(limit), dtype=np.int64), op.name + "/limit")

    # ONNX Loop body: (iteration, condition, *loop vars) -> (condition, *next loop vars)
    body_inputs = [b.fresh(f"{op.name}/iteration"), b.fresh(f"{op.name}/condition")]
    loop_var_names = [b.fresh(f"{op.name}/{t.op.name}") for t in body_graph.inputs[:count]]
    infos = [b.value_info(body_inputs[0], np.int64, ()), b.value_info(body_inputs[1], np.bool_, ())]
    infos += [b.value_info_of(name, t) for name, t in zip(loop_var_names, body_graph.inputs)]
    bindings = dict(zip(body_graph.inputs, loop_var_names + captured))

    def body_with_test(inner):
        next_vars = inner.emit(body_graph, bindings, body_graph.outputs)
        test = inner.emit(cond_graph, dict(zip(cond_graph.inputs, next_vars + captured)), cond_graph.outputs)[0]
        return [test] + next_vars

    body = b.loop_body(body_with_test, f"{op.name}_body", infos,
                       [(np.bool_, ())] + [b.spec(t) for t in body_graph.outputs])
    return b.node("Loop", [trip_count, first_test] + initial, op.name, count, body=body)
