"""``cond`` and ``while_loop``: Python control flow eagerly, ``If`` / ``While`` ops while tracing.

Branches and loop bodies are traced into ``FuncGraph``s nested in the current graph; tensors they use
from outside are captured (the subgraph gets a placeholder, the op gets the outer tensor as an input).
Values may be nested tuples/lists/dicts of tensors or Python numbers (converted to tensors).

>>> import runtime as rt
>>> cond(rt.constant(True), lambda: 1, lambda: 2)
1
>>> while_loop(lambda i: i < 3, lambda i: i + 1, [0])
[3]
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, List, Optional, Sequence, Tuple

from runtime.core import context, nest
from runtime.core.errors import StateError
from runtime.core.graph import FuncGraph, Graph
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.list_ops import TENSOR_LIST_CONCAT, TENSOR_LIST_GET_ITEM, TENSOR_LIST_STACK
from runtime.ops.tensor_array_ops import TENSOR_LIST_GATHER
from runtime.ops.convert import convert_to_tensor
from runtime.core.shapes import as_shape_tuple, format_shape, most_specific_common_shape
from runtime.core.source_locations import FROM_STACK, creation_site, resolve
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor

_subgraph_ids = itertools.count(1)  # makes subgraph names unique process-wide (they share a library)


def _where(fn: Callable) -> str:
    """Where the user wrote ``fn``; nothing for functions of this library or generated code (autograph_lite
    names the user's line itself), whose location would only mislead."""
    code = getattr(fn, "__code__", None)
    if (code is None or code.co_filename.startswith("<")
            or getattr(fn, "__module__", "").split(".")[0] in ("runtime", "autograph_lite")):
        return ""
    return f" ({fn.__name__} at {code.co_filename}:{code.co_firstlineno})"


def _where_both(fns: Tuple[Callable, Callable]) -> str:
    """Where the user wrote a cond's two branch functions (see ``_where``)."""
    return f"{_where(fns[0])}{_where(fns[1])}"


def _check_callable(api: str, **functions: Any) -> None:
    for argument, fn in functions.items():
        if not callable(fn):
            raise TypeError(f"{api}: {argument} must be a callable (e.g. a lambda), got {type(fn).__name__} "
                            f"{fn!r}; write `lambda: value` to produce a fixed value")


def _as_graph_tensor(value: Any) -> Optional[Tensor]:
    """The symbolic tensor to branch or loop on, if ``value`` must be decided while the graph runs."""
    if isinstance(value, SymbolicTensor):
        return value
    if isinstance(value, Tensor) and not isinstance(value, EagerTensor) and context.in_graph_mode():
        return value.read_value()  # a Variable: its value may change between calls
    return None


def _named_items(result: Any, names: Optional[Sequence[str]], what: str) -> List[Tuple[str, Any]]:
    """Split a result into top-level (name, value) pairs, named by ``names`` or by position."""
    if names is not None and isinstance(result, (tuple, list)) and len(result) == len(names):
        return [(f"'{name}'", item) for name, item in zip(names, result)]
    if names is not None and len(names) == 1:
        return [(f"'{names[0]}'", result)]
    if isinstance(result, (tuple, list)):
        return [(f"{what} {index}", item) for index, item in enumerate(result)]
    return [(f"the {what}", result)]


def _leaf_name(name: str, path: str) -> str:
    return name + (f" (element {path})" if path else "")


def _into_graph(graph: Graph, tensor: Tensor, site: Any = FROM_STACK) -> SymbolicTensor:
    """``tensor`` as a tensor of ``graph``: outer symbolic ones captured, eager ones made constants (at
    ``site``, as for ``Graph.create_op``)."""
    if isinstance(tensor, EagerTensor):
        return graph.constant(tensor._value, site=site)
    if isinstance(tensor, SymbolicTensor) and tensor.op.graph is graph:
        return tensor
    return graph._as_graph_tensor(tensor, "output", "value")


def _unify_captures(graphs: Sequence[FuncGraph], leading: int, site: Any = FROM_STACK) -> List[SymbolicTensor]:
    """Give every graph a placeholder for every outer tensor any of them captured; same input order.

    The first ``leading`` inputs of each graph (loop variables) stay first. Returns the outer tensors.
    New placeholders are made at ``site`` (as for ``Graph.create_op``).
    """
    outer_tensors: List[SymbolicTensor] = []
    seen = set()
    for graph in graphs:
        for outer, _ in graph.captures.values():
            if id(outer) not in seen:
                seen.add(id(outer))
                outer_tensors.append(outer)
    for graph in graphs:
        placeholder_of = {id(outer): inner for outer, inner in graph.captures.values()}
        for outer in outer_tensors:
            if id(outer) not in placeholder_of:
                placeholder = graph.add_placeholder(outer.dtype, outer.shape, name=outer.op.name, site=site)
                graph.captures[id(outer)] = (outer, placeholder)
                placeholder_of[id(outer)] = placeholder
        graph.inputs = graph.inputs[:leading] + [placeholder_of[id(o)] for o in outer_tensors]
    return outer_tensors


# --- cond ----------------------------------------------------------------------------------------------
def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], *,
         output_names: Optional[Sequence[str]] = None) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()``; an ``If`` op when ``pred`` is symbolic.

    Both branches must return the same nested structure with the same dtypes (``StateError``
    otherwise, naming ``output_names[i]`` or the position).

    >>> import runtime as rt
    >>> cond(rt.constant(3) > 2, lambda: "big", lambda: "small")
    'big'
    """
    _check_callable("rt.cond", true_fn=true_fn, false_fn=false_fn)
    symbolic_pred = _as_graph_tensor(pred)
    if symbolic_pred is None:
        return true_fn() if bool(pred) else false_fn()
    if symbolic_pred.dtype.kind != "b":
        raise TypeError(f"rt.cond: the condition must be a bool tensor, got {symbolic_pred.dtype.name} "
                        f"{symbolic_pred!r}; compare it first, e.g. rt.not_equal(x, 0)")
    if symbolic_pred.shape is not None and symbolic_pred.shape != ():
        raise ValueError(f"rt.cond: the condition must be a scalar, got shape {format_shape(symbolic_pred.shape)}; "
                         "reduce it first, e.g. rt.reduce_all(c) or rt.reduce_any(c)")
    outer = context.current_graph()
    # Where the user's code called cond: the site of every op cond makes itself (output constants, capture
    # placeholders, the If), found once. Each op would find the same frame: the branch functions have
    # returned by then. (The walk up the stack was the largest cost of creating those ops.)
    site = creation_site()
    number = next(_subgraph_ids)
    branches = []
    for fn, label in ((true_fn, "true"), (false_fn, "false")):
        graph = FuncGraph(f"cond_{label}_{number}", outer_graph=outer)
        with context.graph_scope(graph):
            branches.append((graph, fn()))
    (then_graph, then_result), (else_graph, else_result) = branches
    then_flat, else_flat = _branch_outputs(then_result, else_result, then_graph, else_graph, output_names,
                                           true_fn, false_fn, site)
    then_graph.outputs, else_graph.outputs = then_flat, else_flat
    then_graph.structured_outputs = nest.pack_sequence_as(then_result, then_flat)
    else_graph.structured_outputs = nest.pack_sequence_as(else_result, else_flat)
    captured = _unify_captures([then_graph, else_graph], leading=0, site=site)
    op = outer.create_op(IF, [symbolic_pred, *captured], {"then_branch": then_graph, "else_branch": else_graph},
                         name="cond", site=site)
    return nest.pack_sequence_as(then_result, op.outputs)


def _branch_outputs(then_result, else_result, then_graph, else_graph, output_names, true_fn, false_fn, site):
    """Flat output tensors of both branches, checked to agree; Python values adopt the other side's dtype."""
    then_items = _named_items(then_result, output_names, "output")
    else_items = _named_items(else_result, output_names, "output")
    fns = (true_fn, false_fn)  # named in errors (_where_both): looked up only when one is raised
    if len(then_items) != len(else_items):
        raise StateError(f"rt.cond: the true branch returns {nest.describe(then_result)} but the false branch "
                         f"returns {nest.describe(else_result)}{_where_both(fns)}; both branches must return the "
                         "same structure")
    then_flat: List[SymbolicTensor] = []
    else_flat: List[SymbolicTensor] = []
    for (name, then_value), (_, else_value) in zip(then_items, else_items):
        if not nest.same_structure(then_value, else_value):
            raise StateError(
                f"rt.cond: {name} is {nest.describe(then_value)} in the true branch but "
                f"{nest.describe(else_value)} in the false branch{_where_both(fns)}; both branches must give it the "
                "same structure (a value must be set in both branches, or in neither)")
        paths = nest.leaf_paths(then_value)
        for path, t, e in zip(paths, nest.flatten(then_value), nest.flatten(else_value)):
            t_tensor, e_tensor = _convert_pair(_leaf_name(name, path), t, e, then_graph, else_graph, fns, site)
            then_flat.append(t_tensor)
            else_flat.append(e_tensor)
    return then_flat, else_flat


