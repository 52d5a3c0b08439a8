"""Random numbers (``rt.random``): ``uniform``, a stateful op so it is never folded or merged and runs
on every call of a traced function.

With ``seed`` the op is reproducible: every run of it yields the same values (a fresh numpy
``Generator`` seeded with ``seed``). Without one, values come from one process-wide generator.

>>> uniform([2], seed=7).numpy().tolist() == uniform([2], seed=7).numpy().tolist()
True
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError
from runtime.ops.convert import convert_to_tensor
from runtime.core.registry import apply_op, not_differentiable, register_op
from runtime.ops.shape_ops import known_or_none, shape_argument
from runtime.core.tensor import Tensor

_UNSEEDED = np.random.default_rng()


def _uniform_infer(specs, attrs):
    (_, dims_shape), (min_dtype, min_shape), (max_dtype, max_shape) = specs
    for bound_shape, name in ((min_shape, "minval"), (max_shape, "maxval")):
        if bound_shape not in ((), None):
            raise ValueError(f"{name} must be a scalar, got shape {bound_shape}")
    length = None if dims_shape is None else dims_shape[0]
    return [(attrs["dtype"], known_or_none(attrs.get("static_shape"), length))]


def _uniform_kernel(shape, minval, maxval, *, dtype, seed, static_shape=None):
    if (shape < 0).any():
        raise ValueError(f"shape must be non-negative, got {shape.tolist()}")
    size = tuple(shape.tolist())
    low, high = minval.item(), maxval.item()
    if low >= high and dtype.kind in "iu":
        raise InvalidArgumentError(f"Need minval < maxval: {low} >= {high}")
    generator = _UNSEEDED if seed is None else np.random.default_rng(seed)
    if dtype.kind in "iu":
        return generator.integers(low, high, size=size, dtype=dtype)
    values = (low + (high - low) * generator.random(size)).astype(dtype)
    if high > low:  # rounding to a narrow float could reach maxval; the interval is half-open
        np.minimum(values, np.nextafter(dtype.type(high), dtype.type(low)), out=values)
    return values


UNIFORM = register_op("RandomUniform", ("shape", "minval", "maxval"), _uniform_infer, _uniform_kernel,
                      stateful=True, doc="Uniform random values in [minval, maxval) of attr 'dtype'.")


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
            seed: Optional[int] = None) -> Tensor:
    """Random values of ``shape`` drawn uniformly from ``[minval, maxval)``.

    Floats default to ``[0, 1)``; integer dtypes need ``maxval``, as in TensorFlow.

    >>> uniform([5], maxval=10, dtype="int32", seed=1).shape
    (5,)
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind not in "fiu":
        raise TypeError(f"RandomUniform: dtype must be a float or int type, got {dtype.name}")
    if maxval is None:
        if dtype.kind != "f":
            raise ValueError(f"RandomUniform: maxval must be given for the integer dtype {dtype.name}, "
                             "e.g. rt.random.uniform(shape, maxval=10, dtype=rt.int32)")
        maxval = 1
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise TypeError(f"RandomUniform: seed must be a non-negative Python int or None, got {seed!r}")
    dims, static = shape_argument(shape, "RandomUniform", "shape")
    bounds = [convert_to_tensor(value, None if isinstance(value, Tensor) else dtype) for value in (minval, maxval)]
    for bound, name in zip(bounds, ("minval", "maxval")):
        if bound.dtype != dtype:
            raise TypeError(f"RandomUniform: {name} has dtype {bound.dtype.name} but dtype is {dtype.name}")
    attrs = {"dtype": dtype, "seed": None if seed is None else int(seed)}
    if static is not None:
        attrs["static_shape"] = static
    return apply_op(UNIFORM, (dims, *bounds), attrs)

not_differentiable(UNIFORM, "random draws do not depend smoothly on anything (TensorFlow gives None too)")
