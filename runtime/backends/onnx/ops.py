"""How each registered op type becomes ONNX nodes (opset 18).

``CONVERTERS`` maps an op (its ``OpDef``, a registry constant: tables key by identity, never by name) to
``convert(builder, op, input_names) -> [output names]`` (the ordering, nn, linalg and array
converters are in ``runtime.backends.onnx.array_ops``). Ops not listed here cannot be exported;
``to_onnx`` names them in its error. Semantics follow our kernels, not ONNX's defaults where they
differ (floor division and modulo round toward -inf, integer means truncate, arg-max returns int32).
"""
from __future__ import annotations

from typing import Callable, Dict, List

import numpy as np

from runtime.core.errors import ExportError
from runtime.core.registry import OpDef
from runtime.core.graph import CONST, PLACEHOLDER
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, SQUEEZE, TILE, TRANSPOSE
from runtime.ops.cast_op import CAST
from runtime.ops.core import IDENTITY
from runtime.ops.debugging import ASSERT, ENSURE_DEFINED
from runtime.ops.gradient_ops import STOP_GRADIENT, SUM_TO_SHAPE
from runtime.ops.linalg_ops import DIAG_PART, INV
from runtime.ops.list_gradients import TENSOR_LIST_RESIZE, TENSOR_LIST_SCATTER_ADD
from runtime.ops.list_ops import TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS
from runtime.ops.logging_ops import PRINT
from runtime.ops.logical_ops import LOGICAL_AND, LOGICAL_NOT, LOGICAL_OR
from runtime.ops.manipulation_ops import REPEAT
from runtime.ops.math_ops import (ADD, EQUAL, FLOOR_DIV, FLOOR_MOD, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, MATMUL,
                                  MAXIMUM, MINIMUM, MUL, NOT_EQUAL, POW, REAL_DIV, SUB)
from runtime.ops.random_ops import CATEGORICAL, NORMAL, UNIFORM
from runtime.ops.reduction_ops import ALL, ANY, ARG_MAX, ARG_MIN, CUMPROD, CUMSUM, MAX, MEAN, MIN, PROD, SUM
from runtime.ops.shape_ops import RANK, SHAPE, SIZE
from runtime.ops.special_math_ops import ERF, ERFC
from runtime.ops.stateless_random_ops import STATELESS_NORMAL, STATELESS_UNIFORM
from runtime.ops.tensor_array_ops import TENSOR_LIST_GATHER, TENSOR_LIST_RESERVE, TENSOR_LIST_SCATTER, TENSOR_LIST_SPLIT
from runtime.ops.unary_ops import (ABS, CEIL, COS, EXP, EXPM1, FLOOR, IS_FINITE, IS_NAN, LOG, LOG1P, LOG_SIGMOID, NEG,
                                   RECIPROCAL, ROUND, RSQRT, SIGMOID, SIGN, SIN, SOFTPLUS, SQRT, SQUARE, TANH)
from runtime.ops.variables import ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE, ASSIGN_VARIABLE, READ_VARIABLE

