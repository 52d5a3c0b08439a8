"""``einsum``: Einstein summation with numpy's kernel, and shape inference that knows unknown dims.

The equation is checked and made explicit while tracing (``"ij,jk"`` becomes ``"ij,jk->ik"``), each
label's size must agree across inputs (an unknown size takes the known one), and ``...`` dims broadcast.

>>> einsum("ij,jk->ik", [[1, 2]], [[3], [4]])
Tensor([[11]], shape=(1, 1), dtype=int32)
>>> einsum("ii", [[1, 2], [3, 4]])
Tensor(5, shape=(), dtype=int32)
"""
from __future__ import annotations

import string
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from runtime.core import shapes
from runtime.core.attrs import TEXT
from runtime.core.registry import register_gradient, register_op
from runtime.core.tensor import Shape, Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.validated import apply_validated

_LABELS = set(string.ascii_letters)
Term = Tuple[str, bool]  # (labels, has an ellipsis)


def _parse_term(term: str, equation: str) -> Tuple[str, str, bool]:
    """(labels before '...', labels after '...', has '...') of one term; ValueError if malformed."""
    before, dots, after = term.partition("...")
    if "." in before or "." in after:
        raise ValueError(f"equation {equation!r}: '{term}' has a '.' that is not part of one '...'")
    for label in before + after:
        if label not in _LABELS:
            raise ValueError(f"equation {equation!r}: {label!r} is not a valid subscript (use letters a-z, A-Z)")
    return before, after, bool(dots)


def parse_equation(equation: str, count: int) -> Tuple[List[Tuple[str, str, bool]], Tuple[str, str, bool]]:
    """The parsed input terms and output term of ``equation`` for ``count`` inputs (output made explicit)."""
    if not isinstance(equation, str):
        raise TypeError(f"equation must be a string, got {equation!r}")
    compact = equation.replace(" ", "")
    inputs_part, arrow, output_part = compact.partition("->")
    if "->" in output_part or "-" in inputs_part.replace("->", "") or ">" in inputs_part:
        raise ValueError(f"equation {equation!r}: use '->' once, between the inputs and the output")
    terms = [_parse_term(term, equation) for term in inputs_part.split(",")]
    if len(terms) != count:
        raise ValueError(f"equation {equation!r} has {len(terms)} input term(s) but {count} tensor(s) were given")
    if arrow:
        output = _parse_term(output_part, equation)
        labels = output[0] + output[1]
        seen = set("".join(t[0] + t[1] for t in terms))
        for label in labels:
            if labels.count(label) > 1:
                raise ValueError(f"equation {equation!r}: output subscript {label!r} appears more than once")
            if label not in seen:
                raise ValueError(f"equation {equation!r}: output subscript {label!r} is not in any input")
        if output[2] and not any(t[2] for t in terms):
            raise ValueError(f"equation {equation!r}: the output has '...' but no input does")
    else:  # implicit: labels used once, in alphabetical order, after the broadcast dims
        every = "".join(t[0] + t[1] for t in terms)
        once = "".join(sorted(label for label in set(every) if every.count(label) == 1))
        output = ("", once, any(t[2] for t in terms))
    return terms, output


def format_equation(terms, output) -> str:
    def term(parts):
        before, after, dots = parts
        return before + ("..." if dots else "") + after
    return ",".join(term(t) for t in terms) + "->" + term(output)


def output_shape(equation: str, input_shapes: List[Shape]) -> Shape:
    """The result shape of ``equation`` on inputs of these shapes (None dims unknown); ValueError if they
    do not fit."""
    terms, output = parse_equation(equation, len(input_shapes))
    sizes: Dict[str, Optional[int]] = {}
    where: Dict[str, int] = {}
    broadcast: Shape = ()
    for index, ((before, after, dots), shape) in enumerate(zip(terms, input_shapes)):
        if shape is None:
            for label in before + after:
                sizes.setdefault(label, None)
            broadcast = None if dots else broadcast
            continue
        named = len(before) + len(after)
        if (len(shape) != named) if not dots else (len(shape) < named):
            raise ValueError(f"equation {equation!r}: input {index} has rank {len(shape)} but its subscripts "
                             f"'{before}{'...' if dots else ''}{after}' name {named} dimension(s)")
        dims = list(zip(before, shape[:len(before)])) + list(zip(after, shape[len(shape) - len(after):]))
        for label, dim in dims:
            known = sizes.get(label)
            if known is not None and dim is not None and known != dim:
                raise ValueError(f"equation {equation!r}: subscript {label!r} has size {known} in input "
                                 f"{where[label]} but {dim} in input {index}")
            if known is None:
                sizes[label], where[label] = dim, index
        if dots:
            middle = tuple(shape[len(before):len(shape) - len(after)])
            broadcast = None if broadcast is None else shapes.broadcast(broadcast, middle)
    before, after, dots = output
    if not dots and broadcast:  # numpy sums no '...' dims away (an unknown number is checked at run time)
        raise ValueError(f"equation {equation!r}: the inputs' '...' stands for {len(broadcast)} dimension(s); "
                         "the output must keep them: add '...' to it")
    if dots and broadcast is None:
        return None
    return tuple(sizes[label] for label in before) + (tuple(broadcast) if dots else ()) + tuple(
        sizes[label] for label in after)


def _einsum_infer(specs, attrs):
    dtype = specs[0][0]
    for index, (other, _) in enumerate(specs):
        if other != dtype:
            raise TypeError(f"all inputs must have the same dtype, got {dtype.name} and {other.name} (input {index})")
    if dtype.kind not in "fiu":
        raise TypeError(f"inputs must be numeric tensors, got {dtype.name}")
    return [(dtype, output_shape(attrs["equation"], [shape for _, shape in specs]))]


