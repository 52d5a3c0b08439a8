"""Stateless random numbers and ``Generator`` (``rt.random.stateless_uniform``, ``stateless_normal``,
``rt.random.Generator``), as TensorFlow has them.

A stateless op is a pure function of its ``seed``, a pair of ints (a tensor of shape [2], possibly computed
while the graph runs): the same seed and shape give the same values, every call, eagerly and traced, so
constant folding may fold it. ``Generator`` keeps its state in a Variable ``[seed, counter]``: each draw
reads the state, uses it as a stateless seed and advances the counter, so a Generator made ``from_seed``
gives the same sequence each time, also inside a traced function (the Variable is its state there too).
The values are numpy's (a generator started from the seed pair), not TensorFlow's bits.

>>> stateless_uniform([2], seed=[1, 2]).numpy().tolist() == stateless_uniform([2], seed=[1, 2]).numpy().tolist()
True
>>> g = Generator.from_seed(4)
>>> g.normal([2]).numpy().tolist() != g.normal([2]).numpy().tolist()
True
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from runtime.core import dtypes
from runtime.core.errors import InvalidArgumentError
from runtime.core.attrs import DTYPE, STATIC_SHAPE
from runtime.core.registry import OpDef, OutputSpec, not_differentiable, register_op
from runtime.core.tensor import Shape, Tensor
from runtime.ops.convert import convert_to_tensor
from runtime.ops.shape_ops import known_or_none, shape_argument
from runtime.ops.validated import apply_validated
from runtime.ops.variables import Variable


def uniform_values(generator: np.random.Generator, size: tuple, low: Any, high: Any, dtype: np.dtype) -> np.ndarray:
    """``size`` values uniform in ``[low, high)`` of ``dtype`` from ``generator`` (the stateless ops share it)."""
    if low >= high and dtype.kind in "iu":
        raise InvalidArgumentError(f"Need minval < maxval: {low} >= {high}")
    if dtype.kind in "iu":
        return generator.integers(low, high, size=size, dtype=dtype)
    values = (low + (high - low) * generator.random(size)).astype(dtype)
    if high > low:  # rounding to a narrow float could reach maxval; the interval is half-open
        values = np.minimum(values, np.nextafter(dtype.type(high), dtype.type(low)))
    return np.asarray(values, dtype=dtype)  # a 0-d shape gives a numpy scalar, not an array


def _seed_generator(seed: np.ndarray) -> np.random.Generator:
    if seed.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], got {list(seed.shape)}")
    return np.random.default_rng(seed.astype(np.int64).view(np.uint64).tolist())  # negative ints too


def draw_spec(dims_shape: Shape, parameters: Sequence[OutputSpec], names: Sequence[str],
              attrs: Mapping[str, Any]) -> List[OutputSpec]:
    """The output of a random draw (stateful or stateless) of attr ``dtype``, fed ``shape`` as a vector of
    shape ``dims_shape``; each of its ``parameters`` (bounds, or mean and stddev, called ``names``) is a scalar."""
    for (_, parameter_shape), name in zip(parameters, names):
        if parameter_shape not in ((), None):
            raise ValueError(f"{name} must be a scalar, got shape {parameter_shape}")
    length = None if dims_shape is None else dims_shape[0]
    return [(attrs["dtype"], known_or_none(attrs.get("static_shape"), length))]


def draw_size(shape: np.ndarray) -> tuple:
    """A draw's ``shape`` input as the size numpy draws (a kernel's check: its values are known only now)."""
    if (shape < 0).any():
        raise ValueError(f"shape must be non-negative, got {shape.tolist()}")
    return tuple(shape.tolist())


def _stateless_infer(names):
    def infer(specs, attrs):
        (_, dims_shape), (seed_dtype, seed_shape), *parameters = specs
        if seed_dtype not in (dtypes.int32, dtypes.int64) or (seed_shape is not None and seed_shape != (2,)):
            raise TypeError(f"seed must be a pair of ints (an int32/int64 tensor of shape [2]), got {seed_dtype.name} "
                            f"of shape {seed_shape}")
        return draw_spec(dims_shape, parameters, names, attrs)
    return infer


def _stateless_uniform_kernel(shape, seed, minval, maxval, *, dtype, static_shape=None):
    return uniform_values(_seed_generator(seed), draw_size(shape), minval.item(), maxval.item(), dtype)


def _stateless_normal_kernel(shape, seed, mean, stddev, *, dtype, static_shape=None):
    values = _seed_generator(seed).standard_normal(draw_size(shape))
    return np.asarray(mean.item() + stddev.item() * values, dtype=dtype)


_STATELESS_ATTRS = {"dtype": DTYPE, "static_shape": STATIC_SHAPE}
STATELESS_UNIFORM = register_op(
    "StatelessRandomUniform", ("shape", "seed", "minval", "maxval"), _stateless_infer(("minval", "maxval")),
    _stateless_uniform_kernel, doc="Uniform values in [minval, maxval) of attr 'dtype', a function of the seed pair.",
    attrs=_STATELESS_ATTRS)
STATELESS_NORMAL = register_op(
    "StatelessRandomNormal", ("shape", "seed", "mean", "stddev"), _stateless_infer(("mean", "stddev")),
    _stateless_normal_kernel, doc="Normal values (mean, stddev) of attr 'dtype', a function of the seed pair.",
    attrs=_STATELESS_ATTRS)
not_differentiable(STATELESS_UNIFORM, "random draws do not depend smoothly on anything (TensorFlow gives None too)")
not_differentiable(STATELESS_NORMAL, "random draws do not depend smoothly on anything (TensorFlow gives None too)")


def _seed_tensor(seed: Any, op_name: str) -> Tensor:
    tensor = seed if isinstance(seed, Tensor) else convert_to_tensor(np.asarray(seed, dtype=np.int64))
    if tensor.dtype not in (dtypes.int32, dtypes.int64) or (tensor.shape is not None and tensor.shape != (2,)):
        raise TypeError(f"{op_name}: seed must be a pair of ints, e.g. seed=[1, 2] (an int32/int64 tensor of shape "
                        f"[2]), got {seed!r}")
    return tensor


def uniform_dtype(dtype: Any, maxval: Any, op_name: str) -> Tuple[np.dtype, Any]:
    """The dtype of a uniform draw and its upper bound: a float draw defaults to ``[0, 1)``, an integer one
    needs ``maxval`` (as in TensorFlow); any other dtype is a TypeError (shared by the stateful and the
    stateless op, so both refuse the same things with the same words).

    >>> uniform_dtype("float16", None, "RandomUniform")
    (dtype('float16'), 1)
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind not in "fiu":
        raise TypeError(f"{op_name}: dtype must be a float or int type, got {dtype.name}")
    if maxval is None:
        if dtype.kind != "f":
            raise ValueError(f"{op_name}: maxval must be given for the integer dtype {dtype.name}, e.g. maxval=10")
        maxval = 1
    return dtype, maxval


