"""The gradient of ``While``: a backward ``While`` that runs the body's gradient in reverse.

The body's gradient needs values the forward loop computed (``x`` for the gradient of ``x * w``, ``tanh``'s
output, an ``If``'s inputs...). The gradient pass finds them while it builds the backward body: each
forward-body value a gradient op reads goes through ``_BackwardBody.capture``, which

* reads a loop-invariant value (a tensor the loop captured, a loop variable the body passes on unchanged)
  from outside the loop, once, and a constant as a constant;
* reads a ``Variable`` that nothing in the loop assigns once, just before the forward loop (an assignment
  after the loop must not change the gradient);
* otherwise adds an *accumulator* to the forward loop — a ``TensorList`` loop variable the body pushes the
  value onto every iteration — and pops it in the backward body (last iteration first).

The forward ``While`` is then rewritten in place to carry the accumulators and an iteration counter
(new loop variables after the old ones; the outputs the rest of the graph reads keep their identity), and
the backward loop runs ``counter`` times. So the trip count may depend on the data, ``maximum_iterations``
needs nothing special, and a nested loop accumulates its own accumulators (a list of lists). Only the
values the backward pass reads are kept: memory is one accumulator per needed value.

Integer and bool loop variables (counters, ``break``/``return`` flags) get no gradient; a captured tensor
(a weight used in every iteration) gets the sum of its per-iteration gradients. Ops of the backward body that
read only loop-invariant values (``transpose(W)`` for the gradient of ``x @ W``) run once, before the
backward loop (``_hoist_invariants``), when they cannot fail: hoisting must not raise an error the loop
(which may run zero times) would never have raised.

>>> import runtime as rt
>>> @rt.function
... def grad(x):
...     (y,) = rt.while_loop(lambda y: y < 100.0, lambda y: (y * x,), [x])
...     return rt.gradients(y, x)[0]
>>> grad(rt.constant(3.0))  # y = x**5 = 243: dy/dx = 5 x**4
Tensor(405.0, shape=(), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from runtime.core import context, dtypes
from runtime.core.graph import CONST, PLACEHOLDER, FuncGraph, Operation
from runtime.core.source_locations import FROM_STACK
from runtime.core.registry import infer_output_specs, register_gradient
from runtime.core.tensor import SymbolicTensor
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.core import IDENTITY
from runtime.ops.creation_ops import FILL, ONES_LIKE, ZEROS_LIKE
from runtime.ops.gradient_ops import carries_gradient
from runtime.ops.list_ops import TENSOR_LIST_FROM_TENSORS, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK
from runtime.ops.shape_ops import SHAPE
from runtime.ops.variables import READ_VARIABLE
from runtime.passes.analysis import cannot_fail
from runtime.passes.gradients import add_gradients, backprop, input_gradient_requested, zeros_gradient
from runtime.passes.graph_surgery import assigned_variables, insert_before
from runtime.passes.rewrite import copy_ops


class _ForwardLoop:
    """A copy of the forward loop's cond and body that grows accumulators, committed onto the op at the end.

    Building on a copy keeps the graph unchanged if differentiating the body fails half-way.
    """

    def __init__(self, op: Operation):
        self.op = op
        self.count = op.attrs["num_loop_vars"]
        source = op.attrs["body"]
        self.source = source
        self.body = FuncGraph(source.name, outer_graph=source.outer_graph)
        self.copy_of: Dict[int, SymbolicTensor] = {}
        with context.graph_scope(self.body):
            self.loop_vars = [self._placeholder(self.body, p) for p in source.inputs[:self.count]]
            self.captured = [self._placeholder(self.body, p) for p in source.inputs[self.count:]]
            self.counter = self.body.add_placeholder(dtypes.int32, (), name="iteration_count")
            for p, q in zip(source.inputs, self.loop_vars + self.captured):
                self.copy_of[id(p)] = q
            self.operations = copy_ops(source.operations, self.body, self.copy_of)
            self.outputs = [self.copy_of[id(t)] for t in source.outputs]
        captured_placeholders = {id(p): q for p, q in zip(source.inputs[self.count:], self.captured)}
        self.body.captures = {key: (outer, captured_placeholders[id(inner)])
                              for key, (outer, inner) in source.captures.items() if id(inner) in captured_placeholders}
        self.body.variables = list(source.variables)
        self.accumulators: List[SymbolicTensor] = []  # accumulator placeholders of the forward body
        self.pushed: List[SymbolicTensor] = []  # the body's next value of each accumulator
        self.invariant = {id(self.loop_vars[k]): op.inputs[k] for k in range(self.count)
                          if source.outputs[k] is source.inputs[k]}
        self.invariant.update((id(p), t) for p, t in zip(self.captured, op.inputs[self.count:]))
        self.assigned = assigned_variables([op.attrs["body"], op.attrs["cond"]])
        self.snapshots: Dict[int, SymbolicTensor] = {}  # id(Variable) -> its read just before the loop

    @staticmethod
    def _placeholder(graph: FuncGraph, like: SymbolicTensor) -> SymbolicTensor:
        return graph.add_placeholder(like.dtype, like.shape, name=like.op.name)

    def accumulate(self, value: SymbolicTensor) -> SymbolicTensor:
        """Push ``value`` onto a new accumulator every iteration; returns the accumulator's placeholder."""
        with context.graph_scope(self.body):
            handle = self.body.add_placeholder(dtypes.variant, value.shape, name=f"{value.op.name}_accumulator")
            pushed = self.body.create_op(TENSOR_LIST_PUSH_BACK, [handle, value], {"element_dtype": value.dtype},
                                         name=f"{value.op.name}_accumulate", site=value.op.creation_site)
        self.accumulators.append(handle)
        self.pushed.append(pushed.outputs[0])
        return handle

    def commit(self, ops: Any) -> List[SymbolicTensor]:
        """Rewrite the forward op: accumulators and the counter become loop variables; returns their outputs."""
        op, count = self.op, self.count
        with context.graph_scope(self.body):
            next_count = ops.add(self.counter, self.body.constant(np.array(1, np.int32), name="one"))
        extra = self.accumulators + [self.counter]
        self.body.inputs = self.loop_vars + extra + self.captured
        self.body.outputs = self.outputs + self.pushed + [next_count]
        self.body.structured_outputs = list(self.body.outputs)
        cond = _cond_with_extra_inputs(op.attrs["cond"], count, extra)
        initial = [insert_before(op, TENSOR_LIST_FROM_TENSORS,
                                  {"element_dtype": pushed.op.attrs["element_dtype"], "element_shape": handle.shape},
                                  f"{handle.op.name}_init")
                   for handle, pushed in zip(self.accumulators, self.pushed)]
        initial.append(insert_before(op, CONST, {"value": np.array(0, np.int32), "dtype": dtypes.int32},
                                      "iteration_count_init"))
        attrs = dict(op.attrs, body=self.body, cond=cond, num_loop_vars=count + len(extra))
        inputs = op.inputs[:count] + initial + op.inputs[count:]
        specs = infer_output_specs(WHILE, [(t.dtype, t.shape) for t in inputs], attrs, op.name)
        op.inputs, op.attrs = inputs, attrs
        new_outputs = [SymbolicTensor(op, count + i, dtype, shape) for i, (dtype, shape) in enumerate(specs[count:])]
        op.outputs = op.outputs + new_outputs
        return new_outputs


