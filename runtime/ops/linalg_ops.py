"""Linear algebra (``rt.linalg``): matmul, matvec, norm, trace, diag_part, eye, transpose, det, inv.

``diag_part``, ``det`` and ``inv`` are registered ops with numpy kernels and work on batches (the last
two axes are the matrix). ``matvec``, ``trace``, ``norm`` and the matrix ``transpose`` are built from
registered ops.

>>> det([[2.0, 0.0], [0.0, 3.0]])
Tensor(6.0, shape=(), dtype=float32)
>>> norm([3.0, 4.0])
Tensor(5.0, shape=(), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from runtime.core import shapes
from runtime.core.errors import InvalidArgumentError
from runtime.core.registry import register_gradient, register_op
from runtime.core.public_names import alias
from runtime.core.tensor import Tensor
from runtime.ops.array_ops import expand_dims, squeeze, transpose as _transpose
from runtime.ops.convert import convert_to_tensor
from runtime.ops.creation_ops import eye  # noqa: F401 - rt.linalg.eye
from runtime.ops.math_ops import matmul as _matmul, pow
from runtime.ops.reduction_ops import reduce_max, reduce_sum
from runtime.ops.unary_ops import abs, sqrt, square  # noqa: A004
from runtime.ops.validated import apply_validated


def _matrix_shape(dtype, shape, kinds: str, square: bool):
    if dtype.kind not in kinds:
        need = "a floating-point" if kinds == "f" else "a numeric or bool"
        raise TypeError(f"input must be {need} tensor, got {dtype.name}")
    if shape is None:
        return None
    if len(shape) < 2:
        raise ValueError(f"input must be a matrix or a batch of matrices (rank >= 2), got shape "
                         f"{shapes.format_shape(shape)}")
    rows, columns = shape[-2:]
    if square and rows is not None and columns is not None and rows != columns:
        raise ValueError(f"input must be a square matrix (or a batch of them), got shape {shapes.format_shape(shape)}")
    return shape


def _diag_part_infer(specs, attrs):
    dtype, shape = specs[0]
    shape = _matrix_shape(dtype, shape, "fiub", square=False)
    if shape is None:
        return [(dtype, None)]
    rows, columns = shape[-2:]
    length = None if rows is None or columns is None else min(rows, columns)
    return [(dtype, shape[:-2] + (length,))]


def _det_infer(specs, attrs):
    dtype, shape = specs[0]
    shape = _matrix_shape(dtype, shape, "f", square=True)
    return [(dtype, None if shape is None else shape[:-2])]


def _inv_infer(specs, attrs):
    dtype, shape = specs[0]
    return [(dtype, _matrix_shape(dtype, shape, "f", square=True))]


def _linalg_kernel(function):
    """numpy's linalg has no float16: compute in float32 and round back."""
    def kernel(x):
        wide = x.astype(np.float32) if x.dtype == np.float16 else x
        return np.asarray(function(wide)).astype(x.dtype, copy=False)
    return kernel


def _square_check(x):
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"input must be a square matrix (or a batch of them), got shape {x.shape}")


def _det(x):
    _square_check(x)
    return np.linalg.det(x)


def _inv(x):
    _square_check(x)
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("Input is not invertible.") from None


DIAG_PART = register_op("MatrixDiagPart", ("input",), _diag_part_infer,
                        lambda x: np.diagonal(x, axis1=-2, axis2=-1).copy(),
                        doc="The main diagonal of each matrix (last two axes).")
DET = register_op("MatrixDeterminant", ("input",), _det_infer, _linalg_kernel(_det),
                  doc="The determinant of each square matrix (last two axes).")
INV = register_op("MatrixInverse", ("input",), _inv_infer, _linalg_kernel(_inv),
                  doc="The inverse of each square matrix; InvalidArgumentError if one is singular.")


# --- gradients (VJPs; see runtime.core.registry.register_gradient) --------------------------------------
@register_gradient(DIAG_PART)
def _diag_part_gradient(op, grads, ops):
    x, g = op.inputs[0], grads[0]
    if x.shape is None or None in x.shape[-2:]:
        raise ValueError("gradient of MatrixDiagPart: the matrix dims must be known while tracing")
    rows, columns = x.shape[-2:]
    mask = ops.eye(rows, columns, dtype=x.dtype)  # g spread onto the diagonal
    return [ops.expand_dims(g, -1) * mask if rows <= columns else ops.expand_dims(g, -2) * mask]


@register_gradient(DET)
def _det_gradient(op, grads, ops):  # d det(X) = det(X) inv(X)^T
    scale = ops.expand_dims(ops.expand_dims(grads[0] * op.outputs[0], -1), -1)
    return [scale * transpose(inv(op.inputs[0]))]


@register_gradient(INV)
def _inv_gradient(op, grads, ops):  # d inv(X) = -inv(X)^T g inv(X)^T
    inverse_t = transpose(op.outputs[0])
    return [-_matmul(inverse_t, _matmul(grads[0], inverse_t))]


