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
                     doc="Einstein summation over the inputs by attr 'equation' (explicit form).")


@register_gradient(EINSUM)
def _einsum_gradient(op, grads, ops):
    """Input i's gradient is the einsum of the output gradient with the other inputs, back to input i's
    subscripts. That covers every equation in which each label of an input also appears in the output
    or another input, once per input, without '...'; any other is a clear error."""
    terms, output = parse_equation(op.attrs["equation"], len(op.inputs))
    out_labels = output[0] + output[1]
    gradients = []
    for index, (before, after, dots) in enumerate(terms):
        labels = before + after
        others = [t[0] + t[1] for i, t in enumerate(terms) if i != index]
        seen = set(out_labels + "".join(others))
        if dots or output[2] or len(set(labels)) != len(labels) or not set(labels) <= seen:
            raise ValueError(f"gradient of Einsum {op.attrs['equation']!r}: only equations without '...' whose "
                             "input subscripts are distinct and each appear in the output or another input are "
                             "differentiable here; write the product with rt.matmul/rt.reduce_sum instead")
        equation = ",".join([out_labels] + others) + "->" + labels
        gradients.append(einsum(equation, grads[0], *[t for i, t in enumerate(op.inputs) if i != index]))
    return gradients


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