def _cond_with_extra_inputs(cond: FuncGraph, count: int, extra: List[SymbolicTensor]) -> FuncGraph:
    """``cond`` copied with placeholders for the new loop variables (unused) after the old ones."""
    new = FuncGraph(cond.name, outer_graph=cond.outer_graph)
    mapping: Dict[int, SymbolicTensor] = {}
    with context.graph_scope(new):
        old_vars = [new.add_placeholder(p.dtype, p.shape, name=p.op.name) for p in cond.inputs[:count]]
        added = [new.add_placeholder(p.dtype, p.shape, name=p.op.name) for p in extra]
        captured = [new.add_placeholder(p.dtype, p.shape, name=p.op.name) for p in cond.inputs[count:]]
        mapping.update((id(p), q) for p, q in zip(cond.inputs, old_vars + captured))
        copy_ops(cond.operations, new, mapping)
    new.inputs = old_vars + added + captured
    new.outputs = [mapping[id(t)] for t in cond.outputs]
    new.structured_outputs = new.outputs[0]
    by_inner = {id(p): q for p, q in zip(cond.inputs[count:], captured)}
    new.captures = {key: (outer, by_inner[id(inner)]) for key, (outer, inner) in cond.captures.items()
                    if id(inner) in by_inner}
    new.variables = list(cond.variables)
    return new


