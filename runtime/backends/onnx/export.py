"""``to_onnx``: write a concrete function's graph as an ONNX model (opset 18).

Only what the outputs need is exported (graph execution is non-strict, and ONNX runtimes would
otherwise run ops whose errors our executor never raises). ``If`` becomes ONNX ``If``; ``While``
becomes ONNX ``Loop`` with the condition graph inlined before the loop and at the end of the body.
Variables are exported with their current values, as constants. Side effects (print, assert,
variable assignment) have no ONNX equivalent and are reported, with every other unmapped op, in one
``ExportError``. A tensor list of tensor lists (what the gradient of a loop inside a loop keeps) is refused
too: ONNX's sequence ops hold only tensors. The finished model must pass ``onnx.checker`` with shape
inference (``full_check``); a model that fails it is an exporter bug, raised as ``ExportError``, never written.

>>> import runtime as rt
>>> "MatMul" in exportable_op_types()
True
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from runtime.core.dtypes import variant
from runtime.core.errors import ExportError
from runtime.backends.onnx import array_ops  # noqa: F401  (registers its converters)
from runtime.backends.onnx import checked_indexing  # noqa: F401  (registers Gather and UnsortedSegmentSum)
from runtime.backends.onnx import list_ops as onnx_list_ops  # (registers the tensor-list converters)
from runtime.backends.onnx import ops as onnx_ops
from runtime.passes.analysis import needed_ops
from runtime.core.graph import PLACEHOLDER, Graph

OPSET = 18


def _import_onnx():
    try:
        import onnx
    except ImportError:
        raise ImportError("rt.export.to_onnx needs the 'onnx' package, an optional extra: "
                          "pip install 'autograph-lite[onnx]'") from None
    return onnx


def exportable_op_types() -> List[str]:
    """Op types (registry names) that have an ONNX mapping."""
    return sorted(op_def.name for op_def in onnx_ops.CONVERTERS)


def _ops_for(graph, outputs: Sequence[Any]) -> List[Any]:
    """The ops of ``graph`` that ``outputs`` depend on, in graph order (side effects are refused)."""
    needed = needed_ops(graph, outputs, side_effects=False)
    return [op for op in graph.operations if id(op) in needed]


def _unmapped(graph, outputs: Sequence[Any], found: Dict[str, List[str]]) -> None:
    """Collect op types without a converter: needed ones, and every side effect (it can't be dropped)."""
    needed = set(_ops_for(graph, outputs))
    for op in graph.operations:
        side_effect = op.op_def.stateful and op.op_def not in onnx_ops.SNAPSHOT_OPS + onnx_ops.NEW_VALUE_OPS
        unmapped = op.op_def not in onnx_ops.CONVERTERS and op.op_def is not PLACEHOLDER
        if side_effect or (op in needed and unmapped):
            found.setdefault(op.type, []).append(op.name)
        if op in needed or op.is_stateful:
            for sub in op.subgraphs():
                _unmapped(sub, sub.outputs, found)


def _nested_lists(graph, found: Dict[str, List[str]]) -> None:
    """Collect the needed list ops (at any depth) whose elements are tensor lists themselves."""
    for op in _ops_for(graph, graph.outputs):
        if op.attrs.get("element_dtype") == variant:
            found.setdefault(op.type, []).append(op.name)
        for sub in op.subgraphs():
            _nested_lists(sub, found)


def _refuse_nested_lists(graph) -> None:
    found: Dict[str, List[str]] = {}
    _nested_lists(graph, found)
    if found:
        listed = "; ".join(f"{op_type} (node {', '.join(repr(n) for n in nodes[:3])}"
                           f"{', ...' if len(nodes) > 3 else ''})" for op_type, nodes in sorted(found.items()))
        raise ExportError(f"cannot export '{graph.name}' to ONNX: a tensor list holds tensor lists at {listed}. "
                          "The gradient of a loop inside another loop keeps the inner loop's accumulators (tensor "
                          "lists) in a list per outer iteration, and ONNX's sequence ops hold only tensors. Export "
                          "the forward function instead, and run the gradient with this runtime (rt.save keeps it)")


class ModelBuilder:
    """Collects ONNX nodes of one (sub)graph; names are unique across the whole model, as ONNX requires."""

    def __init__(self, onnx, names: Optional[set] = None):
        self.onnx = onnx
        self.helper = onnx.helper
        self.nodes: List[Any] = []
        self._names = set() if names is None else names  # shared with nested builders
        self.element_dtypes: Dict[Any, Any] = {}  # list handle tensor -> element dtype (list_ops.element_dtypes)

    def fresh(self, hint: str) -> str:
        base = hint.replace(":", "_") or "t"
        name, suffix = base, 1
        while name in self._names:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self._names.add(name)
        return name

    def child(self) -> "ModelBuilder":
        child = ModelBuilder(self.onnx, self._names)
        child.element_dtypes = self.element_dtypes
        return child

    def spec(self, tensor: Any) -> tuple:
        """``(dtype, shape, element dtype)`` of ``tensor`` for ``value_info`` (the element dtype: of a list)."""
        return tensor.dtype, tensor.shape, self.element_dtypes.get(tensor)

    def node(self, op_type: str, inputs: Sequence[str], hint: str = "", outputs: int = 1, **attrs) -> List[str]:
        """Add one ONNX node; returns its output names."""
        names = [self.fresh(f"{hint or op_type}:{i}") for i in range(outputs)]
        self.nodes.append(self.helper.make_node(op_type, list(inputs), names, name=self.fresh(hint or op_type),
                                                **attrs))
        return names

    def one(self, op_type: str, inputs: Sequence[str], hint: str = "", **attrs) -> str:
        return self.node(op_type, inputs, hint, 1, **attrs)[0]

    def constant(self, value: Any, hint: str = "const", dtype: Any = None) -> str:
        array = np.asarray(value, dtype=dtype)
        tensor = self.onnx.numpy_helper.from_array(array, name=self.fresh(hint + "_value"))
        return self.one("Constant", [], hint, value=tensor)

    def value_info(self, name: str, dtype: np.dtype, shape, symbolic_prefix: Optional[str] = None,
                   element_dtype: Any = None):
        if dtype == variant:  # a tensor list: an ONNX sequence of tensors shaped like its elements
            if element_dtype is None:
                raise ExportError(f"cannot export the tensor list '{name}': its element dtype is not known")
            return self.helper.make_tensor_sequence_value_info(
                name, self.helper.np_dtype_to_tensor_dtype(np.dtype(element_dtype)),
                None if shape is None else list(shape))
        elem_type = self.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        if shape is not None and symbolic_prefix is not None:
            shape = [f"{symbolic_prefix}_dim{i}" if d is None else d for i, d in enumerate(shape)]
        return self.helper.make_tensor_value_info(name, elem_type, None if shape is None else list(shape))

    def value_info_of(self, name: str, tensor: Any):
        """``value_info`` for a value named ``name`` that holds what ``tensor`` does."""
        dtype, shape, element_dtype = self.spec(tensor)
        return self.value_info(name, dtype, shape, None, element_dtype)

    # --- graphs --------------------------------------------------------------------------------
    def emit(self, graph, bindings: Dict[Any, str], outputs: Sequence[Any]) -> List[str]:
        """Add the ops that ``outputs`` need; ``bindings`` gives names for the graph's placeholders."""
        names = dict(bindings)
        for op in _ops_for(graph, outputs):
            if op.op_def is PLACEHOLDER:
                if op.outputs[0] not in names:
                    raise ExportError(f"placeholder '{op.name}' of graph '{graph.name}' has no value")
                continue
            results = onnx_ops.CONVERTERS[op.op_def](self, op, [names[t] for t in op.inputs])
            if len(results) != len(op.outputs):
                raise ExportError(f"ONNX converter for {op.type} gave {len(results)} outputs, "
                                  f"expected {len(op.outputs)}")
            names.update(zip(op.outputs, results))
        return [names[t] for t in outputs]

    def subgraph(self, graph, bindings: Dict[Any, str], outputs: Sequence[Any], name: str):
        """An ONNX GraphProto (no inputs) computing ``outputs`` of ``graph``, e.g. an If branch."""
        return self.loop_body(lambda inner: inner.emit(graph, bindings, outputs), name, [],
                              [self.spec(t) for t in outputs])

    def loop_body(self, build, name: str, graph_inputs: Sequence[Any], output_specs: Sequence[tuple]):
        """An ONNX GraphProto whose nodes ``build(inner_builder)`` adds, returning its result names.

        Outer names may be read directly, as ONNX scopes allow; each result gets its own Identity
        because a subgraph must produce its outputs itself.
        """
        inner = self.child()
        results = build(inner)
        output_infos = []
        for source, (dtype, shape, *element_dtype) in zip(results, output_specs):
            out = inner.one("Identity", [source], "out")
            output_infos.append(inner.value_info(out, dtype, shape, None, *element_dtype))
        return self.helper.make_graph(inner.nodes, self.fresh(name), list(graph_inputs), output_infos)


def _graph_of(function: Any) -> Graph:
    """The graph to export: a ConcreteFunction's, or a FuncGraph itself; TypeError saying what to pass else."""
    if isinstance(function, Graph):
        return function
    graph = getattr(function, "graph", None)
    if isinstance(graph, Graph):
        return graph
    if callable(getattr(function, "get_concrete_function", None)):
        raise TypeError("to_onnx exports one traced signature: pass f.get_concrete_function(rt.TensorSpec(...)) "
                        f"rather than the function {getattr(function, '__name__', function)!r:.80} itself")
    raise TypeError(f"to_onnx expects a ConcreteFunction (f.get_concrete_function(...)) or a FuncGraph, got "
                    f"{type(function).__name__}")


def to_onnx(concrete_function: Any, path: Optional[str] = None):
    """Export ``concrete_function`` (or a FuncGraph) to ONNX; writes ``path`` if given, returns the ModelProto.

    >>> import autograph_lite as ag, runtime as rt                                  # doctest: +SKIP
    >>> f = ag.function(lambda x: rt.maximum(x, 0.0))                               # doctest: +SKIP
    >>> rt.export.to_onnx(f.get_concrete_function(rt.TensorSpec([None])), "relu.onnx")  # doctest: +SKIP
    """
    onnx = _import_onnx()
    graph = _graph_of(concrete_function)
    found: Dict[str, List[str]] = {}
    _unmapped(graph, graph.outputs, found)
    if found:
        listed = "; ".join(f"{op_type} (node {', '.join(repr(n) for n in nodes[:3])}"
                           f"{', ...' if len(nodes) > 3 else ''})" for op_type, nodes in sorted(found.items()))
        refused = {op_def.name: reason for op_def, reason in onnx_ops.NOT_EXPORTED.items()}
        reasons = "; ".join(f"{op_type}: {refused[op_type]}" for op_type in sorted(found) if op_type in refused)
        why = f". Why: {reasons}" if reasons else ""
        raise ExportError(f"cannot export '{graph.name}' to ONNX: no ONNX mapping for {listed}{why}. Ops that "
                          f"export: {', '.join(exportable_op_types())}")
    _refuse_nested_lists(graph)
    builder = ModelBuilder(onnx)
    builder.element_dtypes = onnx_list_ops.element_dtypes(graph, {})
    bindings, inputs = {}, []
    for index, placeholder in enumerate(graph.inputs):
        name = builder.fresh(placeholder.op.name)
        bindings[placeholder] = name
        inputs.append(builder.value_info(name, placeholder.dtype, placeholder.shape, symbolic_prefix=name))
    results = builder.emit(graph, bindings, graph.outputs)
    outputs = []
    for index, (result, tensor) in enumerate(zip(results, graph.outputs)):
        out = builder.one("Identity", [result], f"output_{index}")
        outputs.append(builder.value_info(out, tensor.dtype, tensor.shape, symbolic_prefix=out))
    model = onnx.helper.make_model(
        onnx.helper.make_graph(builder.nodes, graph.name, inputs, outputs),
        opset_imports=[onnx.helper.make_opsetid("", OPSET)], producer_name="autograph_lite")
    model.ir_version = min(model.ir_version, 9)  # readable by onnxruntime releases from 2023 on
    try:
        onnx.checker.check_model(model, full_check=True)  # full_check: types too, as onnxruntime checks them
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as error:
        raise ExportError(f"exporting '{graph.name}' made an invalid ONNX model (a bug in the exporter: please "
                          f"report it with the function); nothing was written. The checker said: {error}") from None
    if path is not None:
        onnx.save(model, str(path))
    return model
