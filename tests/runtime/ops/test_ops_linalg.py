"""rt.linalg: diag_part, det, inv (numpy kernels), trace, matvec, norm, matrix transpose, matmul with
transposes — against numpy on random shapes, eager and traced, and exact errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

BATCH = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)
FLOAT = st.sampled_from([np.float32, np.float64])


@st.composite
def matrices(draw, square=False, dtype=FLOAT):
    rows = draw(st.integers(1, 4))
    columns = rows if square else draw(st.integers(1, 4))
    shape = draw(BATCH) + (rows, columns)
    return draw(hnp.arrays(draw(dtype), shape, elements=st.integers(-5, 5)))


@settings(max_examples=30, deadline=None)
@given(x=matrices(dtype=st.sampled_from([np.int32, np.float32, np.float64])))
def test_diag_part_and_trace_match_numpy(x):
    diagonal, total = assert_graph_matches_eager(lambda t: (rt.linalg.diag_part(t), rt.linalg.trace(t)), x,
                                                 unknown_dims=True)
    assert_same(diagonal, np.diagonal(x, axis1=-2, axis2=-1))
    assert_same(total, np.trace(x, axis1=-2, axis2=-1).astype(x.dtype))


@settings(max_examples=30, deadline=None)
@given(x=matrices(square=True))
def test_det_and_inv_match_numpy(x):
    n = x.shape[-1]
    x = (x + 21 * np.eye(n, dtype=x.dtype)).astype(x.dtype)  # strictly diagonally dominant: invertible
    det, inverse = assert_graph_matches_eager(lambda t: (rt.linalg.det(t), rt.linalg.inv(t)), x, unknown_dims=True)
    assert_same(det, np.linalg.det(x).astype(x.dtype))
    assert_same(inverse, np.linalg.inv(x))


@settings(max_examples=30, deadline=None)
@given(a=matrices(), data=st.data())
def test_matvec_transpose_and_matmul_with_transposes(a, data):
    vector = data.draw(hnp.arrays(a.dtype, a.shape[:-2] + (a.shape[-1],), elements=st.integers(-5, 5)))
    product, swapped, gram = assert_graph_matches_eager(
        lambda m, v: (rt.linalg.matvec(m, v), rt.linalg.transpose(m), rt.linalg.matmul(m, m, transpose_a=True)),
        a, vector, unknown_dims=True)
    np.testing.assert_allclose(product, (a @ vector[..., None])[..., 0], rtol=1e-6)
    assert_same(swapped, np.swapaxes(a, -1, -2))
    np.testing.assert_allclose(gram, np.swapaxes(a, -1, -2) @ a, rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(x=hnp.arrays(FLOAT, hnp.array_shapes(min_dims=2, max_dims=3, max_side=4), elements=st.integers(-5, 5)),
       ord=st.sampled_from(["euclidean", 1, 2, np.inf, 3, 0.5]), data=st.data())
def test_vector_norms_match_numpy(x, ord, data):
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    keepdims = data.draw(st.booleans())
    got = assert_graph_matches_eager(lambda t: rt.norm(t, ord, axis, keepdims), x, unknown_dims=True)[0]
    flat = x.reshape(-1) if axis is None else x
    want = np.linalg.norm(flat, ord=2 if ord == "euclidean" else ord, axis=None if axis is None else axis,
                          keepdims=keepdims and axis is not None)
    if axis is None and keepdims:
        want = np.reshape(want, (1,) * x.ndim)
    np.testing.assert_allclose(got, want.astype(x.dtype), rtol=2e-6)
    assert got.dtype == x.dtype


@settings(max_examples=30, deadline=None)
@given(x=hnp.arrays(FLOAT, hnp.array_shapes(min_dims=2, max_dims=3, max_side=4), elements=st.integers(-5, 5)),
       ord=st.sampled_from(["euclidean", "fro", 1, np.inf]), keepdims=st.booleans())
def test_matrix_norms_match_numpy(x, ord, keepdims):
    got = assert_graph_matches_eager(lambda t: rt.linalg.norm(t, ord, [-2, -1], keepdims), x)[0]
    want = np.linalg.norm(x, ord="fro" if ord == "euclidean" else ord, axis=(-2, -1), keepdims=keepdims)
    np.testing.assert_allclose(got, want.astype(x.dtype), rtol=2e-6)


def test_values_and_shapes():
    assert rt.linalg.det([[1.0, 2.0], [3.0, 4.0]]).numpy() == pytest.approx(-2.0)
    assert rt.linalg.inv(rt.constant([[2.0, 0.0], [0.0, 4.0]], rt.float16)).dtype == rt.float16
    assert rt.linalg.diag_part([[1, 2, 3], [4, 5, 6]]).numpy().tolist() == [1, 5]
    assert rt.linalg.eye(2).numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    _, (diagonal, determinant, inverse) = trace(
        lambda x: (rt.linalg.diag_part(x), rt.linalg.det(x), rt.linalg.inv(x)), (rt.float32, (None, 3, 3)))
    assert (diagonal.shape, determinant.shape, inverse.shape) == ((None, 3), (None,), (None, 3, 3))
    assert [t.op.type for t in (diagonal, determinant, inverse)] == ["MatrixDiagPart", "MatrixDeterminant",
                                                                    "MatrixInverse"]
    _, wide = trace(rt.linalg.diag_part, (rt.int32, (2, None)))
    assert wide.shape == (None,)


def test_errors():
    with pytest.raises(rt.errors.InvalidArgumentError, match="^MatrixInverse: Input is not invertible."):
        rt.linalg.inv([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match=r"^MatrixDeterminant: input must be a square matrix \(or a batch of them\), "
                                         r"got shape \(2, 3\)"):
        rt.linalg.det(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="^MatrixInverse: input must be a floating-point tensor, got int32"):
        rt.linalg.inv([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"^MatrixDiagPart: input must be a matrix or a batch of matrices \(rank >= 2\)"):
        rt.linalg.diag_part([1, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match="MatrixDeterminant: input must be a square matrix"):
        rt.function(lambda x: rt.linalg.det(x), input_signature=[rt.TensorSpec([None, None])])(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"^norm: ord must be 'euclidean', 'fro', 1 or np.inf for a matrix norm, got 2 "
                                         r"\(the matrix 2-norm needs singular values"):
        rt.norm([[1.0]], ord=2, axis=[0, 1])
    with pytest.raises(ValueError, match=r"^norm: ord must be 'euclidean', 1, 2, np.inf or a number > 0 for a vector "
                                         r"norm, got 'fro' \('fro' is for matrices"):
        rt.norm([1.0], ord="fro")
    with pytest.raises(TypeError, match="^norm: tensor must be a floating-point tensor, got int32"):
        rt.norm([3, 4])
    with pytest.raises(ValueError, match="^linalg.transpose: a must have rank >= 2, got shape"):
        rt.linalg.transpose([1, 2])
    with pytest.raises(ValueError, match="^linalg.transpose: the rank of a must be known while tracing"):
        trace(rt.linalg.transpose, (rt.float32, None))
