"""``graph.as_graph_def()``: a graph described the way TensorFlow's GraphDef describes it.

``str(graph_def)`` is text in the style of TensorFlow's GraphDef text format (``node { name: ... op:
... input: ... attr { key: "T" value { type: DT_INT32 } } }``); If/While subgraphs appear once each
in a ``library { function { ... } }`` section, referred to by name. ``to_dict()`` gives the same
content as plain JSON-able data. It is a description, for reading and tooling; ``rt.save`` is what
round-trips a graph.

>>> import runtime as rt
>>> from runtime.core.context import graph_scope
>>> g = rt.FuncGraph("positive")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (), name="x")
...     g.outputs = [rt.greater(x, 0)]
>>> [(node.name, node.op, node.input) for node in g.as_graph_def().node]
[('x', 'Placeholder', []), ('Greater/y', 'Const', []), ('Greater', 'Greater', ['x', 'Greater/y'])]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List

import numpy as np

from runtime.core.graph import FuncGraph, Graph, Operation
from runtime.ops.control_flow_ops import IF
from runtime.core.graph import PLACEHOLDER
from runtime.ops.control_flow_ops import WHILE

_TYPE_NAMES = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int8": "DT_INT8",
               "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64", "uint8": "DT_UINT8",
               "bool": "DT_BOOL"}
_VALUE_FIELDS = {"f": "float_val", "i": "int_val", "u": "int_val", "b": "bool_val"}
_MAX_LISTED_VALUES = 1000  # bigger constants are summarized (the text is for reading)


class Enum(str):
    """A protobuf enum value (``DT_INT32``): printed bare in the text format, a plain string in dicts."""


def type_name(dtype: np.dtype) -> Enum:
    return Enum(_TYPE_NAMES[np.dtype(dtype).name])


def _shape_attr(shape) -> Dict[str, Any]:
    if shape is None:
        return {"unknown_rank": True}
    return {"dim": [{"size": -1 if d is None else int(d)} for d in shape]}


def _scalar(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.floating, float)):
        return float(str(value))  # the shortest text that gives back the same value in its own precision
    return int(value)


def _tensor_attr(array: np.ndarray) -> Dict[str, Any]:
    tensor: Dict[str, Any] = {"dtype": type_name(array.dtype), "tensor_shape": _shape_attr(array.shape)}
    if array.size > _MAX_LISTED_VALUES:
        tensor["tensor_content"] = f"<{array.size} values, {array.nbytes} bytes>"
    elif array.size:
        field_name = "int64_val" if array.dtype == np.int64 else (
            "double_val" if array.dtype == np.float64 else _VALUE_FIELDS[array.dtype.kind])
        tensor[field_name] = [_scalar(v) for v in array.reshape(-1)]
    return tensor


def attr_value(key: str, value: Any) -> Any:
    """The AttrValue (as a dict) of one op attr; None for attrs with nothing to show."""
    if value is None:
        return None
    if isinstance(value, np.dtype):
        return {"type": type_name(value)}
    if isinstance(value, np.ndarray):
        return {"tensor": _tensor_attr(value)}
    if isinstance(value, FuncGraph):
        return {"func": {"name": value.name}}
    if key == "shape" and isinstance(value, tuple):
        return {"shape": _shape_attr(value)}
    if isinstance(value, (bool, np.bool_)):
        return {"b": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"i": int(value)}
    if isinstance(value, (float, np.floating)):
        return {"f": _scalar(value)}
    if isinstance(value, str):
        return {"s": value}
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in value):
        return {"list": {"i": [int(v) for v in value]}}
    if hasattr(value, "name") and type(value).__name__ == "Variable":
        return {"s": value.name}
    return {"s": repr(value)}


def _reference(tensor) -> str:
    return tensor.op.name if tensor.index == 0 else f"{tensor.op.name}:{tensor.index}"


@dataclass
class NodeDef:
    """One op: ``name``, ``op`` (its type), ``input`` (``"name"``, ``"name:1"``, ``"^control"``), ``attr``."""

    name: str
    op: str
    input: List[str] = field(default_factory=list)
    attr: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_operation(cls, op: Operation) -> "NodeDef":
        attrs: Dict[str, Any] = {}
        if op.op_def in (IF, WHILE):
            attrs.update(_control_flow_types(op))
        elif op.inputs and "T" not in op.attrs:
            attrs["T"] = {"type": type_name(op.inputs[0].dtype)}
        for key, value in op.attrs.items():
            encoded = attr_value(key, value)
            if encoded is not None:
                attrs[key] = encoded
        if "variable" in op.attrs and "dtype" not in attrs:
            attrs["dtype"] = {"type": type_name(op.attrs["variable"].dtype)}
        inputs = [_reference(t) for t in op.inputs] + [f"^{c.name}" for c in op.control_inputs]
        return cls(op.name, op.type, inputs, dict(sorted(attrs.items())))

    def to_dict(self) -> Dict[str, Any]:
        return _plain(self.message())

    def message(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"name": self.name, "op": self.op}
        if self.input:
            data["input"] = list(self.input)
        if self.attr:
            data["attr"] = self.attr
        return data


def _control_flow_types(op: Operation) -> Dict[str, Any]:
    def types(tensors):
        return {"list": {"type": [type_name(t.dtype) for t in tensors]}}
    if op.op_def is IF:
        return {"Tcond": {"type": type_name(op.inputs[0].dtype)}, "Tin": types(op.inputs[1:]),
                "Tout": types(op.outputs)}
    return {"T": types(op.inputs)}


@dataclass
class FunctionDef:
    """A subgraph (If branch, While cond/body): its arguments, nodes, and which tensors it returns."""

    name: str
    input_arg: List[Dict[str, Any]]
    output_arg: List[Dict[str, Any]]
    node_def: List[NodeDef]
    ret: Dict[str, str]

    @classmethod
    def from_graph(cls, graph: FuncGraph) -> "FunctionDef":
        inputs = [{"name": t.op.name, "type": type_name(t.dtype)} for t in graph.inputs]
        outputs = [{"name": f"output_{i}", "type": type_name(t.dtype)} for i, t in enumerate(graph.outputs)]
        nodes = [NodeDef.from_operation(op) for op in graph.operations if op.op_def is not PLACEHOLDER]
        ret = {f"output_{i}": _reference(t) for i, t in enumerate(graph.outputs)}
        return cls(graph.name, inputs, outputs, nodes, ret)

    def to_dict(self) -> Dict[str, Any]:
        return _plain(self.message())

    def message(self) -> Dict[str, Any]:
        signature = {"name": self.name, "input_arg": self.input_arg, "output_arg": self.output_arg}
        return {"signature": signature, "node_def": [n.message() for n in self.node_def], "ret": dict(self.ret)}


class GraphDef:
    """All nodes of a graph, plus a library of the subgraphs its control-flow ops use."""

    def __init__(self, node: List[NodeDef], library: List[FunctionDef]):
        self.node = node
        self.library = library

    @classmethod
    def from_graph(cls, graph: Graph) -> "GraphDef":
        library: Dict[str, FunctionDef] = {}
        _collect_functions(graph, library)
        return cls([NodeDef.from_operation(op) for op in graph.operations], list(library.values()))

    def to_dict(self) -> Dict[str, Any]:
        """Plain dicts/lists/strings/numbers (``json.dumps`` works on it)."""
        data: Dict[str, Any] = {"node": [n.to_dict() for n in self.node]}
        if self.library:
            data["library"] = {"function": [f.to_dict() for f in self.library]}
        return data

    def __str__(self) -> str:
        lines: List[str] = []
        for node in self.node:
            _write_message(lines, "node", node.message(), 0)
        if self.library:
            _write_message(lines, "library", {"function": [f.message() for f in self.library]}, 0)
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<GraphDef with {len(self.node)} nodes, {len(self.library)} library functions>"


def _collect_functions(graph: Graph, library: Dict[str, FunctionDef]) -> None:
    for op in graph.operations:
        for subgraph in op.subgraphs():
            if subgraph.name not in library:
                library[subgraph.name] = FunctionDef.from_graph(subgraph)
                _collect_functions(subgraph, library)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Enum):
        return str(value)
    return value


# --- text format -------------------------------------------------------------------------------------
_MAP_FIELDS = ("attr", "ret")  # proto maps: written as repeated { key: ... value ... } entries


def _write_message(lines: List[str], name: str, message: Dict[str, Any], depth: int) -> None:
    pad = "  " * depth
    lines.append(f"{pad}{name} {{")
    for key, value in message.items():
        _write_field(lines, key, value, depth + 1)
    lines.append(f"{pad}}}")


def _write_field(lines: List[str], key: str, value: Any, depth: int) -> None:
    pad = "  " * depth
    if key in _MAP_FIELDS and isinstance(value, dict):
        for map_key, map_value in value.items():
            if isinstance(map_value, dict):
                entry = {"key": map_key, "value": map_value}
                _write_message(lines, key, entry, depth)
            else:
                lines.append(f"{pad}{key} {{ key: {_text(map_key)} value: {_text(map_value)} }}")
    elif isinstance(value, dict):
        _write_message(lines, key, value, depth)
    elif isinstance(value, list):
        for item in value:
            _write_field(lines, key, item, depth)
    else:
        lines.append(f"{pad}{key}: {_text(value)}")


def _text(value: Any) -> str:
    if isinstance(value, Enum):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)
