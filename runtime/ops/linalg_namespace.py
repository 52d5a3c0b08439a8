"""``rt.linalg``: TensorFlow's ``tf.linalg`` names. ``transpose`` here swaps the last two axes
(``tf.linalg.matrix_transpose``); ``matmul`` takes ``transpose_a``/``transpose_b``.

>>> import runtime as rt
>>> rt.linalg.trace(rt.linalg.eye(3))
Tensor(3.0, shape=(), dtype=float32)
"""
from runtime.ops.einsum_ops import einsum  # noqa: F401
from runtime.ops.linalg_ops import (det, diag_part, eye, inv, matmul, matrix_transpose, matvec, norm, trace,  # noqa: F401
                                    transpose)
from runtime.ops.nn_ops import l2_normalize  # noqa: F401
