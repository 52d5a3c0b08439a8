"""``rt.function_gradient``: the gradient of a traced or loaded function, as a new ``ConcreteFunction``.

TensorFlow has no single call for this (there one re-traces the Python function under a tape, which a
caller holding only a SavedModel cannot do); JAX's ``jax.grad``/``jax.vjp`` come closest. Here the
concrete function's graph (the one ``rt.save`` stores) is copied op by op into a new graph, the ops'
registered gradient rules are applied to the copy, and the result is optimized and compiled as one
graph: the forward ops the gradient does not read are pruned. The gradient function is itself a
``ConcreteFunction``: it can be saved, loaded, and differentiated again (second derivatives).

>>> import tempfile, runtime as rt
>>> f = rt.function(lambda x, y: x * x * y, input_signature=[rt.TensorSpec([], rt.float32)] * 2)
>>> _ = f.get_concrete_function()
>>> directory = tempfile.mkdtemp()
>>> rt.save(f, directory)
>>> grad = rt.function_gradient(rt.load(directory), wrt=["x", "y"])
>>> grad(rt.constant(3.0), rt.constant(2.0))
[Tensor(12.0, shape=(), dtype=float32), Tensor(9.0, shape=(), dtype=float32)]
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from runtime import ops as _ops
from runtime.core import context, nest
from runtime.core.errors import GradientError
from runtime.core.graph import FuncGraph, Operation
from runtime.core.tensor import SymbolicTensor, Tensor, TensorSpec
from runtime.core.traceback_filtering import api_boundary
from runtime.ops.debugging import ASSERT
from runtime.ops.gradient_ops import is_differentiable_dtype
from runtime.ops.logging_ops import PRINT
from runtime.ops.variables import READ_VARIABLE, Variable
from runtime.passes.gradients import RERUNNABLE, backprop, check_unconnected
from runtime.passes.graph_surgery import insert_before, pass_variable_in, reads_variable, variables_read
from runtime.passes.rewrite import copy_ops
from runtime.tracing.concrete_function import ConcreteFunction, describe_structure
from runtime.tracing.signature import make_key

# Stateful ops the gradient function may run again: reads, fresh tensor lists and arrays (RERUNNABLE),
# checks and prints. Any other stateful op (a variable assignment, a random draw) would change state or
# see other values than the call being differentiated, so a function holding one is refused.
_RERUNNABLE = RERUNNABLE + (ASSERT, PRINT)

OUTPUT_GRADIENTS = "output_gradients"

Source = Union[str, Variable]


@api_boundary
def function_gradient(function: Any, wrt: Any = None, *, output: Optional[Union[int, str]] = None,
                      output_gradients: bool = False, unconnected_gradients: str = "none") -> ConcreteFunction:
    """A ``ConcreteFunction`` computing the gradient of ``function``'s outputs with respect to ``wrt``.

    ``function`` is a ``ConcreteFunction``, or a ``Function``/loaded function with exactly one traced
    signature or an ``input_signature`` (else pick one with ``get_concrete_function``). It needs no Python source: a
    function
    from ``rt.load`` works. The gradient function takes the same tensor arguments (plus, with
    ``output_gradients=True``, a last argument ``output_gradients`` shaped like the chosen outputs:
    the cotangents of a vector-Jacobian product) and returns one gradient per ``wrt`` entry.

    - ``wrt``: an argument name, a ``Variable`` the function reads (e.g. from ``loaded.variables``),
      or a list/tuple of them; None means every floating-point tensor argument (as a tuple). A
      structured argument (a list of tensors) gets its gradients in the same structure.
    - ``output``: which result to differentiate: None for the sum of every floating-point output,
      an int for one flat output (``nest.flatten`` order), a str for one key of a dict result.
    - ``unconnected_gradients``: ``'none'`` (default) gives None for a ``wrt`` entry the outputs do not
      depend on, ``'zero'`` gives zeros, as in ``GradientTape.gradient``.

    Raises ``TypeError`` for an integer/bool ``wrt`` argument or output, ``ValueError`` for an unknown
    name, and ``GradientError`` naming the op when an op on the path has no gradient rule or the
    function has side effects (variable assignments, random draws) that recomputing it would repeat.

    >>> import runtime as rt
    >>> @rt.function(input_signature=[rt.TensorSpec([2], rt.float64), rt.TensorSpec([2], rt.float64)])
    ... def loss(w, x):
    ...     return rt.reduce_sum(rt.tanh(w * x))
    >>> grad = rt.function_gradient(loss, wrt="w")
    >>> grad(rt.constant([0.0, 1.0], rt.float64), rt.constant([2.0, 0.0], rt.float64))
    Tensor([2. 0.], shape=(2,), dtype=float64)
    >>> vjp = rt.function_gradient(loss, wrt="w", output_gradients=True)
    >>> vjp(rt.constant([0.0, 1.0], rt.float64), rt.constant([2.0, 0.0], rt.float64), rt.constant(3.0, rt.float64))
    Tensor([6. 0.], shape=(2,), dtype=float64)
    """
    concrete = _the_concrete_function(function)
    mode = check_unconnected(unconnected_gradients)
    forward = concrete.unoptimized_graph
    _check_rerunnable(forward, concrete.name)
    arguments = _ArgumentLeaves(concrete)
    sources, structure = _sources(concrete, arguments, wrt)
    chosen = _chosen_outputs(concrete, output, output_gradients)

    graph = FuncGraph(f"{concrete.name}_gradient")
    with context.graph_scope(graph):
        copies = _copy_forward(forward, graph)
        seeds_structure, seeds = None, [None] * len(chosen[1])
        if output_gradients:
            seeds_structure = nest.pack_sequence_as(chosen[0], [
                TensorSpec(t.shape, t.dtype, name=OUTPUT_GRADIENTS) for t in chosen[1]])
            seeds = [graph.add_placeholder(t.dtype, t.shape, name=OUTPUT_GRADIENTS) for t in chosen[1]]
        targets = [copies[id(t)] for t in chosen[1]]
        stand_ins = [_stand_ins(source, arguments, graph, copies, concrete.name) for source in sources]
        found = backprop(list(graph.operations), targets, seeds, [t for ins in stand_ins for t in ins])
        results = [_total(source, ins, found, mode, graph) for source, ins in zip(sources, stand_ins)]
        graph.outputs = [r for r in results if r is not None]
    graph.structured_outputs = nest.pack_sequence_as(structure, results)
    graph.variables = list(forward.variables)

    names = list(concrete._param_names)
    values = list(concrete.structured_input_signature[0])
    key = list(concrete._key)
    if output_gradients:
        names.append(OUTPUT_GRADIENTS)
        values.append(seeds_structure)
        key.append(make_key((seeds_structure,))[0][0])
    return ConcreteFunction(graph, f"{concrete.name}_gradient", names, tuple(values), tuple(key),
                            keep_alive=(*concrete._keep_alive, *forward.variables))


def _the_concrete_function(function: Any) -> ConcreteFunction:
    if isinstance(function, ConcreteFunction):
        return function
    traces = getattr(function, "concrete_functions", None)
    if traces is None or callable(traces):
        raise TypeError(f"rt.function_gradient expects a ConcreteFunction, a Function or a loaded function, got "
                        f"{type(function).__name__}")
    traces = list(traces)
    if not traces and getattr(function, "input_signature", None) is not None:
        traces = [function.get_concrete_function()]  # a declared signature traces without arguments
    name = getattr(function, "name", None) or getattr(function, "__name__", "function")
    if len(traces) != 1:
        what = "has not been traced yet" if not traces else f"has {len(traces)} traced signatures"
        raise TypeError(f"rt.function_gradient: {name} {what}; pass one ConcreteFunction, e.g. "
                        f"rt.function_gradient({name}.get_concrete_function(rt.TensorSpec(...)))")
    return traces[0]


def _check_rerunnable(graph: FuncGraph, name: str) -> None:
    for op in graph.operations:
        if op.op_def.stateful and not any(op.op_def is allowed for allowed in _RERUNNABLE):
            raise GradientError(
                f"rt.function_gradient: {name} has a side effect ({op.type}, node {op.name}) that computing its "
                "gradient would run again (changing variables or drawing other random numbers than the call "
                "being differentiated). Differentiate a function without it: e.g. the loss, not the train step")
        for subgraph in op.subgraphs():
            _check_rerunnable(subgraph, name)


class _ArgumentLeaves:
    """Which flat graph inputs (placeholders) belong to each tensor argument of a concrete function."""

    def __init__(self, concrete: ConcreteFunction):
        self.specs: Dict[str, Any] = {}
        self.positions: Dict[str, List[int]] = {}
        self.names = [concrete._param_names[i] for i in concrete._tensor_params]
        start = 0
        for index in concrete._tensor_params:
            name = concrete._param_names[index]
            spec = concrete.structured_input_signature[0][index]
            count = len(nest.flatten(spec))
            self.specs[name] = spec
            self.positions[name] = list(range(start, start + count))
            start += count


def _sources(concrete: ConcreteFunction, arguments: _ArgumentLeaves, wrt: Any) -> Tuple[List[Source], Any]:
    """The flat list of ``wrt`` entries (argument names and Variables) and the structure to return."""
    if wrt is None:
        names = [n for n in arguments.names
                 if any(is_differentiable_dtype(s.dtype) for s in nest.flatten(arguments.specs[n]))]
        if not names:
            raise TypeError(f"rt.function_gradient: {concrete.name} has no floating-point tensor argument to "
                            "differentiate with respect to; pass wrt= a Variable it reads")
        wrt = tuple(names)
    single = isinstance(wrt, (str, Tensor))
    entries = [wrt] if single else list(wrt)
    for entry in entries:
        if isinstance(entry, Variable):
            if not any(v is entry for v in concrete.unoptimized_graph.variables):
                raise ValueError(f"rt.function_gradient: Variable '{entry.name}' is not read by {concrete.name}; "
                                 f"its variables are {[v.name for v in concrete.unoptimized_graph.variables]}")
            if not is_differentiable_dtype(entry.dtype):
                raise TypeError(f"rt.function_gradient: Variable '{entry.name}' is {entry.dtype.name}; only "
                                "floating-point values have gradients")
        elif isinstance(entry, str):
            if entry not in arguments.specs:
                known = ", ".join(arguments.names) or "none"
                raise ValueError(f"rt.function_gradient: {concrete.name} has no tensor argument {entry!r} "
                                 f"(its tensor arguments: {known})")
            dtypes = {s.dtype.name for s in nest.flatten(arguments.specs[entry])}
            if not any(is_differentiable_dtype(s.dtype) for s in nest.flatten(arguments.specs[entry])):
                raise TypeError(f"rt.function_gradient: argument {entry!r} of {concrete.name} is "
                                f"{'/'.join(sorted(dtypes))}; only floating-point arguments have gradients "
                                f"(cast it to float inside the function, or leave it out of wrt)")
        else:
            raise TypeError(f"rt.function_gradient: wrt entries must be argument names or Variables, got "
                            f"{type(entry).__name__} {entry!r}")
    flat: List[Source] = []
    structures = []
    for entry in entries:
        if isinstance(entry, str):
            leaves = nest.flatten(arguments.specs[entry])
            flat.extend((entry, i) for i in range(len(leaves)))
            structures.append(arguments.specs[entry])
        else:
            flat.append(entry)
            structures.append(entry)
    structure = structures[0] if single else type(wrt)(structures) if isinstance(wrt, tuple) else structures
    return flat, _as_leaves(structure)


def _as_leaves(structure: Any) -> Any:
    """``structure`` with every spec/Variable replaced by a placeholder leaf (0) for ``pack_sequence_as``."""
    if isinstance(structure, (TensorSpec, Tensor)):
        return 0
    return nest.pack_sequence_as(structure, [0] * len(nest.flatten(structure)))


def _chosen_outputs(concrete: ConcreteFunction, output: Any, output_gradients: bool):
    """(structure, flat tensors) of the outputs to differentiate."""
    structured = concrete.unoptimized_graph.structured_outputs
    if output is None:
        chosen = structured
    elif isinstance(output, bool) or not isinstance(output, (int, str)):
        raise TypeError(f"rt.function_gradient: output must be None, an int or a str, got {output!r}")
    elif isinstance(output, str):
        if not isinstance(structured, dict) or output not in structured:
            keys = sorted(structured) if isinstance(structured, dict) else "none: it does not return a dict"
            raise ValueError(f"rt.function_gradient: {concrete.name} has no output {output!r} (its keys: {keys})")
        chosen = structured[output]
    else:
        flat = [t for t in nest.flatten(structured) if isinstance(t, SymbolicTensor)]
        if not 0 <= output < len(flat):
            raise ValueError(f"rt.function_gradient: output={output} is out of range; {concrete.name} has "
                             f"{len(flat)} output tensor(s)")
        chosen = flat[output]
    tensors = [t for t in nest.flatten(chosen) if isinstance(t, SymbolicTensor)]
    floats = [t for t in tensors if is_differentiable_dtype(t.dtype)]
    if not floats:
        raise TypeError(f"rt.function_gradient: the chosen output of {concrete.name} has no floating-point "
                        f"tensor ({', '.join(t.dtype.name for t in tensors) or 'no tensors'}); only those have "
                        "gradients")
    if output_gradients:
        if len(floats) != len(tensors) or len(tensors) != len(nest.flatten(chosen)):
            raise TypeError(f"rt.function_gradient: with output_gradients=True every chosen output must be a "
                            f"floating-point tensor; {concrete.name} returns {describe_structure(chosen)}: choose one "
                            "with output=")
        return chosen, tensors
    return None, floats


def _copy_forward(forward: FuncGraph, graph: FuncGraph) -> Dict[int, SymbolicTensor]:
    """Copy ``forward``'s ops into ``graph`` (current), inputs first; returns id(original) -> copy."""
    copies: Dict[int, SymbolicTensor] = {
        id(placeholder): graph.add_placeholder(placeholder.dtype, placeholder.shape, name=placeholder.op.name)
        for placeholder in forward.inputs}
    copy_ops(forward.operations, graph, copies)
    return copies


