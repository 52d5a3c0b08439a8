"""Array ops: one_hot, clip_by_value, pad, reverse, repeat, broadcast_to, split, unstack, einsum —
against numpy on random shapes (eager and traced, known and unknown dims) and exact errors."""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from op_tracing import assert_graph_matches_eager, assert_same, trace

DTYPES = st.sampled_from([np.int32, np.int64, np.float32, np.float64])
ARRAYS = DTYPES.flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
                                             elements=st.integers(-9, 9)))


@settings(max_examples=30, deadline=None)
@given(indices=hnp.arrays(st.sampled_from([np.int32, np.int64, np.uint8]), hnp.array_shapes(min_dims=0, max_dims=2,
                                                                                             max_side=4),
                          elements=st.integers(0, 5)), depth=st.integers(0, 5), data=st.data())
def test_one_hot_matches_numpy(indices, depth, data):
    axis = data.draw(st.sampled_from([-1] + list(range(indices.ndim + 1))))
    got = assert_graph_matches_eager(lambda i: rt.one_hot(i, depth, axis=axis), indices, unknown_dims=True)[0]
    want = (indices[..., None] == np.arange(depth)).astype(np.float32)
    assert_same(got, want if axis == -1 else np.moveaxis(want, -1, axis))


@settings(max_examples=30, deadline=None)
@given(x=ARRAYS, low=st.integers(-9, 9), high=st.integers(-9, 9))
def test_clip_by_value_matches_tensorflows_order(x, low, high):
    got = assert_graph_matches_eager(lambda t: rt.clip_by_value(t, low, high), x, unknown_dims=True)[0]
    assert_same(got, np.maximum(np.minimum(x, x.dtype.type(high)), x.dtype.type(low)))