Converter = Callable[..., List[str]]
CONVERTERS: Dict[OpDef, Converter] = {}
SNAPSHOT_OPS = (READ_VARIABLE,)  # stateful, but exported as the variable's current value
# stateful only so that each run makes a new list (never a shared constant): no side effect to refuse
NEW_VALUE_OPS = (TENSOR_LIST_FROM_TENSORS, TENSOR_LIST_FROM_TENSOR)
# Every registered op is either in CONVERTERS or here, with the reason (tests/project/test_op_homes.py checks it).
NOT_EXPORTED: Dict[OpDef, str] = {
    PLACEHOLDER: "becomes a model input, not a node",
    PRINT: "a side effect: ONNX has no printing",
    ASSERT: "a side effect: ONNX cannot raise",
    ENSURE_DEFINED: "ONNX cannot raise: a loop that ran zero times would give zeros instead of an error",
    UNIFORM: "a side effect: the draws would differ from ours (ONNX's generators are not numpy's)",
    ASSIGN_VARIABLE: "a side effect: ONNX models have no mutable state",
    ASSIGN_ADD_VARIABLE: "a side effect: ONNX models have no mutable state",
    ASSIGN_SUB_VARIABLE: "a side effect: ONNX models have no mutable state",
    CUMPROD: "ONNX has CumSum but no cumulative product",
    ERFC: "ONNX has no Erfc, and 1 - Erf(x) loses every digit for large x",
    EXPM1: "ONNX has no Expm1, and Exp(x) - 1 loses the digits that make expm1 useful near 0",
    LOG1P: "ONNX has no Log1p, and Log(1 + x) loses the digits that make log1p useful near 0",
    DIAG_PART: "ONNX has no diagonal op (EyeLike is 2-D only)",
    INV: "ONNX's standard opset has no matrix inverse",
    REPEAT: "ONNX has no repeat-each op",
    NORMAL: "a side effect: the draws would differ from ours (ONNX's generators are not numpy's)",
    CATEGORICAL: "a side effect: the draws would differ from ours (ONNX's generators are not numpy's)",
    STATELESS_UNIFORM: "the draws would differ from ours (ONNX's generators are not numpy's)",
    STATELESS_NORMAL: "the draws would differ from ours (ONNX's generators are not numpy's)",
    TENSOR_LIST_SCATTER_ADD: "a gradient op (of a TensorArray's gather); TensorArrays do not export",
    **{op: "a TensorArray op: ONNX sequences have no unwritten elements, so reading one could not be an error "
           "there; collect values in a Python list instead (it becomes a tensor list, which exports)"
       for op in (TENSOR_LIST_RESERVE, TENSOR_LIST_GATHER, TENSOR_LIST_SCATTER, TENSOR_LIST_SPLIT)},
    TENSOR_LIST_RESIZE: "a gradient op (of a TensorArray's split); TensorArrays do not export",
}


def _converts(*op_defs: OpDef):
    def register(function: Converter) -> Converter:
        for op_def in op_defs:
            CONVERTERS[op_def] = function
        return function
    return register


def _same(onnx_type: str) -> Converter:
    """A converter for an op that is exactly one ONNX node with the same inputs."""
    def convert(b, op, inputs):
        return [b.one(onnx_type, inputs, op.name)]
    return convert


for _ours, _theirs in {
        IDENTITY: "Identity", ADD: "Add", SUB: "Sub", MUL: "Mul", REAL_DIV: "Div",
        MAXIMUM: "Max", MINIMUM: "Min", POW: "Pow", MATMUL: "MatMul",
        GREATER: "Greater", GREATER_EQUAL: "GreaterOrEqual", LESS: "Less", LESS_EQUAL: "LessOrEqual",
        EQUAL: "Equal", LOGICAL_AND: "And", LOGICAL_OR: "Or", LOGICAL_NOT: "Not",
        STOP_GRADIENT: "Identity", NEG: "Neg", ABS: "Abs", SIGN: "Sign", EXP: "Exp", LOG: "Log",
        SQRT: "Sqrt",
        TANH: "Tanh", SOFTPLUS: "Softplus", SIN: "Sin", COS: "Cos",
        FLOOR: "Floor", CEIL: "Ceil", RECIPROCAL: "Reciprocal", ERF: "Erf", IS_NAN: "IsNaN"}.items():
    CONVERTERS[_ours] = _same(_theirs)


def _int64(b, name: str, hint: str) -> str:
    return b.one("Cast", [name], hint, to=b.onnx.TensorProto.INT64)


def _onnx_type(b, dtype) -> int:
    return b.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


@_converts(LOG_SIGMOID)
def _log_sigmoid(b, op, inputs):  # -softplus(-x)
    negated = b.one("Neg", inputs, op.name + "/neg")
    return [b.one("Neg", [b.one("Softplus", [negated], op.name + "/softplus")], op.name)]


@_converts(CONST)
def _const(b, op, inputs):
    return [b.constant(op.attrs["value"], op.name)]


@_converts(READ_VARIABLE)
def _read_variable(b, op, inputs):
    return [b.constant(np.asarray(op.attrs["variable"]), op.name)]  # a snapshot of the current value


@_converts(NOT_EQUAL)
def _not_equal(b, op, inputs):
    return [b.one("Not", [b.one("Equal", inputs, op.name + "/eq")], op.name)]


@_converts(SQUARE)
def _square(b, op, inputs):
    return [b.one("Mul", [inputs[0], inputs[0]], op.name)]


@_converts(ROUND)
def _round(b, op, inputs):
    if op.outputs[0].dtype.kind != "f":  # integers are already round; ONNX Round takes floats only
        return [b.one("Identity", inputs, op.name)]
    return [b.one("Round", inputs, op.name)]  # ONNX Round also rounds halves to even