def _stand_ins(source: Source, arguments: _ArgumentLeaves, graph: FuncGraph, copies: Dict[int, Any],
               name: str) -> List[SymbolicTensor]:
    """The copied tensors whose gradients make up ``source``'s: a placeholder, or a Variable's reads."""
    if isinstance(source, tuple):
        argument, leaf = source
        placeholder = graph.inputs[arguments.positions[argument][leaf]]
        return [placeholder] if is_differentiable_dtype(placeholder.dtype) else []
    reads = []
    for op in list(graph.operations):
        if op.op_def is READ_VARIABLE and op.attrs["variable"] is source:
            reads.append(op.outputs[0])
        elif op.subgraphs() and reads_variable(op, source):
            # an if/loop that reads it takes its value as an input (nothing in the function assigns it:
            # _check_rerunnable), read just before it: the gradient flows out through that input
            read = insert_before(op, READ_VARIABLE, {"variable": source}, f"{source.name}_read")
            pass_variable_in(op, source, read)
            reads.append(read)
    return reads


def _total(source: Source, stand_ins: Sequence[SymbolicTensor], found: Dict[int, Any], mode: str,
           graph: FuncGraph) -> Optional[SymbolicTensor]:
    grads = [found[id(t)] for t in stand_ins if id(t) in found]
    if grads:
        total = grads[0]
        for grad in grads[1:]:
            total = total + grad
        return total
    if mode == "none":
        return None
    if isinstance(source, Variable):
        return _ops.zeros(list(source.shape), source.dtype)
    return _ops.zeros_like(stand_ins[0]) if stand_ins else None  # an integer leaf of a structured argument


