"""Draw a graph as Graphviz DOT text: one node per op, If/While subgraphs as clusters.

Each node shows the op's name, type and output ``dtype[shape]``. Constants that feed other ops are not
drawn as nodes of their own; their values are folded into the consumer's label (``y = 0``), which keeps
pictures of real functions readable. Control dependencies (program order of stateful ops) are dashed.

>>> import runtime as rt
>>> from runtime.core.context import graph_scope
>>> g = rt.FuncGraph("relu")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.float32, (None, 3), name="x")
...     g.outputs = [rt.maximum(x, 0.0)]
>>> print(to_dot(g).splitlines()[0])
digraph "relu" {
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from runtime.core.graph import Graph
from runtime.core.graph import CONST
from runtime.core.graph import PLACEHOLDER

_MAX_INLINE_ELEMENTS = 6  # bigger constants are summarized by dtype and shape


def describe(dtype: np.dtype, shape) -> str:
    """``float32[None,3]``; ``int32[]`` for a scalar; ``float32[...]`` for an unknown rank."""
    if shape is None:
        return f"{dtype.name}[...]"
    return f"{dtype.name}[{','.join('None' if d is None else str(d) for d in shape)}]"


def _constant_text(value: np.ndarray) -> str:
    if value.size <= _MAX_INLINE_ELEMENTS:
        text = np.array2string(value, separator=",", threshold=_MAX_INLINE_ELEMENTS)
        return "".join(line.strip() for line in text.splitlines())
    return f"<{describe(value.dtype, value.shape)} constant>"


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become DOT's centered line breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class _DotWriter:
    def __init__(self):
        self.lines: List[str] = []
        self._ids: Dict[int, str] = {}  # id(Operation) -> DOT node id (unique across clusters)
        self._clusters = 0

    def node_id(self, op) -> str:
        key = id(op)
        if key not in self._ids:
            self._ids[key] = f"n{len(self._ids)}"
        return self._ids[key]

    def graph(self, graph, indent: str) -> None:
        folded = self._foldable_constants(graph)
        for op in graph.operations:
            if op in folded:
                continue
            self.lines.append(f"{indent}{self.node_id(op)} [{self._node_attrs(op, folded)}];")
            for sub_name, subgraph in _subgraph_items(op):
                self._cluster(op, sub_name, subgraph, indent)
        for op in graph.operations:
            if op in folded:
                continue
            for tensor in op.inputs:
                if tensor.op not in folded:
                    self.lines.append(f"{indent}{self.node_id(tensor.op)} -> {self.node_id(op)} "
                                      f"[label={_quote(describe(tensor.dtype, tensor.shape))}];")
            for control in op.control_inputs:
                self.lines.append(f"{indent}{self.node_id(control)} -> {self.node_id(op)} "
                                  "[style=dashed, color=gray40];")
        self._outputs(graph, indent)

    def _foldable_constants(self, graph) -> set:
        outputs = {id(t.op) for t in getattr(graph, "outputs", [])}
        consumed = {id(t.op) for op in graph.operations for t in op.inputs}
        return {op for op in graph.operations
                if op.op_def is CONST and id(op) in consumed and id(op) not in outputs}

    def _node_attrs(self, op, folded: set) -> str:
        outputs = ", ".join(describe(t.dtype, t.shape) for t in op.outputs) or "no outputs"
        lines = [op.name if op.name == op.type else f"{op.name}\n{op.type}", f"→ {outputs}"]
        for index, tensor in enumerate(op.inputs):
            if tensor.op in folded:
                lines.append(f"{_input_label(op, index)} = {_constant_text(tensor.op.attrs['value'])}")
        if op.op_def is CONST:
            lines.append(_constant_text(op.attrs["value"]))
        style = {"Placeholder": "shape=ellipse, style=filled, fillcolor=lightblue",
                 "Const": "shape=box, style=rounded"}.get(op.type, "shape=box")
        if op.is_stateful and op.op_def not in (PLACEHOLDER, CONST):
            style += ", style=filled, fillcolor=lightyellow"
        return f"label={_quote(chr(10).join(lines))}, {style}"

    def _cluster(self, op, sub_name: str, subgraph, indent: str) -> None:
        self._clusters += 1
        number = self._clusters  # nested clusters drawn below take the next numbers
        self.lines.append(f"{indent}subgraph cluster_{number} {{")
        inner = indent + "  "
        self.lines.append(f"{inner}label={_quote(f'{op.name}: {sub_name}')}; style=rounded; color=gray50;")
        self.graph(subgraph, inner)
        self.lines.append(f"{indent}}}")
        anchor = next((o for o in reversed(subgraph.operations)), None)
        if anchor is not None:
            self.lines.append(f"{indent}{self.node_id(anchor)} -> {self.node_id(op)} "
                              f"[ltail=cluster_{number}, style=dotted, label={_quote(sub_name)}];")

    def _outputs(self, graph, indent: str) -> None:
        for index, tensor in enumerate(getattr(graph, "outputs", [])):
            out_id = f"{self.node_id(graph)}_out{index}"
            self.lines.append(f"{indent}{out_id} [label={_quote(f'output {index}')}, shape=plaintext];")
            self.lines.append(f"{indent}{self.node_id(tensor.op)} -> {out_id} "
                              f"[label={_quote(describe(tensor.dtype, tensor.shape))}];")


def _input_label(op, index: int) -> str:
    """The input's argument name; for If/While inputs past the named ones, the subgraph's placeholder name."""
    named = len(op.op_def.inputs)
    subgraphs = [graph for _, graph in _subgraph_items(op)]
    if index >= named and subgraphs and index - named < len(subgraphs[0].inputs):
        return subgraphs[0].inputs[index - named].op.name
    return op.op_def.input_name(index)


def _subgraph_items(op):
    return [(name, value) for name, value in op.attrs.items() if isinstance(value, Graph)]


def to_dot(graph) -> str:
    """Graphviz DOT text for ``graph`` (render with ``dot -Tsvg graph.dot -o graph.svg``).

    >>> "digraph" in to_dot(__import__("runtime").FuncGraph("empty"))
    True
    """
    writer = _DotWriter()
    writer.lines.append(f"digraph {_quote(graph.name)} {{")
    writer.lines.append('  compound=true; rankdir=TB; node [fontname="Helvetica", fontsize=10]; '
                        'edge [fontname="Helvetica", fontsize=8];')
    writer.graph(graph, "  ")
    writer.lines.append("}")
    return "\n".join(writer.lines) + "\n"


__all__ = ["to_dot", "describe"]