def _convert_pair(name: str, then_value: Any, else_value: Any, then_graph: FuncGraph, else_graph: FuncGraph,
                  fns: Tuple[Callable, Callable], site: Any) -> Tuple[SymbolicTensor, SymbolicTensor]:
    then_dtype = then_value.dtype if isinstance(then_value, Tensor) else None
    else_dtype = else_value.dtype if isinstance(else_value, Tensor) else None
    # A Python value adopts the other branch's dtype.
    then_tensor = _branch_tensor(then_graph, then_value, else_dtype if then_dtype is None else None, "true", name,
                                 fns, site)
    else_tensor = _branch_tensor(else_graph, else_value, then_dtype if else_dtype is None else None, "false", name,
                                 fns, site)
    if then_tensor.dtype != else_tensor.dtype:
        raise StateError(
            f"rt.cond: {name} is {then_tensor.dtype.name} in the true branch but {else_tensor.dtype.name} in the "
            f"false branch{_where_both(fns)}; make both branches produce the same dtype, e.g. with "
            f"rt.cast(value, rt.{then_tensor.dtype.name})")
    return then_tensor, else_tensor


def _branch_tensor(graph: FuncGraph, value: Any, dtype: Any, label: str, name: str,
                   fns: Tuple[Callable, Callable], site: Any) -> SymbolicTensor:
    """One branch's output ``value`` as a tensor of its graph (``dtype``: the one a Python value takes)."""
    with context.graph_scope(graph):
        try:
            tensor = convert_to_tensor(value, dtype)
        except TypeError as error:
            raise StateError(f"rt.cond: {name} in the {label} branch cannot be a tensor{_where_both(fns)}: {error}. "
                             "Return tensors, numbers or bools from both branches") from None
        return _into_graph(graph, tensor, site)