@_converts(RSQRT)
def _rsqrt(b, op, inputs):
    return [b.one("Reciprocal", [b.one("Sqrt", inputs, op.name + "/sqrt")], op.name)]


@_converts(SIGMOID)
def _sigmoid(b, op, inputs):
    """Our kernel's formula, [x >= 0 ? 1 : e] / (1 + e) with e = exp(-|x|): within Exp's ulps of ours, where ONNX
    Runtime's Sigmoid is off by 0.2% in the tail (3.1888e-06 for 3.1941e-06 at x = -12.65)."""
    x = inputs[0]
    dtype = op.outputs[0].dtype
    e = b.one("Exp", [b.one("Neg", [b.one("Abs", [x], op.name + "/abs")], op.name + "/neg")], op.name + "/exp")
    one = b.constant(np.array(1.0, dtype), op.name + "/one")
    nonnegative = b.one("GreaterOrEqual", [x, b.constant(np.array(0.0, dtype), op.name + "/zero")], op.name + "/ge0")
    numerator = b.one("Where", [nonnegative, one, e], op.name + "/numerator")
    return [b.one("Div", [numerator, b.one("Add", [e, one], op.name + "/denominator")], op.name)]


@_converts(IS_FINITE)
def _is_finite(b, op, inputs):
    infinite = b.one("IsInf", inputs, op.name + "/inf")
    return [b.one("Not", [b.one("Or", [infinite, b.one("IsNaN", inputs, op.name + "/nan")], op.name + "/or")],
                  op.name)]


# Floor division and modulo, exactly as numpy computes them (our kernels are numpy's floor_divide / remainder).
# ONNX's own forms differ: integer Div truncates (and x - x mod y overflows at the int minimum: -2**31 // 3
# gave +715827882), and Floor(x / y) is not numpy's quotient for large floats (123456789 % 2.5 gave 0 for 2)
# nor for inf (inf // 2.5 gave inf for nan). So the export spells out numpy's algorithm (npy_divmod):
#   mod = fmod(a, b)                          exact
#   div = (a - mod) / b
#   if mod != 0 and (b < 0) != (mod < 0):    mod += b; div -= 1
#   if mod == 0:                              mod = copysign(0, b)
#   floordiv = floor(div), + 1 if div - floor(div) > 0.5; copysign(0, a / b) where div == 0
#   b == 0:                                   floordiv = a / b, mod = fmod(a, 0) (nan)
# with nan falling through every comparison as in C; zeros get their sign last (_zero_signed_like). float16 runs
# in float32 and rounds back, as numpy's float16 loops do. Integers: truncating Div and Mod(fmod=1), then one step
# down where the signs differ;
# a divisor of -1 is x -> -x (wrapping at the minimum, as numpy does), never Div(INT_MIN, -1), which traps.
@_converts(FLOOR_DIV)
def _floor_div(b, op, inputs):
    return _floor_div_or_mod(b, op, inputs, wants_quotient=True)


@_converts(FLOOR_MOD)
def _floor_mod(b, op, inputs):
    return _floor_div_or_mod(b, op, inputs, wants_quotient=False)


def _floor_div_or_mod(b, op, inputs, wants_quotient):
    x, y = inputs
    dtype = op.outputs[0].dtype
    if dtype == np.int16 and wants_quotient:  # ONNX Runtime has no int16 Where: int32, then back (wrapping)
        x, y = (b.one("Cast", [v], f"{op.name}/{n}32", to=b.onnx.TensorProto.INT32) for v, n in ((x, "x"), (y, "y")))
        result = _integer_floor_div_or_mod(b, op.name + "/i32", x, y, np.dtype(np.int32), wants_quotient)
        return [b.one("Cast", [result], op.name, to=b.onnx.TensorProto.INT16)]
    if dtype.kind in "iu":
        return [_integer_floor_div_or_mod(b, op.name, x, y, dtype, wants_quotient)]
    if dtype == np.float16:
        x, y = (b.one("Cast", [v], f"{op.name}/{n}32", to=b.onnx.TensorProto.FLOAT) for v, n in ((x, "x"), (y, "y")))
        result = _float_floor_div_or_mod(b, op.name + "/f32", x, y, np.float32, wants_quotient)
        return [b.one("Cast", [result], op.name, to=b.onnx.TensorProto.FLOAT16)]
    return [_float_floor_div_or_mod(b, op.name, x, y, dtype, wants_quotient)]