def normal_dtype(dtype: Any, op_name: str) -> np.dtype:
    """The dtype of a normal draw: a floating-point type, else a TypeError."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"{op_name}: dtype must be a floating-point type, got {dtype.name}")
    return dtype


def draw_parameters(op_def: OpDef, names: Sequence[str], values: Sequence[Any], dtype: np.dtype) -> List[Tensor]:
    """A draw's parameters (bounds, or mean and stddev) as tensors of ``dtype``: a Python value becomes one, a
    tensor of another dtype is a TypeError naming the parameter."""
    tensors = [convert_to_tensor(v, None if isinstance(v, Tensor) else dtype) for v in values]
    for tensor, name in zip(tensors, names):
        if tensor.dtype != dtype:
            raise TypeError(f"{op_def.name}: {name} has dtype {tensor.dtype.name} but dtype is {dtype.name}")
    return tensors


def _apply(op_def: OpDef, shape: Any, seed: Any, first: Any, second: Any, dtype: np.dtype) -> Tensor:
    dims, static = shape_argument(shape, op_def.name, "shape")
    values = draw_parameters(op_def, op_def.inputs[2:], (first, second), dtype)
    attrs = {"dtype": dtype}
    if static is not None:
        attrs["static_shape"] = static
    return apply_validated(op_def, (dims, _seed_tensor(seed, op_def.name), *values), attrs)


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                      name: Optional[str] = None) -> Tensor:
    """Values of ``shape`` uniform in ``[minval, maxval)``, determined by ``seed`` (a pair of ints).

    >>> stateless_uniform([3], seed=[7, 0], maxval=10, dtype="int32").shape
    TensorShape([3])
    """
    dtype, maxval = uniform_dtype(dtype, maxval, STATELESS_UNIFORM.name)
    return _apply(STATELESS_UNIFORM, shape, seed, minval, maxval, dtype)


def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     name: Optional[str] = None) -> Tensor:
    """Values of ``shape`` from a normal distribution (``mean``, ``stddev``), determined by ``seed`` (a pair of ints).

    >>> stateless_normal([2, 2], seed=[1, 2]).shape
    TensorShape([2, 2])
    """
    dtype = normal_dtype(dtype, STATELESS_NORMAL.name)
    return _apply(STATELESS_NORMAL, shape, seed, mean, stddev, dtype)


class Generator:
    """A random number generator with its state in a Variable ``[seed, counter]`` (``tf.random.Generator``).

    Each ``uniform``/``normal`` call draws with the state as a stateless seed, then advances the counter:
    new values on every call, the same sequence for the same seed, eagerly and in traced functions.

    >>> g = Generator.from_seed(1)
    >>> first = g.uniform([2])
    >>> g.reset_from_seed(1)
    >>> g.uniform([2]).numpy().tolist() == first.numpy().tolist()
    True
    """

    def __init__(self, state: Any):
        self._state = Variable(np.asarray(state, dtype=np.int64), name="generator_state", trainable=False)

    @classmethod
    def from_seed(cls, seed: int) -> "Generator":
        """A generator whose sequence is determined by ``seed``."""
        return cls([_int_seed(seed), 0])

    @classmethod
    def from_non_deterministic_state(cls) -> "Generator":
        """A generator seeded from the operating system's entropy."""
        return cls([int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1), 0])

    @property
    def state(self) -> Variable:
        """The Variable holding ``[seed, counter]``."""
        return self._state

    def reset_from_seed(self, seed: int) -> None:
        """Start the sequence of ``seed`` over."""
        self._state.assign(np.array([_int_seed(seed), 0], np.int64))

    def _next_seed(self) -> Tensor:
        seed = self._state.read_value()
        self._state.assign_add(np.array([0, 1], np.int64))
        return seed

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                name: Optional[str] = None) -> Tensor:
        """The next values, uniform in ``[minval, maxval)`` (as ``stateless_uniform``)."""
        return stateless_uniform(shape, self._next_seed(), minval, maxval, dtype)

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
               name: Optional[str] = None) -> Tensor:
        """The next values from a normal distribution (as ``stateless_normal``)."""
        return stateless_normal(shape, self._next_seed(), mean, stddev, dtype)


def _int_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"Generator: seed must be a Python int, got {seed!r}")
    return int(seed)
