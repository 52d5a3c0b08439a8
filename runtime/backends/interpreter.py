"""The reference executor: walks a graph's operations in program order and runs their kernels.

Execution is non-strict, like TensorFlow's: only the ops that an output needs run, plus every stateful
op (print, assert, variable reads/writes, random) and what those need — in program order. So an unused
``gather`` with a bad index raises nothing, while ``rt.print`` always prints.

The plan (which ops run, where each value lives) is computed once per graph by ``make_callable``;
calling the result only runs kernels.

>>> import runtime as rt
>>> from runtime.core.context import graph_scope
>>> g = rt.FuncGraph("add_one")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (), name="x")
...     g.outputs = [rt.add(x, 1)]
>>> run_graph(g, [np.int32(41)])
[array(42, dtype=int32)]
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from runtime.core.errors import InvalidArgumentError
from runtime.core.graph import FuncGraph, Operation
from runtime.core.registry import run_kernel
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.passes.analysis import needed_ops
from runtime.core.source_locations import with_creation_site
from runtime.core.graph import CONST, PLACEHOLDER


def needed_operations(graph: FuncGraph) -> List[Operation]:
    """The ops that must run, in program order: those the outputs depend on and all stateful ones."""
    needed = needed_ops(graph)
    return [op for op in graph.operations if id(op) in needed]


class _Step:
    """One op to run: its kernel's inputs and where its outputs go, resolved to slot numbers."""

    __slots__ = ("op_def", "name", "attrs", "input_slots", "output_slots", "site", "release")

    def __init__(self, op: Operation, slot_of: Dict[int, int]):
        self.op_def = op.op_def
        self.name = op.name
        self.attrs = op.attrs
        self.input_slots = [slot_of[id(t)] for t in op.inputs]
        self.output_slots = [slot_of[id(t)] for t in op.outputs]
        self.site = op.creation_site
        self.release: List[int] = []   # slots no later step reads: emptied after this one


def _plan_releases(steps: List[_Step], input_slots: List[int], output_slots: List[int]) -> None:
    """Each value is dropped after its last reader (or, if nothing reads it, after the step that made it),
    so a chain of ops holds about what eager execution holds, not every intermediate until the end."""
    last: Dict[int, int] = {slot: 0 for slot in input_slots}
    for index, step in enumerate(steps):
        for slot in step.output_slots:
            last[slot] = index
        for slot in step.input_slots:
            last[slot] = index
    kept = set(output_slots)
    for slot, index in last.items():
        if slot not in kept and steps:
            steps[index].release.append(slot)


def _root(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory (``array`` itself unless it is a view)."""
    base = array.base
    while isinstance(base, np.ndarray):
        array, base = base, base.base
    return array


def make_callable(graph: FuncGraph) -> Callable[..., List[np.ndarray]]:
    """A function ``run(*input_arrays) -> [output arrays]`` executing ``graph`` non-strictly.

    ``input_arrays`` feed ``graph.inputs`` in order (arguments, then captured values).
    """
    operations = needed_operations(graph)
    slot_of: Dict[int, int] = {}
    for op in operations:
        for tensor in op.outputs:
            slot_of[id(tensor)] = len(slot_of)
    for tensor in graph.inputs:  # unused inputs still get a slot so feeding stays positional
        slot_of.setdefault(id(tensor), len(slot_of))
    fed = {id(t.op) for t in graph.inputs}
    steps = []
    # Constant arrays are in their slots before a run starts (a Const's kernel returns its value as it is:
    # no step; a value of another type still runs as a step, converted to an array on each run).
    initial_values: List[Any] = [None] * len(slot_of)
    # The graph's constants (the arrays owning their memory): an output that is one, or a view of one, is
    # handed out as a copy, as the compiled executor does: a caller may write into what it gets.
    constant_ids = set()
    for op in operations:  # (one loop: a first call plans every graph it runs, and runs it once)
        op_def = op.op_def
        if op_def is PLACEHOLDER:
            if id(op) not in fed:
                raise ValueError(f"graph {graph.name}: placeholder {op.name} is needed but is not one of the "
                                 "graph's inputs, so nothing can feed it")
        elif op_def is CONST and type(op.attrs["value"]) is np.ndarray:
            value = op.attrs["value"]
            initial_values[slot_of[id(op.outputs[0])]] = value
            constant_ids.add(id(_root(value)))
        else:
            if op_def is CONST:
                constant_ids.add(id(_root(op.attrs["value"])))
            steps.append(_Step(op, slot_of))
    input_slots = [slot_of[id(t)] for t in graph.inputs]
    output_slots = [slot_of[id(t)] for t in graph.outputs]
    _plan_releases(steps, input_slots, output_slots)
    graph_name = graph.name

    def run(*arrays: np.ndarray) -> List[np.ndarray]:
        if len(arrays) != len(input_slots):
            raise TypeError(f"graph {graph_name} takes {len(input_slots)} input arrays, got {len(arrays)}")
        values = initial_values.copy()
        for slot, array in zip(input_slots, arrays):
            values[slot] = array
        for step in steps:
            try:
                result = run_kernel(step.op_def, [values[s] for s in step.input_slots], step.attrs, step.name,
                                    _CONTROL_FLOW.get(step.op_def))
            except InvalidArgumentError as error:
                raise with_creation_site(error, step.site) from None
            if isinstance(result, tuple):
                for slot, array in zip(step.output_slots, result):
                    values[slot] = _as_array(array)
            else:
                values[step.output_slots[0]] = _as_array(result)
            for slot in step.release:
                values[slot] = None
        outputs = [values[s] for s in output_slots]
        if constant_ids:
            outputs = [np.array(a) if id(_root(a)) in constant_ids else a for a in outputs]
        return outputs

    return run


def _as_array(value: Any) -> np.ndarray:
    return value if type(value) is np.ndarray else np.asarray(value)


def _run_if(cond, *inputs, then_branch, else_branch):
    return tuple(run_graph(then_branch if bool(cond) else else_branch, inputs))


def _run_while(*inputs, cond, body, num_loop_vars: int, maximum_iterations: Optional[int]):
    loop_vars: List[Any] = list(inputs[:num_loop_vars])
    captured = list(inputs[num_loop_vars:])
    iterations = 0
    while maximum_iterations is None or iterations < maximum_iterations:
        if not bool(run_graph(cond, loop_vars + captured)[0]):
            break
        loop_vars = run_graph(body, loop_vars + captured)
        iterations += 1
    return tuple(loop_vars)


_CONTROL_FLOW = {IF: _run_if, WHILE: _run_while}  # ops without a kernel: their subgraphs run here

_CALLABLES: "weakref.WeakKeyDictionary[FuncGraph, Callable]" = weakref.WeakKeyDictionary()


def run_graph(graph: FuncGraph, input_arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
    """Run ``graph`` on ``input_arrays`` (its plan is built on first use and kept with the graph)."""
    run = _CALLABLES.get(graph)
    if run is None:
        run = _CALLABLES[graph] = make_callable(graph)
    return run(*input_arrays)
