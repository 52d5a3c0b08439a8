"""Every op that exports to ONNX, run by our executor and by onnxruntime on its sample inputs and on random
and edge values of the same shapes (0, -0, +-inf, nan, int min/max, huge and tiny floats): the results are
equal bit for bit (nan equal to nan), or for the ops in ``ULP_BOUNDS`` within that many units in the last
place (transcendental functions: onnxruntime's own approximations), or for the ops in ``ACCUMULATING``
within ``ACCUMULATION_RTOL`` of the result's magnitude (sums in another order). ``KNOWN_DIFFERENCES`` lists
the inputs where the export still differs and why; the table (``python tests/runtime/backends/test_onnx_every_op.py 40``) is
in docs/SAVING.md.

Sample inputs come from ``op_samples`` (the ops' doctests and extra calls); an input that is a size, shape or
index keeps its sample value, every other input is redrawn.
"""
import sys

import numpy as np
import pytest

from runtime.backends import executor
from runtime.core.errors import InvalidArgumentError

from op_samples import recorded_samples
from op_samples import one_op_graph as _graph
from op_samples import redrawn as _redrawn
from op_samples import ulps as _ulps

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ort.set_default_logger_severity(3)

from runtime.backends.onnx import to_onnx  # noqa: E402
from runtime.backends.onnx.export import exportable_op_types  # noqa: E402

# Units in the last place onnxruntime may differ by (its own exp, log, tanh, ... approximations; measured).
# Tanh: up to 64 ulp on subnormal inputs (1e-40 gives 9.9939e-41), 1 ulp on normal ones.
ULP_BOUNDS = {"Exp": 2, "Log": 2, "Sin": 2, "Cos": 2, "Tanh": 64, "Sigmoid": 4, "Softplus": 8, "Erf": 4,
              "Pow": 2, "Elu": 4, "Rsqrt": 2, "Softmax": 8, "LogSoftmax": 8, "MatrixDeterminant": 8,
              "SigmoidCrossEntropyWithLogits": 2}
# Ops that add many terms: the order differs (numpy sums pairwise, onnxruntime in blocks).
ACCUMULATING = {"Sum", "Mean", "Prod", "MatMul", "Einsum", "Cumsum", "Softmax", "LogSoftmax", "MatrixDeterminant",
                "UnsortedSegmentSum", "TensorScatterAdd", "SumToShape", "StridedSliceGrad"}
ACCUMULATION_RTOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}
# Inputs where the export still differs, and why: such variants are not compared (the table says so).
KNOWN_DIFFERENCES = {
    "Pow": (lambda inputs: bool(np.any(np.isneginf(inputs[0]))),
            "a -inf base with a non-integer exponent: numpy (ours) gives nan, onnxruntime (C's pow) inf"),
    "MatrixDeterminant": (lambda inputs: not np.all(np.isfinite(inputs[0])),
                          "a matrix with inf or nan: numpy's LU gives inf where onnxruntime's gives nan"),
}

VARIANTS = 6
SAMPLES = recorded_samples()
EXPORTED = sorted(name for name in exportable_op_types() if name in SAMPLES
                  and all(a.dtype != object for a in SAMPLES[name][1])
                  and all(t.dtype != object for t in _graph(*SAMPLES[name]).outputs))


def compare(name, ours, theirs):
    """None if the results agree within the op's bound, else what differs; and the largest ulp distance."""
    worst = 0
    for a, b in zip(ours, theirs):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"dtype/shape {a.dtype}{a.shape} vs {b.dtype}{b.shape}", worst
        if a.dtype.kind != "f":
            if not np.array_equal(a, b):
                return f"values differ: {a.ravel()[:4]} vs {b.ravel()[:4]}", worst
            continue
        both_nan = np.isnan(a) & np.isnan(b)
        if not np.array_equal(np.isnan(a), np.isnan(b)):
            return f"nan in one only: {a.ravel()[:4]} vs {b.ravel()[:4]}", worst
        ulps = _ulps(a, b)
        worst = max(worst, int(ulps.max(initial=0)))
        if name in ACCUMULATING:
            finite = np.isfinite(a) & np.isfinite(b)
            scale = np.max(np.abs(np.where(finite, a, 0)), initial=1.0)
            if not (np.array_equal(a[~finite & ~both_nan], b[~finite & ~both_nan])
                    and np.all(np.abs(a[finite] - b[finite]) <= ACCUMULATION_RTOL[a.dtype] * scale)):
                return f"beyond rtol {ACCUMULATION_RTOL[a.dtype]}: {a.ravel()[:4]} vs {b.ravel()[:4]}", worst
        elif ulps.max(initial=0) > ULP_BOUNDS.get(name, 0):
            where = int(np.argmax(ulps))
            return (f"{int(ulps.max())} ulp (bound {ULP_BOUNDS.get(name, 0)}) at {a.ravel()[where]!r} vs "
                    f"{b.ravel()[where]!r}"), worst
    return None, worst


