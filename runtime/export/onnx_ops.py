"""How each registered op type becomes ONNX nodes (opset 18).

``CONVERTERS`` maps an op type (the registry's name; a test checks every key is registered) to
``convert(builder, op, input_names) -> [output names]``. Ops not listed here cannot be exported;
``to_onnx`` names them in its error. Semantics follow our kernels, not ONNX's defaults where they
differ (floor division and modulo round toward -inf, integer means truncate, arg-max returns int32).
"""
from __future__ import annotations

from typing import Callable, Dict, List

import numpy as np

from runtime.errors import ExportError

Converter = Callable[..., List[str]]
CONVERTERS: Dict[str, Converter] = {}
SNAPSHOT_OPS = ("ReadVariableOp",)  # stateful, but exported as the variable's current value


def _converts(*op_types: str):
    def register(function: Converter) -> Converter:
        for op_type in op_types:
            CONVERTERS[op_type] = function
        return function
    return register


def _same(onnx_type: str) -> Converter:
    """A converter for an op that is exactly one ONNX node with the same inputs."""
    def convert(b, op, inputs):
        return [b.one(onnx_type, inputs, op.name)]
    return convert


for _ours, _theirs in {
        "Identity": "Identity", "AddV2": "Add", "Sub": "Sub", "Mul": "Mul", "RealDiv": "Div",
        "Maximum": "Max", "Minimum": "Min", "Pow": "Pow", "MatMul": "MatMul",
        "Greater": "Greater", "GreaterEqual": "GreaterOrEqual", "Less": "Less", "LessEqual": "LessOrEqual",
        "Equal": "Equal", "LogicalAnd": "And", "LogicalOr": "Or", "LogicalNot": "Not",
        "Neg": "Neg", "Abs": "Abs", "Sign": "Sign", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt"}.items():
    CONVERTERS[_ours] = _same(_theirs)


def _int64(b, name: str, hint: str) -> str:
    return b.one("Cast", [name], hint, to=b.onnx.TensorProto.INT64)


def _onnx_type(b, dtype) -> int:
    return b.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


@_converts("Const")
def _const(b, op, inputs):
    return [b.constant(op.attrs["value"], op.name)]


@_converts("ReadVariableOp")
def _read_variable(b, op, inputs):
    return [b.constant(np.asarray(op.attrs["variable"]), op.name)]  # a snapshot of the current value


@_converts("NotEqual")
def _not_equal(b, op, inputs):
    return [b.one("Not", [b.one("Equal", inputs, op.name + "/eq")], op.name)]


@_converts("Square")
def _square(b, op, inputs):
    return [b.one("Mul", [inputs[0], inputs[0]], op.name)]


@_converts("FloorMod")
def _floor_mod(b, op, inputs):
    x, y = inputs
    if op.outputs[0].dtype.kind in "iu":
        return [b.one("Mod", inputs, op.name, fmod=0)]  # integer Mod takes the divisor's sign, like ours
    quotient = b.one("Floor", [b.one("Div", inputs, op.name + "/div")], op.name + "/floor")
    return [b.one("Sub", [x, b.one("Mul", [quotient, y], op.name + "/mul")], op.name)]


@_converts("FloorDiv")
def _floor_div(b, op, inputs):
    x, y = inputs
    if op.outputs[0].dtype.kind in "iu":  # ONNX integer Div truncates; (x - x mod y) / y is exact
        remainder = b.one("Mod", inputs, op.name + "/mod", fmod=0)
        return [b.one("Div", [b.one("Sub", [x, remainder], op.name + "/sub"), y], op.name)]
    return [b.one("Floor", [b.one("Div", inputs, op.name + "/div")], op.name)]


@_converts("Cast")
def _cast(b, op, inputs):
    return [b.one("Cast", inputs, op.name, to=_onnx_type(b, op.attrs["dtype"]))]


@_converts("Reshape")
def _reshape(b, op, inputs):
    return [b.one("Reshape", [inputs[0], _int64(b, inputs[1], op.name + "/shape")], op.name)]


@_converts("Transpose")
def _transpose(b, op, inputs):
    perm = op.attrs["perm"]
    if perm is None:
        rank = op.inputs[0].ndim
        if rank is None:
            raise ExportError(f"{op.name}: Transpose of a tensor of unknown rank cannot be exported")
        perm = tuple(reversed(range(rank)))
    return [b.one("Transpose", inputs, op.name, perm=list(perm))]


@_converts("ExpandDims")
def _expand_dims(b, op, inputs):
    axes = b.constant(np.array([op.attrs["axis"]], dtype=np.int64), op.name + "/axes")
    return [b.one("Unsqueeze", [inputs[0], axes], op.name)]


@_converts("Squeeze")
def _squeeze(b, op, inputs):
    axis = op.attrs["axis"]
    if axis is None:
        return [b.one("Squeeze", inputs, op.name)]
    axes = b.constant(np.array(axis, dtype=np.int64), op.name + "/axes")
    return [b.one("Squeeze", [inputs[0], axes], op.name)]


@_converts("Tile")
def _tile(b, op, inputs):
    return [b.one("Tile", [inputs[0], _int64(b, inputs[1], op.name + "/multiples")], op.name)]


@_converts("Shape")
def _shape(b, op, inputs):
    shape = b.one("Shape", inputs, op.name + "/int64")
    return [b.one("Cast", [shape], op.name, to=_onnx_type(b, op.attrs["out_type"]))]


@_converts("Size")
def _size(b, op, inputs):
    size = b.one("Size", inputs, op.name + "/int64")
    return [b.one("Cast", [size], op.name, to=_onnx_type(b, op.attrs["out_type"]))]


@_converts("Rank")
def _rank(b, op, inputs):
    rank = b.one("Size", [b.one("Shape", inputs, op.name + "/shape")], op.name + "/int64")
    return [b.one("Cast", [rank], op.name, to=b.onnx.TensorProto.INT32)]


# --- control flow ----------------------------------------------------------------------------------
@_converts("If")
def _if(b, op, inputs):
    condition, branch_inputs = inputs[0], inputs[1:]
    branches = {}
    for attr in ("then_branch", "else_branch"):
        graph = op.attrs[attr]
        bindings = dict(zip(graph.inputs, branch_inputs))  # branches read outer names directly
        branches[attr] = b.subgraph(graph, bindings, graph.outputs, f"{op.name}_{attr}")
    return b.node("If", [condition], op.name, len(op.outputs), **branches)


@_converts("While")
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
    infos += [b.value_info(name, t.dtype, t.shape) for name, t in zip(loop_var_names, body_graph.inputs)]
    bindings = dict(zip(body_graph.inputs, loop_var_names + captured))

    def body_with_test(inner):
        next_vars = inner.emit(body_graph, bindings, body_graph.outputs)
        test = inner.emit(cond_graph, dict(zip(cond_graph.inputs, next_vars + captured)), cond_graph.outputs)[0]
        return [test] + next_vars

    body = b.loop_body(body_with_test, f"{op.name}_body", infos,
                       [(np.bool_, ())] + [(t.dtype, t.shape) for t in body_graph.outputs])
    return b.node("Loop", [trip_count, first_test] + initial, op.name, count, body=body)