@settings(max_examples=40, deadline=None)
@given(x=ARRAYS, mode=st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC"]), data=st.data())
def test_pad_matches_numpy(x, mode, data):
    limit = {"CONSTANT": 3, "REFLECT": -1, "SYMMETRIC": 0}[mode]
    paddings = [[data.draw(st.integers(0, d + limit if limit <= 0 else limit)) for _ in range(2)] for d in x.shape]
    got = assert_graph_matches_eager(lambda t: rt.pad(t, paddings, mode, 7), x, unknown_dims=True)[0]
    want = (np.pad(x, paddings, constant_values=7) if mode == "CONSTANT"
            else np.pad(x, paddings, mode=mode.lower()))
    assert_same(got, want)


@settings(max_examples=30, deadline=None)
@given(x=ARRAYS, data=st.data())
def test_reverse_repeat_broadcast_to_match_numpy(x, data):
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    count = data.draw(st.integers(0, 3))
    per_entry = data.draw(st.lists(st.integers(0, 3), min_size=x.shape[axis], max_size=x.shape[axis])) \
        if axis is not None else [count]
    target = (2,) + tuple(data.draw(st.sampled_from([1, d])) if d == 1 else d for d in x.shape)
    target = tuple(data.draw(st.sampled_from([d, 3])) if x.shape[i - 1] == 1 else d
                   for i, d in enumerate(target) if i > 0)
    target = (2,) + target
    reversed_, repeated, repeated_each, broadcast = assert_graph_matches_eager(
        lambda t: (rt.reverse(t, axes), rt.repeat(t, count, axis), rt.repeat(t, per_entry, axis),
                   rt.broadcast_to(t, target)), x, unknown_dims=True)
    assert_same(reversed_, np.flip(x, axes))
    assert_same(repeated, np.repeat(x, count, axis))
    assert_same(repeated_each, np.repeat(x, per_entry, axis))
    assert_same(broadcast, np.broadcast_to(x, target))


@settings(max_examples=40, deadline=None)
@given(x=ARRAYS, data=st.data())
def test_split_and_unstack_match_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    dim = x.shape[axis]
    num = data.draw(st.sampled_from([n for n in range(1, dim + 1) if dim % n == 0]))
    cuts = sorted(data.draw(st.lists(st.integers(0, dim), max_size=3)))
    sizes = list(np.diff([0] + cuts + [dim]))
    if data.draw(st.booleans()):
        sizes[data.draw(st.integers(0, len(sizes) - 1))] = -1
    equal = assert_graph_matches_eager(lambda t: rt.split(t, num, axis), x, unknown_dims=True)
    for got, want in zip(equal, np.split(x, num, axis)):
        assert_same(got, want)
    sized = assert_graph_matches_eager(lambda t: rt.split(t, sizes, axis), x, unknown_dims=True)
    for got, want in zip(sized, np.split(x, cuts, axis)):
        assert_same(got, want)
    slices = assert_graph_matches_eager(lambda t: rt.unstack(t, axis=axis), x)
    assert len(slices) == dim
    for index, got in enumerate(slices):
        assert_same(got, np.take(x, index, axis))


EQUATIONS = {  # equation: shapes of its inputs
    "ij,jk->ik": [(2, 3), (3, 4)], "ij,jk": [(2, 3), (3, 1)], "ii->i": [(3, 3)], "ii": [(4, 4)], "ij->ji": [(2, 3)],
    "bij,bjk->bik": [(2, 2, 3), (2, 3, 2)], "i,i->": [(4,), (4,)], "i,j->ij": [(2,), (3,)],
    "...ij,...jk->...ik": [(2, 1, 2, 3), (4, 3, 2)], "b...,b...->b": [(2,), (2,)], "ij,jk,kl->il": [(2, 3), (3, 2), (2, 2)],
    "ijk->": [(2, 2, 2)], "aB,Bc->ac": [(1, 2), (2, 3)], "...->...": [(2, 3)],
}


@pytest.mark.parametrize("equation", list(EQUATIONS))
@settings(max_examples=8, deadline=None)
@given(data=st.data(), dtype=DTYPES)
def test_einsum_matches_numpy_with_shape_inference(equation, data, dtype):
    arrays = [data.draw(hnp.arrays(dtype, shape, elements=st.integers(-4, 4))) for shape in EQUATIONS[equation]]
    got = assert_graph_matches_eager(lambda *t: rt.einsum(equation, *t), *arrays, unknown_dims=True)[0]
    assert_same(got, np.einsum(equation, *arrays))
    _, known = trace(lambda *t: rt.einsum(equation, *t), *[(dtype, a.shape) for a in arrays])
    assert known.shape == got.shape


def test_einsum_shape_inference_with_unknown_dims():
    _, out = trace(lambda a, b: rt.einsum("...ij,jk->...ik", a, b), (rt.float32, (None, 5, 2, None)),
                   (rt.float32, (3, 4)))
    assert out.shape == (None, 5, 2, 4) and out.op.attrs["equation"] == "...ij,jk->...ik"
    _, implicit = trace(lambda a, b: rt.einsum("ba,cb", a, b), (rt.float32, (None, 3)), (rt.float32, (7, None)))
    assert implicit.shape == (3, 7) and implicit.op.attrs["equation"] == "ba,cb->ac"
    _, unknown_rank = trace(lambda a: rt.einsum("ij->j", a), (rt.float32, None))
    assert unknown_rank.shape == (None,)


def test_tensorflow_values():
    assert rt.one_hot([0, 2, -1, 5], 3).numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert rt.one_hot([1], 2, on_value=5, off_value=-1).dtype == rt.int32
    assert rt.one_hot([1], 2, dtype=rt.int64).numpy().tolist() == [[0, 1]]
    assert rt.one_hot([[0, 1]], 2, axis=0).shape == (2, 1, 2)
    assert rt.clip_by_value([1.0, 5.0, np.nan], 2.0, 3.0).numpy()[:2].tolist() == [2.0, 3.0]
    assert rt.clip_by_value([1, 5], 4, 2).numpy().tolist() == [4, 4]  # min > max: min, as in TensorFlow
    assert rt.pad([1, 2, 3], [[2, 2]], "reflect").numpy().tolist() == [3, 2, 1, 2, 3, 2, 1]
    assert rt.pad([1, 2, 3], [[2, 2]], "SYMMETRIC").numpy().tolist() == [2, 1, 1, 2, 3, 3, 2]
    assert rt.pad([[1]], [[1, 0], [0, 1]], constant_values=9).numpy().tolist() == [[9, 9], [1, 9]]
    assert rt.repeat([[1, 2], [3, 4]], 2).numpy().tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert [t.numpy().tolist() for t in rt.split([1, 2, 3, 4, 5], [2, -1])] == [[1, 2], [3, 4, 5]]
    assert [t.shape for t in rt.split(np.zeros((2, 6)), 3, axis=1)] == [(2, 2)] * 3
    assert [t.numpy().tolist() for t in rt.unstack([[1, 2], [3, 4]], axis=1)] == [[1, 3], [2, 4]]
    _, pieces = trace(lambda x: rt.split(x, [1, -1], axis=1), (rt.float32, (None, 4)))
    assert [p.shape for p in pieces] == [(None, 1), (None, 3)]
    _, rows = trace(lambda x: rt.unstack(x, axis=1), (rt.float32, (None, 2)))
    assert [r.shape for r in rows] == [(None,), (None,)]
    _, shapes = trace(lambda x, n: (rt.pad(x, [[1, 2]]), rt.one_hot(x, 4), rt.repeat(x, n), rt.repeat(x, 2),
                                    rt.broadcast_to(x, [3, 5])), (rt.int32, (5,)), (rt.int32, ()))
    assert [s.shape for s in shapes] == [(8,), (5, 4), (None,), (10,), (3, 5)]


def test_errors():
    def message(error_type, function, *args, **kwargs):
        with pytest.raises(error_type) as error:
            function(*args, **kwargs)
        return str(error.value)

    assert message(TypeError, rt.one_hot, [0.0, 1.0], 3) == (
        "OneHot: indices must be an integer tensor, got float32; cast it with rt.cast(indices, rt.int32)")
    assert message(ValueError, rt.one_hot, [0], -1) == "OneHot: depth must be >= 0, got -1"
    assert message(ValueError, rt.one_hot, [0], 2, axis=3) == (
        "OneHot: axis must be -1 or in [0, 1] for indices of rank 1, got 3")
    assert message(ValueError, rt.split, [1, 2, 3, 4], [1, 2]) == (
        "SplitV: size_splits [1, 2] sum to 3, but dimension 0 of value has size 4; they must add up to it "
        "(or use -1 for one piece)")
    assert message(ValueError, rt.split, [1, 2, 3, 4, 5], 2) == (
        "SplitV: dimension 0 of value (size 5) cannot be split into 2 equal pieces")
    assert message(ValueError, rt.split, [1, 2], [-1, -1]) == (
        "SplitV: size_splits must be >= 0 with at most one -1, got [-1, -1]")
    assert message(ValueError, rt.split, [1, 2], [3, -1]) == (
        "SplitV: size_splits [3, -1] sum to 3, more than dimension 0 of value (size 2)")
    with pytest.raises(rt.errors.InvalidArgumentError, match="SplitV: size_splits \\[1, 2\\] sum to 3, but dimension 0"):
        rt.function(lambda x: rt.split(x, [1, 2]), input_signature=[rt.TensorSpec([None])])(np.zeros(4, np.float32))
    assert message(ValueError, rt.unstack, np.zeros((2, 3)), num=3) == (
        "Unpack: num=3 does not match dimension 0 of value (size 2)")
    with pytest.raises(ValueError, match=r"^Unpack: cannot infer num from shape \(None, 2\): dimension 0 is unknown"):
        trace(rt.unstack, (rt.float32, (None, 2)))
    assert message(ValueError, rt.einsum, "ij,j1->i", [[1]], [[1]]) == (
        "Einsum: equation 'ij,j1->i': '1' is not a valid subscript (use letters a-z, A-Z)")
    assert message(ValueError, rt.einsum, "ij,jk->ik", [[1, 2]], [[1, 2]]) == (
        "Einsum: equation 'ij,jk->ik': subscript 'j' has size 2 in input 0 but 1 in input 1")
    assert message(ValueError, rt.einsum, "ij->k", [[1]]) == (
        "Einsum: equation 'ij->k': output subscript 'k' is not in any input")
    assert message(ValueError, rt.einsum, "ijk->i", [[1]]) == (
        "Einsum: equation 'ijk->i': input 0 has rank 2 but its subscripts 'ijk' name 3 dimension(s)")
    assert message(ValueError, rt.einsum, "b...->b", [[1, 2]]) == (
        "Einsum: equation 'b...->b': the inputs' '...' stands for 1 dimension(s); the output must keep them: "
        "add '...' to it")
    assert message(ValueError, rt.einsum, "ij,jk", [[1]]) == (
        "Einsum: equation 'ij,jk' has 2 input term(s) but 1 tensor(s) were given")
    assert message(TypeError, rt.einsum, "i,i", [1], [1.0]).startswith(
        "Einsum: all inputs must have the same dtype, got int32 and float32")
    assert message(ValueError, rt.pad, [1, 2], [[2, 0]], "REFLECT") == (
        "MirrorPad: REFLECT padding of axis 0 (size 2) must be at most 1, got 2")
    assert message(ValueError, rt.pad, [1, 2], [[1, 0], [0, 0]]) == "PadV2: paddings must have shape [1, 2], got (2, 2)"
    assert message(ValueError, rt.pad, [1], [[1]], "WRAP") == (
        "pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got 'WRAP'")
    assert message(ValueError, rt.repeat, [1, 2], [1, 2, 3], 0) == "Repeat: repeats has 3 entries but the axis has size 2"
    assert message(ValueError, rt.repeat, [1, 2], -1) == "Repeat: repeats must be >= 0, got [-1]"
    assert message(ValueError, rt.reverse, [1, 2], [0, -1]) == "ReverseV2: axis [0, -1] names an axis twice"
    assert message(ValueError, rt.clip_by_value, [1, 2], [[0], [0], [0]], 5) == (
        "ClipByValue: clip_value_min of shape (3, 1) would change the shape of t (2,); it must broadcast to it")
    assert message(TypeError, rt.clip_by_value, [1, 2], rt.constant(0.5), 5) == (
        "ClipByValue: clip_value_min must have the dtype of t (int32), got float32")


def test_top_level_names():
    for name in ("one_hot", "clip_by_value", "pad", "reverse", "repeat", "split", "unstack", "broadcast_to", "einsum"):
        assert callable(getattr(rt, name)), name
    assert rt.linalg.einsum is rt.einsum and rt.math.norm is rt.norm is rt.linalg.norm


BROADCAST_REFUSALS = [
    ([1, 2, 3], [2, 2], "cannot broadcast a tensor of shape (3,) to shape (2, 2) (dimension 3 vs 2)"),
    ([[1, 2, 3], [4, 5, 6]], [1, 3], "cannot broadcast a tensor of shape (2, 3) to shape (1, 3) (dimension 2 vs 1)"),
    ([[1, 2, 3], [4, 5, 6]], [3], "cannot broadcast a tensor of shape (2, 3) to shape (3,) (the target has a lower "
                                  "rank)"),
]


@pytest.mark.parametrize("value, target, message", BROADCAST_REFUSALS)
def test_broadcast_to_refuses_incompatible_shapes_naming_both(value, target, message):
    # Eager and at run time (a shape tensor): InvalidArgumentError, as TensorFlow; while tracing with a
    # static target: ValueError, before any graph runs (the target (1, 3) was accepted by inference before).
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^BroadcastTo: " + re.escape(message)):
        rt.broadcast_to(rt.constant(value), target)
    with pytest.raises(ValueError, match=re.escape(message)):
        rt.function(lambda x: rt.broadcast_to(x, target))(rt.constant(value))
    with pytest.raises(rt.errors.InvalidArgumentError, match=re.escape(message)):
        rt.function(lambda x, shape: rt.broadcast_to(x, shape), input_signature=[
            rt.TensorSpec(None, rt.int32), rt.TensorSpec([None], rt.int32)])(rt.constant(value), rt.constant(target))