def diag_part(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The main diagonal of ``input`` (of each matrix in a batch).

    >>> diag_part([[1, 2], [3, 4], [5, 6]])
    Tensor([1 4], shape=(2,), dtype=int32)
    """
    return apply_validated(DIAG_PART, (convert_to_tensor(input),), name=name)


def det(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The determinant of a square matrix (of each matrix in a batch), via numpy's LU decomposition.

    >>> det([[[1.0, 2.0], [3.0, 4.0]]]).shape
    TensorShape([1])
    """
    return apply_validated(DET, (convert_to_tensor(input),), name=name)


def inv(input: Any, adjoint: bool = False, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The inverse of a square matrix (of each in a batch); a singular one is an ``InvalidArgumentError``.

    >>> inv([[2.0, 0.0], [0.0, 4.0]])
    Tensor([[0.5  0.  ]
     [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    if adjoint:
        raise ValueError("linalg.inv: adjoint=True is not supported (no complex dtypes); transpose the input first")
    return apply_validated(INV, (convert_to_tensor(input),), name=name)


def transpose(a: Any, name: Optional[str] = None, conjugate: bool = False) -> Tensor:
    """Swap the last two axes (``tf.linalg.matrix_transpose``); the rank must be known.

    >>> transpose([[[1, 2, 3]]]).shape
    TensorShape([1, 3, 1])
    """
    a = convert_to_tensor(a)
    if a.ndim is None:
        raise ValueError("linalg.transpose: the rank of a must be known while tracing; give the function an "
                         "input_signature with a known rank")
    if a.ndim < 2:
        raise ValueError(f"linalg.transpose: a must have rank >= 2, got shape {a.shape}")
    return _transpose(a, list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])


matrix_transpose = alias(transpose, "matrix_transpose", __name__)  # TensorFlow's other name for it


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           name: Optional[str] = None) -> Tensor:
    """``a @ b`` (batched), optionally transposing the last two axes of either first.

    >>> matmul([[1.0, 2.0]], [[1.0, 2.0]], transpose_b=True)
    Tensor([[5.]], shape=(1, 1), dtype=float32)
    """
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    return _matmul(transpose(a) if transpose_a else a, transpose(b) if transpose_b else b)


def matvec(a: Any, b: Any, transpose_a: bool = False, name: Optional[str] = None) -> Tensor:
    """Matrix times vector: ``(a @ b[..., None])[..., 0]``.

    >>> matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])
    Tensor([3. 7.], shape=(2,), dtype=float32)
    """
    b = convert_to_tensor(b)
    if b.ndim == 0:
        raise ValueError("linalg.matvec: b must be a vector (or a batch of them), got a scalar")
    return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a), [-1])


def trace(x: Any, name: Optional[str] = None) -> Tensor:
    """The sum of the main diagonal (of each matrix in a batch).

    >>> trace([[1, 2], [3, 4]])
    Tensor(5, shape=(), dtype=int32)
    """
    return reduce_sum(diag_part(x), -1)


Axis = Union[int, Sequence[int], None]
_MATRIX_ORDERS = ("euclidean", "fro", 1, np.inf)


def norm(tensor: Any, ord: Any = "euclidean", axis: Axis = None, keepdims: bool = False,  # noqa: A002
         name: Optional[str] = None) -> Tensor:
    """Vector or matrix norm, as ``tf.norm``.

    ``axis`` None: all entries as one vector. An int: vector norms along it; ``ord`` is
    ``'euclidean'`` (= 2), 1, ``np.inf`` or any p > 0. A pair of ints: matrix norms over those axes;
    ``ord`` is ``'euclidean'``/``'fro'`` (Frobenius), 1 (max column sum) or ``np.inf`` (max row sum).

    >>> norm([[1.0, -2.0], [3.0, 4.0]], ord=1, axis=[0, 1])
    Tensor(6.0, shape=(), dtype=float32)
    """
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.kind != "f":
        raise TypeError(f"norm: tensor must be a floating-point tensor, got {tensor.dtype.name}; convert it with "
                        "rt.cast(tensor, rt.float32)")
    axes = [axis] if isinstance(axis, (int, np.integer)) else None if axis is None else [int(a) for a in axis]
    if axes is not None and len(axes) == 2:
        return _matrix_norm(tensor, ord, axes, keepdims)
    if axes is not None and len(axes) != 1:
        raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}")
    valid_p = isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0
    if ord == "fro" or not (ord == "euclidean" or valid_p):
        raise ValueError(f"norm: ord must be 'euclidean', 1, 2, np.inf or a number > 0 for a vector norm, got {ord!r}"
                         + (" ('fro' is for matrices: pass a pair of axes)" if ord == "fro" else ""))
    magnitude = abs(tensor)
    if ord in ("euclidean", 2):
        return sqrt(reduce_sum(square(tensor), axes, keepdims))
    if ord == 1:
        return reduce_sum(magnitude, axes, keepdims)
    if ord == np.inf:
        return reduce_max(magnitude, axes, keepdims)
    return pow(reduce_sum(pow(magnitude, float(ord)), axes, keepdims), 1.0 / ord)


def _matrix_norm(tensor: Tensor, ord: Any, axes: Sequence[int], keepdims: bool) -> Tensor:  # noqa: A002
    if ord not in _MATRIX_ORDERS or isinstance(ord, bool):
        raise ValueError(f"norm: ord must be 'euclidean', 'fro', 1 or np.inf for a matrix norm, got {ord!r}"
                         + (" (the matrix 2-norm needs singular values, which this runtime does not compute)"
                            if ord == 2 else ""))
    if tensor.ndim is not None:
        axes = [shapes.normalize_axis(a, tensor.ndim, "norm") for a in axes]
    if axes[0] == axes[1]:
        raise ValueError(f"norm: the two axes of a matrix norm must differ, got {list(axes)}")
    if ord in ("euclidean", "fro"):
        return sqrt(reduce_sum(square(tensor), axes, keepdims))
    rows, columns = axes
    summed_over, maximum_over = (rows, columns) if ord == 1 else (columns, rows)
    sums = reduce_sum(abs(tensor), [summed_over], keepdims=True)
    result = reduce_max(sums, [maximum_over], keepdims=True)
    return result if keepdims else squeeze(result, sorted(axes))
