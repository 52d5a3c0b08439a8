"""JAX lowerings of the math, reduction, nn, linalg, random, variable and side-effect ops.

Each follows our kernel's semantics where they differ from JAX's defaults: integer division by zero, integer
powers with negative exponents and ``Assert`` are run-time checks (``ctx.check``) that raise the numpy
executor's own error; integer means truncate toward zero; arg-max/min return the declared index dtype.
Float results may differ from numpy's in the last bits (XLA fuses and reorders; docs/XLA.md gives the
tolerances).
"""
from __future__ import annotations

import numpy as np

from runtime.backends.xla.table import CHECKED, lowers
from runtime.ops.cast_op import CAST
from runtime.ops.core import IDENTITY
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT
from runtime.ops.debugging import ASSERT, ENSURE_DEFINED
from runtime.ops.gradient_ops import STOP_GRADIENT
from runtime.ops.linalg_ops import DET, DIAG_PART, INV
from runtime.ops.logging_ops import PRINT
from runtime.ops.manipulation_ops import CLIP_BY_VALUE
from runtime.ops.math_ops import FLOOR_DIV, FLOOR_MOD, MATMUL, POW, REAL_DIV
from runtime.ops.nn_ops import ELU, LEAKY_RELU, LOG_SOFTMAX, RELU, RELU6, SIGMOID_CROSS_ENTROPY, SOFTMAX
from runtime.ops.random_ops import CATEGORICAL, NORMAL, UNIFORM
from runtime.ops.stateless_random_ops import STATELESS_NORMAL, STATELESS_UNIFORM
from runtime.ops.reduction_ops import (
    ALL,
    ANY,
    ARG_MAX,
    ARG_MIN,
    CUMPROD,
    CUMSUM,
    MAX,
    MEAN,
    MIN,
    PROD,
    SUM,
)
from runtime.ops.special_math_ops import ERF, ERFC
from runtime.ops.unary_ops import (
    CEIL,
    COS,
    EXPM1,
    FLOOR,
    IS_FINITE,
    IS_NAN,
    LOG1P,
    LOG_SIGMOID,
    RECIPROCAL,
    ROUND,
    RSQRT,
    SIGMOID,
    SIGN,
    SIN,
    SOFTPLUS,
    TANH,
)
from runtime.ops.variables import (
    ASSIGN_ADD_VARIABLE,
    ASSIGN_SUB_VARIABLE,
    ASSIGN_VARIABLE,
    READ_VARIABLE,
)


def _same(name: str):
    def lower(ctx, op, *inputs):
        return getattr(ctx.jnp, name)(*inputs)
    return lower


for _op_def, _name in ((TANH, "tanh"), (SIN, "sin"), (COS, "cos"), (FLOOR, "floor"), (CEIL, "ceil"),
                       (LOG1P, "log1p"), (EXPM1, "expm1"), (RECIPROCAL, "reciprocal"), (IS_NAN, "isnan"),
                       (IS_FINITE, "isfinite"), (REAL_DIV, "true_divide"), (MATMUL, "matmul")):
    lowers(_op_def)(_same(_name))


@lowers(IDENTITY, STOP_GRADIENT)
def _identity(ctx, op, x):
    return x  # gradients are the tape's graphs, never JAX's: nothing to stop


@lowers(CAST)
def _cast(ctx, op, x):
    return ctx.jnp.asarray(x).astype(op.attrs["dtype"])


@lowers(ROUND)
def _round(ctx, op, x):
    return ctx.jnp.round(x) if op.inputs[0].dtype.kind == "f" else x  # halves to even, like np.rint


@lowers(RSQRT)
def _rsqrt(ctx, op, x):
    return 1 / ctx.jnp.sqrt(x)


@lowers(SIGMOID)
def _sigmoid(ctx, op, x):
    return ctx.jax.nn.sigmoid(x)


@lowers(SOFTPLUS)
def _softplus(ctx, op, x):
    return ctx.jnp.logaddexp(x, ctx.jnp.zeros((), x.dtype))


@lowers(LOG_SIGMOID)
def _log_sigmoid(ctx, op, x):
    return ctx.jax.nn.log_sigmoid(x)


@lowers(ERF)
def _erf(ctx, op, x):
    return ctx.jax.scipy.special.erf(x)


@lowers(ERFC)
def _erfc(ctx, op, x):
    return ctx.jax.scipy.special.erfc(x)


