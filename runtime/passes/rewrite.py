"""Rebuilding a FuncGraph op by op: the one mechanism every optimizer pass uses.

A pass never edits a graph in place. It walks the source graph in program order and, for each op,
either copies it into a fresh graph (subgraphs of If/While are rebuilt by the same pass first) or
says which already-built tensors stand for the op's outputs (a folded constant, an earlier equal
node, the op's own input, ...). Creation order stays program order, so stateful ops keep their order.

>>> from runtime.core.graph import FuncGraph
>>> g = FuncGraph("f")
>>> rebuild(g, lambda graph: lambda op, inputs, builder: None).name
'f'
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import numpy as np

from runtime.core import nest
from runtime.core.graph import FuncGraph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.core.graph import CONST
from runtime.core.graph import PLACEHOLDER

# replace(op, new_inputs) -> the tensors that stand for op.outputs in the target graph, or None to copy the op.
Replace = Callable[[Operation, List[Any]], Optional[Sequence[SymbolicTensor]]]
# visit(op, new_inputs, builder) -> replacement tensors for op.outputs, or None to copy the op.
Visitor = Callable[[Operation, List[SymbolicTensor], "GraphBuilder"], Optional[Sequence[SymbolicTensor]]]
# A pass makes one visitor per graph it rebuilds (the top graph and each If/While subgraph).
VisitorFactory = Callable[[FuncGraph], Visitor]

_MANAGED = {"operations", "inputs", "outputs", "structured_outputs", "captures", "variables", "outer_graph",
            "_name_counts", "_used_names", "_constant_cache", "_last_stateful", "name"}


class GraphBuilder:
    """Builds ``target``, a new FuncGraph standing for ``source``; ``mapping`` follows tensors across."""

    def __init__(self, source: FuncGraph, make_visitor: VisitorFactory,
                 outer: Optional["GraphBuilder"] = None):
        self.source = source
        self.make_visitor = make_visitor
        self.outer = outer
        self.target = FuncGraph(source.name, outer_graph=outer.target if outer else source.outer_graph)
        self.mapping: Dict[int, SymbolicTensor] = {}  # id(source tensor) -> target tensor

    def new(self, tensor: SymbolicTensor) -> SymbolicTensor:
        return self.mapping[id(tensor)]

    def copy_op(self, op: Operation, inputs: Sequence[SymbolicTensor],
                attrs: Optional[Dict[str, Any]] = None) -> List[SymbolicTensor]:
        """Add a copy of ``op`` (same type and name) reading ``inputs``; returns its outputs."""
        specs = None
        if not op.subgraphs() and all(new is not None and new.dtype == old.dtype and new.shape == old.shape
                                      for new, old in zip(inputs, op.inputs)):
            specs = [(t.dtype, t.shape) for t in op.outputs]  # same input types: inference would agree
        new_op = self.target.create_op(op.op_def, list(inputs), dict(op.attrs if attrs is None else attrs),
                                       name=op.name, site=op.creation_site, output_specs=specs)
        return new_op.outputs

    def rebuild_subgraph(self, subgraph: FuncGraph) -> FuncGraph:
        """``subgraph`` (an attr of an op of the source) rebuilt by the same pass, nested in ``target``."""
        return _rebuild(subgraph, self.make_visitor, self)

    def constant(self, value: np.ndarray, name: str) -> SymbolicTensor:
        return self.target.constant(value, name=name)

    def const_value(self, tensor: SymbolicTensor) -> Optional[np.ndarray]:
        """The value of a target-graph tensor if a ``Const`` op produces it, else None."""
        op = tensor.op
        return op.attrs["value"] if op.op_def is CONST else None


def copy_ops(source_ops: Iterable[Operation], target: FuncGraph, mapping: Dict[int, Any], *,
             read: Optional[Callable[[SymbolicTensor], Any]] = None, replace: Optional[Replace] = None
             ) -> List[Operation]:
    """Copy ``source_ops`` into ``target`` in order: the one loop every graph copy runs (passes, inlining,
    gradients). ``mapping`` (id(source tensor) -> its stand-in in ``target``) gives each op's inputs and gains
    its outputs; a placeholder already in ``mapping`` is bound, not copied. ``read(tensor)`` reads an input
    instead of ``mapping`` (e.g. a capture); ``replace(op, inputs)`` may give the tensors that stand for the op's
    outputs instead of a copy. ``source_ops`` is read lazily: a generator may filter on what ``mapping`` holds
    so far. Returns the ops created as copies, in order.

    >>> from runtime.core import context, dtypes
    >>> source, target = FuncGraph("source"), FuncGraph("target")
    >>> with context.graph_scope(source):
    ...     x = source.add_placeholder(dtypes.float32, (), name="x")
    ...     y = x + x
    >>> mapping = {id(x): target.add_placeholder(dtypes.float32, (), name="x")}
    >>> [op.type for op in copy_ops(source.operations, target, mapping)], mapping[id(y)].op.graph is target
    (['AddV2'], True)
    """
    created = []
    for op in source_ops:
        if op.op_def is PLACEHOLDER and id(op.outputs[0]) in mapping:
            continue
        inputs = [read(t) for t in op.inputs] if read is not None else [mapping[id(t)] for t in op.inputs]
        outputs = replace(op, inputs) if replace is not None else None
        if outputs is None:
            copy = target.create_op(op.op_def, inputs, dict(op.attrs), name=op.name, site=op.creation_site)
            created.append(copy)
            outputs = copy.outputs
        mapping.update((id(old), new) for old, new in zip(op.outputs, outputs))
    return created


def rebuild(source: FuncGraph, make_visitor: VisitorFactory) -> FuncGraph:
    """A new FuncGraph equal to ``source`` except where ``visit`` replaces an op's outputs.

    Ops with subgraph attrs (If/While) are copied with each subgraph rebuilt by ``rebuild(sub, visit)``
    unless ``visit`` replaced them. Inputs (placeholders), outputs, captures, variables and any extra
    attributes callers attached to the graph are carried over. ``make_visitor(graph)`` is called once
    for the top graph and once for each subgraph.
    """
    return _rebuild(source, make_visitor, None)


def _rebuild(source: FuncGraph, make_visitor: VisitorFactory, outer: Optional[GraphBuilder]) -> FuncGraph:
    builder = GraphBuilder(source, make_visitor, outer)
    visit = make_visitor(source)
    target = builder.target
    for placeholder in source.inputs:
        op = placeholder.op
        builder.mapping[id(placeholder)] = target.add_placeholder(placeholder.dtype, placeholder.shape,
                                                                  name=op.name)

    def visited(op: Operation, inputs: List[Any]) -> Sequence[SymbolicTensor]:
        replacement = visit(op, inputs, builder)
        return builder.copy_op(op, inputs, rebuilt_attrs(op, builder)) if replacement is None else replacement

    # An input is None where its producer was dropped (only prune drops ops, and only unread ones).
    copy_ops(source.operations, target, builder.mapping, read=lambda tensor: builder.mapping.get(id(tensor)),
             replace=visited)
    _carry_over(source, builder)
    return target


def rebuilt_attrs(op: Operation, builder: GraphBuilder) -> Dict[str, Any]:
    """``op.attrs`` with every subgraph rebuilt by the builder's pass."""
    return {key: builder.rebuild_subgraph(value) if isinstance(value, FuncGraph) else value
            for key, value in op.attrs.items()}


