"""The fast executor: a graph compiled once into one straight-line Python function.

``make_callable(graph)`` generates Python source with one line per needed op — a registry kernel
called directly, or the Python operator that *is* that numpy function (``a + b`` for ``np.add``, much
cheaper on numpy scalars) — with ``If`` as an inline ``if``/``else`` and ``While`` as an inline
``while`` loop over both subgraphs, so nothing is looked up per op or per iteration at run time.
Execution is non-strict: only ops needed by an output run, plus every stateful op, in program order.
0-d values enter loops as numpy scalars (numpy's scalar arithmetic is ~20x cheaper than a ufunc call
on a 0-d array). For chains of elementwise ufuncs on big arrays, a temporary that dies at an op is
reused as its ``out=`` buffer, and long enough chains run in independent row blocks on all cores (see
``runtime.backends.buffer_plan``). A kernel error becomes ``InvalidArgumentError`` naming the node (and the
enclosing If/While, like the interpreter), found from the generated line that failed.

Known difference from the interpreter: integer overflow in numpy *scalar* arithmetic emits a
RuntimeWarning that array arithmetic does not; the values are the same (they wrap).

>>> import runtime as rt
>>> from runtime.core.graph import FuncGraph
>>> from runtime.core.context import graph_scope
>>> g = FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (2,))
...     g.outputs = [rt.multiply(rt.add(x, 1), x)]
>>> make_callable(g)(np.array([1, 2], dtype=np.int32))
[array([2, 6], dtype=int32)]
"""
from __future__ import annotations

import concurrent.futures
import itertools
import linecache
import os
import re
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from runtime.backends.buffer_plan import plan_buffer_reuse, plan_parallel_regions
from runtime.core.errors import InvalidArgumentError
from runtime.core.graph import FuncGraph, Operation
from runtime.passes.analysis import needed_ops
from runtime.core.source_locations import with_creation_site

# A numpy function and the Python operator that calls exactly it on ndarrays and numpy scalars.
# (A fact about numpy, not a list of our ops: an op whose kernel *is* np.add is emitted as ``a + b``.)
_OPERATOR_FORMS = {np.add: "{} + {}", np.subtract: "{} - {}", np.multiply: "{} * {}", np.matmul: "{} @ {}",
                   np.less: "{} < {}", np.less_equal: "{} <= {}", np.greater: "{} > {}",
                   np.greater_equal: "{} >= {}", np.equal: "{} == {}", np.not_equal: "{} != {}",
                   np.negative: "-{}"}
# What ``run_kernel`` turns into InvalidArgumentError; the executor does the same.
_KERNEL_ERRORS = (ValueError, IndexError, FloatingPointError, ZeroDivisionError)
_compiled_ids = itertools.count()


def make_callable(func_graph: FuncGraph) -> Callable[..., List[np.ndarray]]:
    """Compile ``func_graph`` to ``f(*arrays) -> [arrays]`` (inputs in ``func_graph.inputs`` order).

    Example: see the module docstring. ``generated_source(f)`` shows the code.
    """
    return _CodeGenerator(func_graph).compile()


def generated_source(compiled: Callable) -> str:
    """The Python source ``make_callable`` generated for ``compiled`` (for debugging)."""
    return compiled.__source__


