"""Graph ⇄ plain JSON data plus a dict of numpy arrays: the core of ``rt.save`` / ``rt.load``.

Every attr is encoded by its type, so nothing is ever pickled or evaluated on load:

====================  =================================================
Python attr value     JSON
====================  =================================================
None, bool, int, str  themselves
float                 itself; ``{"float": "nan" | "inf" | "-inf"}`` if not finite
numpy dtype           ``{"dtype": "float32"}``
tuple / list / dict   ``{"tuple": [...]}`` / ``{"list": [...]}`` / ``{"dict": {...}}``
numpy array / scalar  ``{"ndarray": "a3"}`` / ``{"scalar": "a4"}`` (key into the .npz arrays)
FuncGraph (If/While)  ``{"graph": {...}}`` (nested)
GradientFunction      ``{"gradient_function": {...}}`` (a custom gradient's graph, nested)
RandomStream          ``{"random_stream": [global seed, op seed]}`` or ``null`` seeds (the state is not saved)
Variable              ``{"variable": 0}`` (index into the saved variables)
TensorSpec            ``{"tensor_spec": {"dtype": "float32", "shape": [null, 3]}}``
OutputRef             ``{"output": 2}`` (a function result: that graph output)
====================  =================================================

Decoding rebuilds each graph op by op through ``Graph.create_op``, so shape/dtype inference re-checks
every node, and compares the result with the dtypes/shapes recorded at save time: a hand-edited or
damaged file is rejected with ``LoadError`` naming the node, never half-built.

>>> import runtime as rt
>>> from runtime.core.context import graph_scope
>>> g = rt.FuncGraph("double")
>>> with graph_scope(g):
...     x = g.add_placeholder(rt.int32, (), name="x")
...     g.outputs = [rt.add(x, x)]
>>> arrays = {}
>>> data = encode_graph(g, arrays, variable_index=lambda v: 0)
>>> [op["type"] for op in data["ops"]]
['Placeholder', 'AddV2']
>>> decode_graph(data, arrays, variables=[]).outputs[0].dtype
dtype('int32')
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from runtime.core import dtypes
from runtime.core.attrs import attr_problem, input_problem
from runtime.core.errors import LoadError, SaveError
from runtime.core.graph import FuncGraph, Graph
from runtime.core.registry import registered_ops
from runtime.core.tensor import TensorSpec
from runtime.core.graph import PLACEHOLDER
from runtime.ops.custom_gradient_ops import GradientFunction
from runtime.ops.random_seeds import RandomStream

Arrays = Dict[str, np.ndarray]


class OutputRef:
    """Stands for ``graph.outputs[index]`` inside a saved output structure (a leaf, not a container)."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, OutputRef) and other.index == self.index

    def __hash__(self):
        return hash(("OutputRef", self.index))

    def __repr__(self) -> str:
        return f"OutputRef({self.index})"
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


# --- encoding -------------------------------------------------------------------------------------
def _add_array(arrays: Arrays, value: np.ndarray) -> str:
    key = f"a{len(arrays)}"
    arrays[key] = value
    return key