@lowers(FLOOR_DIV, FLOOR_MOD)
def _floor_div_mod(ctx, op, x, y):
    jnp = ctx.jnp
    divide = jnp.floor_divide if op.op_def is FLOOR_DIV else jnp.remainder
    if op.inputs[1].dtype.kind in "iu":   # the kernel raises on a division by zero
        ctx.check(np.all(y != 0) if ctx.is_static(y) else jnp.all(y != 0), op)
        return divide(x, y)
    # A zero result has numpy's sign (Python's): x % y the sign of y, x // y that of x / y (XLA's: -6 % 3 is -0.0)
    result = divide(x, y)
    negative = jnp.signbit(y) if op.op_def is FLOOR_MOD else jnp.signbit(x) ^ jnp.signbit(y)
    return jnp.where(result == 0, jnp.where(negative, -jnp.zeros((), result.dtype), jnp.zeros((), result.dtype)),
                     result)


@lowers(SIGN)
def _sign(ctx, op, x):   # sign(-0.0) is 0.0 as numpy's, not XLA's -0.0
    sign = ctx.jnp.sign(x)
    return ctx.jnp.where(x == 0, ctx.jnp.zeros((), sign.dtype), sign) if op.inputs[0].dtype.kind == "f" else sign


@lowers(POW)
def _pow(ctx, op, x, y):
    if op.inputs[0].dtype.kind in "iu":
        # the kernel refuses negative integer powers
        ctx.check(np.all(y >= 0) if ctx.is_static(y) else ctx.jnp.all(y >= 0), op)
        return ctx.lax.integer_pow(x, int(y)) if np.ndim(y) == 0 and ctx.is_static(y) else ctx.jnp.power(x, y)
    return ctx.jnp.power(x, y)


@lowers(CLIP_BY_VALUE)
def _clip(ctx, op, t, low, high):
    return ctx.jnp.maximum(ctx.jnp.minimum(t, high), low)  # TensorFlow's order: min > max gives min


# --- reductions ------------------------------------------------------------------------------------------
def _reduction(name: str, with_dtype: bool):
    def lower(ctx, op, x):
        dtype = op.inputs[0].dtype   # (float16 left to JAX: it sums in float32, as numpy's pairwise sum is exact)
        extra = {"dtype": dtype} if with_dtype and dtype != np.float16 else {}
        return getattr(ctx.jnp, name)(x, axis=op.attrs["axis"], keepdims=op.attrs["keepdims"], **extra)
    return lower


for _op_def, _name, _with_dtype in ((SUM, "sum", True), (PROD, "prod", True), (MAX, "max", False),
                                    (MIN, "min", False), (ANY, "any", False), (ALL, "all", False)):
    lowers(_op_def)(_reduction(_name, _with_dtype))


