"""Graphs as artifacts: save every example's function, load it back, and export it to ONNX.

For each example function this traces the calls the example makes, saves the Function with
``rt.save`` (a directory with ``graph.json`` and ``constants.npz``), loads it with ``rt.load`` and
checks the loaded copy gives the same results. Then each traced signature is exported with
``rt.export.to_onnx`` and, when ``onnxruntime`` is installed, run there and compared with our executor.
Functions with side effects (``rt.print``, variable updates) cannot be expressed in ONNX; the export
error names the ops.

Run: ``python examples/artifacts.py [OUTPUT_DIR]`` (a temporary directory by default).
"""
import contextlib
import importlib
import io
import os
import sys
import tempfile

import numpy as np

import runtime as rt
from runtime.core import nest


def example_calls():
    """(example, function, [argument tuples]) for every example that defines a graph function."""
    def load(name):
        with contextlib.redirect_stdout(io.StringIO()):
            return importlib.import_module(name)

    regular, outer, relu, poly, mse = (load(n) for n in ("regular_vs_graph", "outer_inner", "simple_relu",
                                                         "polymorphism", "get_mse"))
    printing, strict, power, tracing, variables, early, main = (load(n) for n in (
        "print_vs_rt_print", "non_strict", "power_speedup", "tracing_python_args", "variables",
        "early_stopping", "main"))
    import autograph_lite as ag
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32, seed=1)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32, seed=2)
    matrix = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32, seed=0)
    return [
        ("regular_vs_graph", regular.a_function_that_uses_a_graph,
         [(rt.constant([[1.0, 2.0]]), rt.constant([[2.0], [3.0]]), rt.constant(4.0))]),
        ("outer_inner", outer.outer_function, [(rt.constant([[1.0, 2.0]]),)]),
        ("simple_relu", relu.graph_simple_relu, [(rt.constant(1),), (rt.constant(-1),)]),
        ("polymorphism", poly.my_relu, [(rt.constant(5.5),), ([1, -1],), (rt.constant([3., -3.]),)]),
        ("get_mse", mse.get_MSE, [(y_true, y_pred)]),
        ("print_vs_rt_print", printing.noisy_square, [(rt.constant(2),)]),
        ("non_strict", strict.unused_return_graph, [(rt.constant([0.0]),)]),
        ("power_speedup", power.power_as_graph, [(matrix, 100)]),
        ("tracing_python_args", tracing.a_function_with_python_side_effect,
         [(rt.constant(2),), (2,), (3,)]),
        ("variables", variables.accumulate, [(rt.constant([1.0, 2.0]),)]),
        ("early_stopping", early.train_graph, [early.make_data()]),
        ("main", ag.function(main.newton_sqrt), [(rt.constant([2.0, 9.0, 0.25, 1e4]),)]),
    ]


def tensor_arguments(concrete, args):
    """The arguments a concrete function takes: those whose traced signature holds tensors."""
    specs = concrete.structured_input_signature[0]
    return [arg for arg, spec in zip(args, specs) if any(isinstance(s, rt.TensorSpec) for s in nest.flatten(spec))]


def flat_arrays(result):
    return [np.asarray(t) for t in nest.flatten(result)]


def same(a, b):
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
                                    for x, y in zip(a, b))


def onnx_check(concrete, args):
    """'identical', 'close' (last-bit float differences), 'DIFFERENT', or why it cannot be exported/run."""
    try:
        import onnxruntime
    except ImportError:
        onnxruntime = None
    try:
        model = rt.export.to_onnx(concrete)
    except ImportError:
        return "skipped (onnx not installed)"
    except rt.errors.ExportError as error:
        unmapped = str(error).split("no ONNX mapping for ")[1]
        return "not exportable: " + unmapped.split(". Ops that")[0].split(". Why: ")[0]
    if onnxruntime is None:
        return "exported (onnxruntime not installed)"
    onnxruntime.set_default_logger_severity(3)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [np.asarray(t) for t in nest.flatten(tensor_arguments(concrete, args))]
    theirs = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), inputs)})
    with contextlib.redirect_stdout(io.StringIO()):
        ours = flat_arrays(concrete(*tensor_arguments(concrete, args)))
    if same(ours, theirs):
        return "identical"
    close = all(np.allclose(x, y, rtol=1e-6) for x, y in zip(ours, theirs))
    return "close" if close else "DIFFERENT"


def main(output_dir=None):
    output_dir = output_dir or tempfile.mkdtemp(prefix="autograph_lite_artifacts_")
    print(f"saving to {output_dir}")
    print(f"{'example':<20} {'function':<36} {'sigs':>4} {'graph.json':>11} {'constants':>10}  loaded  ONNX")
    total_bytes, exported, identical, checked = 0, 0, 0, 0
    for example, function, calls in example_calls():
        with contextlib.redirect_stdout(io.StringIO()):  # trace-time prints and rt.print are not the point here
            results = [flat_arrays(function(*args)) for args in calls]
        directory = os.path.join(output_dir, example)
        rt.save(function, directory)
        sizes = [os.path.getsize(os.path.join(directory, name)) for name in ("graph.json", "constants.npz")]
        total_bytes += sum(sizes)
        loaded = rt.load(directory)
        with contextlib.redirect_stdout(io.StringIO()):
            reloaded_ok = all(same(flat_arrays(loaded(*args)), expected) for args, expected in zip(calls, results))
        verdicts = []
        for args in calls:
            concrete = function.get_concrete_function(*args)
            verdict = onnx_check(concrete, args)
            checked += 1
            exported += verdict in ("identical", "close", "DIFFERENT")
            identical += verdict == "identical"
            verdicts.append(verdict)
        summary = "; ".join(sorted(set(verdicts)))
        name = function.python_function.__name__
        print(f"{example:<20} {name:<36} {len(function.concrete_functions):>4} {sizes[0]:>9} B {sizes[1]:>8} B  "
              f"{'same' if reloaded_ok else 'DIFF':<6}  {summary}")
    print(f"total saved: {total_bytes} bytes; ONNX: {exported} of {checked} example calls exported, "
          f"{identical} identical to our executor")


if __name__ == "__main__":
    main(*sys.argv[1:2])
