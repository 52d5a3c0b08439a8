"""Graphs of operations: ``Graph``, ``Operation`` and ``FuncGraph`` (a graph with inputs and outputs).

Ops get unique TensorFlow-style names (``MatMul``, ``MatMul_1``, ``Greater/y`` for the constant fed
to ``Greater``'s ``y``). Stateful ops are chained by control inputs, so they keep program order.

>>> g = FuncGraph("f")
>>> g.unique_name("MatMul"), g.unique_name("MatMul")
('MatMul', 'MatMul_1')
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from runtime.core import context, dtypes
from runtime.core.attrs import ARRAY, DTYPE, OPTIONAL_SHAPE
from runtime.core.errors import InaccessibleTensorError
from runtime.core.source_locations import FROM_STACK, CreationSite, creation_site, format_user_code, resolve
from runtime.core.registry import OpDef, infer_output_specs, register_op
from runtime.core.tensor import EagerTensor, Shape, SymbolicTensor, Tensor


# The two ops a graph makes itself (constants it captures, inputs it is fed); every other op is declared
# in runtime.ops.
def _const_check(attrs: Mapping[str, Any], input_count: int) -> Optional[str]:
    if attrs["value"].dtype != attrs["dtype"]:
        return f"attr 'dtype' is {attrs['dtype']}, but attr 'value' holds {attrs['value'].dtype}"
    return None


CONST = register_op(
    "Const", (), lambda specs, attrs: [(attrs["value"].dtype, attrs["value"].shape)],
    kernel=lambda *, value, dtype: value, doc="A constant value, stored in attr 'value'.",
    attrs={"value": ARRAY, "dtype": DTYPE}, attrs_check=_const_check)

PLACEHOLDER = register_op(
    "Placeholder", (), lambda specs, attrs: [(attrs["dtype"], attrs["shape"])], kernel=None,
    doc="A graph input; fed by the caller (its kernel never runs).", attrs={"dtype": DTYPE, "shape": OPTIONAL_SHAPE})


class Operation:
    """A node: an op type applied to input tensors with attrs, producing output tensors."""

    __slots__ = ("graph", "name", "op_def", "inputs", "attrs", "outputs", "control_inputs", "creation_site",
                 "_stateful")

    def __init__(self, graph: "Graph", name: str, op_def: OpDef, inputs: List[SymbolicTensor],
                 attrs: Dict[str, Any], control_inputs: List["Operation"],
                 site: Optional[CreationSite] = None):
        self.graph = graph
        self.creation_site = site  # the user's line that made it (runtime.core.source_locations)
        self.name = name
        self.op_def = op_def
        self.inputs = inputs
        self.attrs = attrs
        self.control_inputs = control_inputs
        self.outputs: List[SymbolicTensor] = []
        self._stateful = op_def.stateful or _holds_stateful_subgraph(attrs)

    @property
    def type(self) -> str:
        return self.op_def.name

    @property
    def is_stateful(self) -> bool:
        """Stateful ops, and control-flow ops whose subgraphs hold one, always run (computed each time:
        a pass may rewrite an op or a subgraph in place)."""
        if self.op_def.stateful:
            return True
        for value in self.attrs.values():   # (no list: asked of every op by each prune and plan)
            if isinstance(value, FuncGraph) and value.has_stateful_ops():
                return True
        return False

    def subgraphs(self) -> List["FuncGraph"]:
        attrs = self.attrs
        return [v for v in attrs.values() if isinstance(v, FuncGraph)] if attrs else []

    def __repr__(self) -> str:
        return f"<Operation '{self.name}' type={self.type}>"


class Graph:
    """An ordered list of operations; creation order is a valid execution order."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self.operations: List[Operation] = []
        self._name_counts: Dict[str, int] = {}  # next suffix to try per base name
        self._used_names: set = set()
        self._constant_cache: Dict[int, tuple] = {}  # id(EagerTensor) -> (tensor, its Const output)
        self._last_stateful: Optional[Operation] = None

    # --- names ---------------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        """``base`` if unused in this graph, else ``base_1``, ``base_2``, ... (reserved on return)."""
        if base not in self._used_names:
            self._used_names.add(base)
            return base
        suffix = self._name_counts.get(base, 1)
        while f"{base}_{suffix}" in self._used_names:
            suffix += 1
        self._name_counts[base] = suffix + 1
        name = f"{base}_{suffix}"
        self._used_names.add(name)
        return name

    # --- building ------------------------------------------------------------------------------
    def create_op(self, op_def: OpDef, inputs: Sequence[Any], attrs: Dict[str, Any],
                  name: Optional[str] = None, site: Any = FROM_STACK,
                  output_specs: Optional[Sequence[Tuple[np.dtype, Shape]]] = None) -> Operation:
        """Add an op; eager inputs become constants, outer symbolic inputs are captured.

        ``site`` is where the user's code created it: found on the stack by default; passes that copy
        an op pass the original's (None when unknown, e.g. loaded from a file). ``output_specs``: the
        (dtype, shape) of each output when the caller knows them already (a pass copying an op onto
        inputs of the very same dtypes and shapes); otherwise the op's inference computes them.
        """
        if site is FROM_STACK:
            site = creation_site()
        op_name = self.unique_name(context.scoped_name(name or op_def.name))
        # Written out for the common cases (this runs for every op traced): no inputs (constants,
        # placeholders: a third of the ops of a small trace) and one output.
        if inputs:
            # A tensor of this graph is its own graph input (most inputs): no name for a constant or an error.
            graph_inputs = [t if isinstance(t, SymbolicTensor) and t.op.graph is self
                            else self._as_graph_tensor(t, op_name, op_def.input_name(i)) for i, t in enumerate(inputs)]
            input_specs = [(t.dtype, t.shape) for t in graph_inputs]
        else:
            graph_inputs, input_specs = [], []
        specs = output_specs if output_specs is not None else infer_output_specs(op_def, input_specs, attrs, op_name)
        op = Operation(self, op_name, op_def, graph_inputs, attrs, [], site)
        if len(specs) == 1:
            (dtype, shape), = specs
            op.outputs = [SymbolicTensor(op, 0, dtype, shape)]
        else:
            op.outputs = [SymbolicTensor(op, i, d, s) for i, (d, s) in enumerate(specs)]
        self.operations.append(op)
        if op._stateful:
            if self._last_stateful is not None:
                op.control_inputs.append(self._last_stateful)
            self._last_stateful = op
        return op

    def _as_graph_tensor(self, value: Any, consumer: str, arg: str) -> SymbolicTensor:
        if isinstance(value, SymbolicTensor):
            return value if value.op.graph is self else self.capture(value)
        if isinstance(value, EagerTensor):
            cached = self._constant_cache.get(id(value))
            if cached is not None:
                return cached[1]
            const = self.constant(value._value, name=f"{consumer}/{arg}")
            self._constant_cache[id(value)] = (value, const)  # keep the tensor alive: ids stay unique
            return const
        if isinstance(value, Tensor):  # e.g. a Variable: it knows how to read itself into a graph
            return value._graph_tensor(self)
        raise TypeError(f"{consumer}: input '{arg}' must be a tensor, got {type(value).__name__} {value!r}")

    def constant(self, value: np.ndarray, name: str = "Const", site: Any = FROM_STACK) -> SymbolicTensor:
        """A ``Const`` op holding ``value``; ``site`` as for ``create_op``."""
        # Its output spec is known: no shape inference (constants are a third of a small trace's ops).
        spec = (dtypes.as_dtype(value.dtype), value.shape)
        return self.create_op(CONST, [], {"value": value, "dtype": value.dtype}, name=name, site=site,
                              output_specs=(spec,)).outputs[0]

    def capture(self, tensor: SymbolicTensor) -> SymbolicTensor:
        raise InaccessibleTensorError(_inaccessible_message(tensor, self))

    def has_stateful_ops(self) -> bool:
        for op in self.operations:   # a loop, not any(generator): asked of every subgraph by each plan
            if op.is_stateful:
                return True
        return False

    # as_graph_def() and to_dot() are views installed by runtime.backends (they live above the core).

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}' with {len(self.operations)} ops>"


