"""Random numbers (``rt.random``): ``uniform``, ``normal`` and ``categorical``, stateful ops so they are
never folded or merged and run on every call of a traced function; ``set_seed``; the stateless ops and
``Generator`` are in ``runtime.ops.stateless_random_ops``.

Seeds follow TensorFlow's rules (``runtime.ops.random_seeds``): an op seed starts a reproducible sequence --
repeated calls give new values, and ``set_seed`` starts the sequences over -- eagerly and traced alike.

>>> set_seed(3)
>>> first = uniform([2], seed=7).numpy().tolist()
>>> first != uniform([2], seed=7).numpy().tolist()
True
>>> set_seed(3)
>>> first == uniform([2], seed=7).numpy().tolist()
True
>>> set_seed(None)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError
from runtime.ops.convert import convert_to_tensor
from runtime.core.attrs import DTYPE, STATIC_COUNT, STATIC_SHAPE, instance_of
from runtime.core.registry import not_differentiable, register_op
from runtime.ops.shape_ops import constant_value, shape_argument
from runtime.ops.validated import apply_validated
from runtime.core.tensor import Tensor
from runtime.ops.random_seeds import RandomStream, check_seed, set_seed, stream_for  # noqa: F401 (rt.random.set_seed)
from runtime.ops.stateless_random_ops import (Generator, stateless_normal, stateless_uniform,  # noqa: F401
                                              draw_parameters, draw_size, draw_spec, normal_dtype, uniform_dtype,
                                              uniform_values)


def _draw_infer(names):
    return lambda specs, attrs: draw_spec(specs[0][1], specs[1:], names, attrs)


def _uniform_kernel(shape, minval, maxval, *, dtype, seed, static_shape=None):
    return uniform_values(seed.generator, draw_size(shape), minval.item(), maxval.item(), dtype)


_SEED = instance_of(RandomStream, "a random stream")
_RANDOM_ATTRS = {"dtype": DTYPE, "seed": _SEED, "static_shape": STATIC_SHAPE}
UNIFORM = register_op("RandomUniform", ("shape", "minval", "maxval"), _draw_infer(("minval", "maxval")),
                      _uniform_kernel, stateful=True, doc="Uniform random values in [minval, maxval) of attr 'dtype'.",
                      attrs=_RANDOM_ATTRS)


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
            seed: Optional[int] = None) -> Tensor:
    """Random values of ``shape`` drawn uniformly from ``[minval, maxval)``.

    Floats default to ``[0, 1)``; integer dtypes need ``maxval``, as in TensorFlow.

    >>> uniform([5], maxval=10, dtype="int32", seed=1).shape
    TensorShape([5])
    """
    dtype, maxval = uniform_dtype(dtype, maxval, UNIFORM.name)
    seed = check_seed(seed, "RandomUniform")
    dims, static = shape_argument(shape, "RandomUniform", "shape")
    bounds = draw_parameters(UNIFORM, ("minval", "maxval"), (minval, maxval), dtype)
    attrs = {"dtype": dtype, "seed": stream_for(UNIFORM.name, dtype, seed)}
    if static is not None:
        attrs["static_shape"] = static
    return apply_validated(UNIFORM, (dims, *bounds), attrs)  # eagerly too: a bound must be a scalar

not_differentiable(UNIFORM, "random draws do not depend smoothly on anything (TensorFlow gives None too)")

def _normal_kernel(shape, mean, stddev, *, dtype, seed, static_shape=None):
    values = seed.generator.standard_normal(draw_size(shape))
    return (mean.item() + stddev.item() * values).astype(dtype)


NORMAL = register_op("RandomNormal", ("shape", "mean", "stddev"), _draw_infer(("mean", "stddev")), _normal_kernel,
                     stateful=True, doc="Normally distributed values (mean, stddev) of attr 'dtype'.",
                     attrs=_RANDOM_ATTRS)


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
           seed: Optional[int] = None) -> Tensor:
    """Random values of ``shape`` from a normal distribution with ``mean`` and ``stddev``.

    >>> normal([2, 3], seed=1).shape
    TensorShape([2, 3])
    """
    dtype = normal_dtype(dtype, NORMAL.name)
    attrs = {"dtype": dtype, "seed": stream_for(NORMAL.name, dtype, check_seed(seed, "RandomNormal"))}
    dims, static = shape_argument(shape, "RandomNormal", "shape")
    moments = draw_parameters(NORMAL, ("mean", "stddev"), (mean, stddev), dtype)
    if static is not None:
        attrs["static_shape"] = static
    return apply_validated(NORMAL, (dims, *moments), attrs)


def _categorical_infer(specs, attrs):
    (logits_dtype, logits_shape), (count_dtype, count_shape) = specs
    if logits_dtype.kind != "f":
        raise TypeError(f"logits must be a floating-point tensor, got {logits_dtype.name}")
    if logits_shape is not None and len(logits_shape) != 2:
        raise ValueError(f"logits must have shape [batch_size, num_classes], got shape {logits_shape}")
    if count_dtype not in (dtypes.int32, dtypes.int64) or count_shape not in ((), None):
        raise TypeError(f"num_samples must be a scalar int32 tensor, got {count_dtype.name} of shape {count_shape}")
    batch = None if logits_shape is None else logits_shape[0]
    return [(attrs["dtype"], (batch, attrs.get("static_num_samples")))]


def _categorical_kernel(logits, num_samples, *, dtype, seed, static_num_samples=None):
    count = int(num_samples)
    if count < 0:
        raise ValueError(f"num_samples must be >= 0, got {count}")
    if logits.shape[1] == 0:
        raise ValueError("logits must have at least one class")
    wide = logits.astype(np.float64)
    if np.isnan(wide).any() or np.isposinf(wide).any() or np.isneginf(wide).all(axis=1).any():
        raise InvalidArgumentError("every row of logits needs a finite maximum (no nan, no +inf, not all -inf)")
    weights = np.exp(wide - wide.max(axis=1, keepdims=True))  # probabilities up to each row's total
    cumulative = np.cumsum(weights, axis=1)
    draws = seed.generator.random((logits.shape[0], count)) * cumulative[:, -1:]
    samples = np.stack([np.searchsorted(row, row_draws, side="right") for row, row_draws in zip(cumulative, draws)])
    return np.minimum(samples.reshape(logits.shape[0], count), logits.shape[1] - 1).astype(dtype)


CATEGORICAL = register_op("Multinomial", ("logits", "num_samples"), _categorical_infer, _categorical_kernel,
                          stateful=True, doc="num_samples class indices per row, drawn with softmax(logits).",
                          attrs={"dtype": DTYPE, "seed": _SEED, "static_num_samples": STATIC_COUNT})


def categorical(logits: Any, num_samples: Any, dtype: Any = dtypes.int64, seed: Optional[int] = None) -> Tensor:
    """``num_samples`` class indices for each row of ``logits`` ([batch, classes], unnormalized log
    probabilities), as a [batch, num_samples] tensor of ``dtype`` (int64).

    >>> categorical([[-float("inf"), 0.0]], 3, seed=0)
    Tensor([[1 1 1]], shape=(1, 3), dtype=int64)
    """
    logits = convert_to_tensor(logits)
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Multinomial: dtype must be rt.int32 or rt.int64, got {dtype.name}")
    count = convert_to_tensor(num_samples, None if isinstance(num_samples, Tensor) else dtypes.int32)
    attrs = {"dtype": dtype, "seed": stream_for(CATEGORICAL.name, dtype, check_seed(seed, "Multinomial"))}
    known = constant_value(count)
    if known is not None and known.ndim == 0:
        attrs["static_num_samples"] = int(known)
    return apply_validated(CATEGORICAL, (logits, count), attrs)


not_differentiable(NORMAL, "random draws do not depend smoothly on anything (TensorFlow gives None too)")
not_differentiable(CATEGORICAL, "sampled class indices are integers")
