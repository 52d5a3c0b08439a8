"""Every op with a sample run, alone in a graph, on the numpy executor and compiled by XLA (jit_compile=True), on
its sample inputs and on random and edge values of the same shapes (0, -0, +-inf, nan, int min/max, huge and
tiny floats): integer and bool results are equal, float results within docs/XLA.md's tolerance of the op, the
same error is raised, or the op says it cannot be compiled with a LoweringError (never another value, never a
crash inside JAX).

Each op is compiled with its inputs fed as arguments; an op XLA needs a size or shape of when compiling refuses
that with a LoweringError, and is then compiled again with those inputs as constants (as a traced function with
Python sizes has them). Sample inputs come from ``op_samples`` (the ops' doctests and extra calls).

``PYTHONPATH=.:tests/support python tests/runtime/backends/test_xla_every_op.py 40`` prints the table (40 variants
per op).
"""
import sys

import numpy as np
import pytest

from op_samples import FLOAT_EDGES, one_op_graph, recorded_samples, redrawn, size_inputs, ulps
from runtime.backends import executor
from runtime.backends.xla.table import has_lowering
from runtime.core.errors import LoweringError

pytest.importorskip("jax")
from runtime.backends.xla import compiled  # noqa: E402

# docs/XLA.md "Float tolerance per op": XLA's own approximations of these functions (relative error)
TRANSCENDENTAL = {"Exp", "Log", "Tanh", "Sigmoid", "Softplus", "Sin", "Cos", "Sqrt", "Rsqrt", "Erf", "Erfc", "Expm1",
                  "Log1p", "Pow", "Elu", "LogSigmoid", "SigmoidCrossEntropyWithLogits"}
TRANSCENDENTAL_RTOL = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-13}
# ... sums in another order, another LU factorization: relative to the result's magnitude
ACCUMULATING = {"Sum", "Mean", "Prod", "MatMul", "Einsum", "Cumsum", "Cumprod", "Softmax", "LogSoftmax",
                "MatrixDeterminant", "MatrixInverse", "UnsortedSegmentSum", "TensorScatterAdd", "SumToShape",
                "StridedSliceGrad"}
ACCUMULATION_RTOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}
# docs/XLA.md: the sign of a zero that max/min of +0 and -0 gives (also clip's) is numpy's platform's, XLA's its own
SIGNED_ZERO_BY_DESIGN = {"Maximum", "Minimum", "Max", "Min", "ClipByValue"}
ELEMENTWISE_ULPS = 1   # a division may be a multiplication by the reciprocal; a multiply-add contracted
# Values of the draws (not the distributions) differ by design: docs/RANDOM.md, docs/XLA.md
RANDOM = {"RandomNormal", "RandomUniform", "StatelessRandomNormal", "StatelessRandomUniform", "Multinomial"}
# Inputs where XLA's results differ by design, and why (docs/XLA.md): such variants are not compared.
KNOWN_DIFFERENCES = {
    "Cast": (lambda inputs, attrs: inputs[0].dtype.kind == "f" and np.dtype(attrs["dtype"]).kind in "iu" and bool(
        np.any(~(np.nan_to_num(inputs[0], nan=np.inf) >= np.iinfo(attrs["dtype"]).min)
               | ~(np.nan_to_num(inputs[0], nan=np.inf) < float(np.iinfo(attrs["dtype"]).max) + 1))),
             "a float out of the integer type's range, or nan: XLA saturates (nan gives 0), numpy's cast gives the "
             "platform's value (on x86: int32's min, or a value wrapped into a narrower type)"),
    "MatrixDeterminant": (lambda inputs, attrs: not np.all(np.isfinite(inputs[0])),
                          "a matrix with inf or nan: another LU factorization, inf or nan"),
    "MatrixInverse": (lambda inputs, attrs: not np.all(np.isfinite(inputs[0])),
                      "a matrix with inf or nan: LAPACK's LU may meet a zero pivot (numpy raises) where XLA's gives nan"),
}

SAMPLES = recorded_samples()
COMPARED = sorted(name for name, (op_def, arrays, attrs) in SAMPLES.items()
                  if has_lowering(op_def) and name not in RANDOM and all(a.dtype != object for a in arrays)
                  and all(t.dtype != object for t in one_op_graph(op_def, arrays, attrs).outputs))


def flushed(array: np.ndarray) -> np.ndarray:
    """``array`` with subnormal floats as zeros of their sign: XLA on a CPU flushes them (inputs and results)."""
    if array.dtype.kind != "f":
        return array
    return np.where(np.abs(array) < np.finfo(array.dtype).tiny, np.copysign(array.dtype.type(0), array), array)