def encode_value(value: Any, arrays: Arrays, variable_index: Callable[[Any], int], where: str) -> Any:
    """The JSON form of an attr (or Python argument) value; ``SaveError`` naming ``where`` if unsupported."""
    def encode(v: Any) -> Any:
        if isinstance(v, OutputRef):
            return {"output": v.index}
        if isinstance(v, TensorSpec):
            return {"tensor_spec": {"dtype": v.dtype.name, "shape": _shape_json(v.shape)}}
        if isinstance(v, np.generic):  # before float: np.float64 is a float subclass but keeps its dtype
            return {"scalar": _add_array(arrays, np.asarray(v))}
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            if math.isfinite(v):
                return v
            return {"float": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
        if isinstance(v, np.dtype):
            return {"dtype": dtypes.as_dtype(v).name}
        if isinstance(v, tuple):
            return {"tuple": [encode(item) for item in v]}
        if isinstance(v, list):
            return {"list": [encode(item) for item in v]}
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"dict": {k: encode(item) for k, item in v.items()}}
        if isinstance(v, np.ndarray):
            if v.dtype.kind not in "biuf":
                raise SaveError(f"{where}: cannot save an array of dtype {v.dtype}; only numeric and bool "
                                "arrays can be stored without pickle")
            return {"ndarray": _add_array(arrays, v)}
        if isinstance(v, Graph):
            return {"graph": encode_graph(v, arrays, variable_index)}
        if isinstance(v, RandomStream):  # its seeds: a loaded op starts its sequence over, as in TensorFlow
            return {"random_stream": None if v.seed is None else list(v.seed)}
        if isinstance(v, GradientFunction):
            return {"gradient_function": encode_graph(v.graph, arrays, variable_index)}
        if _is_variable(v):
            return {"variable": variable_index(v)}
        raise SaveError(f"{where}: cannot save a value of type {type(v).__name__} ({v!r}); saved graphs "
                        "hold only numbers, strings, dtypes, arrays, lists/tuples/dicts of those, "
                        "subgraphs and Variables")
    return encode(value)


def _is_variable(value: Any) -> bool:
    from runtime.ops.variables import Variable  # state imports the ops; keep this module importable alone
    return isinstance(value, Variable)


def _ref(tensor) -> str:
    return f"{tensor.op.name}:{tensor.index}"


def _shape_json(shape) -> Optional[List[Optional[int]]]:
    return None if shape is None else list(shape)


def encode_graph(graph: Graph, arrays: Arrays, variable_index: Callable[[Any], int]) -> Dict[str, Any]:
    """Plain JSON data for ``graph``; its ndarrays go into ``arrays``."""
    ops = []
    for op in graph.operations:
        ops.append({
            "name": op.name,
            "type": op.type,
            "inputs": [_ref(t) for t in op.inputs],
            "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {key: encode_value(value, arrays, variable_index, f"op '{op.name}' ({op.type}) attr '{key}'")
                      for key, value in op.attrs.items()},
            "outputs": [[t.dtype.name, _shape_json(t.shape)] for t in op.outputs],
        })
    data: Dict[str, Any] = {"name": graph.name, "ops": ops}
    if isinstance(graph, FuncGraph):
        data["inputs"] = [_ref(t) for t in graph.inputs]
        data["outputs"] = [_ref(t) for t in graph.outputs]
        data["captures"] = [[_ref(outer), _ref(inner)] for outer, inner in graph.captures.values()]
        data["variables"] = [variable_index(v) for v in graph.variables]
    return data


# --- decoding -------------------------------------------------------------------------------------
def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise LoadError(message)


def expect_fields(entry: Any, required: Tuple[str, ...], optional: Tuple[str, ...], where: str) -> None:
    """``entry`` is a JSON object with the ``required`` fields and perhaps the ``optional`` ones, nothing else
    (a field this version does not know is an edit it cannot honour): LoadError naming the field otherwise."""
    _expect(isinstance(entry, dict), f"{where} must be a JSON object, got {type(entry).__name__}")
    for field in required:
        _expect(field in entry, f"{where}: field {field!r} is missing")
    for field in entry:
        _expect(field in required or field in optional, f"{where}: unknown field {field!r:.80}")


_GRAPH_FIELDS = ("name", "ops")
_FUNC_GRAPH_FIELDS = ("inputs", "outputs", "captures", "variables")
_OP_FIELDS = ("name", "type", "inputs", "control_inputs", "attrs", "outputs")


