"""jit_compile=True: the same functions on the numpy executor and compiled by XLA through JAX give the same
results (exact for integers and bools, float tolerances of docs/XLA.md), the same errors, the same state."""
import sys

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.core import nest

jax = pytest.importorskip("jax")

F32_TOLERANCE = dict(rtol=1e-5, atol=1e-6)   # docs/XLA.md: XLA fuses and reorders float arithmetic


def assert_same(expected, got):
    expected, got = nest.flatten(expected), nest.flatten(got)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        e, g = np.asarray(e), np.asarray(g)
        assert (e.dtype, e.shape) == (g.dtype, g.shape), (e, g)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, **F32_TOLERANCE)
        else:
            np.testing.assert_array_equal(g, e)


def both(function, *args, autograph=True):
    """The results of ``function`` on the numpy executor and compiled by XLA, checked equal; returns them."""
    expected = ag.function(function, autograph=autograph)(*args)
    got = ag.function(function, autograph=autograph, jit_compile=True)(*args)
    assert_same(expected, got)
    return got


X = rt.constant([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]])
I = rt.constant([[3, -7, 2], [0, 5, -1]])


@pytest.mark.parametrize("program", [
    lambda x, i: (x + 1.0, x - x * 2.0, x / 3.0, -x, abs(x), x ** 2.0, x // 0.7, x % 0.7),
    lambda x, i: (i + 1, i * i, i // 2, i % 3, -i, abs(i), i ** 2, rt.sign(i), rt.maximum(i, 0), rt.minimum(i, 1)),
    lambda x, i: (x > 0.5, x <= 0.5, rt.equal(i, 0), rt.not_equal(i, 0), rt.logical_and(x > 0, i > 0),
                  rt.logical_or(x > 0, i > 0), rt.logical_not(x > 0)),
    lambda x, i: (rt.exp(x), rt.log(abs(x)), rt.sqrt(abs(x)), rt.square(x), rt.tanh(x), rt.math.sigmoid(x),
                  rt.math.softplus(x), rt.math.log_sigmoid(x), rt.sin(x), rt.cos(x), rt.floor(x), rt.ceil(x),
                  rt.round(x * 2.0),
                  rt.math.log1p(abs(x)), rt.math.expm1(x), rt.math.reciprocal(x), rt.math.rsqrt(abs(x)),
                  rt.math.is_nan(x), rt.math.is_finite(x / 0.0), rt.math.erf(x), rt.math.erfc(x)),
    lambda x, i: (rt.reduce_sum(x), rt.reduce_sum(x, 0), rt.reduce_mean(x, 1, keepdims=True), rt.reduce_max(x, 1),
                  rt.reduce_min(x), rt.reduce_prod(x, 0), rt.reduce_any(x > 2.0, 1), rt.reduce_all(x > -5.0),
                  rt.reduce_mean(i, 1), rt.reduce_sum(i), rt.argmax(x, 1), rt.argmin(x, 0),
                  rt.cumsum(x, 1), rt.cumsum(i, 1, exclusive=True, reverse=True), rt.math.cumprod(x, 0)),
    lambda x, i: (rt.matmul(x, rt.transpose(x)), rt.reshape(x, [3, 2]), rt.reshape(x, [-1]), rt.transpose(x),
                  rt.expand_dims(x, 1), rt.squeeze(rt.expand_dims(x, 0)), rt.tile(x, [2, 1]),
                  rt.concat([x, x], 1), rt.stack([x, x], 0), rt.cast(x, rt.int32), rt.cast(i, rt.float64),
                  rt.cast(i, rt.bool), rt.identity(x), rt.shape(x), rt.size(x), rt.rank(x)),
    lambda x, i: (x[1], x[:, 1:], x[::-1, 0], x[..., None], x[-1, ::2], rt.gather(x, [1, 0, 1], axis=1),
                  rt.gather_nd(x, [[1, 2], [0, 0]]), rt.where(x > 0, x, 0.0), rt.zeros_like(x), rt.ones_like(i),
                  rt.fill([2, 2], 7), rt.range(0, 10, 3), rt.eye(3), rt.one_hot([0, 2, 5], 3),
                  rt.pad(x, [[1, 0], [0, 2]]), rt.reverse(x, [1]), rt.clip_by_value(x, -1.0, 1.0),
                  rt.sort(x, axis=1), rt.argsort(x, axis=1, direction="DESCENDING"),
                  rt.unsorted_segment_sum(x, [1, 0], 3), rt.split(x, [1, 2], axis=1), rt.unstack(x),
                  rt.einsum("ij,kj->ik", x, x), rt.repeat(x, 2, axis=0), rt.broadcast_to(x[0], [2, 2, 3])),
    lambda x, i: (rt.nn.relu(x), rt.nn.relu6(x * 4.0), rt.nn.leaky_relu(x), rt.nn.elu(x), rt.nn.softmax(x),
                  rt.nn.log_softmax(x, 0), rt.linalg.diag_part(x), rt.linalg.det(x[:, :2]),
                  rt.linalg.inv(x[:, :2]), rt.tensor_scatter_nd_update(x, [[0, 1]], [9.0]),
                  rt.tensor_scatter_nd_add(i, [[1, 1], [1, 1]], [10, 20]), rt.math.top_k(x, 2)),
], ids=["arithmetic", "integers", "comparisons", "unary", "reductions", "arrays", "indexing", "nn-linalg"])
def test_every_op_family_gives_the_numpy_executors_values(program):
    both(program, X, I)


def test_a_dynamic_index_reads_and_writes_like_numpy():
    def program(x, k):
        y = x[k] * 2.0
        return y, rt.tensor_scatter_nd_update(x, [[0, 0]], [1.0])[k - 1], x[:, k]
    both(program, X, rt.constant(1))
    both(program, X, rt.constant(-1))


def test_if_and_while_with_loop_flags_break_continue_and_maximum_iterations():
    def program(x, n):
        total = rt.zeros_like(x)
        i = 0
        while i < n:
            i += 1
            if i % 3 == 0:
                continue
            if rt.reduce_sum(total) > 40.0:
                break
            total = total + x * rt.cast(i, rt.float32)
        found = -1
        for j in range(n):
            if j * j > 20:
                found = j
                break
        return total, i, found

    for n in (0, 1, 4, 20):
        both(program, X, rt.constant(n))

    def bounded(x):
        return rt.while_loop(lambda v: rt.reduce_sum(v) < 1e6, lambda v: (v * 2.0,), (x,), maximum_iterations=5)
    both(bounded, rt.constant([1.0, 2.0]))


def test_a_python_condition_and_a_tensor_condition_known_when_compiling_pick_one_branch():
    def program(x, flag):
        if flag:
            x = x + 1.0
        y = rt.cond(rt.constant(True), lambda: x * 2.0, lambda: x[0:1])   # shapes differ: only one is compiled
        return y
    both(program, X, True)
    both(program, X, False)


def test_signatures_trace_and_compile_once_each():
    traces = []

    @ag.function(jit_compile=True)
    def f(x):
        traces.append(1)
        return x * 2.0
    for value in ([1.0], [2.0], [3.0, 4.0], [5.0]):
        f(rt.constant(value))
    assert f.experimental_get_tracing_count() == 2 and len(traces) == 2
    concrete = f.get_concrete_function(rt.TensorSpec([1], rt.float32))
    assert concrete._run.program.jitted._cache_size() == 1


def test_a_jitted_training_step_updates_the_variables_like_the_numpy_executor():
    rng = np.random.default_rng(0)
    data, labels = rng.normal(size=(16, 4)).astype(np.float32), rng.normal(size=(16, 1)).astype(np.float32)

    def train(jit_compile):
        w = rt.Variable(np.full((4, 1), 0.1, np.float32))
        b = rt.Variable(np.zeros((1,), np.float32))
        steps = rt.Variable(0)
        optimizer = rt.optimizers.SGD(learning_rate=0.1)

        @ag.function(jit_compile=jit_compile)
        def step(x, y):
            with rt.GradientTape() as tape:
                loss = rt.reduce_mean(rt.square(rt.matmul(x, w) + b - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
            steps.assign_add(1)
            return loss
        losses = [float(step(rt.constant(data), rt.constant(labels))) for _ in range(5)]
        return losses, w.numpy(), b.numpy(), steps.numpy()

    expected, got = train(None), train(True)
    np.testing.assert_allclose(got[0], expected[0], **F32_TOLERANCE)
    np.testing.assert_allclose(got[1], expected[1], **F32_TOLERANCE)
    np.testing.assert_allclose(got[2], expected[2], **F32_TOLERANCE)
    assert got[3] == expected[3] == 5


def test_a_variable_assigned_by_someone_else_between_calls_is_read_again():
    v = rt.Variable([1.0, 2.0])
    f = ag.function(lambda: v * 2.0, jit_compile=True)
    assert f().numpy().tolist() == [2.0, 4.0]
    v.assign([5.0, 6.0])
    assert f().numpy().tolist() == [10.0, 12.0]


def test_failed_checks_raise_the_numpy_executors_error_and_leave_its_state():
    v = rt.Variable(0)

    def program(x, i):
        v.assign_add(1)
        rt.debugging.assert_less(i, 3, message="i too big")
        v.assign_add(10)
        return rt.gather(x, rt.reshape(i, [1]))

    fj = ag.function(program, jit_compile=True)
    assert fj(rt.constant([1, 2, 3]), rt.constant(2)).numpy().tolist() == [3]
    assert v.numpy() == 11
    with pytest.raises(rt.errors.InvalidArgumentError, match="i too big") as caught:
        fj(rt.constant([1, 2, 3]), rt.constant(3))
    assert "test_xla_backend.py" in str(caught.value)
    assert v.numpy() == 12   # the numpy executor's: the write before the assert happened, the one after did not

    def gather_in_loop(x, n):
        total = 0
        for j in range(n):
            total += rt.gather(x, j)
        return total
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)"):
        ag.function(gather_in_loop, jit_compile=True)(rt.constant([1, 2, 3]), rt.constant(5))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        ag.function(lambda a, b: a // b, jit_compile=True)(rt.constant([1, 2]), rt.constant([1, 0]))


def test_rt_print_prints_on_every_call_in_order(capsys):
    @ag.function(jit_compile=True)
    def f(x):
        rt.print("start", x)
        for i in range(rt.constant(2)):
            rt.print("step", i)
        return x + 1
    f(rt.constant(1))
    f(rt.constant(5))
    assert capsys.readouterr().out == "start 1\nstep 0\nstep 1\nstart 5\nstep 0\nstep 1\n"


def test_random_draws_advance_per_call_seeded_ones_too():
    f = ag.function(lambda: (rt.random.uniform([1000]), rt.random.normal([3], seed=4),
                             rt.random.uniform([4], maxval=10, dtype=rt.int32)), jit_compile=True)
    (a, seeded_a, ints), (b, seeded_b, _) = f(), f()
    assert not np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(seeded_a.numpy(), seeded_b.numpy())  # an op seed starts a sequence (TF's rule)
    assert a.dtype == rt.float32 and ints.dtype == rt.int32 and ints.shape == (4,)
    assert 0.0 <= a.numpy().min() and a.numpy().max() < 1.0 and abs(a.numpy().mean() - 0.5) < 0.05
    assert ((0 <= ints.numpy()) & (ints.numpy() < 10)).all()


def test_gradients_of_the_tape_match_jax_grad():
    def loss(m, x, w):
        hidden = m.tanh(m.matmul(x, w))
        return m.sum(hidden * hidden) + m.sum(m.exp(w) * 0.1)

    x = np.linspace(-1, 1, 12).reshape(3, 4)
    w = np.linspace(0.5, -0.5, 8).reshape(4, 2)

    @ag.function(jit_compile=True)
    def ours(x, w):
        with rt.GradientTape() as tape:
            tape.watch(w)
            value = loss(rt_namespace, x, w)
        return tape.gradient(value, w)
    import jax.numpy as jnp
    rt_namespace = type("M", (), dict(tanh=staticmethod(rt.tanh), matmul=staticmethod(rt.matmul),
                                      sum=staticmethod(rt.reduce_sum), exp=staticmethod(rt.exp)))
    jnp_namespace = type("M", (), dict(tanh=staticmethod(jnp.tanh), matmul=staticmethod(jnp.matmul),
                                       sum=staticmethod(jnp.sum), exp=staticmethod(jnp.exp)))
    with jax.enable_x64(True):
        expected = jax.grad(lambda w: loss(jnp_namespace, x, w))(w)
    np.testing.assert_allclose(ours(rt.constant(x), rt.constant(w)).numpy(), np.asarray(expected), rtol=1e-12)


def test_what_cannot_be_compiled_is_a_clear_error_and_auto_falls_back(caplog):
    def collect(n):
        values = []
        for i in range(n):
            values.append(i * 2)
        return rt.stack(values)
    with pytest.raises(rt.errors.LoweringError, match=r"While\) cannot be compiled.*list 'values' is appended to in "
                                                      r"this loop.*iterations is known only when the graph runs.*"
                                                      r"maximum_iterations=n.*jit_compile='auto'"):
        ag.function(collect, jit_compile=True)(rt.constant(3))
    auto = ag.function(collect, jit_compile="auto")
    assert auto(rt.constant(3)).numpy().tolist() == [0, 2, 4]
    assert "running graph" in caplog.text and "numpy executor" in caplog.text
    with pytest.raises(rt.errors.LoweringError, match="XLA needs it when compiling"):
        ag.function(lambda x, n: rt.reshape(x, rt.stack([n, -1])), jit_compile=True)(X, rt.constant(3))

    def data_dependent(x):
        return rt.where(x > 0.0), rt.unique(rt.reshape(x, [-1]))[0]
    with pytest.raises(rt.errors.LoweringError, match=r"^Where \(Where\) cannot be compiled.*number of true elements"
                                                      r".*three-argument rt.where\(condition, x, y\).*'auto'") as where:
        ag.function(data_dependent, jit_compile=True)(X)
    assert "in data_dependent\n      return rt.where(x > 0.0)" in str(where.value)
    with pytest.raises(rt.errors.LoweringError, match=r"^Unique \(Unique\) cannot be compiled.*distinct values.*"
                                                      r"outside the jit_compile=True function"):
        ag.function(lambda x: rt.unique(x)[0] * 2, jit_compile=True)(rt.constant([1, 1, 2]))


def test_jit_compile_takes_only_none_true_or_auto_and_needs_jax(monkeypatch):
    with pytest.raises(ValueError, match="jit_compile must be None"):
        ag.function(lambda x: x, jit_compile="yes")
    monkeypatch.setitem(sys.modules, "jax", None)   # as if JAX were not installed
    with pytest.raises(ImportError, match=r"pip install 'autograph-lite\[jax\]'"):
        rt.function(lambda x: x, jit_compile=True)


def test_the_compiler_ir_is_stablehlo_text_and_the_cli_prints_it(tmp_path):
    @ag.function
    def f(x):
        return rt.reduce_sum(rt.matmul(x, x))
    text = f.experimental_get_compiler_ir(rt.constant(np.ones((3, 3), np.float32)))
    assert text.startswith("module @") and "stablehlo.dot_general" in text and "tensor<3x3xf32>" in text
    assert f.experimental_get_tracing_count() == 1

    from autograph_lite import cli
    import io
    out, err = io.StringIO(), io.StringIO()
    examples = __import__("pathlib").Path(__file__).resolve().parents[3] / "examples"
    code = cli.main(["graph", f"{examples / 'get_mse.py'}:get_MSE", "--spec", "int32[None]", "--spec", "int32[None]",
                     "--stablehlo"], out, err)
    assert code == 0 and err.getvalue() == "Calculating MSE!\n"
    assert out.getvalue().startswith("module @") and "tensor<8xi32>" in out.getvalue()


def test_a_loaded_function_runs_compiled(tmp_path):
    v = rt.Variable([1.0, 2.0])

    @ag.function
    def f(x, n):
        for i in range(n):
            x = x * 2.0 + v
        return x
    spec = rt.TensorSpec([2], rt.float32)
    f.get_concrete_function(spec, rt.TensorSpec([], rt.int32))
    rt.save(f, tmp_path / "f")
    numpy_loaded, xla_loaded = rt.load(tmp_path / "f"), rt.load(tmp_path / "f", jit_compile=True)
    args = rt.constant([1.0, -1.0]), rt.constant(3)
    assert_same(numpy_loaded(*args), xla_loaded(*args))
    assert xla_loaded.concrete_functions[0]._run.program is not None
    with pytest.raises(ValueError, match="jit_compile must be"):
        rt.load(tmp_path / "f", jit_compile="always")


def test_a_loop_over_a_range_of_run_time_length_compiles_without_building_it():
    def program(n, x):
        for i in rt.range(n):
            x = x + rt.cast(i, rt.float32)
        for j in rt.range(n, 0, -2):
            x = x * 0.5 + rt.cast(j, rt.float32)
        r = rt.range(0.5, rt.cast(n, rt.float32), 0.75)
        return x, r[-1], rt.shape(r)
    for n in (1, 2, 7):
        both(program, rt.constant(n), rt.constant(1.0))
    with pytest.raises(rt.errors.LoweringError, match="a range whose length is known only when the graph runs"):
        ag.function(lambda n: rt.reduce_sum(rt.range(n)), jit_compile=True)(rt.constant(4))


def test_lists_of_a_length_known_when_compiling_and_fixed_size_tensor_arrays_compile():
    def python_lists(x, k):
        values = rt.TensorList.from_tensors([x, x * 2.0]).append(x + 1.0).set_item(k, -x)
        values, last = values.pop()   # TensorList.pop: the list and the element (unconverted, see below)
        more = rt.TensorList.from_tensor(rt.stack([x, -x]))
        return values.stack(), last, values[k], values[-1], values.length(), values.concat(), more[1]

    def tensor_array(x, n):
        squares = rt.TensorArray(rt.float32, size=5, element_shape=[2])
        for i in range(n):
            squares = squares.write(i, x * rt.cast(i, rt.float32))
        for i in range(n, 5):
            squares = squares.write(i, -x)
        return squares.stack(), squares.read(n - 1), squares.size(), squares.gather([0, 4])

    for k in (0, 1, -2):
        both(python_lists, rt.constant([1.0, 2.0]), rt.constant(k), autograph=False)
    for n in (1, 3, 5):
        both(tensor_array, rt.constant([1.0, 2.0]), rt.constant(n))
    with pytest.raises(rt.errors.InvalidArgumentError, match="never written"):
        ag.function(lambda x: rt.TensorArray(rt.float32, size=2, element_shape=[]).write(0, x).stack(),
                    jit_compile=True)(rt.constant(1.0))
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of range"):
        ag.function(python_lists, autograph=False, jit_compile=True)(rt.constant([1.0, 2.0]), rt.constant(2))


def test_the_tf_shim_takes_jit_compile():
    from autograph_lite import tf
    f = tf.function(lambda x: tf.reduce_sum(x * x), jit_compile=True)
    assert f(tf.constant([1.0, 2.0])).numpy() == 5.0
    assert f.get_concrete_function(tf.constant([1.0, 2.0]))._run.program.jitted is not None


def test_gradients_through_branches_compile():
    def branches(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.tanh(x) * 1.5 if rt.reduce_sum(x) > 0.5 else x * x + 0.5
            loss = rt.reduce_sum(y * x)
        return loss, tape.gradient(loss, x)
    both(branches, rt.constant([0.3, -0.7, 1.1]))
    both(branches, rt.constant([0.3, -0.7, 0.1]))
    # (gradients through tensor loops: tests/runtime/backends/test_xla_loops.py)


def test_concurrent_calls_of_a_jitted_step_lose_no_variable_update():
    # Each call reads the Variable, runs, and writes it back: two calls at once lost one update (675 of 1601).
    import threading
    counter = rt.Variable(0.0)

    @ag.function(jit_compile=True)
    def step():
        counter.assign_add(1.0)
        return counter + 0.0

    step()

    def work():
        for _ in range(100):
            step()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert float(counter.numpy()) == 801.0


def test_different_jitted_functions_and_the_numpy_executor_assigning_the_same_variables_lose_no_update():
    # Two compiled functions writing the same Variables (in opposite orders: no deadlock either) and a numpy-executor
    # function, 3 threads each: a compiled call holds the locks of the Variables it writes from its read to its
    # write-back. Without them, concurrent calls of different functions lost updates.
    import threading
    a, b = rt.Variable(0.0), rt.Variable(0)

    @ag.function(jit_compile=True)
    def add_to_both(x):
        a.assign_add(x)
        b.assign_add(1)
        return a + 0.0

    @ag.function(jit_compile=True)
    def add_in_the_other_order(x):
        b.assign_add(2)
        a.assign_add(x * 10.0)
        return b + 0

    @ag.function
    def on_numpy(x):
        a.assign_add(x * 100.0)
        return a + 0.0

    one = rt.constant(1.0)
    steps = 60
    calls = [add_to_both, add_in_the_other_order, on_numpy] * 3
    for call in calls[:3]:
        call(one)
    threads = [threading.Thread(target=lambda call=call: [call(one) for _ in range(steps)]) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rounds = 1 + 3 * steps   # per function: the warm-up call, then 3 threads x steps
    assert float(a.numpy()) == 111.0 * rounds and int(b.numpy()) == 3 * rounds



def test_a_float64_variable_keeps_its_64_bits_on_the_device():
    # Its value went to the device outside JAX's 64-bit mode, as float32: products differed in the 8th digit.
    v = rt.Variable(np.array([0.1, 1.0 / 3.0, 2.0 ** -30 + 1.0]))

    def scaled(x):
        v.assign(v * x)
        return v * x
    x = rt.constant(np.array([1.0 / 7.0, 3.0, 1.0 + 2.0 ** -40]))
    expected = ag.function(scaled)(x).numpy(), v.numpy()
    v.assign(np.array([0.1, 1.0 / 3.0, 2.0 ** -30 + 1.0]))
    got = ag.function(scaled, jit_compile=True)(x).numpy(), v.numpy()
    assert got[0].dtype == np.float64 and got[0].tolist() == expected[0].tolist()
    assert got[1].tolist() == expected[1].tolist()