class _CodeGenerator:
    def __init__(self, graph: FuncGraph):
        self.graph = graph
        self.lines: List[str] = []
        # line number -> (names of the enclosing If/While ops..., the op running there)
        self.line_nodes: Dict[int, Tuple[Any, ...]] = {}
        self.scope: List[str] = []  # names of the If/While ops whose subgraph is being emitted
        self.helpers: List[str] = []  # module-level helper functions (row blocks of elementwise regions)
        self.namespace: Dict[str, Any] = {"_ndarray": np.ndarray, "_asarray": np.asarray, "_copy": np.array,
                                          "_empty": np.empty, "_run_in_row_blocks": _run_in_row_blocks,
                                          "_KERNEL_ERRORS": _KERNEL_ERRORS}
        self.global_names: Dict[int, str] = {}  # id(value) -> its name in the namespace
        self.counter = itertools.count()

    # --- naming ----------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def bind(self, value: Any, hint: str) -> str:
        """A global name in the generated module holding ``value`` (once per distinct object)."""
        name = self.global_names.get(id(value))
        if name is None:
            name = f"{re.sub(r'[^0-9a-zA-Z_]', '_', hint)}_{len(self.global_names)}"
            self.global_names[id(value)] = name
            self.namespace[name] = value
        return name

    def bind_constant(self, value: np.ndarray) -> str:
        # A 0-d constant is bound as a numpy scalar: scalar (+) scalar takes numpy's fast scalar path
        # (~20 ns) where a 0-d array takes the ufunc machinery (~400 ns). Values are identical.
        name = self.global_names.get(id(value))
        if name is None:
            name = self.bind(value[()] if value.ndim == 0 else value, "const")
            self.global_names[id(value)] = name
        return name

    def emit(self, indent: int, text: str, op: Optional[Operation] = None) -> None:
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_nodes[len(self.lines)] = (*self.scope, op)

    # --- whole function --------------------------------------------------------------------------
    def compile(self) -> Callable[..., List[np.ndarray]]:
        graph = self.graph
        args = [self.fresh("in") for _ in graph.inputs]
        self.emit(0, f"def run({', '.join(args)}):")
        self.emit(1, "try:")
        outputs = self.emit_graph(graph, args, 2)
        results = [self.output_expression(t, name) for t, name in zip(graph.outputs, outputs)]
        self.emit(2, f"return [{', '.join(results)}]")
        self.emit(1, "except _KERNEL_ERRORS as error:")
        self.emit(2, "raise _locate(error) from None")
        source = "\n".join(self.lines + self.helpers) + "\n"
        filename = f"<graph {graph.name} #{next(_compiled_ids)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks
        self.namespace["_locate"] = _error_locator(filename, self.line_nodes)
        exec(compile(source, filename, "exec"), self.namespace)  # our own generated source, not user data
        run = self.namespace["run"]
        run.__source__ = source
        return run

    def output_expression(self, tensor, name: str) -> str:
        if tensor.op.type == "Placeholder":
            return name
        if tensor.op.type == "Const":  # never hand out the graph's own constant: callers may mutate it
            return f"_copy({name})"
        return f"({name} if {name}.__class__ is _ndarray else _asarray({name}))"  # scalars -> 0-d arrays

    # --- graphs, If, While -----------------------------------------------------------------------
    def emit_graph(self, graph: FuncGraph, input_names: Sequence[str], indent: int) -> List[str]:
        """Emit the needed ops of ``graph`` with its inputs bound to ``input_names``; returns output names."""
        env: Dict[int, str] = {id(t): n for t, n in zip(graph.inputs, input_names)}
        needed = needed_ops(graph)
        reuse = plan_buffer_reuse(graph, needed)
        for op in graph.operations:  # constants are globals, bound up front (regions may read later ones)
            if op.type == "Const" and id(op) in needed:
                env[id(op.outputs[0])] = self.bind_constant(op.attrs["value"])
        region_of = {id(region[0]): region for region in plan_parallel_regions(graph, needed)}
        in_region = {id(op) for region in region_of.values() for op in region}
        for op in graph.operations:
            if id(op) not in needed or id(op.outputs[0] if op.outputs else op) in env:
                continue
            if id(op) in region_of:
                self.emit_region(region_of[id(op)], env, reuse, indent)
                continue
            if id(op) in in_region:
                continue
            args = [env[id(t)] for t in op.inputs]
            if op.type == "If":
                outs = self.emit_if(op, args, indent)
            elif op.type == "While":
                outs = self.emit_while(op, args, indent)
            else:
                outs = self.emit_kernel_call(op, args, reuse.get(id(op)), indent)
            env.update((id(t), n) for t, n in zip(op.outputs, outs))
        return [env[id(t)] for t in graph.outputs]

    def emit_if(self, op: Operation, args: List[str], indent: int) -> List[str]:
        outs = [self.fresh("v") for _ in op.outputs]
        self.emit(indent, f"if {args[0]}:", op)
        self.scope.append(op.name)
        self.emit_branch(op.attrs["then_branch"], args[1:], outs, indent + 1)
        self.emit(indent, "else:")
        self.emit_branch(op.attrs["else_branch"], args[1:], outs, indent + 1)
        self.scope.pop()
        return outs

    def emit_branch(self, branch: FuncGraph, args: List[str], outs: List[str], indent: int) -> None:
        start = len(self.lines)
        results = self.emit_graph(branch, args, indent)
        if outs:
            self.emit(indent, f"{', '.join(outs)} = {', '.join(results)}")
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def emit_while(self, op: Operation, args: List[str], indent: int) -> List[str]:
        count = op.attrs["num_loop_vars"]
        loop_vars = [self.fresh("loop") for _ in range(count)]
        # 0-d values enter the loop as numpy scalars (fast scalar arithmetic every iteration).
        scalar = [t.shape == () and t.op.type != "Const" for t in op.inputs]
        entering = [f"{a}[()]" if s else a for a, s in zip(args, scalar)]
        captured = [self.fresh("captured") if s else a for a, s in zip(args[count:], scalar[count:])]
        for name, value, s in zip(captured, entering[count:], scalar[count:]):
            if s:
                self.emit(indent, f"{name} = {value}", op)
        if loop_vars:
            self.emit(indent, f"{', '.join(loop_vars)} = {', '.join(entering[:count])}", op)
        limit = op.attrs.get("maximum_iterations")
        counter = self.fresh("iterations")
        if limit is not None:
            self.emit(indent, f"{counter} = 0")
        self.emit(indent, "while True:", op)
        if limit is not None:
            self.emit(indent + 1, f"if {counter} >= {int(limit)}: break")
            self.emit(indent + 1, f"{counter} += 1")
        self.scope.append(op.name)
        (keep_going,) = self.emit_graph(op.attrs["cond"], loop_vars + captured, indent + 1)
        self.scope.pop()
        self.emit(indent + 1, f"if not {keep_going}: break", op)
        self.scope.append(op.name)
        next_values = self.emit_graph(op.attrs["body"], loop_vars + captured, indent + 1)
        self.scope.pop()
        if loop_vars:
            self.emit(indent + 1, f"{', '.join(loop_vars)} = {', '.join(next_values)}")
        return loop_vars

    # --- elementwise regions split across threads --------------------------------------------------
    def emit_region(self, region: List[Operation], env: Dict[int, str], reuse: Dict[int, int],
                    indent: int) -> None:
        """Emit a helper computing ``region`` on rows [lo:hi) and a call running it in row blocks."""
        shape = region[0].outputs[0].shape
        inside: Dict[int, str] = {}      # id(tensor) -> name of its full buffer in ``run``
        params: List[str] = []           # names ``run`` passes to the helper (externals, then buffers)
        part: List[str] = []             # helper body
        local: Dict[str, str] = {}       # full array name -> its row-block name inside the helper
        for op in region:
            for t in op.inputs:
                name = inside.get(id(t)) or env[id(t)]
                if name not in local:
                    if name not in params:
                        params.append(name)
                    local[name] = f"{name}_rows" if t.shape == shape else name
                    if t.shape == shape:
                        part.append(f"    {name}_rows = {name}[lo:hi]")
            index = reuse.get(id(op))
            result = op.outputs[0]
            if index is not None:
                buffer = inside.get(id(op.inputs[index])) or env[id(op.inputs[index])]
            else:
                buffer = self.fresh("buffer")
                self.emit(indent, f"{buffer} = _empty({shape!r}, {self.bind(result.dtype, 'dtype')})", op)
                params.append(buffer)
                local[buffer] = f"{buffer}_rows"
                part.append(f"    {buffer}_rows = {buffer}[lo:hi]")
            inside[id(result)] = buffer
            args = [local[inside.get(id(t)) or env[id(t)]] for t in op.inputs]
            part.append(f"    {self.bind(op.op_def.kernel, 'k_' + op.type)}({', '.join(args)}, out={local[buffer]})")
        helper = self.fresh("rows_of_region")
        self.helpers.append(f"def {helper}(lo, hi, {', '.join(params)}):")
        self.helpers.extend(part)
        self.emit(indent, f"_run_in_row_blocks({helper}, {shape[0]}, {', '.join(params)})", region[0])
        env.update(inside)

    # --- kernels ---------------------------------------------------------------------------------
    def emit_kernel_call(self, op: Operation, args: List[str], out_index, indent: int) -> List[str]:
        kernel = op.op_def.kernel
        if kernel is None:
            raise ValueError(f"{op.name}: op {op.type} has no kernel and cannot be executed "
                             f"(a Placeholder must be one of the graph's inputs)")
        outs = [self.fresh("v") for _ in op.outputs]
        form = _OPERATOR_FORMS.get(kernel) if not op.attrs and out_index is None else None
        if form is not None and form.count("{}") == len(args):
            call = form.format(*args)
        else:
            call_args = list(args) + [f"{k}={self.bind(v, k)}" for k, v in op.attrs.items()]
            if out_index is not None:
                call_args.append(f"out={args[out_index]}")
            call = f"{self.bind(kernel, 'k_' + op.type)}({', '.join(call_args)})"
        if not outs:
            self.emit(indent, call, op)
        elif len(outs) == 1:
            self.emit(indent, f"{outs[0]} = {call}", op)
        else:
            self.emit(indent, f"{', '.join(outs)} = {call}", op)
        return outs