# --- while_loop -----------------------------------------------------------------------------------------
def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Sequence[Any],
               maximum_iterations: Optional[int] = None, *,
               loop_var_names: Optional[Sequence[str]] = None,
               shape_invariants: Optional[Sequence[Any]] = None) -> Any:
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; a ``While`` op while tracing.

    Each loop variable must keep its structure, dtype and rank; otherwise ``StateError`` names
    ``loop_var_names[i]`` (or the position). A dim the body changes (a growing vector) becomes unknown:
    the loop is traced again with it relaxed to ``None``, so Python side effects of ``body`` may run
    more than once while tracing. ``shape_invariants`` (one entry per loop variable: ``None`` or the
    shape of a tensor loop variable, ``None`` dims for sizes that change, ``TensorShape(None)`` for a
    variable whose rank may change too) declares shapes instead: the loop starts from them, and a body that
    gives a variable a shape outside its invariant is a ``StateError``.

    >>> while_loop(lambda i, total: i < 4, lambda i, total: (i + 1, total + i), (0, 0))
    (4, 6)
    """
    _check_callable("rt.while_loop", cond=cond, body=body)
    if not isinstance(loop_vars, (tuple, list)):
        raise TypeError(f"rt.while_loop: loop_vars must be a tuple or list, got {type(loop_vars).__name__}; "
                        "wrap a single value like (x,)")
    if loop_var_names is not None and len(loop_var_names) != len(loop_vars):
        raise ValueError(f"rt.while_loop: {len(loop_var_names)} loop_var_names for {len(loop_vars)} loop_vars")
    outer = context.current_graph()
    if outer is None:
        return _python_loop(cond, body, loop_vars, maximum_iterations)
    names = [f"'{n}'" for n in loop_var_names] if loop_var_names else \
        [f"loop variable {i}" for i in range(len(loop_vars))]
    max_iterations = _static_iterations(maximum_iterations)
    initial = [nest.map_structure(convert_to_tensor, v) for v in loop_vars]
    flat_initial = nest.flatten(initial)
    number = next(_subgraph_ids)
    where = _where(body)
    declared = _declared_shapes(shape_invariants, initial, names, where)
    shapes = [t.shape if shape is None else None if shape is UNKNOWN_RANK else shape
              for t, shape in zip(flat_initial, declared)]
    placeholder_names = [name for name, value in zip(loop_var_names or ["loop_var"] * len(initial), initial)
                         for _ in nest.flatten(value)]
    loop = _LoopParts(outer, cond, body, initial, number, placeholder_names, names, where)
    while True:  # a dim the body changes is relaxed to None and the loop traced again (at most rank times)
        cond_graph, body_graph = _trace_loop(loop, shapes)
        leaf_names = _leaf_names(names, initial)
        _check_invariants(leaf_names, declared, body_graph.outputs, where)
        relaxed = [_relaxed_shape(name, shape, output, where)
                   for name, shape, output in zip(leaf_names, shapes, body_graph.outputs)]
        if relaxed == shapes:
            break
        shapes = relaxed
    cond_graph.structured_outputs = cond_graph.outputs[0]
    body_graph.structured_outputs = nest.pack_sequence_as(initial, body_graph.outputs)
    captured = _unify_captures([cond_graph, body_graph], leading=len(flat_initial))
    op = outer.create_op(WHILE, [*flat_initial, *captured],
                         {"cond": cond_graph, "body": body_graph, "num_loop_vars": len(flat_initial),
                          "maximum_iterations": max_iterations}, name="while")
    return type(loop_vars)(nest.pack_sequence_as(list(initial), op.outputs))


@dataclasses.dataclass(frozen=True)
class _LoopParts:
    """What every trace of one rt.while_loop reads: only the shapes of its loop variables change between them."""
    outer: Graph
    cond: Callable
    body: Callable
    initial: List[Any]              # the loop variables as tensors (structures of them)
    number: int                     # names the cond and body graphs
    placeholder_names: List[str]    # one per flat loop variable
    names: List[str]                # one per loop variable, for error messages
    where: str                      # the body's source location, for error messages


def _trace_loop(loop: _LoopParts, shapes: List[Any]) -> Tuple[FuncGraph, FuncGraph]:
    """The cond and body graphs, their loop-variable placeholders shaped ``shapes`` (flat)."""
    cond_graph = FuncGraph(f"while_cond_{loop.number}", outer_graph=loop.outer)
    body_graph = FuncGraph(f"while_body_{loop.number}", outer_graph=loop.outer)

    def loop_placeholders(graph: FuncGraph) -> List[Any]:
        flat = [graph.add_placeholder(t.dtype, shape, name=name)
                for name, t, shape in zip(loop.placeholder_names, nest.flatten(loop.initial), shapes)]
        return nest.pack_sequence_as(loop.initial, flat)

    with context.graph_scope(cond_graph):
        keep_going = convert_to_tensor(loop.cond(*loop_placeholders(cond_graph)))
        if keep_going.dtype.kind != "b" or (keep_going.shape is not None and keep_going.shape != ()):
            raise TypeError(f"rt.while_loop: cond must return a scalar bool, got {keep_going!r}"
                            f"{_where(loop.cond)}; compare with rt.less(...) etc. or reduce with rt.reduce_all")
        cond_graph.outputs = [_into_graph(cond_graph, keep_going)]
    with context.graph_scope(body_graph):
        body_inputs = loop_placeholders(body_graph)
        result = _one_value_per_loop_var(loop.body(*body_inputs), len(loop.initial), loop.where)
        body_graph.outputs = _body_outputs(result, loop.initial, body_graph, loop.names, loop.where)
    return cond_graph, body_graph


UNKNOWN_RANK = object()   # a declared shape invariant of unknown rank (TensorShape(None)): any shape fits


def _declared_shapes(shape_invariants: Optional[Sequence[Any]], initial: List[Any], names: List[str],
                     where: str) -> List[Any]:
    """One entry per flat loop variable: its declared shape (a tuple, or UNKNOWN_RANK), or None when it has
    none."""
    flat_count = len(nest.flatten(initial))
    if shape_invariants is None:
        return [None] * flat_count
    if len(shape_invariants) != len(initial):
        raise ValueError(f"rt.while_loop: {len(shape_invariants)} shape_invariants for {len(initial)} loop_vars; "
                         "give one per loop variable (None where the shape may be relaxed automatically)")
    declared: List[Any] = []
    for name, value, shape in zip(names, initial, shape_invariants):
        leaves = nest.flatten(value)
        if shape is None:
            declared += [None] * len(leaves)
            continue
        if len(leaves) != 1 or not isinstance(value, Tensor):
            raise TypeError(f"rt.while_loop: a shape invariant is given for {name}, which is "
                            f"{nest.describe(value)}; shape invariants apply to tensor loop variables")
        dims = as_shape_tuple(shape)
        if dims is None:   # TensorShape(None): the rank may change
            declared.append(UNKNOWN_RANK)
            continue
        start = value.shape
        if dims is not None and start is not None and (
                len(dims) != len(start) or any(d is not None and d != s for d, s in zip(dims, start))):
            raise StateError(f"rt.while_loop: {name} starts with shape {format_shape(start)}, which does not fit its "
                             f"shape invariant {format_shape(dims)}{where}; use None for the dims that change")
        declared.append(dims)
    return declared


def _check_invariants(leaf_names: List[str], declared: List[Any], outputs: Sequence[Any], where: str) -> None:
    for name, dims, output in zip(leaf_names, declared, outputs):
        if dims is None or dims is UNKNOWN_RANK:
            continue
        shape = output.shape
        if shape is None or len(shape) != len(dims) or any(d is not None and d != s for d, s in zip(dims, shape)):
            raise StateError(f"rt.while_loop: {name} has the shape invariant {format_shape(dims)} but the body makes "
                             f"its shape {format_shape(shape)}{where}; declare None for the dims that change (or "
                             "leave the invariant out: a dim that changes is then relaxed automatically)")


def _static_iterations(maximum_iterations: Any) -> Optional[int]:
    if maximum_iterations is None:
        return None
    if isinstance(maximum_iterations, SymbolicTensor):
        raise TypeError("rt.while_loop: maximum_iterations must be known when tracing (a Python int), got the "
                        f"symbolic tensor {maximum_iterations!r}; bound the loop in cond instead")
    return int(maximum_iterations)


def _body_outputs(result: Sequence[Any], initial: List[Any], body_graph: FuncGraph, names: List[str],
                  where: str) -> List[SymbolicTensor]:
    outputs: List[SymbolicTensor] = []
    for name, new, old in zip(names, result, initial):
        if not nest.same_structure(new, old):
            raise StateError(f"rt.while_loop: {name} starts as {nest.describe(old)} but the body makes it "
                             f"{nest.describe(new)}{where}; a loop variable must keep its structure")
        for path, new_leaf, old_leaf in zip(nest.leaf_paths(old), nest.flatten(new), nest.flatten(old)):
            leaf = _leaf_name(name, path)
            if isinstance(new_leaf, Tensor) and new_leaf.dtype != old_leaf.dtype:
                raise StateError(
                    f"rt.while_loop: {leaf} starts as {old_leaf.dtype.name} but the body makes it "
                    f"{new_leaf.dtype.name}{where}; a loop variable must keep its dtype: cast the new value "
                    f"with rt.cast(value, rt.{old_leaf.dtype.name}) or start from a {new_leaf.dtype.name} value")
            try:
                tensor = convert_to_tensor(new_leaf, old_leaf.dtype)
            except TypeError as error:
                raise StateError(f"rt.while_loop: {leaf} must stay {old_leaf.dtype.name}{where}: {error}") from None
            outputs.append(_into_graph(body_graph, tensor))
    return outputs


def _leaf_names(names: List[str], initial: List[Any]) -> List[str]:
    return [_leaf_name(name, path) for name, value in zip(names, initial) for path in nest.leaf_paths(value)]


def _relaxed_shape(name: str, shape: Any, output: SymbolicTensor, where: str) -> Any:
    """``shape`` with the dims the body's ``output`` changes made unknown; a change of rank is an error."""
    new = output.shape
    if shape is None:
        return None
    if new is None or len(new) != len(shape):
        raise StateError(
            f"rt.while_loop: {name} starts with shape {format_shape(shape)} but the body makes it "
            f"{format_shape(new)}{where}; a loop variable must keep its rank (dims that change are allowed: "
            f"they become unknown). Reshape the new value to the same number of dims{_unknown_rank_source(output)}")
    return most_specific_common_shape(shape, new)