def decode_value(data: Any, arrays: Arrays, variables: List[Any], where: str,
                 outer_graph: Optional[Graph] = None) -> Any:
    """Inverse of ``encode_value``; ``LoadError`` naming ``where`` on anything unexpected."""
    def decode(d: Any) -> Any:
        if d is None or isinstance(d, (bool, int, float, str)):
            return d
        _expect(isinstance(d, dict) and len(d) == 1, f"{where}: malformed value {d!r}")
        (tag, body), = d.items()
        if tag == "float" and body in _NON_FINITE:
            return _NON_FINITE[body]
        if tag == "dtype":
            _expect(isinstance(body, str) and len(body) < 32, f"{where}: bad dtype {body!r:.80}")
            return dtypes.as_dtype(body)
        if tag in ("tuple", "list"):
            _expect(isinstance(body, list), f"{where}: malformed {tag} {body!r}")
            items = [decode(item) for item in body]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            _expect(isinstance(body, dict), f"{where}: malformed dict {body!r}")
            return {k: decode(item) for k, item in body.items()}
        if tag in ("ndarray", "scalar"):
            _expect(isinstance(body, str) and body in arrays,
                    f"{where}: refers to array {body!r}, which the constants file does not contain")
            return arrays[body] if tag == "ndarray" else arrays[body][()]
        if tag == "variable":
            _expect(isinstance(body, int) and not isinstance(body, bool) and 0 <= body < len(variables),
                    f"{where}: refers to variable {body!r}, but {len(variables)} variable(s) were saved")
            return variables[body]
        if tag == "output":
            _expect(isinstance(body, int) and not isinstance(body, bool) and body >= 0, f"{where}: bad output {body!r}")
            return OutputRef(body)
        if tag == "tensor_spec":
            _expect(isinstance(body, dict) and set(body) == {"dtype", "shape"}, f"{where}: bad tensor_spec {body!r}")
            shape = body["shape"]
            _expect(shape is None or isinstance(shape, list) and all(
                d is None or isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape),
                f"{where}: bad shape {shape!r}")
            return TensorSpec(shape, dtypes.as_dtype(body["dtype"]))
        if tag == "graph":
            return decode_graph(body, arrays, variables, outer_graph=outer_graph)
        if tag == "random_stream":
            _expect(body is None or isinstance(body, list) and len(body) == 2 and all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2 ** 63 for s in body),
                f"{where}: bad random stream seeds {body!r}")
            return RandomStream(None if body is None else tuple(body))
        if tag == "gradient_function":
            return GradientFunction(decode_graph(body, arrays, variables, outer_graph=outer_graph))
        raise LoadError(f"{where}: unknown value tag {tag!r}")
    return decode(data)


def _tensor(lookup: Dict[str, Any], ref: Any, where: str):
    _expect(isinstance(ref, str) and ":" in ref, f"{where}: malformed tensor reference {ref!r}")
    op_name, _, index = ref.rpartition(":")
    op = lookup.get(op_name)
    _expect(op is not None, f"{where}: refers to {ref!r}, which is not the output of an earlier op")
    _expect(index.isdigit() and int(index) < len(op.outputs), f"{where}: op '{op_name}' has no output {index}")
    return op.outputs[int(index)]


def _spec_matches(tensor, saved: Any) -> bool:
    dtype, shape = saved
    saved_shape = None if shape is None else tuple(shape)
    return tensor.dtype.name == dtype and tensor.shape == saved_shape


