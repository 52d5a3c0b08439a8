"""The fast executor: a graph compiled once into one straight-line Python function.

``make_callable(graph)`` generates Python source with one line per needed op — a registry kernel
called directly, or the Python operator that *is* that numpy function (``a + b`` for ``np.add``, much
cheaper on numpy scalars) — with ``If`` as an inline ``if``/``else`` and ``While`` as an inline
``while`` loop over both subgraphs, so nothing is looked up per op or per iteration at run time.
Execution is non-strict: only ops needed by an output run, plus every stateful op, in program order.
0-d values enter loops as numpy scalars (numpy's scalar arithmetic is ~20x cheaper than a ufunc call
on a 0-d array). Elementwise ops whose kernel only wraps a ufunc to silence warnings (``RealDiv``,
``Log``, ...) call the ufunc directly: numpy's floating-point warnings are switched off once per call
(``numpy_errors``), so inf/nan and integer wraparound are silent, as in TensorFlow.

Memory follows ``runtime.backends.buffer_plan``: big temporaries are written (``out=``) into buffers
kept with the compiled function and reused by every call (each concurrent call takes its own set),
other big intermediates are deleted at their last use, and runs of elementwise ops on one big shape
run in row blocks shared by the calling thread and a worker (``row_blocks``). A kernel error becomes
``InvalidArgumentError`` naming the node (and the enclosing If/While, like the interpreter), found
from the generated line that failed.

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

import itertools
import linecache
import re
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import numpy as np

from runtime.backends.buffer_plan import (CAST_INTO, KERNEL_INTO, MATMUL_INTO, SELECT_INTO, UFUNC, MemoryPlan,
                                          plan_memory)
from runtime.backends.in_place import plan_in_place
from runtime.backends.python_forms import OPERATOR_FORMS, expression, in_place_statement, slices_as_views, literal
from runtime.core.numpy_errors import QUIET_ERROR_STATE, RESET_ERROR_STATE, SET_ERROR_STATE
from runtime.backends.row_blocks import block_rows, run_in_row_blocks
from runtime.backends import threads
from runtime.core.dtypes import variant
from runtime.core.errors import InvalidArgumentError
from runtime.core.graph import FuncGraph, Operation
from runtime.passes.analysis import needed_ops
from runtime.core.source_locations import with_creation_site
from runtime.ops.combine_ops import SELECT
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.core import CONST, PLACEHOLDER
from runtime.ops.einsum_ops import EINSUM
from runtime.ops.linalg_ops import DET, INV
from runtime.ops.math_ops import MATMUL

# What ``run_kernel`` turns into InvalidArgumentError; the executor does the same.
_KERNEL_ERRORS = (ValueError, IndexError, FloatingPointError, ZeroDivisionError)
_compiled_ids = itertools.count()
_BLAS_OPS = (MATMUL, EINSUM, DET, INV)  # kernels that run in numpy's BLAS/LAPACK (runtime.backends.threads)


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
        self.slots: List[Tuple[Tuple[int, ...], np.dtype]] = []  # pooled buffers of every (sub)graph
        self.namespace: Dict[str, Any] = {"np": np, "_ndarray": np.ndarray, "_asarray": np.asarray,
                                          "_copy": np.array, "_empty": np.empty,
                                          "_run_in_row_blocks": run_in_row_blocks,
                                          "_set_numpy_errors": SET_ERROR_STATE,
                                          "_quiet_numpy": QUIET_ERROR_STATE,
                                          "_reset_numpy_errors": RESET_ERROR_STATE,
                                          "_KERNEL_ERRORS": _KERNEL_ERRORS}
        self.global_names: Dict[int, str] = {}  # id(value) -> its name in the namespace
        self.counter = itertools.count()
        self.in_place_memo: Dict[Any, Any] = {}  # loops' in-place analyses (runtime.backends.in_place)
        self.blas_work: Optional[float] = None  # multiply-adds of the biggest BLAS product (None: no BLAS op)
        self.views: set = set()  # ids of the StridedSlice ops that return a view (python_forms.slices_as_views)

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

    def keyword_attrs(self, op: Operation) -> List[str]:
        """``name=bound_value`` for each attr of ``op``. The name written is the op's own declaration of it
        (``OpDef.attrs``), never the key the graph holds: a graph read from a file cannot put text into the
        generated source. An attr the op does not declare is refused."""
        declared = _declared_names(op)
        return [f"{declared[key]}={self.bind(value, declared[key])}" for key, value in op.attrs.items()]

    def ufunc_name(self, ufunc: np.ufunc) -> str:
        """``np.true_divide`` reads better than a bound name; both are the same object."""
        return f"np.{ufunc.__name__}" if getattr(np, ufunc.__name__, None) is ufunc else self.bind(ufunc, "ufunc")

    def emit(self, indent: int, text: str, op: Optional[Operation] = None) -> None:
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_nodes[len(self.lines)] = (*self.scope, op)

    # --- whole function --------------------------------------------------------------------------
    def compile(self) -> Callable[..., List[np.ndarray]]:
        graph = self.graph
        args = [self.fresh("in") for _ in graph.inputs]
        self.emit(0, f"def run({', '.join(args)}):")
        self.emit(1, "numpy_errors = _set_numpy_errors(_quiet_numpy)  # inf, nan and integer wraparound pass silently")
        header = len(self.lines)
        self.emit(1, "try:")
        outputs = self.emit_graph(graph, args, 2)
        results = [self.output_expression(t, name) for t, name in zip(graph.outputs, outputs)]
        self.emit(2, f"return [{', '.join(results)}]")
        self.emit(1, "except _KERNEL_ERRORS as error:")
        self.emit(2, "raise _locate(error) from None")
        self.emit(1, "finally:")
        self.emit(2, "_reset_numpy_errors(numpy_errors)")
        pool = _BufferPool(self.slots)
        if self.blas_work is not None and self.blas_work > threads.BLAS_ALONE_MAX:  # BLAS's threads for this call
            big = self.blas_work >= threads.BLAS_PARALLEL_MIN
            self.lines.insert(header, f"    blas = _enter_blas({big})  # BLAS on one thread unless a product is big")
            self.line_nodes = {line + 1 if line > header else line: path for line, path in self.line_nodes.items()}
            self.emit(2, "_leave_blas(blas)")
            self.namespace.update(_enter_blas=threads.enter_blas, _leave_blas=threads.leave_blas)
        if self.slots:  # the buffers' names, taken from the pool at the start of a call
            names = [f"tmp{i}" for i in range(len(self.slots))]
            self.lines[header:header] = ["    buffers = _take_buffers()  # temporaries reused across calls",
                                         f"    {', '.join(names)}{',' if len(names) == 1 else ''} = buffers"]
            self.line_nodes = {line + 2 if line > header else line: path for line, path in self.line_nodes.items()}
            self.emit(2, "_give_back(buffers)")
            self.namespace.update(_take_buffers=pool.take, _give_back=pool.give_back)
        source = "\n".join(self.lines + self.helpers) + "\n"
        filename = f"<graph {graph.name} #{next(_compiled_ids)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks
        self.namespace["_locate"] = _error_locator(filename, self.line_nodes)
        exec(compile(source, filename, "exec"), self.namespace)  # our own generated source, not user data
        run = self.namespace["run"]
        run.__source__ = source
        run.pooled_bytes = pool.pooled_bytes
        return run

    def output_expression(self, tensor, name: str) -> str:
        if tensor.op.op_def is PLACEHOLDER:
            return name
        if tensor.op.op_def is CONST:  # never hand out the graph's own constant: callers may mutate it
            return f"_copy({name})"
        return f"({name} if {name}.__class__ is _ndarray else _asarray({name}))"  # scalars -> 0-d arrays

    # --- graphs, If, While -----------------------------------------------------------------------
    def emit_graph(self, graph: FuncGraph, input_names: Sequence[str], indent: int,
                   owned_inputs: FrozenSet[int] = frozenset()) -> List[str]:
        """Emit the needed ops of ``graph`` with its inputs bound to ``input_names``; returns output names.
        ``owned_inputs``: positions of inputs whose arrays this call owns (loop variables updated in place)."""
        env: Dict[int, str] = {id(t): n for t, n in zip(graph.inputs, input_names)}
        needed = needed_ops(graph)
        for op in graph.operations:  # constants are globals, bound up front (regions may read later ones)
            if op.op_def is CONST and id(op) in needed:
                env[id(op.outputs[0])] = self.bind_constant(op.attrs["value"])
        ops = [op for op in graph.operations
               if id(op) in needed and id(op.outputs[0] if op.outputs else op) not in env]
        plan = plan_memory(graph, ops)
        in_place = plan_in_place(graph, ops, owned_inputs, self.in_place_memo)
        self.views |= slices_as_views(graph, ops, owned_inputs)
        first_slot = len(self.slots)
        self.slots.extend(plan.slots)
        slot_names = {tensor: f"tmp{first_slot + slot}" for tensor, slot in plan.slot_of.items()}
        region_of = {id(region[0]): region for region in plan.regions}
        in_region = {id(op) for region in plan.regions for op in region}
        for position, op in enumerate(ops):
            if id(op) in region_of:
                self.emit_region(region_of[id(op)], env, plan, slot_names, indent)
            elif id(op) not in in_region:
                if op.op_def in _BLAS_OPS:
                    self.blas_work = max(self.blas_work or 0.0, _blas_work(op))
                _declared_names(op)  # no op with an attr it does not declare is compiled, by any form
                args = [env[id(t)] for t in op.inputs]
                if op.op_def is IF:
                    outs = self.emit_if(op, args, indent)
                elif op.op_def is WHILE:
                    outs = self.emit_while(op, args, indent, in_place.loop_vars.get(id(op), ()),
                                           in_place.entry_copies.get(id(op), ()))
                elif id(op) in in_place.updates:
                    outs = self.emit_kernel_call(op, args, indent, in_place=True)
                elif op.outputs and id(op.outputs[0]) in slot_names:
                    outs = [self.emit_into(op, args, plan.write_kind[id(op)], slot_names[id(op.outputs[0])],
                                           indent)]
                else:
                    outs = self.emit_kernel_call(op, args, indent)
                env.update((id(t), n) for t, n in zip(op.outputs, outs))
            dying = [env[id(t)] for t in plan.drop_after.get(position, ()) if id(t) in env]
            if dying:  # big intermediates go at their last use: peak memory is the live set
                self.emit(indent, f"del {', '.join(dict.fromkeys(dying))}")
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

    def emit_while(self, op: Operation, args: List[str], indent: int, updated_in_place: Sequence[int] = (),
                   copied_at_entry: Sequence[int] = ()) -> List[str]:
        """``updated_in_place``: loop variables the body overwrites (the loop owns their arrays); of those,
        ``copied_at_entry`` enter as a copy (the incoming array is not the call's own or is read later)."""
        count = op.attrs["num_loop_vars"]
        loop_vars = [self.fresh("loop") for _ in range(count)]
        # 0-d values enter the loop as numpy scalars (fast scalar arithmetic every iteration). A handle (a tensor
        # list's static shape is its elements') is passed as it is.
        scalar = [t.shape == () and t.op.op_def is not CONST and t.dtype != variant for t in op.inputs]
        entering = [f"{a}[()]" if s else a for a, s in zip(args, scalar)]
        for i in copied_at_entry:  # one copy per loop entry, instead of one per update in the loop
            entering[i] = f"_copy({args[i]})"
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
            self.emit(indent + 1, f"if {counter} >= {literal(limit, self.bind, 'limit')}: break")
            self.emit(indent + 1, f"{counter} += 1")
        self.scope.append(op.name)
        (keep_going,) = self.emit_graph(op.attrs["cond"], loop_vars + captured, indent + 1)
        self.scope.pop()
        self.emit(indent + 1, f"if not {keep_going}: break", op)
        self.scope.append(op.name)
        next_values = self.emit_graph(op.attrs["body"], loop_vars + captured, indent + 1, frozenset(updated_in_place))
        self.scope.pop()
        if loop_vars:
            self.emit(indent + 1, f"{', '.join(loop_vars)} = {', '.join(next_values)}")
        return loop_vars

    # --- ops writing into a given buffer ---------------------------------------------------------------
    def into_lines(self, op: Operation, args: List[str], kind: str, out: str) -> List[str]:
        """The statements computing ``op`` of ``args`` into the array ``out`` (same values as its kernel)."""
        if kind == UFUNC:
            return [f"{self.ufunc_name(op.op_def.elementwise_ufunc)}({', '.join(args)}, out={out})"]
        if kind == CAST_INTO:
            return [f"np.copyto({out}, {args[0]}, casting='unsafe')"]
        if kind == SELECT_INTO:
            condition, then_value, else_value = args
            return [f"np.copyto({out}, {else_value})", f"np.copyto({out}, {then_value}, where={condition})"]
        if kind == KERNEL_INTO:
            return [f"{self.bind(op.op_def.into_kernel, 'into_' + op.type)}({', '.join(args)}, out={out})"]
        assert kind == MATMUL_INTO
        return [f"np.matmul({args[0]}, {args[1]}, out={out})"]

    def emit_into(self, op: Operation, args: List[str], kind: str, out: str, indent: int) -> str:
        for line in self.into_lines(op, args, kind, out):
            self.emit(indent, line, op)
        return out

    # --- elementwise regions in row blocks --------------------------------------------------------------
    def emit_region(self, region: List[Operation], env: Dict[int, str], plan: MemoryPlan,
                    slot_names: Dict[int, str], indent: int) -> None:
        """Emit a helper computing ``region`` on rows [lo:hi) and a call running it in row blocks. Values
        that live only inside the region are computed into block buffers (``blockN``: one block's rows,
        handed to the helper by ``run_in_row_blocks``); values read after it go into whole arrays."""
        shape = region[0].outputs[0].shape
        block_specs = plan.block_buffers[plan.regions.index(region)]
        blocks = [f"block{i}" for i in range(len(block_specs))]
        inside: Dict[int, str] = {}      # id(tensor) -> name of its whole array in ``run``, or its block buffer
        params: List[str] = []           # names ``run`` passes to the helper (externals, then buffers)
        part: List[str] = []             # helper body
        local: Dict[str, str] = {}       # array name -> its row-block name inside the helper

        def rows_of(name: str, whole: bool) -> str:
            if whole and name in self.namespace:  # a constant: a global of the helper's module too
                return name
            if name not in local:
                if name in blocks:  # a block buffer holds one block: its first hi - lo rows
                    local[name] = f"{name}_rows"
                    part.append(f"    {name}_rows = {name}[:hi - lo]")
                    return local[name]
                if name not in params:
                    params.append(name)
                local[name] = name if whole else f"{name}_rows"
                if not whole:
                    part.append(f"    {name}_rows = {name}[lo:hi]")
            return local[name]

        for op in region:
            args = [rows_of(inside.get(id(t)) or env[id(t)], t.shape != shape) for t in op.inputs]
            result = op.outputs[0]
            block = plan.block_buffer_of.get(id(result))
            buffer = blocks[block] if block is not None else slot_names.get(id(result))
            if buffer is None:  # read after the region, or returned: a new array
                buffer = self.fresh("v")
                self.emit(indent, f"{buffer} = _empty({literal(shape, self.bind, 'shape')}, "
                                  f"{self.bind(result.dtype, 'dtype')})", op)
            inside[id(result)] = buffer
            part.extend("    " + line for line in self.into_lines(op, args, plan.write_kind[id(op)],
                                                                  rows_of(buffer, False)))
        helper = self.fresh("rows_of_region")
        self.helpers.extend(["", "", f"def {helper}(lo, hi, {', '.join(blocks + params)}):"])
        self.helpers.extend(part)
        step = block_rows(shape)
        block_shapes = tuple(((step,) + tuple(block_shape[1:]), dtype) for block_shape, dtype in block_specs)
        self.emit(indent, f"_run_in_row_blocks({helper}, {literal(shape[0], self.bind, 'rows')}, "
                          f"{literal(step, self.bind, 'step')}, "
                          f"{self.bind(block_shapes, 'block_buffers') if block_shapes else '()'}, {', '.join(params)})",
                  region[0])
        env.update((key, name) for key, name in inside.items() if name not in blocks)

    # --- kernels ---------------------------------------------------------------------------------
    def emit_kernel_call(self, op: Operation, args: List[str], indent: int, in_place: bool = False) -> List[str]:
        if in_place:  # input 0's (a select's: input 2's) array is this call's own and dies here (in_place.py)
            outs = [self.fresh("v")]
            if op.op_def is SELECT:  # where(c, t, e) written into e's array (in_place.written_input)
                condition, then_value, else_value = args
                self.emit(indent, f"np.copyto({else_value}, {then_value}, where={condition})  # in place: "
                                  f"{else_value} is not read again", op)
                self.emit(indent, f"{outs[0]} = {else_value}")
                return outs
            if op.op_def.in_place_kernel is None:  # an elementwise op writing into input 0 (in_place.py)
                ufunc = self.ufunc_name(op.op_def.elementwise_ufunc)
                self.emit(indent, f"{outs[0]} = {ufunc}({', '.join(args)}, out={args[0]})  # in place: {args[0]} "
                                  "is not read again", op)
                return outs
            statement = in_place_statement(op, args)
            if statement is not None:
                self.emit(indent, f"{statement}  # in place: {args[0]} is not read again", op)
                self.emit(indent, f"{outs[0]} = {args[0]}")
                return outs
            call_args = list(args) + self.keyword_attrs(op)
            kernel = self.bind(op.op_def.in_place_kernel, f"k_{op.op_def.name}_in_place")  # registry names
            self.emit(indent, f"{outs[0]} = {kernel}({', '.join(call_args)})  # writes into {args[0]}", op)
            return outs
        kernel = op.op_def.kernel
        if kernel is None:
            raise ValueError(f"{op.name}: op {op.type} has no kernel and cannot be executed "
                             f"(a Placeholder must be one of the graph's inputs)")
        outs = [self.fresh("v") for _ in op.outputs]
        ufunc = _direct_ufunc(op)
        form = OPERATOR_FORMS.get(ufunc if ufunc is not None else kernel) if not op.attrs else None
        if form is not None and form.count("{}") == len(args):
            call = form.format(*args)
        elif ufunc is not None:
            call = f"{self.ufunc_name(ufunc)}({', '.join(args)})"
        elif op.op_def is SELECT and all(t.shape == () for t in op.inputs):
            call = f"({args[1]} if {args[0]} else {args[2]})"  # np.where on three scalars, without the call
        elif expression(op, args, self.bind, id(op) in self.views) is not None:
            call = expression(op, args, self.bind, id(op) in self.views)
        else:
            call_args = list(args) + self.keyword_attrs(op)
            call = f"{self.bind(kernel, 'k_' + op.op_def.name)}({', '.join(call_args)})"
        if not outs:
            self.emit(indent, call, op)
        elif len(outs) == 1:
            self.emit(indent, f"{outs[0]} = {call}", op)
        else:
            self.emit(indent, f"{', '.join(outs)} = {call}", op)
        return outs


def _declared_names(op: Operation) -> Dict[str, str]:
    """``op``'s attr keys mapped to the op's declared names for them; ValueError for any undeclared key."""
    declared = {name: name for name in op.op_def.attrs if name.isidentifier()}
    for key in op.attrs:
        if type(key) is not str or key not in declared:
            raise ValueError(f"{op.name}: op {op.op_def.name} does not declare an attr {key!r}; refusing to "
                             "compile it")
    return declared


def _direct_ufunc(op: Operation) -> Optional[np.ufunc]:
    """The ufunc to call instead of ``op``'s kernel (warnings are already off), or None for the kernel."""
    ufunc = op.op_def.elementwise_ufunc
    if ufunc is None or op.attrs or not op.outputs:
        return None
    if op.op_def.zero_divisor_error and op.outputs[0].dtype.kind in "iu":
        divisor = op.inputs[1]
        if not (divisor.op.op_def is CONST and bool(np.all(divisor.op.attrs["value"]))):
            return None  # the kernel raises InvalidArgumentError for an integer zero divisor
    return ufunc


def _blas_work(op: Operation) -> float:
    """About how many multiply-adds ``op`` runs in BLAS (infinite when a shape is unknown)."""
    shapes = [t.shape for t in op.inputs] + [t.shape for t in op.outputs]
    if any(shape is None or None in shape for shape in shapes):
        return float("inf")
    if op.op_def is MATMUL and len(shapes[0]) >= 2:
        return float(np.prod(op.outputs[0].shape, dtype=float) * shapes[0][-1])  # rows x columns x inner
    return float(max(np.prod(shape, dtype=float) for shape in shapes)) ** 1.5  # n x n inputs: n^3


class _BufferPool:
    """The buffers of one compiled function's temporaries: one set per concurrent call, reused."""

    def __init__(self, slots: List[Tuple[Tuple[int, ...], np.dtype]]):
        self.slots = slots
        self.free: List[Tuple[np.ndarray, ...]] = []
        self.sets = 0

    def take(self) -> Tuple[np.ndarray, ...]:
        try:
            return self.free.pop()  # atomic under the GIL: two threads never get the same set
        except IndexError:
            self.sets += 1
            return tuple(np.empty(shape, dtype) for shape, dtype in self.slots)

    def give_back(self, buffers: Tuple[np.ndarray, ...]) -> None:
        self.free.append(buffers)

    def pooled_bytes(self) -> int:
        return self.sets * sum(int(np.prod(shape)) * dtype.itemsize for shape, dtype in self.slots)


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