class FuncGraph(Graph):
    """A graph with placeholders as inputs, chosen outputs, and captured outer values.

    ``captures`` maps outer symbolic tensors (from an enclosing graph, e.g. for If/While branches) to
    the placeholders that stand for them inside; ``variables`` lists the Variables the graph reads or
    writes, captured by identity.
    """

    def __init__(self, name: str, outer_graph: Optional[Graph] = None):
        super().__init__(name)
        self.outer_graph = outer_graph
        self.inputs: List[SymbolicTensor] = []
        self.outputs: List[SymbolicTensor] = []
        self.structured_outputs: Any = None
        self.captures: Dict[int, tuple] = {}  # id(outer tensor) -> (outer tensor, inner placeholder)
        self.variables: List[Any] = []

    def add_placeholder(self, dtype: np.dtype, shape: Shape, name: str = "input",
                        site: Any = FROM_STACK) -> SymbolicTensor:
        """A new input of the graph; ``site`` as for ``create_op``."""
        dtype = dtypes.as_dtype(dtype)
        op = self.create_op(PLACEHOLDER, [], {"dtype": dtype, "shape": shape}, name=name, site=site,
                            output_specs=((dtype, shape),))  # what inference would say
        self.inputs.append(op.outputs[0])
        return op.outputs[0]

    def capture(self, tensor: SymbolicTensor) -> SymbolicTensor:
        cached = self.captures.get(id(tensor))
        if cached is not None:
            return cached[1]
        outer = self.outer_graph
        if outer is None:
            return super().capture(tensor)
        outer_tensor = tensor if tensor.op.graph is outer else outer._as_graph_tensor(tensor, self.name, "capture")
        placeholder = self.add_placeholder(tensor.dtype, tensor.shape, name=tensor.op.name)
        self.captures[id(tensor)] = (outer_tensor, placeholder)
        return placeholder

    @property
    def captured_inputs(self) -> List[SymbolicTensor]:
        """Outer tensors fed to the captured placeholders, in placeholder order."""
        return [outer for outer, _ in self.captures.values()]

    def track_variable(self, variable: Any) -> None:
        if not any(v is variable for v in self.variables):
            self.variables.append(variable)