def decode_graph(data: Dict[str, Any], arrays: Arrays, variables: List[Any],
                 outer_graph: Optional[Graph] = None) -> FuncGraph:
    """Rebuild a FuncGraph from ``encode_graph`` data (subgraphs get ``outer_graph`` = their parent)."""
    expect_fields(data, _GRAPH_FIELDS, _FUNC_GRAPH_FIELDS, "a graph")
    _expect(isinstance(data.get("ops"), list) and isinstance(data.get("name"), str),
            f"malformed graph: {str(data)[:80]!r}")
    graph = FuncGraph(data["name"], outer_graph=outer_graph)
    ops_by_name: Dict[str, Any] = {}
    known = registered_ops()
    for index, op_data in enumerate(data["ops"]):
        expect_fields(op_data, _OP_FIELDS, (), f"graph '{graph.name}': op #{index}")
        _expect(isinstance(op_data.get("name"), str), f"graph '{graph.name}': op #{index} is malformed")
        name, op_type = op_data["name"], op_data.get("type")
        where = f"graph '{graph.name}', op '{name}'"
        _expect(op_type in known, f"{where}: unknown op type {op_type!r}; this runtime knows "
                                  f"{len(known)} ops (was the file saved by a newer version?)")
        _expect(name not in ops_by_name, f"{where}: duplicate op name")
        inputs = [_tensor(ops_by_name, ref, where) for ref in op_data.get("inputs", [])]
        saved_attrs = op_data.get("attrs", {})
        _expect(isinstance(saved_attrs, dict),
                f"{where}: attrs must be a JSON object, got {type(saved_attrs).__name__}")
        declared = known[op_type].attrs
        for key in saved_attrs:  # before decoding anything: a name the op does not declare is refused as it is
            _expect(key in declared, f"{where}: {attr_problem(known[op_type], {key: None}, len(inputs))}")
        attrs = {key: decode_value(value, arrays, variables, f"{where} attr '{key}'", outer_graph=graph)
                 for key, value in saved_attrs.items()}
        problem = attr_problem(known[op_type], attrs, len(inputs)) or input_problem(known[op_type],
                                                                                    [t.dtype for t in inputs])
        _expect(problem is None, f"{where} ({op_type}): {problem}")
        try:
            op = graph.create_op(known[op_type], inputs, attrs, name=name, site=None)  # user source unknown
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
            raise LoadError(f"{where}: the saved node is inconsistent: {error}") from None
        _expect(op.name == name, f"{where}: op name clashes with another op")
        saved_outputs = op_data.get("outputs")
        _expect(isinstance(saved_outputs, list) and len(saved_outputs) == len(op.outputs)
                and all(_spec_matches(t, s) for t, s in zip(op.outputs, saved_outputs)),
                f"{where}: its outputs would be {[(t.dtype.name, t.shape) for t in op.outputs]}, but the file "
                f"records {saved_outputs!r}; the file was edited or damaged")
        control = []
        for control_name in op_data.get("control_inputs", []):
            _expect(control_name in ops_by_name, f"{where}: control input {control_name!r} is not an earlier op")
            control.append(ops_by_name[control_name])
        op.control_inputs[:] = control
        ops_by_name[name] = op
    graph.inputs = [_tensor(ops_by_name, ref, f"graph '{graph.name}' inputs") for ref in data.get("inputs", [])]
    placeholders = {id(op.outputs[0]) for op in graph.operations if op.op_def is PLACEHOLDER}
    _expect(len({id(t) for t in graph.inputs}) == len(graph.inputs) == len(placeholders)
            and all(id(t) in placeholders for t in graph.inputs),
            f"graph '{graph.name}': its inputs must be each of its Placeholders once, got {data.get('inputs')!r:.200}")
    graph.outputs = [_tensor(ops_by_name, ref, f"graph '{graph.name}' outputs") for ref in data.get("outputs", [])]
    graph.structured_outputs = list(graph.outputs)
    for outer_ref, inner_ref in data.get("captures", []):
        _expect(outer_graph is not None, f"graph '{graph.name}' has captures but no enclosing graph")
        outer = _tensor({op.name: op for op in outer_graph.operations}, outer_ref, f"graph '{graph.name}' captures")
        inner = _tensor(ops_by_name, inner_ref, f"graph '{graph.name}' captures")
        graph.captures[id(outer)] = (outer, inner)
    for variable_index in data.get("variables", []):
        graph.track_variable(decode_value({"variable": variable_index}, arrays, variables,
                                          f"graph '{graph.name}' variables"))
    return graph
