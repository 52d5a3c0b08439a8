"""The benchmark suite of issue 4: ``python benchmarks/run.py`` prints a table, writes results.json.

Every comparison is measured side by side in the same run (medians of several repetitions) and
reported as a ratio. ``--quick`` uses fewer repetitions (for a smoke test). Benchmarks that need the
converter (``autograph_lite``) are skipped with the reason printed if it cannot be imported.
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import sys
import tempfile
from typing import Callable, Dict, List

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runtime as rt  # noqa: E402
from timing import compare, machine, median_once, median_seconds  # noqa: E402

Row = Dict[str, object]
REPEAT = 7


def row(benchmark: str, measured: str, value: float, unit: str, ratio: float = None, target: str = "",
        ok: bool = None) -> Row:
    return {"benchmark": benchmark, "measured": measured, "median": value, "unit": unit, "ratio": ratio,
            "target": target, "meets_target": ok}


def converter():
    try:
        import autograph_lite as ag
        ag.function  # noqa: B018 - fail here if the public API is not there yet
        return ag, ""
    except Exception as error:  # noqa: BLE001 - any failure means: skip, and say why
        return None, f"autograph_lite not usable: {type(error).__name__}: {error}"


# --- 1. power(x, 100) ----------------------------------------------------------------------------------

def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def numpy_power(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = x @ result
    return result


def bench_power(repeat: int) -> List[Row]:
    x_array = np.random.default_rng(0).integers(-1, 2, (10, 10)).astype(np.int32)
    x = rt.constant(x_array)
    graph_power = rt.Function(power)
    np.testing.assert_array_equal(graph_power(x, 100).numpy(), numpy_power(x_array, 100))
    calls = 1000
    t = compare({"numpy": lambda: numpy_power(x_array, 100), "graph": lambda: graph_power(x, 100),
                 "eager": lambda: power(x, 100)}, calls // 10, repeat)
    numpy_t, graph_t, eager_t = (t[k] * calls for k in ("numpy", "graph", "eager"))
    return [row("1 power(x,100) 10x10 int32, 1000 calls", "hand-written numpy", numpy_t, "s", 1.0),
            row("1 power(x,100) 10x10 int32, 1000 calls", "graph (rt.Function)", graph_t, "s",
                graph_t / numpy_t, "<= 1.10x numpy", graph_t / numpy_t <= 1.10),
            row("1 power(x,100) 10x10 int32, 1000 calls", "eager", eager_t, "s",
                eager_t / numpy_t, "<= 3x numpy", eager_t / numpy_t <= 3.0)]


# --- 2. first-call latency -----------------------------------------------------------------------------

def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def collatz(n):
    steps = rt.zeros_like(n)
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def bench_first_call(repeat: int) -> List[Row]:
    ag, reason = converter()
    name = "2 first call: convert+trace+optimize+compile+run"
    if ag is None:
        return [row(name, f"skipped ({reason})", float("nan"), "ms")]
    x = rt.constant(3)
    x_matrix = rt.constant(np.random.default_rng(0).integers(-1, 2, (10, 10)).astype(np.int32))
    cases = [(simple_relu, (x,), 2.0), (collatz, (rt.constant(27),), 5.0), (power, (x_matrix, 100), 10.0)]
    rows = []
    for fn, args, target_ms in cases:
        fresh = iter(_fresh_copies(fn, repeat))
        seconds = median_once(lambda: ag.function(next(fresh))(*args), repeat)
        rows.append(row(name, fn.__name__, seconds * 1e3, "ms", None, f"<= {target_ms:g} ms",
                        seconds * 1e3 <= target_ms))
    return rows


_DIRECTORY = tempfile.mkdtemp(prefix="ag_bench_")


def _fresh_copies(fn: Callable, count: int) -> List[Callable]:
    """``count`` copies of ``fn`` loaded from distinct files: new code objects, so no cache can help."""
    source = "import numpy as np\nimport runtime as rt\n\n" + inspect.getsource(fn)
    return [getattr(_load_source(source, f"{fn.__name__}_{i}"), fn.__name__) for i in range(count)]


def _load_source(source: str, module_name: str):
    path = os.path.join(_DIRECTORY, module_name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- 3. per-call overhead ------------------------------------------------------------------------------

def bench_call_overhead(repeat: int) -> List[Row]:
    plus_one = rt.Function(lambda x: x + 1)
    x = rt.constant(1)
    times = compare({"eager": lambda: x + 1, "tensor argument": lambda: plus_one(x),
                     "Python int argument": lambda: plus_one(1)}, 20000, repeat)
    eager_t = times.pop("eager")
    rows = [row("3 cached call of f(x) = x + 1", "eager x + 1 (reference)", eager_t * 1e6, "us", 1.0)]
    for label, t in times.items():
        rows.append(row("3 cached call of f(x) = x + 1", label, t * 1e6, "us", t / eager_t, "<= 5 us", t * 1e6 <= 5))
    return rows


# --- 4. while loop per iteration -----------------------------------------------------------------------

def while_sum(n):
    def body(i, s):
        return i + 1, s + i
    return rt.while_loop(lambda i, s: i < n, body, [rt.zeros_like(n), rt.zeros_like(n)])[1]


def python_while_sum(n):
    i = np.int64(0)
    s = np.int64(0)
    while i < n:
        s += i
        i += 1
    return s


def bench_while(repeat: int) -> List[Row]:
    n_value = 100_000
    n = rt.constant(n_value, rt.int64)
    graph_loop = rt.Function(while_sum)
    assert int(graph_loop(n)) == python_while_sum(np.int64(n_value))
    times = compare({"python": lambda: python_while_sum(np.int64(n_value)), "graph": lambda: graph_loop(n)},
                    1, repeat)
    python_t, graph_t = times["python"] / n_value, times["graph"] / n_value
    name = "4 tensor while loop, n=100000, per iteration"
    rows = [row(name, "plain Python on numpy scalars", python_t * 1e6, "us", 1.0),
            row(name, "graph (rt.while_loop)", graph_t * 1e6, "us", graph_t / python_t, "<= 1 us", graph_t * 1e6 <= 1)]
    ag, reason = converter()
    if ag is None:
        rows.append(row(name, f"ag.function: skipped ({reason})", float("nan"), "us"))
        return rows

    def loop(n):
        i = rt.zeros_like(n)
        s = rt.zeros_like(n)
        while i < n:
            s += i
            i += 1
        return s
    converted = ag.function(loop)
    assert int(converted(n)) == python_while_sum(np.int64(n_value))
    ag_t = median_seconds(lambda: converted(n), 1, repeat) / n_value
    rows.append(row(name, "graph (ag.function, Python while)", ag_t * 1e6, "us", ag_t / python_t, "<= 1 us",
                    ag_t * 1e6 <= 1))
    return rows


# --- 5. to_code time -----------------------------------------------------------------------------------

_BLOCK = """\
    for i in range(n):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            while total > 100:
                total -= 7
        else:
            total = total * 2