class _BackwardBody(FuncGraph):
    """The backward loop's body: a forward-body value read here is popped from an accumulator (see module doc)."""

    def __init__(self, name: str, outer_graph: Any, forward: _ForwardLoop):
        super().__init__(name, outer_graph=outer_graph)
        self.forward = forward
        self.popped: Dict[int, SymbolicTensor] = {}
        self.accumulator_inputs: List[SymbolicTensor] = []  # placeholders: the accumulators, popped to empty
        self.accumulator_outputs: List[SymbolicTensor] = []
        self._invariants: Dict[int, bool] = {}  # id(forward-body tensor) -> _invariant(tensor)

    def create_op(self, op_def: Any, inputs: Any, attrs: Dict[str, Any], name: Optional[str] = None,
                  site: Any = FROM_STACK, output_specs: Any = None) -> Operation:
        """An op reading only the shape of a forward value (``Shape``, ``ZerosLike``, ... e.g. to undo
        broadcasting when dims are unknown) reads a shape the forward body computes: the forward loop then
        accumulates that small vector, not the value."""
        if op_def.shape_only and inputs and self._accumulates(inputs[0]):
            value = inputs[0]
            if op_def in (ZEROS_LIKE, ONES_LIKE):
                with context.graph_scope(self.forward.body):
                    dims = self.forward.body.create_op(SHAPE, [value], {"out_type": dtypes.int32},
                                                       name=f"{value.op.name}_shape", site=site).outputs[0]
                fill = 0 if op_def is ZEROS_LIKE else 1
                filler = self.constant(np.array(fill, dtype=value.dtype), name=f"fill_{fill}")
                return super().create_op(FILL, [dims, filler], {"static_shape": value.shape}, name=name, site=site)
            with context.graph_scope(self.forward.body):
                small = self.forward.body.create_op(op_def, inputs, attrs, name=name, site=site).outputs[0]
            return super().create_op(IDENTITY, [small], {}, name=name, site=site)
        return super().create_op(op_def, inputs, attrs, name=name, site=site, output_specs=output_specs)

    def _accumulates(self, tensor: Any) -> bool:
        """Whether reading ``tensor`` here would accumulate it (a computed value of the forward body)."""
        return (isinstance(tensor, SymbolicTensor) and tensor.op.graph is self.forward.body
                and id(tensor) not in self.popped and not self._invariant(tensor))

    def _invariant(self, tensor: SymbolicTensor) -> bool:
        """Whether ``tensor`` (of the forward body) is the same in every iteration: a captured value, a loop
        variable the body passes on unchanged, a constant, a read of a variable the loop does not assign, or
        a pure op of such values (``W * 0.5``), which the backward body recomputes instead of accumulating."""
        known = self._invariants.get(id(tensor))
        if known is None:  # one pass over the body in program order (no recursion: bodies may be long chains)
            forward = self.forward
            for op in forward.body.operations:
                if not op.outputs or id(op.outputs[0]) in self._invariants:
                    continue
                invariant = (op.op_def is CONST
                             or (op.op_def is READ_VARIABLE and id(op.attrs["variable"]) not in forward.assigned)
                             or (op.op_def is not PLACEHOLDER and not op.op_def.stateful and not op.subgraphs()
                                 and all(self._invariants.get(id(t), False) for t in op.inputs)))
                for out in op.outputs:
                    self._invariants[id(out)] = invariant or id(out) in forward.invariant
            known = self._invariants.setdefault(id(tensor), id(tensor) in forward.invariant)
        return known

    def _recompute(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """Copy the ops computing the invariant ``tensor`` here, in program order, each input read from the
        copies already made (iteratively: the chain may be long); leaves (captured values, constants,
        variable reads) are read by ``capture``."""
        leaves = (PLACEHOLDER, CONST, READ_VARIABLE)
        needed, pending = set(), [tensor.op]
        while pending:
            op = pending.pop()
            if id(op) not in needed:
                needed.add(id(op))
                pending.extend(t.op for t in op.inputs if id(t) not in self.popped and t.op.op_def not in leaves)
        copy_ops((op for op in self.forward.body.operations
                  if id(op) in needed and not any(id(out) in self.popped for out in op.outputs)),
                 self, self.popped, read=self.capture)
        return self.popped[id(tensor)]

    def capture(self, tensor: SymbolicTensor) -> SymbolicTensor:
        if tensor.op.graph is not self.forward.body:
            return super().capture(tensor)
        cached = self.popped.get(id(tensor))
        if cached is None:
            cached = self.popped[id(tensor)] = self._value_of(tensor)
        return cached

    def _value_of(self, tensor: SymbolicTensor) -> SymbolicTensor:
        forward = self.forward
        outside = forward.invariant.get(id(tensor))
        if outside is not None:  # the same in every iteration: read once, from outside the loop
            return super().capture(outside)
        op = tensor.op
        with context.graph_scope(self):
            if op.op_def is CONST:
                return self.constant(op.attrs["value"], name=op.name)
            if op.op_def is READ_VARIABLE and id(op.attrs["variable"]) not in forward.assigned:
                # the value the loop read: a read just before the forward loop (not one here, which would see
                # an assignment made between the two loops)
                variable = op.attrs["variable"]
                before = forward.snapshots.get(id(variable))
                if before is None:
                    before = forward.snapshots[id(variable)] = insert_before(
                        forward.op, READ_VARIABLE, {"variable": variable}, f"{variable.name}_before_loop")
                return super().capture(before)
            if self._invariant(tensor):  # recomputed from invariant values (then hoisted if it cannot fail)
                return self._recompute(tensor)
            accumulator = forward.accumulate(tensor)
            handle = self.add_placeholder(dtypes.variant, accumulator.shape, name=accumulator.op.name)
            last = self.constant(np.array(-1, np.int32), name="last")
            pop = self.create_op(TENSOR_LIST_POP, [handle, last], {"element_dtype": tensor.dtype},
                                 name=f"{op.name}_pop", site=op.creation_site)
        self.accumulator_inputs.append(handle)
        self.accumulator_outputs.append(pop.outputs[0])
        return pop.outputs[1]


@register_gradient(WHILE)
def _while_gradient(op, grads, ops):
    count = op.attrs["num_loop_vars"]
    body = op.attrs["body"]
    captured_inputs = list(op.inputs[count:])  # before the forward op gains its accumulators
    differentiable_vars = [k for k in range(count) if carries_gradient(op.inputs[k].dtype)
                           and grads[k] is not None]
    differentiable_captured = [j for j in range(len(op.inputs) - count)  # only those a source reaches:
                               if carries_gradient(op.inputs[count + j].dtype)  # e.g. not the data a
                               and input_gradient_requested(count + j)]         # training loop slices
    if not differentiable_vars:
        return [None] * len(op.inputs)
    outer = context.current_graph()
    forward = _ForwardLoop(op)
    backward = _BackwardBody(f"{body.name}_grad", outer, forward)
    with context.graph_scope(backward):
        remaining = backward.add_placeholder(dtypes.int32, (), name="iterations_left")
        seeds = [backward.add_placeholder(op.inputs[k].dtype, forward.loop_vars[k].shape, name=f"grad_{k}")
                 for k in differentiable_vars]
        totals = [backward.add_placeholder(op.inputs[count + j].dtype, forward.captured[j].shape,
                                           name=f"captured_grad_{j}") for j in differentiable_captured]
        sources = [forward.loop_vars[k] for k in differentiable_vars] + \
                  [forward.captured[j] for j in differentiable_captured]
        found = backprop(forward.operations, [forward.outputs[k] for k in differentiable_vars], seeds, sources)
        previous = [_local(backward, found.get(id(forward.loop_vars[k]))) for k in differentiable_vars]
        previous = [zeros_gradient(seed) if g is None else g for g, seed in zip(previous, seeds)]
        summed = []
        for j, total in zip(differentiable_captured, totals):
            grad = _local(backward, found.get(id(forward.captured[j])))
            summed.append(total if grad is None else add_gradients(total, grad))
        one = backward.constant(np.array(1, np.int32), name="one")
        next_remaining = ops.subtract(remaining, one)
    _hoist_invariants(backward, outer)
    fixed = [remaining] + seeds + totals
    backward.inputs = fixed + backward.accumulator_inputs + [p for _, p in backward.captures.values()]
    backward.outputs = [next_remaining] + previous + summed + backward.accumulator_outputs
    backward.structured_outputs = list(backward.outputs)

    accumulated_outputs = forward.commit(ops)
    *accumulator_outputs, iterations = accumulated_outputs
    with context.graph_scope(outer):
        initial = [iterations] + [grads[k] for k in differentiable_vars] + \
                  [zeros_gradient(captured_inputs[j]) for j in differentiable_captured] + accumulator_outputs
        cond = FuncGraph(f"{body.name}_grad_cond", outer_graph=outer)
        with context.graph_scope(cond):
            placeholders = [cond.add_placeholder(t.dtype, t.shape, name=t.op.name) for t in backward.inputs]
            cond.outputs = [ops.greater(placeholders[0], cond.constant(np.array(0, np.int32), name="zero"))]
            cond.structured_outputs = cond.outputs[0]
        captured_outer = [outer_tensor for outer_tensor, _ in backward.captures.values()]
        cond.captures = {key: (outer_tensor, placeholders[len(initial) + i])
                         for i, (key, (outer_tensor, _)) in enumerate(backward.captures.items())}
        grad_op = outer.create_op(WHILE, initial + captured_outer,
                                  {"cond": cond, "body": backward, "num_loop_vars": len(initial),
                                   "maximum_iterations": None}, name="while_grad")
    results: List[Optional[Any]] = [None] * len(op.inputs)
    for position, k in enumerate(differentiable_vars):
        results[k] = grad_op.outputs[1 + position]
    extra = len(accumulated_outputs)
    for position, j in enumerate(differentiable_captured):
        results[count + extra + j] = grad_op.outputs[1 + len(differentiable_vars) + position]
    return results


def _hoist_invariants(body: FuncGraph, outer: FuncGraph) -> None:
    """Move the ops of ``body`` (the backward loop's) that read only captured values and constants (or other
    moved ops) to ``outer``, before the loop; ``body`` captures their results instead. Only ops that cannot
    fail move (``analysis.cannot_fail``)."""
    outside = {id(placeholder): outer_tensor for outer_tensor, placeholder in body.captures.values()}
    movable = set(outside)   # ids of the values a moved op may read (and constants)
    moved: List[Operation] = []
    for op in body.operations:
        if (op.op_def is not CONST and op.op_def is not PLACEHOLDER and cannot_fail(op)
                and all(id(t) in movable or t.op.op_def is CONST for t in op.inputs)):
            moved.append(op)
            movable.update(id(out) for out in op.outputs)
    with context.graph_scope(outer):
        copy_ops(moved, outer, outside, read=lambda t: outside[id(t)] if id(t) in outside else outer.constant(
            t.op.attrs["value"], name=t.op.name))
    if not moved:
        return
    gone = {id(op) for op in moved}
    kept = [op for op in body.operations if id(op) not in gone]
    replaced: Dict[int, SymbolicTensor] = {}
    for op in moved:  # what the remaining ops read of a moved op becomes a captured placeholder
        for old in op.outputs:
            if any(old is t for other in kept for t in other.inputs) or any(old is t for t in body.outputs):
                replaced[id(old)] = FuncGraph.capture(body, outside[id(old)])
    new_placeholders = [t.op for t in replaced.values()]  # first: a saved graph is loaded in program order
    fresh = {id(op) for op in new_placeholders}
    body.operations[:] = new_placeholders + [op for op in body.operations if id(op) not in gone and id(op) not in fresh]
    for op in body.operations:
        op.inputs = [replaced.get(id(t), t) for t in op.inputs]
        for sub in op.subgraphs():  # a branch or loop of the body captured the moved value: it reads the new one
            sub.captures = {key: (replaced.get(id(o), o), inner) for key, (o, inner) in sub.captures.items()}
    body.outputs = [replaced.get(id(t), t) for t in body.outputs]
    _drop_unread_captures(body)


def _drop_unread_captures(body: FuncGraph) -> None:
    """Captured placeholders nothing in ``body`` reads any more (their readers moved out) are removed."""
    read = {id(t) for op in body.operations for t in op.inputs} | {id(t) for t in body.outputs}
    unread = {key for key, (_, placeholder) in body.captures.items() if id(placeholder) not in read}
    dropped = {id(body.captures.pop(key)[1]) for key in unread}
    body.operations[:] = [op for op in body.operations
                          if not (op.op_def is PLACEHOLDER and id(op.outputs[0]) in dropped)]
    body.inputs[:] = [t for t in body.inputs if id(t) not in dropped]


def _local(graph: FuncGraph, tensor: Optional[SymbolicTensor]) -> Optional[SymbolicTensor]:
    """``tensor`` as a tensor of ``graph`` (a gradient may be a value of the forward body: capture it)."""
    if tensor is None or tensor.op.graph is graph:
        return tensor
    return graph.capture(tensor)

