"""``tf.keras.optimizers``, ``tf.keras.losses`` and ``tf.keras.activations`` for the ``tf`` shim.

The optimizers are the runtime's (``rt.optimizers.SGD``/``Adam``); the losses and activations are small
compositions of runtime ops with Keras's conventions: a loss *function* (``mean_squared_error``) averages over
the last axis and keeps the batch axis, a loss *class* (``MeanSquaredError()``) also averages over the batch.
Probabilities given to the cross-entropies are clipped to ``[1e-7, 1 - 1e-7]`` as Keras does.
Keras layers and models are out of scope (``docs/PORTING.md``).

>>> from autograph_lite import tf
>>> tf.keras.losses.MeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]])
Tensor(0.5, shape=(), dtype=float32)
>>> tf.keras.activations.relu(tf.constant([-1.0, 2.0]))
Tensor([0. 2.], shape=(2,), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Callable

import runtime as rt

_EPSILON = 1e-7  # Keras's backend epsilon: how far probabilities are kept from 0 and 1


def _pair(y_true: Any, y_pred: Any):
    y_pred = rt.convert_to_tensor(y_pred)
    return rt.cast(rt.convert_to_tensor(y_true), y_pred.dtype), y_pred


# --- loss functions: one value per example (the mean over the last axis) ---------------------------------
def mean_squared_error(y_true: Any, y_pred: Any) -> rt.Tensor:
    """``mean(square(y_pred - y_true), axis=-1)``.

    >>> mean_squared_error([[0.0, 2.0]], [[1.0, 1.0]])
    Tensor([1.], shape=(1,), dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return rt.reduce_mean(rt.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> rt.Tensor:
    """``mean(abs(y_pred - y_true), axis=-1)``.

    >>> mean_absolute_error([[0.0, 2.0]], [[1.0, 1.0]])
    Tensor([1.], shape=(1,), dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return rt.reduce_mean(rt.abs(y_pred - y_true), axis=-1)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> rt.Tensor:
    """The mean over the last axis of ``-(y log p + (1 - y) log(1 - p))``; logits go through a stable form.

    >>> binary_crossentropy([[1.0]], [[0.0]], from_logits=True)
    Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    if from_logits:
        return rt.reduce_mean(rt.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred), axis=-1)
    p = rt.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON)
    return rt.reduce_mean(-(y_true * rt.log(p) + (1.0 - y_true) * rt.log(1.0 - p)), axis=-1)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> rt.Tensor:
    """``-sum(y_true * log(p), axis=-1)`` for one-hot (or soft) labels; ``p`` is normalized to sum to 1.

    >>> categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]])
    Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    y_true, y_pred = _pair(y_true, y_pred)
    if from_logits:
        return rt.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    p = rt.clip_by_value(y_pred / rt.reduce_sum(y_pred, axis=-1, keepdims=True), _EPSILON, 1.0 - _EPSILON)
    return -rt.reduce_sum(y_true * rt.log(p), axis=-1)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> rt.Tensor:
    """``categorical_crossentropy`` with integer class labels instead of one-hot rows.

    >>> sparse_categorical_crossentropy([1], [[0.5, 0.5]])
    Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    y_pred = rt.convert_to_tensor(y_pred)
    labels = rt.cast(rt.convert_to_tensor(y_true), rt.int32)
    if labels.ndim is not None and y_pred.ndim is not None and labels.ndim == y_pred.ndim:
        labels = rt.squeeze(labels, -1)  # Keras accepts labels of shape [batch, 1]
    depth = y_pred.shape[-1]
    if depth is None:
        raise ValueError("sparse_categorical_crossentropy: the number of classes (y_pred's last dim) must be known")
    return categorical_crossentropy(rt.one_hot(labels, depth, dtype=y_pred.dtype), y_pred, from_logits)


mse, mae = mean_squared_error, mean_absolute_error


# --- loss classes: the mean over the batch too (Keras's default reduction) --------------------------------
class _Loss:
    _function: Callable[..., rt.Tensor]

    def __init__(self, from_logits: bool = False, name: str = ""):
        self.from_logits = from_logits
        self.name = name or type(self).__name__

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> rt.Tensor:
        per_example = self._per_example(y_true, y_pred)
        if sample_weight is not None:
            per_example = per_example * rt.cast(rt.convert_to_tensor(sample_weight), per_example.dtype)
        return rt.reduce_mean(per_example)

    def _per_example(self, y_true: Any, y_pred: Any) -> rt.Tensor:
        return type(self)._function(y_true, y_pred, from_logits=self.from_logits)


class MeanSquaredError(_Loss):
    """``mean_squared_error`` averaged over the batch."""

    def _per_example(self, y_true: Any, y_pred: Any) -> rt.Tensor:
        return mean_squared_error(y_true, y_pred)


class MeanAbsoluteError(_Loss):
    """``mean_absolute_error`` averaged over the batch."""

    def _per_example(self, y_true: Any, y_pred: Any) -> rt.Tensor:
        return mean_absolute_error(y_true, y_pred)


class BinaryCrossentropy(_Loss):
    """``binary_crossentropy`` averaged over the batch (``from_logits=True`` for logits)."""
    _function = staticmethod(binary_crossentropy)


class CategoricalCrossentropy(_Loss):
    """``categorical_crossentropy`` averaged over the batch (``from_logits=True`` for logits)."""
    _function = staticmethod(categorical_crossentropy)


class SparseCategoricalCrossentropy(_Loss):
    """``sparse_categorical_crossentropy`` averaged over the batch (``from_logits=True`` for logits)."""
    _function = staticmethod(sparse_categorical_crossentropy)


# --- activations -----------------------------------------------------------------------------------------
def linear(x: Any) -> rt.Tensor:
    """The identity (Keras's ``activation=None``)."""
    return rt.convert_to_tensor(x)


def exponential(x: Any) -> rt.Tensor:
    """``exp(x)``."""
    return rt.exp(x)


def swish(x: Any) -> rt.Tensor:
    """``x * sigmoid(x)`` (also called SiLU)."""
    x = rt.convert_to_tensor(x)
    return x * rt.sigmoid(x)


def selu(x: Any) -> rt.Tensor:
    """The scaled ELU: ``1.0507 * elu(x, 1.67326)``, with the constants of Klambauer et al. (2017)."""
    x = rt.convert_to_tensor(x)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return scale * rt.where(x > 0, x, alpha * rt.math.expm1(rt.minimum(x, 0.0)))


def softsign(x: Any) -> rt.Tensor:
    """``x / (1 + |x|)``."""
    x = rt.convert_to_tensor(x)
    return x / (1.0 + rt.abs(x))

