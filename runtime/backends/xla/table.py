"""The table every op's JAX lowering is declared in, and the reasons of the ops that have none.

``LOWERINGS`` maps an ``OpDef`` (a registry constant, never a name) to ``lower(ctx, op, *inputs)``, which
returns the op's output (or a tuple of outputs) as JAX values; ``ctx`` is the ``runtime.backends.xla.lowering``
context (``ctx.jnp``, ``ctx.lax``, ``ctx.static(...)``, ``ctx.check(...)``). An op whose kernel is a numpy
ufunc (``OpDef.elementwise_ufunc``) lowers through ``UFUNC_NAMES`` (the ``jax.numpy`` function of the same
name: a fact about numpy, not a list of our ops). ``NOT_LOWERED`` gives the reason for every other op;
``tests/project/test_op_homes.py`` checks that every registered op is in exactly one of them.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Set

from runtime.core.registry import OpDef

Lowering = Callable[..., Any]
LOWERINGS: Dict[OpDef, Lowering] = {}
NOT_LOWERED: Dict[OpDef, str] = {}
# The ops whose lowerings may add a run-time check (``ctx.check``), besides those with ``zero_divisor_error``: a
# program without any returns no error code (an output fewer: ~10 us less per call).
CHECKED: Set[OpDef] = set()

# numpy ufuncs whose jax.numpy namesake computes the same values for the same dtypes
UFUNC_NAMES = ("add", "subtract", "multiply", "maximum", "minimum", "greater", "greater_equal", "less",
               "less_equal", "equal", "not_equal", "negative", "absolute", "sign", "square", "exp", "log",
               "sqrt", "floor", "ceil", "tanh", "logical_and", "logical_or", "logical_not", "isnan", "isfinite",
               "floor_divide", "remainder", "matmul", "sin", "cos", "true_divide", "log1p", "expm1",
               "reciprocal")


def lowers(*op_defs: OpDef) -> Callable[[Lowering], Lowering]:
    """Declare ``function`` as the JAX lowering of ``op_defs``."""
    def register(function: Lowering) -> Lowering:
        for op_def in op_defs:
            if op_def in LOWERINGS:
                raise ValueError(f"op {op_def.name} already has a JAX lowering")
            LOWERINGS[op_def] = function
        return function
    return register


def has_lowering(op_def: OpDef) -> bool:
    ufunc = op_def.elementwise_ufunc
    return op_def in LOWERINGS or (ufunc is not None and ufunc.__name__ in UFUNC_NAMES)


def may_check(op_def: OpDef) -> bool:
    return op_def in CHECKED or op_def.zero_divisor_error
