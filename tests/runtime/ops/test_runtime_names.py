"""Names that ported TensorFlow code uses: rt.name_scope, rt.newaxis, rt.TensorShape, and rt.while_loop's
shape_invariants."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt


scopes = []


@ag.function
def scoped(x):
    with rt.name_scope("layer1"):
        with rt.name_scope("dense") as scope:
            y = x * 2
        z = y + 1
    scopes.append(scope)
    return z[:, rt.newaxis]


def test_name_scope_prefixes_op_names_and_newaxis_adds_a_dim():
    column = scoped(rt.constant([1, 2]))
    np.testing.assert_array_equal(column.numpy(), [[3], [5]])
    assert column.shape == (2, 1)
    names = [op.name for op in scoped.get_concrete_function(rt.constant([1, 2])).graph.operations]
    assert names == ['x', 'layer1/dense/Mul/y', 'layer1/dense/Mul', 'layer1/AddV2/y', 'layer1/AddV2', 'StridedSlice']
    assert scopes == ['layer1/dense/']
    with rt.name_scope("eager"):   # eager ops have no names: nothing to prefix
        assert rt.constant(1).numpy() + 1 == 2
    assert rt.newaxis is None and rt.newaxis is np.newaxis


def test_name_scope_rejects_bad_names():
    with pytest.raises(ValueError, match="name_scope: the name must be a non-empty string without '/', got 'a/b'"):
        with rt.name_scope("a/b"):
            pass


def test_tensor_shape():
    shape = rt.TensorShape([None, 3])
    assert shape.rank == 2 and shape.as_list() == [None, 3] and shape == (None, 3) and shape == [None, 3]
    assert shape != (2, 3) and shape[1] == 3 and shape[1:] == (3,) and len(shape) == 2 and list(shape) == [None, 3]
    assert not shape.is_fully_defined() and rt.TensorShape([2, 3]).is_fully_defined()
    assert shape.is_compatible_with((5, 3)) and not shape.is_compatible_with((5, 4))
    assert shape.is_compatible_with(rt.TensorShape(None))
    unknown = rt.TensorShape(None)
    assert unknown.rank is None and repr(unknown) == 'TensorShape(None)' and repr(shape) == 'TensorShape([None, 3])' and str(shape) == '(None, 3)'
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape"):
        unknown.as_list()
    with pytest.raises(TypeError, match="a shape must be a list of ints and None, got 'ab'"):
        rt.TensorShape('ab')
    assert rt.TensorShape(rt.constant([[1, 2, 3]]).shape) == (1, 3)
    assert hash(rt.TensorShape((1, None))) == hash((1, None))


def test_a_tensors_shape_is_a_tensor_shape_eagerly_while_tracing_and_for_variables():
    x = rt.constant([[1.0, 2.0, 3.0]])
    assert isinstance(x.shape, rt.TensorShape) and x.shape.as_list() == [1, 3] and x.shape.rank == 2
    assert x.shape == (1, 3) and x.shape == [1, 3] and x.get_shape() == (1, 3) and str(x.shape) == "(1, 3)"
    assert hash(x.shape) == hash((1, 3)) and x.shape + (4,) == (1, 3, 4) and repr(x.shape) == "TensorShape([1, 3])"
    v = rt.Variable([1.0, 2.0])
    assert v.shape.as_list() == [2] and v.get_shape().is_fully_defined()
    seen = []

    @rt.function(input_signature=[rt.TensorSpec([None, 3])])
    def f(t):
        seen.append((t.shape.as_list(), t.shape.rank, t.shape.is_fully_defined(), t.get_shape() == (None, 3)))
        return rt.reduce_sum(t)

    f(x)
    assert seen == [([None, 3], 2, False, True)]
    unknown_rank = []
    rt.function(lambda t: unknown_rank.append((t.shape, t.get_shape().rank)) or t,
                input_signature=[rt.TensorSpec(None)]).get_concrete_function()
    assert unknown_rank == [(None, None)]   # the symbolic tensor's shape stays None; get_shape() is TensorShape(None)


def grow(n, invariants):
    return rt.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, rt.concat([x, [1.0]], 0)), (0, rt.zeros([0])),
                         shape_invariants=invariants)


def test_while_loop_shape_invariants():
    traced = []

    @rt.function
    def declared(n):
        traced.append(1)
        return grow(n, [None, rt.TensorShape([None])])

    i, x = declared(rt.constant(3))
    np.testing.assert_array_equal(x.numpy(), [1., 1., 1.])
    assert declared.get_concrete_function(rt.constant(3)).graph.outputs[1].shape == (None,)
    i, x = grow(2, [None, (None,)])   # eagerly: a Python loop, invariants unused
    np.testing.assert_array_equal(x.numpy(), [1., 1.])


def test_a_violated_shape_invariant_is_a_state_error():
    @rt.function
    def violated(n):
        return grow(n, [None, (0,)])

    with pytest.raises(rt.errors.StateError, match=r"loop variable 1 has the shape invariant \(0,\) but the body "
                                                   r"makes its shape \(1,\).*declare None for the dims that change"):
        violated(rt.constant(3))

    @rt.function
    def does_not_fit(n):
        return grow(n, [None, (None, 2)])

    with pytest.raises(rt.errors.StateError, match=r"loop variable 1 starts with shape \(0,\), which does not fit "
                                                   r"its shape invariant \(None, 2\)"):
        does_not_fit(rt.constant(3))

    @rt.function
    def wrong_count(n):
        return grow(n, [None])

    with pytest.raises(ValueError, match="1 shape_invariants for 2 loop_vars"):
        wrong_count(rt.constant(3))


def test_a_shape_reprs_as_tensorflow_and_prints_as_the_tuple():
    # TensorFlow: repr(tf.TensorShape([2, None])) == 'TensorShape([2, None])', str() == '(2, None)'
    assert repr(rt.TensorShape([2, None])) == "TensorShape([2, None])" and str(rt.TensorShape([2, None])) == "(2, None)"
    assert repr(rt.constant(1.0).shape) == "TensorShape([])" and str(rt.constant(1.0).shape) == "()"
    assert repr([t.shape for t in rt.split(rt.zeros([2, 4]), 2, axis=1)]) == "[TensorShape([2, 2]), TensorShape([2, 2])]"
    assert f"shape {rt.zeros([3]).shape}" == "shape (3,)"  # messages keep the tuple
    assert eval(repr(rt.TensorShape([1, None])), {"TensorShape": rt.TensorShape}) == (1, None)