def check_op(name, variants=VARIANTS, seed=0):
    """(cases compared, cases skipped (our kernel refused the inputs, or a KNOWN_DIFFERENCES case), worst ulp,
    first difference)."""
    op_def, arrays, attrs = SAMPLES[name]
    graph = _graph(op_def, arrays, attrs)
    session = ort.InferenceSession(to_onnx(graph).SerializeToString(), providers=["CPUExecutionProvider"])
    run = executor.make_callable(graph)
    rng = np.random.default_rng(seed)
    compared = skipped = worst = 0
    for variant in range(variants + 1):
        inputs = arrays if variant == 0 else _redrawn(rng, op_def, arrays, variant)
        if name in KNOWN_DIFFERENCES and KNOWN_DIFFERENCES[name][0](inputs):
            skipped += 1
            continue
        try:
            ours = run(*inputs)
        except InvalidArgumentError:
            skipped += 1  # ONNX cannot raise; our error is the answer there
            continue
        feeds = {i.name: a for i, a in zip(session.get_inputs(), inputs)}
        try:
            theirs = session.run(None, feeds)
        except Exception as error:  # noqa: BLE001 - reported as a difference
            return compared, skipped, worst, f"onnxruntime raised on inputs we accept: {str(error)[:120]}"
        problem, ulps = compare(name, ours, theirs)
        worst = max(worst, ulps)
        compared += 1
        if problem:
            return compared, skipped, worst, f"{problem} (inputs {[a.ravel()[:4] for a in inputs]})"
    return compared, skipped, worst, None


def test_every_exported_op_with_a_sample_is_covered():
    missing = sorted(set(exportable_op_types()) - set(EXPORTED))
    # without an eager sample: control flow, lists (object handles), graph plumbing, and CustomGradient (the
    # identity of its first inputs; tests/gradients/test_custom_gradient.py exports it)
    assert set(missing) <= {"If", "While", "Const", "ReadVariableOp", "Placeholder", "CustomGradient"} | {
        n for n in missing if n.startswith("TensorList")}, missing
    assert len(EXPORTED) >= 80


@pytest.mark.parametrize("name", EXPORTED)
def test_executor_and_onnxruntime_agree_on_random_and_edge_inputs(name):
    compared, skipped, worst, problem = check_op(name)
    assert problem is None, f"{name}: {problem}"
    assert compared >= 1


if __name__ == "__main__":
    print(f"{'op':28} {'cases':>5} {'skipped':>7} {'max ulp':>7}  result")
    for op_name in EXPORTED:
        cases, refused, ulp, difference = check_op(op_name, variants=int(sys.argv[1]) if len(sys.argv) > 1 else 20)
        print(f"{op_name:28} {cases:5d} {refused:7d} {ulp:7d}  {difference or 'equal within bound'}")


def _exported_run(function, *arrays):
    from op_tracing import trace_graph
    graph = trace_graph(function, *[(a.dtype, a.shape) for a in arrays])
    session = ort.InferenceSession(to_onnx(graph).SerializeToString(), providers=["CPUExecutionProvider"])
    ours = executor.make_callable(graph)(*arrays)
    theirs = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})
    return ours, theirs


@pytest.mark.parametrize("function,x,y,expected", [
    (lambda x, y: x // y, np.int32(-2 ** 31), np.int32(3), -715827883),        # onnxruntime gave +715827882
    (lambda x, y: x // y, np.int32(-2 ** 31), np.int32(-1), -2 ** 31),         # wraps, as numpy; Div would trap
    (lambda x, y: x % y, np.float32(123456789), np.float32(2.5), 2.0),          # gave 0.0
    (lambda x, y: x // y, np.float32(np.inf), np.float32(2.5), np.nan),         # gave inf
    (lambda x, y: x % y, np.float64(-0.0), np.float64(-3.0), -0.0),
    (lambda x, y: x // y, np.float16(7), np.float16(-2), -4.0),
])
def test_the_issues_floor_division_repros_export_exactly(function, x, y, expected):
    import runtime as rt
    ours, theirs = _exported_run(lambda a, b: function(a, b), np.array(x), np.array(y))
    assert np.array_equal(ours[0], np.array(expected, ours[0].dtype), equal_nan=True)
    assert ours[0].tobytes() == theirs[0].tobytes() or (np.isnan(ours[0]) and np.isnan(theirs[0]))
    assert np.signbit(ours[0]) == np.signbit(theirs[0])
    del rt


def test_elu_sigmoid_and_int_sums_export_to_the_kernels_numbers():
    import runtime as rt
    x = np.array([-1e-30, -12.65, -0.0445, 3.0, -np.inf], np.float32)
    ours, theirs = _exported_run(lambda v: (rt.nn.elu(v), rt.sigmoid(v)), x)
    assert _ulps(ours[0], theirs[0]).max() <= 4 and theirs[0][0] < 0   # exp(x) - 1 gave 0 for -1e-30
    assert _ulps(ours[1], theirs[1]).max() <= 4                                          # 0.2% off in the tail
    big = np.array([[2 ** 31 - 1, 5, 1, 1]], np.int32)
    ours, theirs = _exported_run(lambda v: rt.reduce_sum(v, axis=1), big)
    assert ours[0].tolist() == theirs[0].tolist() == [-2147483642]                       # saturated at 2**31 - 1
