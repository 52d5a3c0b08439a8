"""Array ops TensorFlow code reaches for: one_hot, clip_by_value, pad, reverse, repeat
(``broadcast_to`` is in ``gradient_ops``).

>>> one_hot([0, 2, -1], 3)
Tensor([[1. 0. 0.]
 [0. 0. 1.]
 [0. 0. 0.]], shape=(3, 3), dtype=float32)
>>> pad([[1, 2]], [[1, 0], [0, 1]])
Tensor([[0 0 0]
 [1 2 0]], shape=(2, 3), dtype=int32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from runtime.core import dtypes, shapes
from runtime.core.attrs import INT, INTS, PADDINGS, PAD_MODE, STATIC_COUNT, omittable, optional
from runtime.core.registry import not_differentiable, register_gradient, register_op
from runtime.core.tensor import Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.shape_ops import constant_value
from runtime.ops.validated import apply_validated

_INDEX_DTYPES = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def _scalar_int(dtype, shape, what: str) -> None:
    if dtype not in (dtypes.int32, dtypes.int64) or shape not in ((), None):
        raise TypeError(f"{what} must be a scalar int32 tensor, got {dtype.name} of shape {shapes.format_shape(shape)}")


# --- one_hot ---------------------------------------------------------------------------------------
def _one_hot_infer(specs, attrs):
    (index_dtype, index_shape), (depth_dtype, depth_shape), (on_dtype, on_shape), (off_dtype, off_shape) = specs
    if index_dtype not in _INDEX_DTYPES:
        raise TypeError(f"indices must be an integer tensor, got {index_dtype.name}; cast it with "
                        "rt.cast(indices, rt.int32)")
    _scalar_int(depth_dtype, depth_shape, "depth")
    if on_dtype != off_dtype:
        raise TypeError(f"on_value and off_value must have the same dtype, got {on_dtype.name} and {off_dtype.name}")
    if on_shape not in ((), None) or off_shape not in ((), None):
        raise ValueError("on_value and off_value must be scalars")
    depth = attrs.get("static_depth")
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    if index_shape is None:
        return [(on_dtype, None)]
    axis = attrs["axis"]
    if not -1 <= axis <= len(index_shape):
        raise ValueError(f"axis must be -1 or in [0, {len(index_shape)}] for indices of rank {len(index_shape)}, "
                         f"got {axis}")
    position = len(index_shape) if axis == -1 else axis
    return [(on_dtype, index_shape[:position] + (depth,) + index_shape[position:])]


def _one_hot_kernel(indices, depth, on_value, off_value, *, axis, static_depth=None):
    depth = int(depth)
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    # off_value everywhere, then on_value at each row's index (one write per row, not a comparison and a
    # select over all of them); an index outside [0, depth) sets nothing: its row stays off
    out = np.full(indices.shape + (depth,), off_value, dtype=on_value.dtype)
    if out.size == 0:
        return out if axis == -1 else np.moveaxis(out, -1, axis).copy()
    flat = indices.reshape(-1).astype(np.intp, copy=False)
    positions = np.arange(0, flat.size * depth, depth, dtype=np.intp) + flat
    inside = (flat >= 0) & (flat < depth)
    out.reshape(-1)[positions if inside.all() else positions[inside]] = on_value
    return out if axis == -1 else np.moveaxis(out, -1, axis).copy()


ONE_HOT = register_op("OneHot", ("indices", "depth", "on_value", "off_value"), _one_hot_infer, _one_hot_kernel,
                      doc="on_value where the position along the new attr 'axis' equals the index, else off_value.",
                      attrs={"axis": INT, "static_depth": STATIC_COUNT})


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None, axis: Optional[int] = None,
            dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """A one-hot encoding of integer ``indices`` with ``depth`` classes along a new ``axis`` (default last).

    Indices outside ``[0, depth)`` (e.g. -1) give a row of ``off_value``. The dtype is that of
    ``on_value``/``off_value`` when given, else ``dtype`` (default float32).

    >>> one_hot([1], 2, on_value=5, off_value=-1)
    Tensor([[-1  5]], shape=(1, 2), dtype=int32)
    """
    indices = convert_to_tensor(indices)
    given = [v for v in (on_value, off_value) if isinstance(v, Tensor)]
    target = dtypes.as_dtype(dtype) if dtype is not None else given[0].dtype if given else None
    if target is None and any(v is not None for v in (on_value, off_value)):
        target = convert_to_tensor(on_value if on_value is not None else off_value).dtype
    target = target or dtypes.float32
    values = [convert_to_tensor(1 if on_value is None else on_value, None if isinstance(on_value, Tensor) else target),
              convert_to_tensor(0 if off_value is None else off_value,
                                None if isinstance(off_value, Tensor) else target)]
    depth_tensor = convert_to_tensor(depth, None if isinstance(depth, Tensor) else dtypes.int32)
    attrs = {"axis": -1 if axis is None else shapes.axis_argument(axis, "OneHot")}
    known = constant_value(depth_tensor)
    if known is not None and known.ndim == 0:
        attrs["static_depth"] = int(known)
    return apply_validated(ONE_HOT, (indices, depth_tensor, *values), attrs, name=name)


# --- clip_by_value ---------------------------------------------------------------------------------
def _clip_infer(specs, attrs):
    (dtype, shape), (low_dtype, low_shape), (high_dtype, high_shape) = specs
    if dtype.kind not in "fiu":
        raise TypeError(f"t must be a numeric tensor, got {dtype.name}")
    for bound_dtype, name in ((low_dtype, "clip_value_min"), (high_dtype, "clip_value_max")):
        if bound_dtype != dtype:
            raise TypeError(f"{name} must have the dtype of t ({dtype.name}), got {bound_dtype.name}")
    for bound_shape, name in ((low_shape, "clip_value_min"), (high_shape, "clip_value_max")):
        result = shapes.broadcast(shape, bound_shape)
        if result is not None and shape is not None and (len(result) != len(shape) or any(
                r is not None and s is not None and r != s for r, s in zip(result, shape))):
            raise ValueError(f"{name} of shape {shapes.format_shape(bound_shape)} would change the shape of t "
                             f"{shapes.format_shape(shape)}; it must broadcast to it")
    return [(dtype, shape)]


def _clip_kernel(t, low, high):
    result = np.maximum(np.minimum(t, high), low)  # TensorFlow's order: min > max gives min
    if result.shape != t.shape:
        raise ValueError(f"clip bounds of shapes {low.shape} and {high.shape} would change the shape of t {t.shape}")
    return result


CLIP_BY_VALUE = register_op("ClipByValue", ("t", "clip_value_min", "clip_value_max"), _clip_infer, _clip_kernel,
                            doc="max(min(t, clip_value_max), clip_value_min), elementwise.")


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: Optional[str] = None) -> Tensor:
    """``t`` with values below ``clip_value_min`` raised to it and values above ``clip_value_max`` lowered.

    >>> clip_by_value([-5, 0, 5], -1, 3)
    Tensor([-1  0  3], shape=(3,), dtype=int32)
    """
    t = convert_to_tensor(t)
    bounds = [value if isinstance(value, Tensor) else convert_to_tensor(value, t.dtype)
              for value in (clip_value_min, clip_value_max)]
    return apply_validated(CLIP_BY_VALUE, (t, *bounds), name=name)


# --- pad -------------------------------------------------------------------------------------------
_PAD_MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


def _check_paddings(paddings, shape, mode: str) -> None:
    """Raise ValueError for paddings that are negative or too wide for a mirror mode (None = unknown)."""
    for axis, (before, after) in enumerate(paddings):
        for amount in (before, after):
            if amount is None:
                continue
            if amount < 0:
                raise ValueError(f"paddings must be >= 0, got {amount} for axis {axis}")
            size = None if shape is None else shape[axis]
            limit = None if size is None else size - 1 if mode == "REFLECT" else size
            if mode != "CONSTANT" and limit is not None and amount > limit:
                raise ValueError(f"{mode} padding of axis {axis} (size {size}) must be at most {limit}, got {amount}")


def _pad_infer(specs, attrs):
    (dtype, shape), (paddings_dtype, paddings_shape) = specs[:2]
    mode = attrs["mode"]
    if paddings_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"paddings must be an int32 or int64 tensor, got {paddings_dtype.name}")
    if len(specs) == 3 and specs[2][0] != dtype:
        raise TypeError(f"constant_values must have the dtype of tensor ({dtype.name}), got {specs[2][0].name}")
    if len(specs) == 3 and specs[2][1] not in ((), None):
        raise ValueError(f"constant_values must be a scalar, got shape {shapes.format_shape(specs[2][1])}")
    rank = None if shape is None else len(shape)
    if paddings_shape is not None and (len(paddings_shape) != 2 or paddings_shape[1] not in (2, None)
                                       or None not in (rank, paddings_shape[0]) and paddings_shape[0] != rank):
        raise ValueError(f"paddings must have shape [{'rank' if rank is None else rank}, 2], got "
                         f"{shapes.format_shape(paddings_shape)}")
    static = attrs.get("static_paddings")
    if static is None or shape is None:
        length = rank if rank is not None else None if paddings_shape is None else paddings_shape[0]
        return [(dtype, None if length is None else (None,) * length)]
    _check_paddings(static, shape, mode)
    return [(dtype, tuple(None if d is None or before is None or after is None else d + before + after
                          for d, (before, after) in zip(shape, static)))]


def _pad_kernel(x, paddings, constant_values=None, *, mode, static_paddings=None):
    if paddings.shape != (x.ndim, 2):
        raise ValueError(f"paddings must have shape [{x.ndim}, 2], got {list(paddings.shape)}")
    amounts = paddings.tolist()
    _check_paddings(amounts, x.shape, mode)
    if mode == "CONSTANT":
        return np.pad(x, amounts, mode="constant", constant_values=constant_values)
    return np.pad(x, amounts, mode=_PAD_MODES[mode])


_PAD_ATTRS = {"mode": PAD_MODE, "static_paddings": omittable(optional(PADDINGS))}
PAD = register_op("PadV2", ("input", "paddings", "constant_values"), _pad_infer, _pad_kernel,
                  doc="Pads each axis with paddings[i] = [before, after] copies of constant_values.", attrs=_PAD_ATTRS)
MIRROR_PAD = register_op("MirrorPad", ("input", "paddings"), _pad_infer, _pad_kernel,
                         doc="Pads each axis with its own mirrored values (attr 'mode': REFLECT or SYMMETRIC).",
                         attrs=_PAD_ATTRS)


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: Optional[str] = None) -> Tensor:
    """``tensor`` padded by ``paddings[i] = [before, after]`` along each axis ``i``.

    ``mode``: ``'CONSTANT'`` (with ``constant_values``), ``'REFLECT'`` (mirror without the edge value) or
    ``'SYMMETRIC'`` (mirror with it), case-insensitive as in TensorFlow.

    >>> pad([1, 2, 3], [[2, 2]], mode="REFLECT")
    Tensor([3 2 1 2 3 2 1], shape=(7,), dtype=int32)
    """
    tensor = convert_to_tensor(tensor)
    mode_name = mode.upper() if isinstance(mode, str) else mode
    if mode_name not in _PAD_MODES:
        raise ValueError(f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    paddings = convert_to_tensor(paddings, None if isinstance(paddings, Tensor) else dtypes.int32)
    attrs = {"mode": mode_name}
    known = constant_value(paddings)
    if known is not None and known.ndim == 2:
        attrs["static_paddings"] = tuple(tuple(int(v) for v in row) for row in known)
    if mode_name == "CONSTANT":
        fill = constant_values if isinstance(constant_values, Tensor) else convert_to_tensor(constant_values,
                                                                                             tensor.dtype)
        return apply_validated(PAD, (tensor, paddings, fill), attrs, name=name)
    return apply_validated(MIRROR_PAD, (tensor, paddings), attrs, name=name)


# --- reverse, repeat -----------------------------------------------------------------
def _reverse_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is not None:
        axes = [shapes.normalize_axis(a, len(shape), "reverse") for a in attrs["axis"]]
        if len(set(axes)) != len(axes):
            raise ValueError(f"axis {list(attrs['axis'])} names an axis twice")
    return [specs[0]]


REVERSE = register_op("ReverseV2", ("tensor",), _reverse_infer,
                      lambda x, *, axis: np.flip(x, axis).copy(), doc="Reverses the order along each attr 'axis'.",
                      attrs={"axis": INTS})


def reverse(tensor: Any, axis: Union[int, Sequence[int]], name: Optional[str] = None) -> Tensor:
    """``tensor`` with the order of its entries reversed along each axis in ``axis``.

    >>> reverse([[1, 2], [3, 4]], [1])
    Tensor([[2 1]
     [4 3]], shape=(2, 2), dtype=int32)
    """
    axes = shapes.axes_argument(axis, "ReverseV2")
    return apply_validated(REVERSE, (convert_to_tensor(tensor),), {"axis": axes}, name=name)


def _repeat_infer(specs, attrs):
    (dtype, shape), (repeats_dtype, repeats_shape) = specs
    if repeats_dtype not in (dtypes.int32, dtypes.int64) or repeats_shape is not None and len(repeats_shape) > 1:
        raise TypeError(f"repeats must be an int32 scalar or 1-D tensor, got {repeats_dtype.name} of shape "
                        f"{shapes.format_shape(repeats_shape)}")
    axis, repeats = attrs["axis"], attrs.get("static_repeats")
    if repeats is not None and min(repeats, default=0) < 0:
        raise ValueError(f"repeats must be >= 0, got {list(repeats)}")
    if shape is None:
        return [(dtype, (None,) if axis is None else None)]
    if axis is None:
        size = None if None in shape else int(np.prod(shape, dtype=np.int64))
        dim, position, out = size, 0, (None,)
    else:
        position = shapes.normalize_axis(axis, len(shape), "repeat")
        dim, out = shape[position], shape
    if repeats is not None and len(repeats) > 1 and dim is not None and len(repeats) != dim:
        raise ValueError(f"repeats has {len(repeats)} entries but the axis has size {dim}")
    if repeats is None or (dim is None and len(repeats) == 1):
        length = None
    else:
        length = dim * repeats[0] if len(repeats) == 1 else sum(repeats)
    return [(dtype, out[:position] + (length,) + out[position + 1:])]


def _repeat_kernel(x, repeats, *, axis, static_repeats=None):
    if (repeats < 0).any():
        raise ValueError(f"repeats must be >= 0, got {repeats.tolist()}")
    return np.repeat(x, repeats, axis=axis)


REPEAT = register_op("Repeat", ("input", "repeats"), _repeat_infer, _repeat_kernel,
                     doc="Each entry along attr 'axis' (None: of the flattened input) repeated repeats[i] times.",
                     attrs={"axis": optional(INT), "static_repeats": omittable(optional(INTS))})


def repeat(input: Any, repeats: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """Each entry of ``input`` along ``axis`` repeated ``repeats`` times (an int, or one count per entry);
    with ``axis=None`` the input is flattened first.

    >>> repeat([[1, 2], [3, 4]], [1, 2], axis=0)
    Tensor([[1 2]
     [3 4]
     [3 4]], shape=(3, 2), dtype=int32)
    """
    input = convert_to_tensor(input)
    repeats = convert_to_tensor(repeats, None if isinstance(repeats, Tensor) else dtypes.int32)
    attrs = {"axis": None if axis is None else shapes.axis_argument(axis, "Repeat")}
    known = constant_value(repeats)
    if known is not None and known.ndim <= 1:
        attrs["static_repeats"] = tuple(int(v) for v in np.reshape(known, -1))
    return apply_validated(REPEAT, (input, repeats), attrs, name=name)



# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
not_differentiable(ONE_HOT, "integer indices pick constant values (TensorFlow gives None too)")
register_gradient(REVERSE)(lambda op, grads, ops: [ops.reverse(grads[0], op.attrs["axis"])])


@register_gradient(CLIP_BY_VALUE)
def _clip_by_value_gradient(op, grads, ops):
    (t, low, high), g = op.inputs, grads[0]
    zero = ops.zeros_like(g)
    below, above = t < low, t > high
    unbroadcast = ops.gradient_ops.unbroadcast
    return [ops.where(ops.logical_or(below, above), zero, g),
            unbroadcast(ops.where(below, g, zero), low), unbroadcast(ops.where(above, g, zero), high)]


@register_gradient(PAD)
def _pad_gradient(op, grads, ops):  # the padded result's middle; constant_values get none, as in TensorFlow
    paddings = op.attrs.get("static_paddings")
    if paddings is None:
        raise ValueError("gradient of PadV2: paddings must be known while tracing")
    key = tuple(slice(before, -after if after else None) for before, after in paddings)
    return [grads[0][key], None, None]


@register_gradient(REPEAT)
def _repeat_gradient(op, grads, ops):  # each input entry gets the sum of its copies
    x, repeats, g = op.inputs[0], op.inputs[1], grads[0]
    axis = op.attrs["axis"]
    if axis is None:
        count = ops.size(x)
        ids = ops.repeat(ops.range(count), repeats)
        return [ops.reshape(ops.unsorted_segment_sum(g, ids, count), ops.shape(x)), None]
    if x.ndim is None:
        raise ValueError("gradient of Repeat: the input's rank must be known while tracing")
    axis %= x.ndim
    perm = [axis] + [i for i in range(x.ndim) if i != axis]
    back = [perm.index(i) for i in range(x.ndim)]
    count = ops.shape(x)[axis]
    ids = ops.repeat(ops.range(count), repeats)
    summed = ops.unsorted_segment_sum(ops.transpose(g, perm), ids, count)
    return [ops.transpose(summed, back), None]


@register_gradient(MIRROR_PAD)
def _mirror_pad_gradient(op, grads, ops):
    """Axis by axis: the middle of the gradient, plus each mirrored edge reversed and added back onto the
    entries it copied (REFLECT skips the edge entry itself, SYMMETRIC includes it)."""
    x, g = op.inputs[0], grads[0]
    paddings, skip = op.attrs.get("static_paddings"), int(op.attrs["mode"] == "REFLECT")
    if paddings is None or x.shape is None:
        raise ValueError("gradient of MirrorPad: paddings and the input's rank must be known while tracing")
    for axis, (before, after) in enumerate(paddings):
        if before == after == 0:
            continue
        size = x.shape[axis]
        if size is None:
            raise ValueError(f"gradient of MirrorPad: dimension {axis} of the input must be known while tracing")

        def part(start, stop):
            return g[(slice(None),) * axis + (slice(start, stop),)]

        def placed(piece, lead):  # piece reversed, zero-padded to the input's size along axis
            amounts = [[0, 0]] * len(paddings)
            amounts[axis] = [lead, size - lead - (before if piece is left else after)]
            return ops.pad(ops.reverse(piece, [axis]), amounts)

        middle, left, right = part(before, before + size), part(0, before), part(before + size, None)
        total = middle
        if before:
            total = total + placed(left, skip)
        if after:
            total = total + placed(right, size - after - skip)
        g = total
    return [g, None]
