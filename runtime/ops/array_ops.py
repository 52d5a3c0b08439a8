"""Reshaping one tensor: identity, reshape, transpose, expand_dims, squeeze, tile.

>>> reshape([1, 2, 3, 4], [2, -1])
Tensor([[1 2]
 [3 4]], shape=(2, 2), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from runtime.core import dtypes
from runtime.core import shapes
from runtime.ops.cast_op import cast  # noqa: F401  (re-exported: rt.cast lives with the reshaping ops)
from runtime.ops.convert import convert_to_tensor
from runtime.ops.core import IDENTITY
from runtime.core.attrs import AXES, INT, INTS, STATIC_RESHAPE_TARGET, STATIC_SHAPE, optional
from runtime.core.registry import apply_op, register_gradient, register_op
from runtime.ops.shape_ops import known_or_none, shape, shape_argument
from runtime.core.tensor import Tensor


def identity(input: Any) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """A tensor with the same value as ``input`` (an ``Identity`` node in a graph).

    >>> identity([1, 2])
    Tensor([1 2], shape=(2,), dtype=int32)
    """
    return apply_op(IDENTITY, (convert_to_tensor(input),))


def _reshape_infer(specs, attrs):
    (dtype, in_shape), (_, dims_shape) = specs
    dims = attrs.get("static_shape")
    if dims is None:
        return [(dtype, known_or_none(None, None if dims_shape is None else dims_shape[0]))]
    if sum(1 for d in dims if d is not None and d < 0) > 1:
        raise ValueError(f"shape {list(dims)} has more than one -1; only one dimension can be inferred")
    out = list(known_or_none(dims))
    if in_shape is not None and None not in in_shape:
        total = int(np.prod(in_shape))
        known = [d for d in dims if d is not None and d >= 0]
        product = int(np.prod(known))
        if len(known) == len(dims) and product != total:
            raise ValueError(f"cannot reshape a tensor with {total} elements to shape {list(dims)}")
        if len(known) == len(dims) - 1 and -1 in dims:
            if product == 0 or total % product:
                raise ValueError(f"cannot reshape a tensor with {total} elements to shape {list(dims)}")
            out[dims.index(-1)] = total // product
    return [(dtype, tuple(out))]


def _reshape_kernel(tensor, shape, *, static_shape=None):
    return np.reshape(tensor, tuple(shape.tolist()))


RESHAPE = register_op("Reshape", ("tensor", "shape"), _reshape_infer, _reshape_kernel,
                      doc="Same elements in a new shape; one dim may be -1 (inferred).",
                      attrs={"static_shape": STATIC_RESHAPE_TARGET})


def reshape(tensor: Any, shape: Any) -> Tensor:
    """``tensor``'s elements in row-major order, arranged as ``shape`` (one entry may be -1).

    >>> reshape([1, 2, 3, 4, 5, 6], [3, 2]).shape
    TensorShape([3, 2])
    """
    tensor = convert_to_tensor(tensor)
    dims, static = shape_argument(shape, "Reshape", "shape")
    return apply_op(RESHAPE, (tensor, dims), None if static is None else {"static_shape": static})


def _transpose_infer(specs, attrs):
    dtype, shape = specs[0]
    perm = attrs["perm"]
    if shape is None:
        return [(dtype, None if perm is None else (None,) * len(perm))]
    if perm is None:
        return [(dtype, tuple(reversed(shape)))]
    if sorted(perm) != list(range(len(shape))):
        raise ValueError(f"perm {list(perm)} is not a permutation of the {len(shape)} axes of a "
                         f"tensor of shape {shapes.format_shape(shape)}")
    return [(dtype, tuple(shape[p] for p in perm))]


TRANSPOSE = register_op("Transpose", ("x",), _transpose_infer, lambda x, *, perm: np.transpose(x, perm),
                        doc="Permutes the axes (attr 'perm'; None reverses them).", attrs={"perm": optional(INTS)})


def transpose(a: Any, perm: Optional[Sequence[int]] = None) -> Tensor:
    """``a`` with its axes permuted by ``perm`` (default: reversed, i.e. a matrix transpose).

    >>> transpose([[1, 2, 3]]).shape
    TensorShape([3, 1])
    """
    a = convert_to_tensor(a)
    if perm is not None:
        perm = shapes.axes_argument(perm, "Transpose", "perm")
        if a.ndim is not None and sorted(perm) != list(range(a.ndim)):
            raise ValueError(f"Transpose: perm {list(perm)} is not a permutation of the {a.ndim} axes of "
                             f"a tensor of shape {a.shape}")
    return apply_op(TRANSPOSE, (a,), {"perm": perm})


def _expand_dims_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is None:
        return [(dtype, None)]
    axis = shapes.normalize_axis(attrs["axis"], len(shape) + 1, "ExpandDims")
    return [(dtype, shape[:axis] + (1,) + shape[axis:])]


EXPAND_DIMS = register_op("ExpandDims", ("input",), _expand_dims_infer,
                          lambda x, *, axis: np.expand_dims(x, axis),
                          doc="Inserts a dimension of size 1 at attr 'axis'.", attrs={"axis": INT})


def expand_dims(input: Any, axis: int) -> Tensor:  # noqa: A002
    """``input`` with a new size-1 dimension at ``axis`` (negative counts from the end).

    >>> expand_dims([1, 2], -1).shape
    TensorShape([2, 1])
    """
    input = convert_to_tensor(input)
    if input.ndim is not None:
        shapes.normalize_axis(shapes.axis_argument(axis, "ExpandDims"), input.ndim + 1, "ExpandDims")
    return apply_op(EXPAND_DIMS, (input,), {"axis": shapes.axis_argument(axis, "ExpandDims")})


def _squeeze_infer(specs, attrs):
    dtype, shape = specs[0]
    axis = attrs["axis"]
    if shape is None:
        return [(dtype, None)]
    if axis is None:
        if None in shape:  # an unknown dim may or may not be 1: the rank is unknown
            return [(dtype, None)]
        return [(dtype, tuple(d for d in shape if d != 1))]
    axes = {shapes.normalize_axis(a, len(shape), "Squeeze") for a in axis}
    for a in axes:
        if shape[a] not in (1, None):
            raise ValueError(f"cannot squeeze axis {a} of shape {shapes.format_shape(shape)}: its size is "
                             f"{shape[a]}, not 1")
    return [(dtype, tuple(d for i, d in enumerate(shape) if i not in axes))]


def _squeeze_kernel(x, *, axis):
    if axis is not None:
        for a in axis:
            if x.shape[a] != 1:
                raise ValueError(f"cannot squeeze axis {a} of shape {x.shape}: its size is {x.shape[a]}, not 1")
    return np.squeeze(x, axis)


SQUEEZE = register_op("Squeeze", ("input",), _squeeze_infer, _squeeze_kernel,
                      doc="Removes size-1 dimensions (all, or those in attr 'axis').", attrs={"axis": AXES})


def squeeze(input: Any, axis: Union[int, Sequence[int], None] = None) -> Tensor:  # noqa: A002
    """``input`` without its size-1 dimensions (only those in ``axis`` when given).

    >>> squeeze([[1], [2]]).shape
    TensorShape([2])
    """
    input = convert_to_tensor(input)
    axis = None if axis is None else shapes.axes_argument(axis, "Squeeze")
    if axis is not None and input.ndim is not None:
        _squeeze_infer([(input.dtype, input.shape)], {"axis": axis})
    return apply_op(SQUEEZE, (input,), {"axis": axis})


def _tile_infer(specs, attrs):
    (dtype, shape), (_, multiples_shape) = specs
    multiples = attrs.get("static_multiples")
    if shape is None:
        return [(dtype, None if multiples is None else (None,) * len(multiples))]
    if multiples_shape is not None and multiples_shape[0] not in (None, len(shape)):
        raise ValueError(f"multiples has {multiples_shape[0]} entries but the input has rank {len(shape)}")
    if multiples is None:
        return [(dtype, (None,) * len(shape))]
    return [(dtype, tuple(None if d is None or m is None else d * m for d, m in zip(shape, multiples)))]


def _tile_kernel(x, multiples, *, static_multiples=None):
    if multiples.shape != (x.ndim,):
        raise ValueError(f"multiples has {multiples.size} entries but the input has rank {x.ndim}")
    return np.tile(x, multiples)


TILE = register_op("Tile", ("input", "multiples"), _tile_infer, _tile_kernel,
                   doc="Repeats the input multiples[i] times along axis i.", attrs={"static_multiples": STATIC_SHAPE})


def tile(input: Any, multiples: Any) -> Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along each axis ``i``.

    >>> tile([[1, 2]], [2, 1])
    Tensor([[1 2]
     [1 2]], shape=(2, 2), dtype=int32)
    """
    input = convert_to_tensor(input)
    multiples, static = shape_argument(multiples, "Tile", "multiples")
    if static is not None and input.ndim is not None and len(static) != input.ndim:
        raise ValueError(f"Tile: multiples has {len(static)} entries but the input has rank {input.ndim}")
    return apply_op(TILE, (input, multiples), None if static is None else {"static_multiples": static})


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
def reshape_like(grad: Tensor, like: Tensor) -> Tensor:
    """``grad`` reshaped to ``like``'s shape (static when fully known, else ``rt.shape(like)``)."""
    if like.shape is not None and None not in like.shape:
        return grad if grad.shape == like.shape else reshape(grad, list(like.shape))
    return reshape(grad, shape(like))


for _same_elements in (RESHAPE, EXPAND_DIMS, SQUEEZE):
    register_gradient(_same_elements)(
        lambda op, grads, ops: [reshape_like(grads[0], op.inputs[0])] + [None] * (len(op.inputs) - 1))


@register_gradient(TRANSPOSE)
def _transpose_gradient(op, grads, ops):
    perm = op.attrs["perm"]
    return [transpose(grads[0], None if perm is None else [int(i) for i in np.argsort(perm)])]


@register_gradient(TILE)
def _tile_gradient(op, grads, ops):
    x, multiples = op.inputs
    rank = x.ndim
    if rank is None:
        raise ValueError("gradient of Tile: the input has unknown rank; give it a known rank")
    # Tiled = the input repeated: view the gradient as (m0, d0, m1, d1, ...) and sum the m axes.
    static = op.attrs.get("static_multiples")
    if static is not None and None not in static and x.shape is not None and None not in x.shape:
        split = [n for pair in zip(static, x.shape) for n in pair]
    else:
        split = reshape(ops.stack([cast(multiples, dtypes.int32), shape(x)], axis=1), [-1])
    return [ops.reduce_sum(reshape(grads[0], split), list(range(0, 2 * rank, 2))), None]