def _float_floor_div_or_mod(b, name, x, y, dtype, wants_quotient):
    def const(value, hint):
        return b.constant(np.array(value, dtype), f"{name}/{hint}")

    zero = const(0.0, "zero")
    mod = b.one("Mod", [x, y], name + "/fmod", fmod=1)
    mod_nonzero = b.one("Not", [b.one("Equal", [mod, zero], name + "/mod_is_0")], name + "/mod_nonzero")
    signs_differ = b.one("Xor", [b.one("Less", [y, zero], name + "/y_neg"),
                                 b.one("Less", [mod, zero], name + "/mod_neg")], name + "/signs_differ")
    flip = b.one("And", [mod_nonzero, signs_differ], name + "/flip")
    if not wants_quotient:
        result = b.one("Where", [flip, b.one("Add", [mod, y], name + "/mod_plus_y"), mod], name + "/adjusted")
        return _zero_signed_like(b, name, result, y, const)  # a zero remainder has the divisor's sign
    div = b.one("Div", [b.one("Sub", [x, mod], name + "/x_minus_mod"), y], name + "/div")
    div = b.one("Where", [flip, b.one("Sub", [div, const(1.0, "one")], name + "/div_minus_1"), div], name + "/div_adj")
    floor = b.one("Floor", [div], name + "/floor")
    past_half = b.one("Greater", [b.one("Sub", [div, floor], name + "/frac"), const(0.5, "half")], name + "/past_half")
    snapped = b.one("Where", [past_half, b.one("Add", [floor, const(1.0, "one_up")], name + "/floor_plus_1"), floor],
                    name + "/snapped")
    ratio = b.one("Div", [x, y], name + "/ratio")
    result = b.one("Where", [b.one("Equal", [y, zero], name + "/y_is_0"), ratio, snapped], name + "/quotient")
    return _zero_signed_like(b, name, result, ratio, const)  # a zero quotient has the sign of x / y


def _zero_signed_like(b, name, result, sign_source, const):
    """``result``, its zeros given ``sign_source``'s sign bit (copysign(0, s): -0.0 for s < 0 or s = -0.0, where
    1 / s < 0). ONNX Runtime's Where turns a -0.0 picked from its second input into 0.0 (its third keeps it),
    so the zero is made by a multiplication and picked from the third input; "nonzero" is Xor(x == 0, True),
    not Not(x == 0), which ONNX Runtime's optimizer folds into Where by swapping the two inputs."""
    zero = const(0.0, "sz_zero")
    negative = b.one("Or", [b.one("Less", [sign_source, zero], name + "/s_neg"),
                            b.one("Less", [b.one("Div", [const(1.0, "sz_one"), sign_source], name + "/s_inv"), zero],
                                  name + "/s_inv_neg")], name + "/s_sign_bit")
    sign = b.one("Where", [negative, const(-1.0, "minus_one"), const(1.0, "plus_one")], name + "/s_sign")
    signed_zero = b.one("Mul", [zero, sign], name + "/signed_zero")
    nonzero = b.one("Xor", [b.one("Equal", [result, zero], name + "/result_is_0"),
                            b.constant(np.array(True), name + "/true")], name + "/result_nonzero")
    return b.one("Where", [nonzero, result, signed_zero], name)


def _integer_floor_div_or_mod(b, name, x, y, dtype, wants_quotient):
    if not wants_quotient:
        return b.one("Mod", [x, y], name, fmod=0)  # integer Mod takes the divisor's sign, like numpy (and 0 for -1)
    one = b.constant(np.array(1, dtype), name + "/one")
    zero = b.constant(np.array(0, dtype), name + "/zero")
    minus_one = None if dtype.kind == "u" else b.constant(np.array(-1, dtype), name + "/minus_one")
    divisor = y if minus_one is None else b.one(
        "Where", [b.one("Equal", [y, minus_one], name + "/y_is_m1"), one, y], name + "/divisor")
    truncated = b.one("Div", [x, divisor], name + "/trunc")  # a zero divisor is ONNX Runtime's error, like ours
    remainder = b.one("Mod", [x, divisor], name + "/rem", fmod=1)
    step = b.one("And", [b.one("Not", [b.one("Equal", [remainder, zero], name + "/rem_is_0")], name + "/rem_nonzero"),
                         b.one("Xor", [b.one("Less", [remainder, zero], name + "/rem_neg"),
                                       b.one("Less", [divisor, zero], name + "/div_neg")], name + "/signs_differ")],
                  name + "/step")
    floored = b.one("Sub", [truncated, b.one("Cast", [step], name + "/step_int", to=_onnx_type(b, dtype))],
                    name + "/floored")
    if minus_one is None:
        return floored
    negated = b.one("Sub", [zero, x], name + "/negated")  # wraps at the minimum, as numpy's x // -1 does
    return b.one("Where", [b.one("Equal", [y, minus_one], name + "/y_is_m1_again"), negated, floored], name)