_ARRAY_READS = (TENSOR_LIST_GET_ITEM, TENSOR_LIST_STACK, TENSOR_LIST_GATHER, TENSOR_LIST_CONCAT)


def _unknown_rank_source(tensor: SymbolicTensor, limit: int = 500) -> str:
    """A sentence for the error when ``tensor``'s unknown rank comes from a TensorArray whose element shape is
    unknown where it is read or stacked (the rank is lost there, and the user's fix is its element_shape); ""
    otherwise. Follows only inputs of unknown rank, the ones it can come from."""
    todo, seen = [tensor], set()
    while todo and len(seen) < limit:
        op = getattr(todo.pop(), "op", None)
        if op is None or id(op) in seen:
            continue
        seen.add(id(op))
        if op.op_def in _ARRAY_READS and op.attrs.get("array") is not None:
            named = f" '{op.attrs['array']}'" if op.attrs["array"] else ""
            at = ""
            if op.creation_site is not None:
                location = resolve(op.creation_site)
                at = f" at {location.filename}:{location.lineno} (`{location.source_line}`)"
            return (f". It comes from the TensorArray{named} read or stacked{at}, whose element shape is unknown "
                    "there: give the TensorArray an element_shape (rt.TensorArray(dtype, size, element_shape=...)), "
                    "or write it values of known rank (a TensorArray made with infer_shape=True learns the shape of "
                    "its elements from its writes)")
        todo.extend(tensor for tensor in op.inputs if tensor.shape is None)
    return ""


def _one_value_per_loop_var(result: Any, count: int, where: str) -> Sequence[Any]:
    """The body's result as a sequence of ``count`` values (a lone value stands for a 1-tuple)."""
    if count == 1 and not (isinstance(result, (tuple, list)) and len(result) == 1):
        result = (result,)
    if not isinstance(result, (tuple, list)) or len(result) != count:
        raise StateError(f"rt.while_loop: body returned {nest.describe(result)} for {count} loop "
                         f"variables{where}; return one value per loop variable, in order")
    return result


def _python_loop(cond: Callable, body: Callable, loop_vars: Sequence[Any], maximum_iterations: Any):
    values = tuple(loop_vars)
    limit = None if maximum_iterations is None else int(maximum_iterations)
    iterations = 0
    while (limit is None or iterations < limit) and bool(cond(*values)):
        values = tuple(_one_value_per_loop_var(body(*values), len(values), _where(body)))
        iterations += 1
    return type(loop_vars)(values)