def _carry_over(source: FuncGraph, builder: GraphBuilder) -> None:
    target, mapping = builder.target, builder.mapping
    target.outputs = [mapping[id(t)] for t in source.outputs]
    target.structured_outputs = nest.map_structure(
        lambda v: mapping.get(id(v), v) if isinstance(v, SymbolicTensor) else v, source.structured_outputs)
    outer_mapping = builder.outer.mapping if builder.outer else {}
    for key, (outer, inner) in source.captures.items():
        target.captures[key] = (outer_mapping.get(id(outer), outer), mapping[id(inner)])
    target.variables = list(source.variables)
    for key, value in vars(source).items():  # e.g. signature info attached by Function
        if key not in _MANAGED and not hasattr(target, key):
            setattr(target, key, value)


def inline(builder: GraphBuilder, subgraph: FuncGraph, inputs: Sequence[SymbolicTensor]) -> List[SymbolicTensor]:
    """Copy ``subgraph``'s ops into ``builder.target`` reading ``inputs``; returns its outputs there.

    Used to replace an ``If`` whose condition is a constant by the branch it will always take.
    """
    mapping = {id(p): t for p, t in zip(subgraph.inputs, inputs)}  # its placeholders: the caller's inputs
    copy_ops(subgraph.operations, builder.target, mapping)
    return [mapping[id(t)] for t in subgraph.outputs]


def copy_into(source: FuncGraph, target: FuncGraph, inputs: Sequence[Any]) -> Dict[int, SymbolicTensor]:
    """Copy ``source``'s ops into ``target`` (e.g. the graph being traced) with ``inputs`` standing for
    ``source``'s input placeholders; returns id(source tensor) -> its copy.

    Unlike ``inline``, the If/While subgraphs are copied too (rebuilt, nested in ``target``), so no graph is
    shared: the gradient pass edits the ops of the graph it traces, and must never reach ``source``'s.
    """
    builder = GraphBuilder(source, lambda graph: lambda op, new_inputs, b: None)
    builder.target = target
    builder.mapping.update((id(p), t) for p, t in zip(source.inputs, inputs))
    copy_ops(source.operations, target, builder.mapping,
             replace=lambda op, new_inputs: builder.copy_op(op, new_inputs, rebuilt_attrs(op, builder)))
    for variable in source.variables:
        if hasattr(target, "track_variable"):
            target.track_variable(variable)
    return builder.mapping