@_converts(CAST)
def _cast(b, op, inputs):
    return [b.one("Cast", inputs, op.name, to=_onnx_type(b, op.attrs["dtype"]))]


@_converts(RESHAPE)
def _reshape(b, op, inputs):
    return [b.one("Reshape", [inputs[0], _int64(b, inputs[1], op.name + "/shape")], op.name)]


@_converts(TRANSPOSE)
def _transpose(b, op, inputs):
    perm = op.attrs["perm"]
    if perm is None:
        rank = op.inputs[0].ndim
        if rank is None:
            raise ExportError(f"{op.name}: Transpose of a tensor of unknown rank cannot be exported")
        perm = tuple(reversed(range(rank)))
    return [b.one("Transpose", inputs, op.name, perm=list(perm))]


@_converts(EXPAND_DIMS)
def _expand_dims(b, op, inputs):
    axes = b.constant(np.array([op.attrs["axis"]], dtype=np.int64), op.name + "/axes")
    return [b.one("Unsqueeze", [inputs[0], axes], op.name)]


@_converts(SQUEEZE)
def _squeeze(b, op, inputs):
    axis = op.attrs["axis"]
    if axis is None:
        return [b.one("Squeeze", inputs, op.name)]
    axes = b.constant(np.array(axis, dtype=np.int64), op.name + "/axes")
    return [b.one("Squeeze", [inputs[0], axes], op.name)]


@_converts(TILE)
def _tile(b, op, inputs):
    return [b.one("Tile", [inputs[0], _int64(b, inputs[1], op.name + "/multiples")], op.name)]


@_converts(SHAPE)
def _shape(b, op, inputs):
    shape = b.one("Shape", inputs, op.name + "/int64")
    return [b.one("Cast", [shape], op.name, to=_onnx_type(b, op.attrs["out_type"]))]


@_converts(SIZE)
def _size(b, op, inputs):
    size = b.one("Size", inputs, op.name + "/int64")
    return [b.one("Cast", [size], op.name, to=_onnx_type(b, op.attrs["out_type"]))]


@_converts(RANK)
def _rank(b, op, inputs):
    rank = b.one("Size", [b.one("Shape", inputs, op.name + "/shape")], op.name + "/int64")
    return [b.one("Cast", [rank], op.name, to=b.onnx.TensorProto.INT32)]


# --- reductions ------------------------------------------------------------------------------------
def _axes(b, op) -> List[str]:
    """ONNX reductions take axes as an optional int64 input; none means every axis."""
    axis = op.attrs["axis"]
    return [] if axis is None else [b.constant(np.array(axis, dtype=np.int64), op.name + "/axes")]


def _reduction(onnx_type: str) -> Converter:
    def convert(b, op, inputs):
        return [b.one(onnx_type, inputs + _axes(b, op), op.name, keepdims=int(op.attrs["keepdims"]))]
    return convert


for _ours, _theirs in {PROD: "ReduceProd", MAX: "ReduceMax", MIN: "ReduceMin"}.items():
    CONVERTERS[_ours] = _reduction(_theirs)


def _wrapping_sum(b, name, value, dtype, axes, **attrs):
    """ReduceSum that wraps around on integer overflow as numpy does: onnxruntime's int32 ReduceSum over the
    last axis saturates instead (2**31 - 1 where numpy gives 5). Small ints are summed in int64, then cast back."""
    if dtype.kind in "iu" and dtype.itemsize < 8:
        wide = b.one("Cast", [value], name + "/wide", to=b.onnx.TensorProto.INT64)
        total = b.one("ReduceSum", [wide] + axes, name + "/sum64", **attrs)
        return b.one("Cast", [total], name, to=_onnx_type(b, dtype))
    return b.one("ReduceSum", [value] + axes, name, **attrs)


