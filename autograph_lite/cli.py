"""The ``autograph-lite`` command line: show generated code, print or draw graphs, time eager vs graph.

    autograph-lite to-code examples/simple_relu.py:simple_relu [--annotate] [--form plain]
    autograph-lite graph examples/get_mse.py:get_MSE --spec 'int32[5]' --spec 'int32[5]' [--dot | --stablehlo]
    autograph-lite bench examples/power.py:power --spec 'int32[10,10]' --spec 100

A ``--spec`` is ``DTYPE[DIMS]`` for a tensor argument (``float32[None,3]``, ``int32[]`` for a scalar;
``None`` is a dimension of any size) or a Python literal for a Python argument (``100``, ``[1, -1]``).
Mistakes in the command (bad path, missing function, bad spec) print one line on stderr and exit 2.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import inspect
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, TextIO

EXIT_USAGE = 2  # the command line itself is wrong
EXIT_USER_CODE = 1  # the user's function failed while converting, tracing or running

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*$")


class UsageError(Exception):
    """A mistake in the command line; reported as one line on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse prints usage + message; we want one clear line
        raise UsageError(f"{message} (see '{self.prog} --help')")


# --- arguments -------------------------------------------------------------------------------------
def load_function(target: str) -> Callable:
    """``path/to/file.py:func`` (or ``file.py:Class.method``) → the function object."""
    path_text, sep, attribute = target.rpartition(":")
    if not sep or not path_text or not attribute:
        raise UsageError(f"expected FILE.py:FUNCTION, got {target!r}")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"no such file: {path_text}")
    module_name = re.sub(r"\W", "_", path.stem) or "user_module"
    spec = importlib.util.spec_from_file_location(module_name, path.resolve())
    if spec is None or spec.loader is None:
        raise UsageError(f"{path_text} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))  # let the file import its neighbours
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise UsageError(f"{path_text}, line {error.lineno}: syntax error: {error.msg}") from None
    except Exception as error:  # the user's module failed at import: report it, not our stack
        raise UsageError(f"importing {path_text} failed: {type(error).__name__}: {error}") from None
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            defined = sorted(n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                             and getattr(v, "__module__", None) == module_name and not inspect.isclass(v))
            raise UsageError(f"{path_text} defines no function {attribute!r}"
                             + (f"; it defines: {', '.join(defined)}" if defined else ""))
        value = getattr(value, part)
    if not callable(value):
        raise UsageError(f"{path_text}:{attribute} is a {type(value).__name__}, not a function")
    return value


def parse_spec(text: str):
    """``'float32[None,3]'`` → ``rt.TensorSpec((None, 3), rt.float32)``; a Python literal → itself.

    >>> parse_spec('int32[]')
    TensorSpec(shape=(), dtype=int32, name=None)
    >>> parse_spec('[1, -1]')
    [1, -1]
    """
    import runtime as rt
    match = _SPEC.match(text)
    if match is None:
        try:
            return ast.literal_eval(text)  # literals only: never runs code
        except (ValueError, SyntaxError):
            raise UsageError(f"bad --spec {text!r}: expected DTYPE[DIMS] such as 'float32[None,3]' or "
                             "'int32[]', or a Python literal such as 100") from None
    dtype_name, dims_text = match.groups()
    try:
        dtype = rt.as_dtype(dtype_name)
    except TypeError as error:
        raise UsageError(f"bad --spec {text!r}: {error}") from None
    dims: List[Optional[int]] = []
    for dim in (d.strip() for d in dims_text.split(",")) if dims_text.strip() else ():
        if dim in ("None", "?", "-1"):
            dims.append(None)
        elif dim.isdigit():
            dims.append(int(dim))
        else:
            raise UsageError(f"bad --spec {text!r}: dimension {dim!r} is not a size; use a number or None")
    return rt.TensorSpec(dims, dtype)


def _check_arity(function: Callable, name: str, specs: Sequence[Any]) -> None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*specs)
    except TypeError:
        raise UsageError(f"{name}{signature} cannot be called with {len(specs)} argument(s); "
                         "give one --spec per argument") from None