_pool = None  # worker threads for row blocks, created on first use
_pool_lock = threading.Lock()


def _run_in_row_blocks(rows_of_region: Callable, rows: int, *arrays: np.ndarray) -> None:
    """Call ``rows_of_region(lo, hi, *arrays)`` on one row block per core (this thread takes the first)."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = concurrent.futures.ThreadPoolExecutor(max_workers=(os.cpu_count() or 2) - 1,
                                                              thread_name_prefix="runtime-rows")
    blocks = min(os.cpu_count() or 2, rows)
    bounds = [rows * i // blocks for i in range(blocks + 1)]
    futures = [_pool.submit(rows_of_region, lo, hi, *arrays) for lo, hi in zip(bounds[1:-1], bounds[2:])]
    try:
        rows_of_region(bounds[0], bounds[1], *arrays)
    finally:
        for future in futures:
            future.result()  # re-raises a block's error


def _error_locator(filename: str, line_nodes: Dict[int, Tuple[Any, ...]]) -> Callable[[BaseException],
                                                                                       BaseException]:
    """Turn a kernel's error into InvalidArgumentError naming the node, as the interpreter does.

    The message is prefixed with the failing node and then each enclosing If/While, innermost first
    (``cond: GatherV2: indices[0] = 7 is not in [0, 3)``), exactly like nested ``run_kernel`` calls,
    and ends with the user's line that created the failing op.
    """

    def locate(error: BaseException) -> BaseException:
        tb = error.__traceback__
        path = None
        while tb is not None:  # the generated function's frame says which line (op) was running
            if tb.tb_frame.f_code.co_filename == filename:
                path = line_nodes.get(tb.tb_lineno, path)
            tb = tb.tb_next
        if path is None:
            return error
        *scope, op = path
        message = str(error)
        for node in (op.name, *reversed(scope)):
            if not (isinstance(error, InvalidArgumentError) and message.startswith(node + ":")):
                message = f"{node}: {message}"
            error = InvalidArgumentError(message)
        return with_creation_site(error, op.creation_site)

    return locate
