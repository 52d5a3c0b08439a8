"""Tensor lists as ONNX sequences (opset 18: SequenceConstruct/Empty/Insert/At/Erase/Length,
ConcatFromSequence, SplitToSequence).

A list handle becomes a ``seq(tensor(element dtype))`` value; ``Loop`` carries it like any loop variable.
A handle tensor does not know its element dtype, the ops around it do: ``element_dtypes`` finds it for every
handle of a graph and its If/While subgraphs. Semantics follow our kernels: a negative index counts from the
end (ONNX's sequence ops agree), ``TensorListSetItem`` erases then inserts at the normalized position, and
stacking an empty list gives zeros of the known element shape. Arrays (``rt.TensorArray``) are not exported:
their handles all come from ``TensorListReserve``, which is in ``NOT_EXPORTED`` (ONNX sequences have no
unwritten slots, so reading one could not be an error there).
"""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from runtime.core.dtypes import variant
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.backends.onnx.ops import _converts, _int64, _onnx_type
from runtime.ops.list_gradients import (TENSOR_LIST_ADD_N, TENSOR_LIST_INSERT, TENSOR_LIST_SPLIT_LIKE,
                                        TENSOR_LIST_ZEROS_LIKE)
from runtime.ops.list_ops import (TENSOR_LIST_CONCAT, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS,
                                  TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK)


_ELEMENTWISE_LIST_OPS = (TENSOR_LIST_ZEROS_LIKE, TENSOR_LIST_ADD_N)


def element_dtypes(graph: Any, found: Dict[Any, Any]) -> Dict[Any, Any]:
    """``found`` filled with handle tensor -> element dtype for ``graph`` and its subgraphs (to a fixpoint:
    a loop variable takes it from the ops that make or use it, inside the loop or out)."""
    links: List[List[Any]] = []   # tensors that are one list: loop variables, branch outputs
    _collect(graph, found, links)
    changed = True
    while changed:
        changed = False
        for group in links:
            known = next((found[t] for t in group if t in found), None)
            for tensor in group:
                if known is not None and tensor not in found:
                    found[tensor], changed = known, True
    return found


def _collect(graph: Any, found: Dict[Any, Any], links: List[List[Any]]) -> None:
    for op in graph.operations:
        if "element_dtype" in op.attrs:
            for tensor in [*op.inputs, *op.outputs]:
                if tensor.dtype == variant:
                    found[tensor] = op.attrs["element_dtype"]
        elif op.op_def in _ELEMENTWISE_LIST_OPS:  # lists of one element dtype in and out
            links.append([t for t in [*op.inputs, *op.outputs] if t.dtype == variant])
        if op.op_def is WHILE:
            count, cond, body = op.attrs["num_loop_vars"], op.attrs["cond"], op.attrs["body"]
            for k in range(count):
                links.append([op.inputs[k], op.outputs[k], body.inputs[k], body.outputs[k], cond.inputs[k]])
            for captured, (body_input, cond_input) in zip(op.inputs[count:],
                                                          zip(body.inputs[count:], cond.inputs[count:])):
                links.append([captured, body_input, cond_input])
            _collect(cond, found, links)
            _collect(body, found, links)
        elif op.op_def is IF:
            for attr in ("then_branch", "else_branch"):
                branch = op.attrs[attr]
                links.extend([outer, inner] for outer, inner in zip(op.inputs[1:], branch.inputs))
                links.extend([outer, inner] for outer, inner in zip(op.outputs, branch.outputs))
                _collect(branch, found, links)


@_converts(TENSOR_LIST_FROM_TENSORS)
def _from_tensors(b, op, inputs):
    if not inputs:
        return [b.one("SequenceEmpty", [], op.name, dtype=_onnx_type(b, op.attrs["element_dtype"]))]
    return [b.one("SequenceConstruct", inputs, op.name)]


@_converts(TENSOR_LIST_FROM_TENSOR)
def _from_tensor(b, op, inputs):
    return [b.one("SplitToSequence", inputs, op.name, axis=0, keepdims=0)]


@_converts(TENSOR_LIST_PUSH_BACK)
def _push_back(b, op, inputs):
    return [b.one("SequenceInsert", inputs, op.name)]


@_converts(TENSOR_LIST_POP)
def _pop(b, op, inputs):
    handle, index = inputs
    position = _int64(b, index, op.name + "/index")
    element = b.one("SequenceAt", [handle, position], op.name + "/element")
    return [b.one("SequenceErase", [handle, position], op.name), element]


@_converts(TENSOR_LIST_GET_ITEM)
def _get_item(b, op, inputs):
    handle, index = inputs
    return [b.one("SequenceAt", [handle, _int64(b, index, op.name + "/index")], op.name)]


@_converts(TENSOR_LIST_SET_ITEM)
def _set_item(b, op, inputs):
    """Erase, then insert at the same position: a negative index is made positive first (inserting at -1
    would put the element before the last one)."""
    handle, index, element = inputs
    name = op.name
    position = _int64(b, index, name + "/index")
    length = b.one("SequenceLength", [handle], name + "/length")
    zero = b.constant(np.array(0, np.int64), name + "/zero")
    wrapped = b.one("Add", [position, length], name + "/wrapped")
    positive = b.one("Where", [b.one("Less", [position, zero], name + "/negative"), wrapped, position],
                     name + "/position")
    erased = b.one("SequenceErase", [handle, positive], name + "/erased")
    return [b.one("SequenceInsert", [erased, element, positive], name)]