def example_value(spec: Any, dim_size: int, seed: int = 0):
    """A random tensor for a TensorSpec (``None`` dims become ``dim_size``); Python values pass through."""
    import numpy as np

    import runtime as rt
    if not isinstance(spec, rt.TensorSpec):
        return spec
    shape = tuple(dim_size if d is None else d for d in (spec.shape or ()))
    generator = np.random.default_rng(seed)
    if spec.dtype.kind == "b":
        return rt.constant(generator.random(shape) < 0.5)
    if spec.dtype.kind in "iu":
        return rt.constant(generator.integers(-1, 2, size=shape).astype(spec.dtype))
    return rt.constant(generator.standard_normal(shape).astype(spec.dtype))


# --- commands --------------------------------------------------------------------------------------
def run_to_code(args, out: TextIO) -> int:
    import autograph_lite as ag
    function = load_function(args.target)
    if args.annotate:
        code = annotated_code(function, args.form)
    else:
        code = ag.to_code(function, form=args.form)
    out.write(code if code.endswith("\n") else code + "\n")
    return 0


def annotated_code(function: Callable, form: str = "staged") -> str:
    """The generated code (of ``form``: "staged" or "plain", see ag.to_code) with
    ``# line N: <original line>`` above each block that came from line N.

    >>> def f(x):
    ...     return x and 1
    >>> print(annotated_code(f), end='')  # doctest: +ELLIPSIS
    # converted from ...; '# line N' comments point into it
    def f(x):
        # line 2: return x and 1
        return ag__.and_(lambda: x, lambda: 1)
    """
    from autograph_lite import conversion
    from autograph_lite.api import _plain_function
    python_function = _plain_function(function, "to-code --annotate")
    if form == "plain":
        plain = conversion.plain_code(python_function)
        if plain is None:
            raise ValueError("to-code --form plain: a lambda has only the staged form")
        converted = plain.converted
    else:
        converted = conversion.convert_code(python_function)
    source_lines = converted.source.rstrip("\n").split("\n")
    origins = [converted.origin_of(number) for number in range(1, len(source_lines) + 1)]
    # lines the converter adds for the function as a whole point at its 'def': nothing to show there
    origins = [None if o is None or o.source_line.startswith(("def ", "async def ", "@")) else o for o in origins]
    known = [o for o in origins if o is not None]
    lines = [f"# converted from {known[0].filename}; '# line N' comments point into it"] if known else []
    previous = None
    for line, origin in zip(source_lines, origins):
        if line.strip() and origin is not None:
            if origin != previous:
                indent = line[:len(line) - len(line.lstrip())]
                lines.append(f"{indent}# line {origin.lineno}: {origin.source_line}")
            previous = origin
        lines.append(line)
    return "\n".join(lines) + "\n"


def _python_function(function: Callable) -> Callable:
    """The plain Python function, also when FILE.py decorated it with ag.function."""
    return getattr(function, "python_function", function)


def run_graph(args, out: TextIO, err: TextIO) -> int:
    import autograph_lite as ag
    function = _python_function(load_function(args.target))
    specs = [parse_spec(s) for s in args.spec]
    _check_arity(function, args.target.rpartition(":")[2], specs)
    if args.stablehlo:  # what jit_compile=True compiles, for example values (None dims of size 8)
        values = [example_value(spec, 8, seed=i) for i, spec in enumerate(specs)]
        with contextlib.redirect_stdout(err):
            text = ag.function(function).experimental_get_compiler_ir(*values)
        out.write(text.rstrip("\n") + "\n")
        return 0
    with contextlib.redirect_stdout(err):  # the function's own prints while tracing must not mix with the graph
        concrete = ag.function(function).get_concrete_function(*specs)
    graph = concrete.graph
    out.write(graph.to_dot() if args.dot else str(graph.as_graph_def()).rstrip("\n") + "\n")
    return 0


class ProgressBar:
    """``label [#######.....] 70/100`` redrawn in place on a terminal-like stream."""

    def __init__(self, label: str, total: int, stream: TextIO, width: int = 30):
        self.label, self.total, self.stream, self.width = label, total, stream, width

    def update(self, done: int) -> None:
        interactive = getattr(self.stream, "isatty", lambda: False)()
        if not interactive and done != self.total:
            return  # a log file gets the finished bar only, not every redraw
        filled = self.width * done // self.total
        bar = f"{self.label:<6} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total}"
        self.stream.write(("\r" if interactive else "") + bar + ("\n" if done == self.total else ""))
        self.stream.flush()