def _einsum_kernel(*arrays, equation):
    output_shape(equation, [a.shape for a in arrays])  # numpy would broadcast a size-1 label; TensorFlow does not
    return np.einsum(equation, *arrays, optimize=len(arrays) > 1)  # pairwise contractions use BLAS


EINSUM = register_op("Einsum", ("*inputs",), _einsum_infer, _einsum_kernel,
                     doc="Einstein summation over the inputs by attr 'equation' (explicit form).",
                     attrs={"equation": TEXT})


def _labelled_dims(op) -> Tuple[List[str], str]:
    """Each input's subscripts and the output's, with every '...' written out as letters the equation does not
    use, one per broadcast dim (aligned from the right, as numpy broadcasts). An input's '...' dim of size 1
    where the broadcast size is larger gets a letter of its own: summed out of that input alone, it is the
    same product, and its gradient is then summed back to size 1."""
    terms, output = parse_equation(op.attrs["equation"], len(op.inputs))
    free = [label for label in string.ascii_letters if label not in op.attrs["equation"]]
    if not any(dots for _, _, dots in terms):
        return [before + after for before, after, _ in terms], output[0] + output[1]
    middles = []
    for (before, after, dots), tensor in zip(terms, op.inputs):
        shape = tensor.shape
        if dots and (shape is None or None in shape[len(before):len(shape) - len(after)]):
            raise ValueError(f"gradient of Einsum {op.attrs['equation']!r}: the dims '...' stands for must be known "
                             f"while tracing, got an input of shape {shapes.format_shape(shape)}; give the function "
                             "an input_signature with those dims, or write the '...' dims out as letters")
        middles.append(tuple(shape[len(before):len(shape) - len(after)]) if dots else ())
    broadcast = shapes.broadcast(*middles) if len(middles) > 1 else middles[0]
    ellipsis, free = free[:len(broadcast)], free[len(broadcast):]
    labels = []
    for (before, after, dots), middle in zip(terms, middles):
        mine = []
        for label, dim, full in zip(ellipsis[len(broadcast) - len(middle):], middle,
                                    broadcast[len(broadcast) - len(middle):]):
            if dim == 1 and full != 1:
                label, free = free[0], free[1:]
            mine.append(label)
        labels.append(before + "".join(mine) + after)
    return labels, output[0] + ("".join(ellipsis) if output[2] else "") + output[1]


def _dim(tensor: Tensor, axis: int, ops) -> Any:
    known = None if tensor.shape is None else tensor.shape[axis]
    return known if known is not None else ops.shape(tensor)[axis]


def _einsum_input_gradient(grad: Tensor, out_labels: str, others: List[Tuple[str, Tensor]], labels: str,
                           x: Tensor, ops) -> Tensor:
    """The gradient of the input with subscripts ``labels`` (``x``): the einsum of the output gradient with the
    other inputs back to its subscripts. A subscript no other term has (summed out of this input alone) gets
    ones -- the gradient is the same along it; a repeated subscript (a diagonal) gets an identity matrix per
    repeat, with a fresh letter, so the gradient lands on the diagonal and is 0 off it."""
    seen = set(out_labels + "".join(label for label, _ in others))
    unused = [label for label in string.ascii_letters if label not in seen and label not in labels]
    operands, terms, target = [grad] + [t for _, t in others], [out_labels] + [label for label, _ in others], ""
    first: Dict[str, int] = {}
    for axis, label in enumerate(labels):
        if label in first:  # a repeat: eye(n) ties the fresh letter to the first occurrence
            fresh = unused.pop(0)
            n = _dim(x, axis, ops)
            positions = ops.range(n)
            eye = ops.cast(ops.equal(ops.expand_dims(positions, 1), ops.expand_dims(positions, 0)), x.dtype)
            operands.append(eye)
            terms.append(label + fresh)
            target += fresh
            continue
        first[label] = axis
        if label not in seen:  # summed out of this input only: the gradient is the same along it
            operands.append(ops.ones(ops.reshape(_dim(x, axis, ops), [1]), x.dtype))
            terms.append(label)
        target += label
    return einsum(",".join(terms) + "->" + target, *operands)


@register_gradient(EINSUM)
def _einsum_gradient(op, grads, ops):
    """Input i's gradient is the einsum of the output gradient with the other inputs, back to input i's
    subscripts (``_einsum_input_gradient``): every equation numpy accepts, '...' included (its dims must be
    known while tracing)."""
    labels, out_labels = _labelled_dims(op)
    return [_einsum_input_gradient(grads[0], out_labels, [(labels[j], t) for j, t in enumerate(op.inputs) if j != i],
                                   labels[i], x, ops)
            for i, x in enumerate(op.inputs)]


def einsum(equation: str, *inputs: Any, name: Optional[str] = None) -> Tensor:
    """Einstein summation: multiply ``inputs`` along equal subscripts and sum those the output leaves out.

    >>> einsum("bi,bi->b", [[1.0, 2.0]], [[3.0, 4.0]])
    Tensor([11.], shape=(1,), dtype=float32)
    """
    tensors = [convert_to_tensor(t) for t in inputs]
    if not tensors:
        raise ValueError("Einsum: give at least one input tensor")
    try:
        explicit = format_equation(*parse_equation(equation, len(tensors)))
    except (TypeError, ValueError) as error:
        raise type(error)(f"Einsum: {error}") from None
    return apply_validated(EINSUM, tensors, {"equation": explicit}, name=name)