@_converts(SUM)
def _sum(b, op, inputs):
    return [_wrapping_sum(b, op.name, inputs[0], op.outputs[0].dtype, _axes(b, op), keepdims=int(op.attrs["keepdims"]))]


@_converts(MEAN)
def _mean(b, op, inputs):
    if op.outputs[0].dtype.kind == "f":
        return _reduction("ReduceMean")(b, op, inputs)
    # integer mean truncates toward zero: int64 sum, then ONNX integer Div (which truncates)
    wide = _int64(b, inputs[0], op.name + "/wide")
    total = b.one("ReduceSum", [wide] + _axes(b, op), op.name + "/sum", keepdims=int(op.attrs["keepdims"]))
    count = b.one("Div", [b.one("Size", [wide], op.name + "/size"), b.one("Size", [total], op.name + "/groups")],
                  op.name + "/count")
    mean = b.one("Div", [total, count], op.name + "/mean")
    return [b.one("Cast", [mean], op.name, to=_onnx_type(b, op.outputs[0].dtype))]


@_converts(SUM_TO_SHAPE)
def _sum_to_shape(b, op, inputs):
    """A gradient summed back to the shape its input was broadcast from: ReduceSum (keepdims) over the
    leading extra axes and the axes where the target is 1, then Reshape to the target. The axes are
    constants when both ranks and the target are known, else computed from the shapes at run time."""
    grad, target = inputs
    name, grad_shape, static = op.name, op.inputs[0].shape, op.attrs["static_shape"]
    target = _int64(b, target, name + "/target")
    if grad_shape is not None and static is not None and None not in static:
        extra = len(grad_shape) - len(static)
        axes = [*range(extra), *(extra + i for i, d in enumerate(static) if d == 1)]
        axes_name = b.constant(np.array(axes, np.int64), name + "/axes")
    else:
        zero, one = b.constant(np.array(0, np.int64), name + "/zero"), b.constant(np.array(1, np.int64), name + "/one")
        target_rank = b.one("Size", [target], name + "/target_rank")
        extra = b.one("Sub", [b.one("Size", [b.one("Shape", [grad], name + "/grad_shape")], name + "/grad_rank"),
                              target_rank], name + "/extra")
        leading = b.one("Range", [zero, extra, one], name + "/leading")
        ones = b.one("Equal", [target, one], name + "/is_one")
        kept = b.one("Compress", [b.one("Range", [zero, target_rank, one], name + "/positions"), ones],
                     name + "/one_positions", axis=0)
        axes_name = b.one("Concat", [leading, b.one("Add", [kept, extra], name + "/one_axes")], name + "/axes",
                          axis=0)
    summed = _wrapping_sum(b, name + "/sum", grad, op.outputs[0].dtype, [axes_name], keepdims=1, noop_with_empty_axes=1)
    return [b.one("Reshape", [summed, target], name)]


def _boolean_reduction(onnx_type: str) -> Converter:
    def convert(b, op, inputs):
        as_int = b.one("Cast", inputs, op.name + "/int", to=b.onnx.TensorProto.INT32)
        reduced = b.one(onnx_type, [as_int] + _axes(b, op), op.name + "/reduce", keepdims=int(op.attrs["keepdims"]))
        return [b.one("Cast", [reduced], op.name, to=b.onnx.TensorProto.BOOL)]
    return convert


CONVERTERS[ANY] = _boolean_reduction("ReduceMax")
CONVERTERS[ALL] = _boolean_reduction("ReduceMin")


def _arg(onnx_type: str) -> Converter:
    def convert(b, op, inputs):
        index = b.one(onnx_type, inputs, op.name + "/int64", axis=op.attrs["axis"], keepdims=0)
        return [b.one("Cast", [index], op.name, to=_onnx_type(b, op.attrs["output_type"]))]
    return convert


CONVERTERS[ARG_MAX] = _arg("ArgMax")
CONVERTERS[ARG_MIN] = _arg("ArgMin")


@_converts(CUMSUM)
def _cumsum(b, op, inputs):
    axis = b.constant(np.array(op.attrs["axis"], dtype=np.int64), op.name + "/axis")
    return [b.one("CumSum", [inputs[0], axis], op.name, exclusive=int(op.attrs["exclusive"]),
                  reverse=int(op.attrs["reverse"]))]