def _time_calls(label: str, call: Callable[[], Any], number: int, stream: TextIO) -> float:
    bar = ProgressBar(label, number, stream)
    step = max(1, number // 50)
    elapsed = 0.0
    for i in range(1, number + 1):
        start = time.perf_counter()
        call()
        elapsed += time.perf_counter() - start
        if i % step == 0 or i == number:
            bar.update(i)
    return elapsed / number


def run_bench(args, out: TextIO, err: TextIO) -> int:
    import autograph_lite as ag
    function = _python_function(load_function(args.target))
    specs = [parse_spec(s) for s in args.spec]
    _check_arity(function, args.target.rpartition(":")[2], specs)
    if args.number < 1:
        raise UsageError(f"--number must be at least 1, got {args.number}")
    values = [example_value(spec, args.dim_size, seed=i) for i, spec in enumerate(specs)]
    graph_function = ag.function(function)
    start = time.perf_counter()
    with contextlib.redirect_stdout(err):  # keep trace-time prints out of the report
        graph_function(*values)  # the first call traces; timed separately, as it happens once
    trace_seconds = time.perf_counter() - start
    graph_function(*values)  # a graph without loops is optimized and compiled at its second call: not timed
    eager = _time_calls("eager", lambda: function(*values), args.number, err)
    graph = _time_calls("graph", lambda: graph_function(*values), args.number, err)
    out.write(f"first call (trace + run): {trace_seconds * 1e3:.2f} ms\n"
              f"eager: {eager * 1e6:.1f} us/call   graph: {graph * 1e6:.1f} us/call   ({args.number} calls each)\n"
              f"graph is {eager / graph:.2f}x {'faster' if eager >= graph else 'slower'} than eager\n")
    return 0


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="autograph-lite", description="Convert Python functions to graphs and look at them.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    to_code = commands.add_parser("to-code", help="print the code the converter generates for FUNC")
    to_code.add_argument("target", metavar="FILE.py:FUNC")
    to_code.add_argument("--annotate", action="store_true", help="mark each generated block with its source line")
    to_code.add_argument("--form", choices=("staged", "plain"), default="staged",
                         help="staged (default): the form that builds graphs; plain: the form that runs on "
                              "Python values outside a graph")
    for name, help_text in (("graph", "trace FUNC for --spec inputs and print its graph"),
                            ("bench", "time FUNC eagerly and as a graph")):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("target", metavar="FILE.py:FUNC")
        sub.add_argument("--spec", action="append", default=[], metavar="SPEC",
                         help="one per argument: DTYPE[DIMS] like 'float32[None,3]', or a Python literal")
        if name == "graph":
            sub.add_argument("--dot", action="store_true", help="print Graphviz DOT instead of the GraphDef text")
            sub.add_argument("--stablehlo", action="store_true",
                             help="print the StableHLO that jit_compile=True compiles (needs the jax extra; "
                                  "None dims compile at size 8)")
        else:
            sub.add_argument("--number", type=int, default=100, help="calls to time per mode (default 100)")
            sub.add_argument("--dim-size", type=int, default=8, help="size used for None dims (default 8)")
    return parser


def main(argv: Optional[Sequence[str]] = None, out: TextIO = None, err: TextIO = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 the user's code failed, 2 bad command)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _build_parser().parse_args(argv)
        if args.command == "to-code":
            return run_to_code(args, out)
        if args.command == "graph":
            return run_graph(args, out, err)
        return run_bench(args, out, err)
    except UsageError as error:
        err.write(f"autograph-lite: error: {error}\n")
        return EXIT_USAGE
    except Exception as error:  # the user's function failed: show its message, not our stack
        first, *rest = str(error).splitlines() or [""]
        rest += [line for note in getattr(error, "__notes__", ()) for line in str(note).splitlines()]
        err.write(f"autograph-lite: {type(error).__name__}: {first}\n" + "".join(f"{line}\n" for line in rest))
        return EXIT_USER_CODE