"""


def _source_with_lines(lines: int) -> str:
    blocks = max(1, (lines - 3) // _BLOCK.count("\n"))
    return "def generated(n):\n    total = 0\n" + _BLOCK * blocks + "    return total\n"


def bench_to_code(repeat: int) -> List[Row]:
    ag, reason = converter()
    name = "5 to_code, nested ifs and loops (fresh function)"
    if ag is None:
        return [row(name, f"skipped ({reason})", float("nan"), "ms")]
    rows = []
    for lines, target in ((20, 10.0), (200, 100.0)):
        source = _source_with_lines(lines)
        modules = [_load_source(source, f"generated_{lines}_{i}") for i in range(repeat + 1)]
        functions = iter(m.generated for m in modules)
        assert ag.to_graph(modules[0].generated)(10) == modules[0].generated(10)
        seconds = median_once(lambda: ag.to_code(next(functions)), repeat)
        rows.append(row(name, f"{source.count(chr(10))} lines", seconds * 1e3, "ms", None, f"<= {target:g} ms",
                        seconds * 1e3 <= target))
    rows[1]["ratio"] = rows[1]["median"] / rows[0]["median"]  # growth: ~10x for 10x the lines = linear
    return rows


# --- 6. elementwise chain ------------------------------------------------------------------------------

def chain(x):
    y = x * 2.0
    y = y + 1.0
    y = y - x
    y = y * x
    y = rt.maximum(y, 0.0)
    return y - x


def numpy_chain(x):
    return np.maximum(((x * 2.0 + 1.0) - x) * x, 0.0) - x


def bench_elementwise(repeat: int) -> List[Row]:
    x_array = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    x = rt.constant(x_array)
    graph_chain = rt.Function(chain)
    np.testing.assert_array_equal(graph_chain(x).numpy(), numpy_chain(x_array))
    times = compare({"numpy": lambda: numpy_chain(x_array), "graph": lambda: graph_chain(x),
                     "eager": lambda: chain(x)}, 20, repeat * 2)
    numpy_t, graph_t, eager_t = times["numpy"], times["graph"], times["eager"]
    name = "6 chain of 6 elementwise ops, 1e6 float32"
    return [row(name, "hand-written numpy", numpy_t * 1e3, "ms", 1.0),
            row(name, "graph (rt.Function)", graph_t * 1e3, "ms", graph_t / numpy_t, "<= 0.8x numpy",
                graph_t / numpy_t <= 0.8),
            row(name, "eager", eager_t * 1e3, "ms", eager_t / numpy_t)]


# --- 7. a comprehension over a tensor -----------------------------------------------------------------

def squares_of_positives(x):
    return [v * v for v in x if v > 0.0]


def bench_comprehension(repeat: int) -> List[Row]:
    ag, why = converter()
    name = "7 [v * v for v in x if v > 0], 2,000 rows"
    if ag is None:
        return [row(name, f"skipped: {why}", float("nan"), "ms")]
    x_array = np.random.default_rng(0).standard_normal(2_000).astype(np.float32)
    x = rt.constant(x_array)
    staged = ag.function(squares_of_positives)
    np.testing.assert_array_equal(staged(x).numpy(), np.array([v * v for v in x_array if v > 0.0]))
    times = compare({"numpy": lambda: np.array([v * v for v in x_array if v > 0.0]), "graph": lambda: staged(x)},
                    1, repeat)
    numpy_t, graph_t = times["numpy"], times["graph"]
    return [row(name, "numpy list comprehension + np.array", numpy_t * 1e3, "ms", 1.0),
            row(name, "graph (one While, rows appended)", graph_t * 1e3, "ms", graph_t / numpy_t)]


# --- 15. a loop-invariant computation in a tensor while ----------------------------------------------------

def invariant_in_body(x, w, a, b, n):
    i = rt.constant(0)
    while i < n:
        x = rt.tanh(rt.matmul(x, rt.matmul(w, w)) + rt.exp(a) * b)   # matmul(w, w), exp(a) * b: invariant
        i += 1
    return x


def invariant_outside(x, w, a, b, n):
    ww, shift = rt.matmul(w, w), rt.exp(a) * b                       # the same, moved out by hand
    i = rt.constant(0)
    while i < n:
        x = rt.tanh(rt.matmul(x, ww) + shift)
        i += 1
    return x


def numpy_invariant_loop(x, w, a, b, n):
    ww, shift = w @ w, np.exp(a) * b
    for _ in range(n):
        x = np.tanh(x @ ww + shift)
    return x


def bench_loop_invariant(repeat: int) -> List[Row]:
    ag, reason = converter()
    name = "15 while body with matmul(W, W) + exp(a) * b"
    if ag is None:
        return [row(name, f"skipped ({reason})", float("nan"), "ms")]
    from runtime.backends import executor
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((16, 64)).astype(np.float32), (rng.standard_normal((64, 64)) / 8).astype(np.float32),
              rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)]
    steps = 200
    args = [rt.constant(v) for v in arrays] + [rt.constant(steps)]
    in_body, outside = ag.function(invariant_in_body), ag.function(invariant_outside)
    concrete = in_body.get_concrete_function(*args)
    unhoisted = executor.make_callable(concrete.unoptimized_graph)  # the traced graph: the invariant in the loop
    want = numpy_invariant_loop(*arrays, steps)
    for got in (in_body(*args).numpy(), outside(*args).numpy(), unhoisted(*arrays, np.int32(steps))[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    t = compare({"numpy": lambda: numpy_invariant_loop(*arrays, steps), "in_body": lambda: in_body(*args),
                 "outside": lambda: outside(*args), "unhoisted": lambda: unhoisted(*arrays, np.int32(steps))},
                5, repeat)
    return [row(name, "hand-written numpy, invariant outside", t["numpy"] * 1e3, "ms", 1.0),
            row(name, "ag.function, invariant in the body", t["in_body"] * 1e3, "ms", t["in_body"] / t["numpy"],
                "<= 1.1x by-hand", t["in_body"] <= 1.1 * t["outside"]),
            row(name, "ag.function, invariant outside by hand", t["outside"] * 1e3, "ms", t["outside"] / t["numpy"]),
            row(name, "traced graph unoptimized (not hoisted)", t["unhoisted"] * 1e3, "ms",
                t["unhoisted"] / t["numpy"])]


BENCHMARKS = [bench_power, bench_first_call, bench_call_overhead, bench_while, bench_to_code, bench_elementwise,
              bench_comprehension, bench_loop_invariant]


def _all_benchmarks():
    import collections_rows  # the rows of issue 11
    import compute_loops  # the rows of issue 26
    import jax_rows  # issue 14's optional comparison with jax.jit (skipped without jax)
    import loop_gradients  # issue 14: the gradient through a tensor while
    import plain_form_rows  # issue 23: package-style code converted in place, on Python values
    import training  # the rows of issue 14
    import workloads  # the rows of issue 13
    import xla_rows  # issue 25: jit_compile=True next to jax.jit by hand (skipped without jax)
    return (BENCHMARKS + workloads.BENCHMARKS + collections_rows.BENCHMARKS + training.BENCHMARKS
            + loop_gradients.BENCHMARKS + jax_rows.BENCHMARKS + compute_loops.BENCHMARKS + xla_rows.BENCHMARKS
            + plain_form_rows.BENCHMARKS)


def format_table(rows: List[Row]) -> str:
    lines = [f"{'benchmark':<50} {'measured':<38} {'median':>10} {'unit':<4} {'ratio':>7}  {'target':<16} ok"]
    for r in rows:
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        ok = {True: "yes", False: "NO", None: ""}[r["meets_target"]]
        lines.append(f"{r['benchmark']:<50} {r['measured']:<38} {r['median']:>10.4g} {r['unit']:<4} {ratio:>7}  "
                     f"{r['target']:<16} {ok}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (smoke test)")
    parser.add_argument("--only", help="comma-separated benchmark name endings, e.g. matmul_chain,loop_with_if")
    parser.add_argument("--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.json"))
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else REPEAT
    info = machine()
    print(f"machine: {info['cpu']}, nproc={info['nproc']}, Python {info['python']}, numpy {info['numpy']}")
    rows: List[Row] = []
    only = set(args.only.split(",")) if args.only else None
    for bench in _all_benchmarks():
        if only is not None and not any(bench.__name__.endswith(name) for name in only):
            continue
        new_rows = bench(repeat)
        rows.extend(new_rows)
        print(format_table(new_rows).split("\n", 1)[1], flush=True)
    print()
    print(format_table(rows))
    with open(args.output, "w") as f:
        json.dump({"machine": info, "repeat": repeat, "results": rows}, f, indent=2, default=str)
    print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