@lowers(MEAN)
def _mean(ctx, op, x):
    jnp, axis, keepdims = ctx.jnp, op.attrs["axis"], op.attrs["keepdims"]
    dtype = op.inputs[0].dtype
    if dtype.kind == "f":
        return jnp.mean(x, axis=axis, keepdims=keepdims).astype(dtype)
    total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)   # our kernel sums integers in int64
    count = x.size // max(total.size, 1) if x.size else 0
    if count == 0:
        if total.size:
            ctx.check(np.False_, op)   # the kernel's "mean of an empty tensor"
        return total.astype(dtype)
    return (jnp.sign(total) * (jnp.abs(total) // count)).astype(dtype)


@lowers(ARG_MAX, ARG_MIN)
def _arg_reduce(ctx, op, x):
    axis, index_type = op.attrs["axis"], op.attrs["output_type"]
    if axis is not None and x.shape[axis] and np.dtype(index_type) == np.int32:   # the primitive (jnp's is a jit)
        function = ctx.lax.argmax if op.op_def is ARG_MAX else ctx.lax.argmin
        return function(x, axis % x.ndim, np.int32)
    function = ctx.jnp.argmax if op.op_def is ARG_MAX else ctx.jnp.argmin
    return function(x, axis=axis).astype(index_type)


@lowers(CUMSUM, CUMPROD)
def _running(ctx, op, x):
    jnp, axis = ctx.jnp, op.attrs["axis"]
    accumulate = jnp.cumsum if op.op_def is CUMSUM else jnp.cumprod
    if op.attrs["reverse"]:
        x = jnp.flip(x, axis)
    wide = np.float32 if x.dtype == np.float16 else x.dtype   # (float16 accumulates in float32, as the kernel)
    out = accumulate(x, axis=axis, dtype=wide).astype(x.dtype)
    if op.attrs["exclusive"]:
        identity = jnp.full_like(ctx.lax.slice_in_dim(out, 0, 1, axis=axis), 0 if op.op_def is CUMSUM else 1)
        out = jnp.concatenate([identity, ctx.lax.slice_in_dim(out, 0, out.shape[axis] - 1, axis=axis)], axis)
    return jnp.flip(out, axis) if op.attrs["reverse"] else out


# --- nn -------------------------------------------------------------------------------------------------
@lowers(RELU)
def _relu(ctx, op, x):
    return ctx.jnp.maximum(x, ctx.jnp.zeros((), x.dtype))


@lowers(RELU6)
def _relu6(ctx, op, x):
    return ctx.jnp.minimum(ctx.jnp.maximum(x, ctx.jnp.zeros((), x.dtype)), ctx.jnp.full((), 6, x.dtype))


@lowers(LEAKY_RELU)
def _leaky_relu(ctx, op, x):
    return ctx.jnp.where(x > 0, x, x * ctx.jnp.asarray(op.attrs["alpha"], x.dtype))


@lowers(ELU)
def _elu(ctx, op, x):
    return ctx.jnp.where(x > 0, x, ctx.jnp.expm1(ctx.jnp.minimum(x, 0)))


@lowers(SOFTMAX)
def _softmax(ctx, op, x):
    axis = op.attrs["axis"]
    e = ctx.jnp.exp(x - ctx.jnp.max(x, axis=axis, keepdims=True))
    return e / ctx.jnp.sum(e, axis=axis, keepdims=True)


@lowers(LOG_SOFTMAX)
def _log_softmax(ctx, op, x):
    axis = op.attrs["axis"]
    shifted = x - ctx.jnp.max(x, axis=axis, keepdims=True)
    return shifted - ctx.jnp.log(ctx.jnp.sum(ctx.jnp.exp(shifted), axis=axis, keepdims=True))


@lowers(CUSTOM_GRADIENT)
def _custom_gradient(ctx, op, *inputs):  # the forward values (gradients are built before lowering)
    values = inputs[:op.attrs["num_outputs"]]
    return values if len(values) != 1 else values[0]


@lowers(SIGMOID_CROSS_ENTROPY)
def _sigmoid_cross_entropy(ctx, op, labels, logits):
    jnp = ctx.jnp
    return jnp.maximum(logits, 0) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))


# --- linalg ---------------------------------------------------------------------------------------------
def _wide(x):
    return x.astype(np.float32) if x.dtype == np.float16 else x   # as our kernels: no float16 linalg


@lowers(DIAG_PART)
def _diag_part(ctx, op, x):
    return ctx.jnp.diagonal(x, axis1=-2, axis2=-1)


@lowers(DET)
def _det(ctx, op, x):
    return ctx.jnp.linalg.det(_wide(x))


@lowers(INV)
def _inv(ctx, op, x):
    wide = _wide(x)
    # numpy raises "Input is not invertible." when LAPACK's LU meets a zero pivot; XLA's LU gives inf/nan instead.
    # The check looks at the pivots, not at the determinant (their product): that underflows to 0 for an
    # invertible matrix of small entries (0.1 * eye(40) in float32), which numpy inverts.
    lu = ctx.lax.linalg.lu(wide)[0]
    ctx.check(ctx.jnp.all(ctx.jnp.diagonal(lu, axis1=-2, axis2=-1) != 0), op)
    return ctx.jnp.linalg.inv(wide)


# --- state: variables, random draws, printing, checks ------------------------------------------------------
@lowers(READ_VARIABLE)
def _read_variable(ctx, op):
    return ctx.state.variables[ctx.variable_slot(op)]


def _write(combine):
    def lower(ctx, op, value):
        slot = ctx.variable_slot(op)
        variables = list(ctx.state.variables)
        dtype = op.attrs["variable"].dtype
        written = ctx.jnp.asarray(combine(variables[slot], value), dtype=dtype)
        if written.shape != variables[slot].shape:   # (a shape left unknown when traced): the kernel's error
            ctx.check(np.False_, op)
            return variables[slot]
        variables[slot] = written
        ctx.state = ctx.state._replace(variables=tuple(variables))
        return variables[slot]
    return lower


lowers(ASSIGN_VARIABLE)(_write(lambda old, new: new))
lowers(ASSIGN_ADD_VARIABLE)(_write(lambda old, delta: old + delta))
lowers(ASSIGN_SUB_VARIABLE)(_write(lambda old, delta: old - delta))