def flat_vjp(concrete: ConcreteFunction, variables: Sequence[Variable]) -> ConcreteFunction:
    """The VJP of ``concrete`` on flat tensors: how a GradientTape differentiates a recorded call.

    Takes the flat inputs, then one cotangent per floating-point output, then the value of each of
    ``variables`` (every Variable the function reads) when the call ran: the VJP computes with those
    values, not with what the variables hold when the gradient is taken. Returns a list with the gradient
    of each flat input, then of each of ``variables`` (None where nothing flows).
    """
    forward = concrete.unoptimized_graph
    _check_rerunnable(forward, concrete.name)
    graph = FuncGraph(f"{concrete.name}_vjp")
    with context.graph_scope(graph):
        inputs = [graph.add_placeholder(p.dtype, p.shape, name=p.op.name) for p in forward.inputs]
        floats = [t for t in forward.outputs if is_differentiable_dtype(t.dtype)]
        seeds = [graph.add_placeholder(t.dtype, t.shape, name=OUTPUT_GRADIENTS) for t in floats]
        values = [graph.add_placeholder(v.dtype, tuple(v.shape), name=f"{v.name}_value") for v in variables]
        copies = _copy_with_values(forward, graph, inputs, dict(zip(map(id, variables), values)))
        stand_ins = [[p] if is_differentiable_dtype(p.dtype) else [] for p in inputs]
        stand_ins += [[value] for value in values]
        found = backprop(list(graph.operations), [copies[id(t)] for t in floats], seeds,
                         [t for ins in stand_ins for t in ins])
        results = [_total(None, ins, found, "none", graph) for ins in stand_ins]
        graph.outputs = [r for r in results if r is not None]
    graph.structured_outputs = results
    specs = [TensorSpec(t.shape, t.dtype) for t in graph.inputs]
    names = [f"input_{i}" for i in range(len(specs))]
    return ConcreteFunction(graph, f"{concrete.name}_vjp", names, tuple(specs), make_key(tuple(specs))[0],
                            keep_alive=(*concrete._keep_alive, *forward.variables))


def _copy_with_values(forward: FuncGraph, graph: FuncGraph, inputs: Sequence[SymbolicTensor],
                      values: Dict[int, SymbolicTensor]) -> Dict[int, SymbolicTensor]:
    """Copy ``forward``'s ops into ``graph`` reading ``inputs``, with each read of a Variable in ``values``
    (id -> placeholder) replaced by that placeholder, at any depth (an if/loop that reads one takes it as an
    input); returns id(original) -> copy."""
    def read_as_value(op: Operation, inputs: List[Any]) -> Optional[List[SymbolicTensor]]:
        if op.op_def is READ_VARIABLE and id(op.attrs["variable"]) in values:
            return [values[id(op.attrs["variable"])]]
        return None

    copies: Dict[int, SymbolicTensor] = {id(p): q for p, q in zip(forward.inputs, inputs)}
    for new in copy_ops(forward.operations, graph, copies, replace=read_as_value):
        for variable in variables_read(new):  # nothing in the function assigns it (_check_rerunnable)
            if id(variable) in values:
                pass_variable_in(new, variable, values[id(variable)])
    return copies
