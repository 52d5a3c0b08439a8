"""Edits of a graph that is still being traced, for the gradient pass.

Optimizer passes rebuild graphs (``runtime.passes.rewrite``). The gradient pass instead edits the graph it
is adding to, as TensorFlow's does: a forward ``While`` gains accumulators, and a control-flow op that
reads a ``Variable`` inside its branches or body is given the value as an input, so the gradient can
flow out to the variable. The ops' output tensors keep their identity, so everything that reads them is
unchanged. Only the traced graph's own ops change: branch and body graphs are replaced by edited copies,
never edited, because other ops and traced functions may share them.

>>> import runtime as rt
>>> from runtime.core.context import graph_scope
>>> g = rt.FuncGraph("f")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, (), name="x")
...     y = rt.add(x, 1.0)
...     early = insert_before(y.op, rt.ops.core.CONST, {"value": np.float32(2.0), "dtype": rt.float32}, "two")
>>> [op.name for op in g.operations]
['x', 'AddV2/y', 'two', 'AddV2']
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np  # noqa: F401  (the docstring example)

from runtime.core.graph import FuncGraph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops.variables import ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE, ASSIGN_VARIABLE, READ_VARIABLE
from runtime.passes.rewrite import rebuild, rebuilt_attrs

VARIABLE_WRITES = (ASSIGN_VARIABLE, ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE)


def insert_before(op: Operation, op_def: Any, attrs: Dict[str, Any], name: str) -> SymbolicTensor:
    """A new input-less op in ``op``'s graph, placed just before ``op`` (program order is execution order)."""
    graph = op.graph
    last_stateful = graph._last_stateful
    new = graph.create_op(op_def, [], attrs, name=name, site=op.creation_site)
    graph.operations.remove(new)
    graph.operations.insert(graph.operations.index(op), new)
    new.control_inputs[:] = []  # it orders nothing: it only makes a fresh value
    graph._last_stateful = last_stateful
    return new.outputs[0]


def assigned_variables(graphs: Any) -> set:
    """ids of the Variables that an op in ``graphs`` (or in their subgraphs) writes."""
    found = set()
    for graph in graphs:
        for op in graph.operations:
            if op.op_def in VARIABLE_WRITES:
                found.add(id(op.attrs["variable"]))
            found |= assigned_variables(op.subgraphs())
    return found


def variables_read(op: Operation) -> list:
    """The Variables that a branch or body of ``op`` (at any depth) reads, each once, in the order found."""
    found: Dict[int, Any] = {}
    for subgraph in op.subgraphs():
        for inner in subgraph.operations:
            if inner.op_def is READ_VARIABLE:
                found.setdefault(id(inner.attrs["variable"]), inner.attrs["variable"])
            for variable in variables_read(inner):
                found.setdefault(id(variable), variable)
    return list(found.values())


def reads_variable(op: Operation, variable: Any) -> bool:
    """Whether a branch or body of ``op`` (at any depth) reads ``variable``."""
    return any(inner.op_def is READ_VARIABLE and inner.attrs["variable"] is variable or reads_variable(inner, variable)
               for subgraph in op.subgraphs() for inner in subgraph.operations)


def pass_variable_in(op: Operation, variable: Any, value: SymbolicTensor) -> None:
    """Make control-flow ``op`` take ``value`` (a read of ``variable`` before it) as its last input and use it
    wherever its branches or body read ``variable``.

    Only valid when nothing in ``op`` assigns ``variable`` (the caller checks): then every read inside
    sees the value it had before ``op``. Works for ``If`` (the branches take the op's inputs after the
    condition) and ``While`` (captured values come last). ``op`` (an op of the graph being traced) gets
    new branch/body graphs: the old ones are left as they were, since another op or a traced function may
    hold them too.
    """
    op.attrs = {key: with_value_input(sub, variable, value) if isinstance(sub, FuncGraph) else sub
                for key, sub in op.attrs.items()}
    op.inputs = op.inputs + [value]


def with_value_input(subgraph: FuncGraph, variable: Any, value: SymbolicTensor) -> FuncGraph:
    """A copy of ``subgraph`` with one more input (last) standing for ``value``, read wherever ``subgraph``
    (or an if/loop in it, at any depth, which gets the input passed on the same way) read ``variable``."""
    on_path = {id(subgraph)}  # the graphs whose copies take the value as an input
    stand_ins: Dict[int, SymbolicTensor] = {}  # id(copy) -> its placeholder for the value

    def stand_in(target: FuncGraph) -> SymbolicTensor:
        if id(target) not in stand_ins:
            stand_ins[id(target)] = target.add_placeholder(value.dtype, value.shape, name=f"{variable.name}_value")
        return stand_ins[id(target)]

    def finish(target: FuncGraph, outer_value: SymbolicTensor) -> FuncGraph:
        placeholder = stand_in(target)  # made here for a graph of placeholders only
        target.operations.remove(placeholder.op)  # before its readers (a saved graph is loaded in order)
        target.operations.insert(0, placeholder.op)
        target.captures[id(outer_value)] = (outer_value, placeholder)
        return target

    def make_visitor(graph: FuncGraph):
        if id(graph) not in on_path:
            return lambda op, inputs, builder: None  # a subgraph of an op that does not read the variable

        def visit(op: Operation, inputs: list, builder: Any):
            mine = stand_in(builder.target)  # on the first op: only input placeholders come before it
            if op.op_def is READ_VARIABLE and op.attrs["variable"] is variable:
                return [mine]
            if not (op.subgraphs() and reads_variable(op, variable)):
                return None
            on_path.update(id(sub) for sub in op.subgraphs())
            attrs = rebuilt_attrs(op, builder)
            for key, sub in attrs.items():
                if isinstance(sub, FuncGraph):
                    finish(sub, mine)
            return builder.copy_op(op, inputs + [mine], attrs)
        return visit

    return finish(rebuild(subgraph, make_visitor), value)