def difference(name: str, ours, theirs):
    """None if XLA's results agree with the numpy executor's within the op's tolerance, else what differs."""
    for a, b in zip(ours, theirs):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"dtype/shape {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        if a.dtype.kind != "f":
            if not np.array_equal(a, b):
                return f"values differ: {a.ravel()[:6]} vs {b.ravel()[:6]}"
            continue
        a, b = flushed(a), flushed(b)
        if not np.array_equal(np.isnan(a), np.isnan(b)):
            return f"nan in one only: {a.ravel()[:6]} vs {b.ravel()[:6]}"
        finite = np.isfinite(a) & np.isfinite(b)
        if not np.array_equal(a[~finite & ~np.isnan(a)], b[~finite & ~np.isnan(b)]):
            return f"infinities differ: {a.ravel()[:6]} vs {b.ravel()[:6]}"
        zeros = finite & (a == 0) & (b == 0)   # (-0.0 and 0.0 are equal: their signs are compared apart)
        if name not in ACCUMULATING | SIGNED_ZERO_BY_DESIGN and not np.array_equal(np.signbit(a[zeros]),
                                                                                   np.signbit(b[zeros])):
            return f"zeros of other signs: {a.ravel()[:6]} vs {b.ravel()[:6]}"
        a, b = a[finite].astype(np.float64), b[finite].astype(np.float64)
        if name in ACCUMULATING:
            scale = np.max(np.abs(a), initial=1.0)
            bad = np.abs(a - b) > ACCUMULATION_RTOL[ours[0].dtype] * scale
        elif name in TRANSCENDENTAL:
            bad = np.abs(a - b) > TRANSCENDENTAL_RTOL[ours[0].dtype] * np.maximum(np.abs(a), np.finfo(ours[0].dtype).tiny)
        else:
            bad = ulps(a.astype(ours[0].dtype), b.astype(ours[0].dtype)) > ELEMENTWISE_ULPS
        if np.any(bad):
            where = int(np.argmax(bad))
            return f"{a[where]!r} vs {b[where]!r}"
    return None


def outcome(run, inputs):
    try:
        with np.errstate(all="ignore"):
            return "value", run(*inputs)
    except LoweringError:
        raise
    except Exception as error:  # noqa: BLE001 - the error's type is the outcome compared
        return "raised", type(error).__name__


def check_op(name: str, variants: int, seed: int = 0):
    """(cases compared, cases skipped, how it was compiled, first difference or None)."""
    op_def, arrays, attrs = SAMPLES[name]
    sizes = size_inputs(op_def, arrays)
    for constants in ([], sizes):
        graph = one_op_graph(op_def, arrays, attrs, constants)
        ours = executor.make_callable(graph)
        theirs = compiled.make_callable(graph, lambda graph=graph: executor.make_callable(graph))
        rng = np.random.default_rng(seed)
        compared = skipped = 0
        try:
            for variant in range(variants + 1):
                inputs = arrays if variant == 0 else redrawn(rng, op_def, arrays, variant, float_edges=FLOAT_EDGES)
                if name in KNOWN_DIFFERENCES and KNOWN_DIFFERENCES[name][0](inputs, attrs):
                    skipped += 1
                    continue
                fed = [flushed(a) for i, a in enumerate(inputs) if i not in constants]
                expected, got = outcome(ours, fed), outcome(theirs, fed)
                if expected[0] != got[0] or (expected[0] == "raised" and expected != got):
                    return compared, skipped, constants, f"{expected} vs {got} on {[a.ravel()[:6] for a in inputs]}"
                if expected[0] == "value":
                    problem = difference(name, expected[1], got[1])
                    if problem:
                        return compared, skipped, constants, f"{problem} on {[a.ravel()[:6] for a in inputs]}"
                compared += 1
            return compared, skipped, "fed" if not constants else f"inputs {constants} constant", None
        except LoweringError as error:
            if constants or not sizes:
                return compared, skipped, "LoweringError", str(error).split("\n")[0]
    raise AssertionError("unreachable")


# Ops XLA cannot compile even with their sizes known when compiling: their results' shapes depend on values
NOT_COMPILED = {"Unique", "UniqueWithCounts", "Where"}


def test_the_ops_compared_cover_the_lowered_ops_with_samples():
    assert len(COMPARED) >= 90, COMPARED


# Each op is compiled once (~0.15 s): a quarter of them in the default run, the rest in CI's slow step.
QUICK_SHARE = 4


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=() if i % QUICK_SHARE == 0 else pytest.mark.slow) for i, name in enumerate(COMPARED)])
def test_the_numpy_executor_and_xla_agree_on_random_and_edge_inputs(name):
    compared, skipped, how, problem = check_op(name, variants=8)
    if name in NOT_COMPILED:
        assert how == "LoweringError", (how, problem)
        return
    assert problem is None, f"{name} ({how}): {problem}"
    assert compared >= 1


if __name__ == "__main__":
    print(f"{'op':28} {'cases':>5} {'skipped':>7}  {'compiled with':20} result")
    for op_name in COMPARED:
        cases, refused, compiled_how, found = check_op(op_name, int(sys.argv[1]) if len(sys.argv) > 1 else 20)
        print(f"{op_name:28} {cases:5d} {refused:7d}  {compiled_how!s:20} {found or 'equal within tolerance'}")