def _holds_stateful_subgraph(attrs: Dict[str, Any]) -> bool:
    """Whether an op with these attrs holds a subgraph (an If branch, a While body) with a stateful op."""
    for value in attrs.values():   # a loop, not any(generator): run for every op created
        if isinstance(value, FuncGraph) and value._last_stateful is not None:
            return True
    return False


def _inaccessible_message(tensor: SymbolicTensor, graph: Graph) -> str:
    made_in = tensor.op.graph
    if getattr(made_in, "outer_graph", None) is not None:  # a loop body or branch: it leaked out
        message = (f"tensor {tensor.name} was made inside {made_in.name}, the body of a tensor-dependent loop or a "
                   f"branch of a tensor-dependent if, and escaped it (e.g. appended to a Python list or stored on "
                   f"an object there), so it cannot be used in {graph.name}. Only the loop's or the if's variables "
                   "leave it: assign the value to a variable that exists before the loop or if (to collect values "
                   "in a loop, grow a tensor with rt.concat)")
    else:
        message = (f"tensor {tensor.name} belongs to another graph ({made_in.name}) and cannot be used in "
                   f"{graph.name}. Pass it as an argument or return it from the function that created it")
    site = tensor.op.creation_site
    if site is not None:
        message += format_user_code([resolve(site)], heading="the tensor was made in user code")
    return message