@_converts(TENSOR_LIST_LENGTH)
def _length(b, op, inputs):
    length = b.one("SequenceLength", inputs, op.name + "/int64")
    return [b.one("Cast", [length], op.name, to=b.onnx.TensorProto.INT32)]


@_converts(TENSOR_LIST_STACK)
def _stack(b, op, inputs):
    """ConcatFromSequence with a new axis; an empty list stacks to zeros of its element shape when that is
    fully known (as our kernel does), so the export is an If on the length."""
    (handle,) = inputs
    name, shape = op.name, op.inputs[0].shape
    if shape is None or None in shape:
        return [b.one("ConcatFromSequence", [handle], name, axis=0, new_axis=1)]
    length = b.one("SequenceLength", [handle], name + "/length")
    empty = b.one("Equal", [length, b.constant(np.array(0, np.int64), name + "/zero")], name + "/empty")
    dtype = op.attrs["element_dtype"]
    zeros = b.loop_body(lambda inner: [inner.constant(np.zeros((0,) + tuple(shape), dtype), name + "/zeros")],
                        f"{name}_empty", [], [(dtype, (0,) + tuple(shape))])
    stacked = b.loop_body(lambda inner: [inner.one("ConcatFromSequence", [handle], name + "/concat", axis=0,
                                                   new_axis=1)],
                          f"{name}_stacked", [], [(dtype, (None,) + tuple(shape))])
    return [b.one("If", [empty], name, then_branch=zeros, else_branch=stacked)]


@_converts(TENSOR_LIST_CONCAT)
def _concat(b, op, inputs):
    return [b.one("ConcatFromSequence", inputs, op.name, axis=op.attrs["axis"], new_axis=0)]


# --- the gradient-only list ops ----------------------------------------------------------------------------
def _map_elements(b, op, lists, element_dtype, compute) -> str:
    """A new sequence whose element i is ``compute(inner, [element i of each of lists])``: an ONNX Loop over
    the first list's length, carrying the sequence it builds."""
    name = op.name
    length = b.one("SequenceLength", [lists[0]], name + "/length")
    empty = b.one("SequenceEmpty", [], name + "/empty", dtype=_onnx_type(b, element_dtype))
    iteration, condition, carried = (b.fresh(f"{name}/{part}") for part in ("iteration", "condition", "built"))
    infos = [b.value_info(iteration, np.int64, ()), b.value_info(condition, np.bool_, ()),
             b.value_info(carried, variant, None, None, element_dtype)]

    def body(inner):
        elements = [inner.one("SequenceAt", [handle, iteration], name + "/element") for handle in lists]
        return [condition, inner.one("SequenceInsert", [carried, compute(inner, elements)], name + "/insert")]

    graph = b.loop_body(body, f"{name}_body", infos, [(np.bool_, ()), (variant, None, element_dtype)])
    return b.one("Loop", [length, "", empty], name, body=graph)


@_converts(TENSOR_LIST_ZEROS_LIKE)
def _zeros_like_list(b, op, inputs):
    dtype = b.element_dtypes[op.inputs[0]]
    zero = b.onnx.numpy_helper.from_array(np.zeros([1], dtype), name=b.fresh(op.name + "/zero"))
    return [_map_elements(b, op, inputs, dtype, lambda inner, elements: inner.one(
        "ConstantOfShape", [inner.one("Shape", elements, op.name + "/shape")], op.name + "/zeros", value=zero))]


@_converts(TENSOR_LIST_ADD_N)
def _add_lists(b, op, inputs):
    """Element by element (the gradients of one tensor list: the lists have one length)."""
    return [_map_elements(b, op, inputs, b.element_dtypes[op.inputs[0]],
                          lambda inner, elements: inner.one("Add", elements, op.name + "/add"))]


@_converts(TENSOR_LIST_INSERT)
def _insert_item(b, op, inputs):
    """The element lands at ``index`` of the result: a negative index counts from the end of the result, one
    past ONNX's (which counts from the end of the list before the insert)."""
    handle, index, element = inputs
    name = op.name
    position = _int64(b, index, name + "/index")
    shifted = b.one("Add", [position, b.one("Add", [b.one("SequenceLength", [handle], name + "/length"),
                                                    b.constant(np.array(1, np.int64), name + "/one")],
                                            name + "/size")], name + "/shifted")
    negative = b.one("Less", [position, b.constant(np.array(0, np.int64), name + "/zero")], name + "/negative")
    return [b.one("SequenceInsert", [handle, element, b.one("Where", [negative, shifted, position],
                                                            name + "/position")], name)]


@_converts(TENSOR_LIST_SPLIT_LIKE)
def _split_like(b, op, inputs):
    """Each element's length along ``axis`` (a Loop with a scan output), then SplitToSequence by them."""
    handle, tensor = inputs
    name, axis = op.name, op.attrs["axis"]
    iteration, condition = b.fresh(f"{name}/iteration"), b.fresh(f"{name}/condition")
    infos = [b.value_info(iteration, np.int64, ()), b.value_info(condition, np.bool_, ())]

    def body(inner):
        element = inner.one("SequenceAt", [handle, iteration], name + "/element")
        dims = inner.one("Shape", [element], name + "/dims")
        return [condition, inner.one("Gather", [dims, inner.constant(np.array(axis, np.int64), name + "/axis")],
                                     name + "/length")]

    graph = b.loop_body(body, f"{name}_lengths", infos, [(np.bool_, ()), (np.int64, ())])
    lengths = b.one("Loop", [b.one("SequenceLength", [handle], name + "/count"), ""], name + "/lengths", body=graph)
    return [b.one("SplitToSequence", [tensor, lengths], name, axis=axis)]
