"""Optimizers small enough to read: ``SGD`` (with momentum) and ``Adam``, as in ``tf.keras.optimizers``.

``apply_gradients(zip(grads, variables))`` updates each Variable with assign ops, so inside a traced
train step the updates are part of the graph and run on every call, in program order. Slot
variables (momentum, Adam's moments, the step count) are made on the first call, outside any graph
being traced (like TensorFlow's ``init_scope``): they start as zeros, whatever is being traced.

>>> import runtime as rt
>>> w = rt.Variable(1.0)
>>> rt.optimizers.SGD(learning_rate=0.5).apply_gradients([(rt.constant(2.0), w)])
>>> w.numpy()
np.float32(0.0)
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple

import numpy as np

from runtime.core import context
from runtime.core.tensor import Tensor
from runtime import ops as _ops
from runtime.ops.variables import Variable


class Optimizer:
    """Shared bookkeeping: pairs checked, slots made once per variable."""

    def __init__(self, learning_rate: float):
        self.learning_rate = float(learning_rate)
        self._slots: Dict[Tuple[int, str], Variable] = {}
        self._keep: List[Variable] = []  # slots are keyed by id: keep their variables alive

    def apply_gradients(self, grads_and_vars: Iterable[Tuple[Optional[Tensor], Variable]]) -> None:
        """Update each variable from its gradient; pairs whose gradient is None are skipped."""
        pairs = list(grads_and_vars)
        for grad, variable in pairs:
            if not isinstance(variable, Variable):
                raise TypeError(f"{type(self).__name__}.apply_gradients: expected (gradient, rt.Variable) pairs, got "
                                f"{type(variable).__name__} {variable!r} as a variable")
        present = [(g, v) for g, v in pairs if g is not None]
        if pairs and not present:
            names = ", ".join(v.name for _, v in pairs)
            raise ValueError(f"{type(self).__name__}.apply_gradients: no gradient for any variable ({names}); check "
                             "that the loss depends on them and was computed inside the GradientTape")
        self._prepare([v for _, v in present])
        for grad, variable in present:
            self._update(_ops.convert_to_tensor(grad, variable.dtype), variable)

    def _prepare(self, variables: List[Variable]) -> None:
        """Make what ``_update`` needs before any update runs (slots, the step count)."""

    def _slot(self, variable: Variable, name: str, initial: Any = None) -> Variable:
        key = (id(variable), name)
        slot = self._slots.get(key)
        if slot is None:
            with context.graph_scope(None):  # made eagerly even while a train step is being traced
                value = np.zeros(variable.shape, variable.dtype) if initial is None else initial
                slot = Variable(value, name=f"{variable.name}/{name}", trainable=False)
            self._slots[key] = slot
            self._keep.append(variable)
        return slot

    def _update(self, grad: Tensor, variable: Variable) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """``v -= learning_rate * g``; with ``momentum``: ``velocity = momentum * velocity - learning_rate * g``
    and ``v += velocity`` (Keras' formulation)."""

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0):
        super().__init__(learning_rate)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"SGD: momentum must be in [0, 1], got {momentum}")
        self.momentum = float(momentum)

    def _update(self, grad: Tensor, variable: Variable) -> None:
        if self.momentum == 0.0:
            variable.assign_sub(grad * self.learning_rate)
            return
        velocity = self._slot(variable, "momentum")
        new_velocity = velocity.assign(velocity * self.momentum - grad * self.learning_rate)
        variable.assign_add(new_velocity if context.in_graph_mode() else velocity.read_value())


class Adam(Optimizer):
    """Adam (Kingma & Ba): moment estimates ``m``, ``v`` and a bias-corrected step, as in Keras:
    ``v -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)``."""

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7):
        super().__init__(learning_rate)
        for name, value in (("beta_1", beta_1), ("beta_2", beta_2)):
            if not 0.0 <= value < 1.0:
                raise ValueError(f"Adam: {name} must be in [0, 1), got {value}")
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self._step_count: Optional[Variable] = None
        self._step_factors: Dict[Any, Tensor] = {}

    @property
    def iterations(self) -> Variable:
        """How many times ``apply_gradients`` has run (an int64 Variable)."""
        if self._step_count is None:
            with context.graph_scope(None):
                self._step_count = Variable(np.int64(0), name="Adam/iterations", trainable=False)
        return self._step_count

    def _prepare(self, variables: List[Variable]) -> None:
        step = self.iterations.assign_add(np.int64(1))
        step = step if context.in_graph_mode() else self.iterations.read_value()
        self._step_factors = {}
        for dtype in {v.dtype for v in variables}:
            t = _ops.cast(step, dtype)
            correction = _ops.sqrt(1.0 - _ops.pow(_ops.constant(self.beta_2, dtype), t)) / \
                (1.0 - _ops.pow(_ops.constant(self.beta_1, dtype), t))
            self._step_factors[dtype] = correction * self.learning_rate

    def _update(self, grad: Tensor, variable: Variable) -> None:
        m, v = self._slot(variable, "m"), self._slot(variable, "v")
        in_graph = context.in_graph_mode()
        new_m = m.assign(m * self.beta_1 + grad * (1.0 - self.beta_1))
        new_v = v.assign(v * self.beta_2 + _ops.square(grad) * (1.0 - self.beta_2))
        if not in_graph:
            new_m, new_v = m.read_value(), v.read_value()
        variable.assign_sub(self._step_factors[variable.dtype] * new_m / (_ops.sqrt(new_v) + self.epsilon))
