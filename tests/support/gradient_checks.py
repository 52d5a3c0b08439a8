"""Shared helpers for gradient tests -- now the public ``autograph_lite.testing.gradients`` (kept here so that
``from gradient_checks import ...`` keeps working).

Every check differentiates ``sum(f(*xs) * w)`` for a random cotangent ``w``, so a rule is tested with a
general output gradient, not only ones.
"""
from autograph_lite.testing.gradients import (EPSILON, assert_close, converted_eager_tape_gradients,  # noqa: F401
                                              converted_tape_gradients, graph_gradients, numeric_gradients,
                                              tape_gradients)
