"""Regressions of jit_compile=True found by running code we did not write on both executors (every op's samples
on edge inputs: test_xla_every_op.py; other suites with every function compiled: test_xla_corpora.py): each
failed before its fix."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

pytest.importorskip("jax")


def a_range_of_run_time_length(n):
    return rt.range(n)


def test_a_range_of_run_time_length_returned_is_a_lowering_error_not_a_crash_inside_jax():
    # It was a TypeError from jax.numpy.asarray (the range is never built as an array: docs/XLA.md)
    with pytest.raises(rt.errors.LoweringError, match=r"Range \(Range\) cannot be compiled with jit_compile=True: a "
                                                      r"range whose length is known only when the graph runs is "
                                                      r"returned") as raised:
        ag.function(a_range_of_run_time_length, jit_compile=True)(rt.constant(5))
    assert "in a_range_of_run_time_length" in str(raised.value)   # the user's line
    auto = ag.function(a_range_of_run_time_length, jit_compile="auto")
    assert auto(rt.constant(5)).numpy().tolist() == [0, 1, 2, 3, 4]


def inverse(x):
    return rt.linalg.inv(x)


def test_the_inverse_of_an_invertible_matrix_whose_determinant_underflows_compiles():
    # The singular-matrix check compared the determinant with 0: 0.1 ** 40 underflows in float32, so the compiled
    # call failed its check, though numpy inverts the matrix
    x = rt.constant(np.eye(40, dtype=np.float32) * 0.1)
    got = ag.function(inverse, jit_compile=True)(x).numpy()
    np.testing.assert_allclose(got, np.eye(40, dtype=np.float32) * 10, rtol=1e-6)
    singular = rt.constant([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(rt.errors.InvalidArgumentError, match="Input is not invertible"):
        ag.function(inverse, jit_compile=True)(singular)


def sum_of_the_first(x, n):
    total = 0.0
    for i in rt.range(n):
        total += x[i] * 2.0 + rt.gather_nd(x, [[i]])[0]
    return total


def set_where_negative(x, i):
    y = rt.identity(x)
    if i < 0:
        y[i] = 1.0
    return y


@pytest.mark.parametrize("function, args", [
    (sum_of_the_first, (np.zeros([0], np.float32), 0)),    # a loop over an empty batch: its body never runs
    (sum_of_the_first, (np.zeros([0], np.float32), 1)),    # ... and when it does: the numpy executor's error
    (sum_of_the_first, (np.array([1.0, 2.0], np.float32), 2)),
    (set_where_negative, (np.zeros([0], np.float32), 0)),  # an item assignment in a branch not taken
])
def test_indexing_an_empty_axis_compiles_and_fails_only_where_it_runs(function, args):
    # x[i], x[i] = v and gather_nd on an axis of length 0 were LoweringErrors (JAX's IndexError when compiling),
    # though the program runs on the numpy executor: the body of a loop over an empty tensor is compiled anyway
    tensors = [rt.constant(a) for a in args]
    try:
        expected = ("value", ag.function(function)(*tensors).numpy())
    except rt.errors.InvalidArgumentError as error:
        expected = ("raised", str(error))
    try:
        got = ("value", ag.function(function, jit_compile=True)(*tensors).numpy())
    except rt.errors.InvalidArgumentError as error:
        got = ("raised", str(error))
    assert got[0] == expected[0]
    if got[0] == "raised":
        assert got[1] == expected[1] and "index 0 is out of bounds for axis 0 with size 0" in got[1]
    else:
        assert got[1].tolist() == expected[1].tolist() and got[1].shape == expected[1].shape


@pytest.mark.parametrize("sizes, length", [([1, 2], 4), ([1, 2], 2), (2, 5), ([1, -1], 0)])
def test_a_split_whose_pieces_do_not_fit_the_run_time_length_raises_the_kernels_error(sizes, length):
    # With the length unknown when tracing, the pieces [1, 2] were cut from a vector of 4 as [0] and [1, 2, 3]: a
    # silently wrong result where the numpy executor raises (and [1, -1] of an empty vector a LoweringError)
    def split(x):
        return rt.split(x, sizes)

    x = np.arange(length, dtype=np.float32)
    messages = []
    for jit_compile in (None, True):
        function = rt.function(split, input_signature=[rt.TensorSpec([None])], jit_compile=jit_compile)
        with pytest.raises(rt.errors.InvalidArgumentError, match="^SplitV: ") as raised:
            function(x)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    fits = np.arange(3 if sizes != 2 else 4, dtype=np.float32)
    compiled = rt.function(split, input_signature=[rt.TensorSpec([None])], jit_compile=True)(fits)
    expected = rt.function(split, input_signature=[rt.TensorSpec([None])])(fits)
    assert [piece.numpy().tolist() for piece in compiled] == [piece.numpy().tolist() for piece in expected]


def test_sizes_wrong_for_every_call_raise_the_kernels_error_not_a_lowering_error():
    # error_from_kernel's InvalidArgumentError was wrapped in a LoweringError ("InvalidArgumentError: ...")
    def top_five(x):
        return rt.math.top_k(x, 5)

    function = rt.function(top_five, input_signature=[rt.TensorSpec([None])], jit_compile=True)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^TopKV2: input must have at least k=5 entries") as e:
        function(np.arange(4, dtype=np.float32))
    assert not isinstance(e.value, rt.errors.LoweringError)


SPEC = rt.TensorSpec


@pytest.mark.parametrize("function, signature, arrays, message", [
    # silently wrong results before: the graph left the length unknown, JAX compiled for the one it met
    (lambda x: rt.unstack(x, num=3), [SPEC([None])], [np.ones(4, np.float32)],
     "Unpack: num=3 does not match dimension 0 of value (size 4)"),
    (lambda x: rt.pad(x, [[1, 1]], mode="REFLECT"), [SPEC([None])], [np.ones(1, np.float32)],
     "MirrorPad: REFLECT padding of axis 0 (size 1) must be at most 0, got 1"),
    (lambda x: rt.pad(x, [[0, 3]], mode="SYMMETRIC"), [SPEC([None])], [np.ones(2, np.float32)],
     "MirrorPad: SYMMETRIC padding of axis 0 (size 2) must be at most 2, got 3"),
    # LoweringErrors quoting JAX before: the numpy executor's own error now
    (lambda x, y: x + y, [SPEC([None]), SPEC([None])], [np.ones(3, np.float32), np.ones(4, np.float32)],
     "AddV2: operands could not be broadcast together with shapes (3,) (4,) "),
    (lambda x, y: rt.matmul(x, y), [SPEC([2, None]), SPEC([None, 2])], [np.ones((2, 3), np.float32),
                                                                          np.ones((4, 2), np.float32)],
     "MatMul: matmul: Input operand 1 has a mismatch in its core dimension 0"),
    (lambda x: rt.reshape(x, [2, -1]), [SPEC([None])], [np.arange(5.0, dtype=np.float32)],
     "Reshape: cannot reshape array of size 5 into shape (2,newaxis)"),
    # a ZeroDivisionError from inside JAX before (it divides the size by the other dims' product)
    (lambda x: rt.reshape(x, [0, -1]), [SPEC([None])], [np.zeros(0, np.float32)],
     "Reshape: cannot reshape array of size 0 into shape (0,newaxis)"),
    (lambda x: rt.reshape(x, [-1, 2, 0]), [SPEC([None])], [np.zeros(3, np.float32)],
     "Reshape: cannot reshape array of size 3 into shape (2,0)"),   # (numpy's text leaves out the -1)
    (lambda x: rt.linalg.inv(x), [SPEC([None, None])], [np.ones((2, 3), np.float32)],
     "MatrixInverse: input must be a square matrix (or a batch of them), got shape (2, 3)"),
])
def test_shapes_known_only_when_compiling_that_the_kernel_refuses_raise_its_error(function, signature, arrays,
                                                                                 message):
    for jit_compile in (None, True):
        traced = rt.function(function, input_signature=signature, jit_compile=jit_compile)
        with pytest.raises(rt.errors.InvalidArgumentError) as raised:
            traced(*arrays)
        assert str(raised.value).startswith(message) and not isinstance(raised.value, rt.errors.LoweringError)


def test_a_compiled_calls_results_are_arrays_the_caller_may_change_in_place():
    # .numpy() of a result viewed JAX's read-only buffer: probabilities[probabilities < 0.1] = 0 was a ValueError
    # under jit_compile=True only (tests/runtime/ops/test_fused_activations.py, rerun with xla_everywhere)
    function = ag.function(lambda x: (rt.nn.softmax(x), x * 2.0), jit_compile=True)
    x = rt.constant([1.0, 2.0, 6.0])
    probabilities, doubled = function(x)
    values = probabilities.numpy()
    values[values < 0.1] = 0.0
    assert probabilities.numpy() is values and values[0] == 0.0   # the tensor's own value, changed
    doubled.numpy()[0] = 99.0
    assert doubled.numpy().tolist() == [99.0, 4.0, 12.0]
    again = function(x)   # the next call is not affected
    assert again[1].numpy().tolist() == [2.0, 4.0, 12.0] and again[0].numpy()[0] > 0


@pytest.mark.parametrize("jit_compile", [None, True])
def test_np_asarray_of_a_result_is_its_numpy_array_and_np_array_a_copy_on_either_executor(jit_compile):
    # np.asarray(result) was JAX's read-only buffer under jit_compile=True (writable on the numpy executor), and
    # np.array(result) (copy=True) returned the tensor's own array on both: changing the "copy" changed the tensor
    doubled, = ag.function(lambda x: (x * 2.0,), jit_compile=jit_compile)(rt.constant([1.0, 2.0]))
    viewed = np.asarray(doubled)
    viewed[0] = 5.0
    assert viewed.flags.writeable and viewed is doubled.numpy() and doubled.numpy().tolist() == [5.0, 4.0]
    copied = np.array(doubled)
    copied[1] = -1.0
    assert doubled.numpy().tolist() == [5.0, 4.0] and not np.shares_memory(copied, viewed)
    assert np.asarray(doubled, dtype=np.float64).tolist() == [5.0, 4.0]
    with pytest.raises(ValueError, match=r"copy=False\) of a float32 tensor as float64 needs a copy"):
        np.asarray(doubled, dtype=np.float64, copy=False)


def test_the_gradient_of_slices_of_a_loop_variable_compiles_and_matches_jax():
    # StridedSliceGrad took the sliced tensor's shape as popped from the loop's accumulator, computed when the graph
    # runs: a LoweringError, though the graph knows it (5 of 25 random differentiable programs with bounded loops)
    jax = pytest.importorskip("jax")

    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            a = x * 1.0
            for _ in rt.range(n):
                ag.set_loop_options(maximum_iterations=3)
                a = rt.tanh(a[::-1] * 2.0 + a[1] + rt.concat([a[2:], a[:2]], 0))
            loss = rt.reduce_sum(a * a)
        return tape.gradient(loss, x)

    def jax_loss(x):
        a = x
        for _ in range(2):
            a = jax.numpy.tanh(a[::-1] * 2.0 + a[1] + jax.numpy.concatenate([a[2:], a[:2]]))
        return jax.numpy.sum(a * a)

    x = np.array([0.5, -1.0, 0.3])
    expected = ag.function(gradient)(rt.constant(x), rt.constant(2)).numpy()
    got = ag.function(gradient, jit_compile=True)(rt.constant(x), rt.constant(2)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    with jax.enable_x64(True):
        np.testing.assert_allclose(got, np.asarray(jax.grad(jax_loss)(x)), rtol=1e-12)


def split_in_a_branch(x):
    if rt.reduce_sum(x) > 100.0:   # a tensor condition: both branches are compiled, one runs
        return rt.split(x, [1, 2])[1]
    return x[:2]


def test_sizes_that_fail_only_in_a_branch_that_may_not_run_are_not_the_numpy_executors_error():
    # The kernel's error for shapes known when compiling (above) was raised for an op in a tensor if's branch too,
    # though the numpy executor never runs it for those shapes (found by the comprehension tests rerun with
    # xla_everywhere: a concat in the branch of a filter not taken): now a LoweringError saying so
    compiled = ag.function(split_in_a_branch, input_signature=[rt.TensorSpec([None])], jit_compile=True)
    numpy_executor = ag.function(split_in_a_branch, input_signature=[rt.TensorSpec([None])])
    x = np.arange(3, dtype=np.float32)
    assert compiled(x).numpy().tolist() == numpy_executor(x).numpy().tolist() == [0.0, 1.0]
    x = np.arange(5, dtype=np.float32)
    assert numpy_executor(x).numpy().tolist() == [0.0, 1.0]
    with pytest.raises(rt.errors.LoweringError, match=r"^SplitV \(SplitV\) cannot be compiled with jit_compile=True: its "
                                                      r"sizes fail whenever it runs \(SplitV: size_splits \[1, 2\] sum "
                                                      r"to 3, but dimension 0 of value has size 5.*in a tensor loop or "
                                                      r"branch that may not run"):
        compiled(x)
    auto = ag.function(split_in_a_branch, input_signature=[rt.TensorSpec([None])], jit_compile="auto")
    assert auto(x).numpy().tolist() == [0.0, 1.0]


def doubled_rows(t):
    return rt.stack([v * 2.0 for v in t]), rt.reduce_sum([rt.reduce_sum(row) for row in t])


def test_a_comprehension_over_a_tensor_of_static_length_compiles():
    # [f(v) for v in t] grew its result by concatenation (a loop variable changing shape): a LoweringError under
    # jit_compile=True even for a t of static length; it now writes each row into a tensor of the final shape
    t = rt.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    expected = ag.function(doubled_rows)(t)
    got = ag.function(doubled_rows, jit_compile=True)(t)
    assert got[0].numpy().tolist() == expected[0].numpy().tolist() == (np.arange(6.0).reshape(3, 2) * 2).tolist()
    assert float(got[1]) == float(expected[1]) == 15.0


@pytest.mark.parametrize("data, ids", [
    (np.arange(6.0).reshape(2, 3), [[0, 1, 2], [2, 2, 0]]),               # ids naming both dims of data
    (np.arange(12.0).reshape(2, 3, 2), [[0, 1, 2], [2, 2, 0]]),           # ... the leading two of three
    (np.arange(6.0).reshape(2, 3), 2),                                      # a scalar id: all of data in one row
])
def test_segment_ids_of_any_rank_sum_the_leading_dims_of_data_as_on_the_numpy_executor(data, ids):
    # ids of rank 2 were a LoweringError quoting JAX ("Incompatible types for broadcasting"): jax.ops.segment_sum
    # takes one dim of ids, the kernel (np.add.at) as many as ids has
    def segment_sums(x, i):
        return rt.unsorted_segment_sum(x, i, 3)

    args = (rt.constant(data.astype(np.float32)), rt.constant(ids, rt.int32))
    expected = ag.function(segment_sums)(*args).numpy()
    got = ag.function(segment_sums, jit_compile=True)(*args).numpy()
    assert got.shape == expected.shape and got.tolist() == expected.tolist()


@pytest.mark.parametrize("function, message", [
    (lambda x, i, u: rt.tensor_scatter_nd_update(x, i, u), "TensorScatterUpdate: updates must have shape (3,), got (1,)"),
    (lambda x, i, u: rt.tensor_scatter_nd_add(x, i, u), "TensorScatterAdd: updates must have shape (3,), got (1,)"),
    (lambda x, i, u: rt.scatter_nd(i, u, [4]), "TensorScatterAdd: updates must have shape (3,), got (1,)"),
])
def test_fewer_scatter_updates_than_indices_raise_the_kernels_error_never_a_broadcast_update(function, message):
    # With [None] signatures, one update for three indices was broadcast to all three (JAX's .at[].set and .add):
    # [5, 5, 0, 5], a silently wrong result where the numpy executor raises
    signature = [SPEC([None]), SPEC([None, 1], rt.int32), SPEC([None])]
    args = [np.zeros(4, np.float32), np.array([[0], [1], [3]], np.int32), np.array([5.0], np.float32)]
    for jit_compile in (None, True):
        with pytest.raises(rt.errors.InvalidArgumentError) as raised:
            rt.function(function, input_signature=signature, jit_compile=jit_compile)(*args)
        assert str(raised.value).startswith(message)


@pytest.mark.parametrize("reduce", [rt.reduce_sum, lambda x: rt.cumsum(x)[-1],
                                    lambda x: rt.cumsum(x, exclusive=True, reverse=True)[0],
                                    lambda x: rt.math.cumprod(x[:30] / 2.0 + 1.5)[-1]])
def test_float16_sums_accumulate_in_float32_on_both_executors(reduce):
    # Summed in float16, 10,000 values in [-4, 4] drifted from the exact -47.12: XLA's reduce_sum gave -47.56 (the
    # lowering asked JAX for float16 accumulation), the numpy kernel's cumsum -44.7 (np.cumsum in float16, in order)
    x = np.random.default_rng(0).uniform(-4, 4, 10000).astype(np.float16)
    exact = float(rt.function(reduce)(x.astype(np.float64)).numpy())
    for jit_compile in (None, True):
        got = rt.function(reduce, input_signature=[SPEC([None], rt.float16)], jit_compile=jit_compile)(x).numpy()
        assert got.dtype == np.float16 and abs(float(got) - exact) <= np.spacing(np.float16(abs(exact)))


@pytest.mark.parametrize("dtype", [rt.float16, rt.float32, rt.float64])
def test_zero_results_of_floor_division_modulo_sign_and_erf_have_numpys_sign(dtype):
    # XLA gave -6 % 3 == -0.0 (numpy, Python: 0.0; and 6 % -3 == -0.0 as 0.0), -0.0 // 1 == 0.0 (numpy: -0.0),
    # sign(-0.0) == -0.0 (numpy: 0.0); the numpy kernel's float32 erf(-0.0) was 0.0 (C's and its float64's: -0.0).
    # Equal as numbers, but 1 / x is +inf on one executor and -inf on the other
    x = np.array([-6.0, 6.0, -0.0, 0.0, 0.5, -0.5, -0.0, 0.0, -5.0], dtype)
    y = np.array([3.0, -3.0, 1.0, -1.0, 3.0, -3.0, np.inf, -np.inf, np.inf], dtype)

    def zeros_and_signs(a, b):
        return a % b, a // b, rt.sign(a), rt.math.erf(a)

    signature = [SPEC([None], dtype), SPEC([None], dtype)]
    expected = [r.numpy() for r in rt.function(zeros_and_signs, input_signature=signature)(x, y)]
    got = [r.numpy() for r in rt.function(zeros_and_signs, input_signature=signature, jit_compile=True)(x, y)]
    assert np.signbit(expected[0][:4]).tolist() == [False, True, False, True]   # x % y: the sign of y
    assert np.signbit(expected[1][[2, 3, 4, 6, 7]]).tolist() == [True, True, False, True, True]   # x // y: of x / y
    assert not np.signbit(expected[2][2]) and np.signbit(expected[3][2])
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
        assert np.signbit(g).tolist() == np.signbit(e).tolist()


def test_the_sign_of_the_zero_maximum_and_minimum_of_zeros_give_is_xlas_by_design():
    # docs/XLA.md: maximum(0.0, -0.0) is 0.0 compiled (IEEE), numpy keeps an operand (on x86 the second, -0.0)
    def extremes(a, b):
        return rt.maximum(a, b), rt.minimum(a, b)

    a, b = np.array([0.0, -0.0], np.float32), np.array([-0.0, 0.0], np.float32)
    signature = [SPEC([None]), SPEC([None])]
    expected = [r.numpy() for r in rt.function(extremes, input_signature=signature)(a, b)]
    highest, lowest = [r.numpy() for r in rt.function(extremes, input_signature=signature, jit_compile=True)(a, b)]
    assert highest.tolist() == lowest.tolist() == expected[0].tolist() == expected[1].tolist() == [0.0, 0.0]
    assert np.signbit(highest).tolist() == [False, False] and np.signbit(lowest).tolist() == [True, True]


@pytest.mark.parametrize("ids, message", [([3, -3, -1], r"segment_ids contains -3, not in \[0, 4\)"),
                                          ([0, 1, 2], "UnsortedSegmentSum: ")])
def test_segment_ids_of_another_length_than_the_data_raise_the_kernels_error_in_its_order(ids, message):
    # The lowering raised the shape error when compiling, where the kernel checks the ids' range first
    def segment_sums(x, i):
        return rt.unsorted_segment_sum(x, i, 4)

    args = (np.ones((4, 2), np.float32), np.array(ids, np.int32))
    errors = []
    for jit_compile in (None, True):
        function = rt.function(segment_sums, input_signature=[SPEC([None, 2]), SPEC([None], rt.int32)],
                               jit_compile=jit_compile)
        with pytest.raises(rt.errors.InvalidArgumentError, match=message) as raised:
            function(*args)
        errors.append(str(raised.value).split("\n")[0])
    assert errors[0] == errors[1]