def _key(ctx, op):
    # Every op draws new values on each call (the state's key advances); a seeded op's seeds are folded in.
    # The sequences are JAX's, not the numpy executor's.
    seed = op.attrs["seed"].seed
    key = ctx.next_key()
    if seed is not None:
        for part in seed:
            key = ctx.jax.random.fold_in(key, part % 2 ** 32)
    return key


def _shape(ctx, op, dims):
    return tuple(int(d) for d in ctx.static(dims, op, "shape"))


def _wide_float(dtype):
    # JAX draws floats in float32 or float64; narrower dtypes are drawn wide and rounded
    return np.float64 if dtype == np.float64 else np.float32


def _draw_uniform(ctx, op, key, dims, low, high):
    """Uniform values in ``[low, high)`` from ``key``: the stateful and the stateless op differ only in the key."""
    jax, dtype, shape = ctx.jax, op.attrs["dtype"], _shape(ctx, op, dims)
    if dtype.kind in "iu":
        ctx.check(ctx.jnp.asarray(low) < ctx.jnp.asarray(high), op)
        return jax.random.randint(key, shape, low, high, dtype=dtype)
    values = (low + (high - low) * jax.random.uniform(key, shape, dtype=_wide_float(dtype))).astype(dtype)
    # rounding to a narrow float could reach maxval; the interval is half-open, as the kernel keeps it
    below = ctx.jnp.nextafter(ctx.jnp.asarray(high, dtype), ctx.jnp.asarray(low, dtype))
    return ctx.jnp.where(high > low, ctx.jnp.minimum(values, below), values)


def _draw_normal(ctx, op, key, dims, mean, stddev):
    dtype = op.attrs["dtype"]
    draws = ctx.jax.random.normal(key, _shape(ctx, op, dims), dtype=_wide_float(dtype))
    return (mean + stddev * draws).astype(dtype)


@lowers(UNIFORM)
def _uniform(ctx, op, dims, low, high):
    return _draw_uniform(ctx, op, _key(ctx, op), dims, low, high)


@lowers(NORMAL)
def _normal(ctx, op, dims, mean, stddev):
    return _draw_normal(ctx, op, _key(ctx, op), dims, mean, stddev)


def _stateless_key(ctx, seed):
    # A function of the seed pair, as the kernel's values are (JAX's numbers, not numpy's).
    key = ctx.jax.random.PRNGKey(0)
    for part in (seed[0], seed[1]):
        key = ctx.jax.random.fold_in(key, part.astype(np.uint32))
    return key


@lowers(STATELESS_UNIFORM)
def _stateless_uniform(ctx, op, dims, seed, low, high):
    return _draw_uniform(ctx, op, _stateless_key(ctx, seed), dims, low, high)


@lowers(STATELESS_NORMAL)
def _stateless_normal(ctx, op, dims, seed, mean, stddev):
    return _draw_normal(ctx, op, _stateless_key(ctx, seed), dims, mean, stddev)


@lowers(CATEGORICAL)
def _categorical(ctx, op, logits, count):
    jnp = ctx.jnp
    samples = int(ctx.static(count, op, "num_samples"))
    wide = logits.astype(np.float64 if logits.dtype == np.float64 else np.float32)
    finite_max = ~jnp.any(jnp.isnan(wide)) & ~jnp.any(jnp.isposinf(wide)) & ~jnp.any(jnp.all(jnp.isneginf(wide),
                                                                                              axis=1))
    ctx.check(finite_max, op)
    drawn = ctx.jax.random.categorical(_key(ctx, op), wide, axis=1, shape=(samples, logits.shape[0]))
    return drawn.T.astype(op.attrs["dtype"])


@lowers(PRINT)
def _print(ctx, op, *values):
    ctx.print(op, values)
    return ()


@lowers(ASSERT)
def _assert(ctx, op, condition, *data):
    ctx.check(ctx.jnp.all(condition), op)
    return ()


@lowers(ENSURE_DEFINED)
def _ensure_defined(ctx, op, value, defined):
    ctx.check(defined, op)
    return value



CHECKED.update({POW, MEAN, INV, UNIFORM, CATEGORICAL, ASSERT, ENSURE_DEFINED, ASSIGN_VARIABLE, ASSIGN_ADD_VARIABLE,
                ASSIGN_SUB_VARIABLE})
