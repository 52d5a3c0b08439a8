"""``from autograph_lite import tf``: TensorFlow's names over ours (autograph_lite/tf.py, built from the table in
autograph_lite/tf_api.py; the table itself is checked in test_tf_api.py). Here: what the names do."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import tf


def test_functions_and_autograph_are_ours():
    assert isinstance(tf.function(lambda x: x), rt.Function)
    assert tf.autograph.to_code is ag.to_code and tf.autograph.to_graph is ag.to_graph
    assert tf.autograph.experimental.do_not_convert is ag.do_not_convert
    assert tf.autograph.experimental.set_loop_options is ag.set_loop_options
    assert tf.config.run_functions_eagerly is ag.run_functions_eagerly
    assert tf.TensorArray is rt.TensorArray and tf.GradientTape is rt.GradientTape and tf.newaxis is None


def test_tensors_dtypes_and_ops_are_the_runtimes():
    assert tf.constant.__wrapped__ is rt.constant and tf.Variable is rt.Variable and tf.TensorSpec is rt.TensorSpec
    assert tf.Tensor is rt.Tensor and tf.TensorShape is rt.TensorShape
    assert tf.float32 is rt.float32 and tf.dtypes.int32 is rt.int32 and tf.int64 is rt.int64 and tf.double is rt.float64
    assert tf.matmul.__wrapped__ is rt.matmul and tf.reduce_sum.__wrapped__ is rt.reduce_sum
    assert tf.cond.__wrapped__ is rt.cond and tf.while_loop.__wrapped__ is rt.while_loop
    assert tf.random.uniform.__wrapped__ is rt.random.uniform
    assert tf.errors.InvalidArgumentError is rt.errors.InvalidArgumentError
    assert tf.debugging.assert_equal.__wrapped__ is rt.debugging.assert_equal
    assert tf.keras.optimizers.SGD is rt.optimizers.SGD and tf.keras.optimizers.Adam is rt.optimizers.Adam


def test_op_namespaces_hold_tensorflows_names():
    assert tf.math.reduce_sum.__wrapped__ is rt.reduce_sum and tf.math.add.__wrapped__ is rt.add
    assert tf.linalg.det.__wrapped__ is rt.linalg.det and tf.nn.softmax.__wrapped__ is rt.nn.softmax
    for namespace in (tf.math, tf.nn, tf.linalg):
        assert all(callable(member) for member in vars(namespace).values())


def test_executing_eagerly_is_false_only_while_tracing():
    seen = []

    @tf.function
    def f(x):
        seen.append((tf.executing_eagerly(), tf.inside_function()))
        return x + 1

    assert tf.executing_eagerly() is True
    assert f(tf.constant(1)).numpy() == 2
    tf.config.run_functions_eagerly(True)
    try:
        assert f(tf.constant(1)).numpy() == 2
    finally:
        tf.config.run_functions_eagerly(False)
    assert seen == [(False, True), (True, False)]


def test_a_name_we_do_not_have_is_an_attribute_error_that_says_why():
    with pytest.raises(AttributeError, match=r"^tf.keras.layers is TensorFlow's, but .* Keras layers and models are "
                                             r"out of scope"):
        tf.keras.layers  # noqa: B018
    with pytest.raises(AttributeError, match=r"tf.math.bessel_i0 is TensorFlow's.*Instead: compute it with numpy"):
        tf.math.bessel_i0  # noqa: B018
    with pytest.raises(AttributeError, match="has no tf.frobnicate"):
        tf.frobnicate  # noqa: B018


def test_tensorflow_code_runs_with_only_the_import_changed(capsys):
    @tf.function
    def a_function_with_python_side_effect(x):
        print("Tracing!")
        return x * x + tf.constant(2)

    print(a_function_with_python_side_effect(tf.constant(2)))
    print(a_function_with_python_side_effect(tf.constant(3)))
    print(a_function_with_python_side_effect(2))
    assert capsys.readouterr().out == ("Tracing!\nTensor(6, shape=(), dtype=int32)\nTensor(11, shape=(), dtype=int32)\n"
                                       "Tracing!\nTensor(6, shape=(), dtype=int32)\n")


# --- tf.function's TensorFlow keywords ----------------------------------------------------------------------
def test_experimental_relax_shapes_is_reduce_retracing():
    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)

    for n in (2, 3, 4, 5):
        assert total(tf.ones([n])).numpy() == n
    assert total.experimental_get_tracing_count() == 2   # (2,), then (None,) for every other length


def test_refused_keywords_are_named():
    with pytest.raises(TypeError, match="experimental_implements= is not supported by autograph_lite's tf shim"):
        tf.function(lambda x: x, experimental_implements="name")


def test_jit_compile_false_is_the_numpy_executor():
    @tf.function(jit_compile=False)
    def double(x):
        return 2 * x

    assert double(tf.constant(3)).numpy() == 6


# --- errors in the user's words -----------------------------------------------------------------------------
def test_errors_name_tf_cast_through_the_shim_and_rt_cast_through_rt():
    with pytest.raises(TypeError, match=r"convert one with tf\.cast\(value, tf\.int32\)$"):
        tf.add(tf.constant(1), tf.constant(1.0))
    with pytest.raises(TypeError, match=r"convert one with rt\.cast\(value, rt\.int32\)$"):
        rt.add(rt.constant(1), rt.constant(1.0))

    @tf.function
    def mixed(x):
        return tf.cast(x, tf.float32) + tf.constant(1)   # the + operator's error, raised while tracing

    with pytest.raises(TypeError, match=r"convert one with tf\.cast\(value, tf\.float32\)"):
        mixed(tf.constant(1))


# A program written with the shim (its module has tf, not runtime): what its tensors' operators and methods
# raise eagerly passes no entry point of the shim, and speaks tf too.
TF_PROGRAM = """
from autograph_lite import tf
i, f = tf.constant([1, 2]), tf.constant([1.0, 2.0])
failing = {
    "x + y": lambda: i + f, "x < y": lambda: i < f, "x @ y": lambda: i @ f, "x[y]": lambda: i[f],
    "x & y": lambda: i & i, "-x": lambda: -tf.constant([True]), "bool(x)": lambda: bool(i),
    "v.assign": lambda: tf.Variable(1.0).assign(tf.constant(1)),
    "ta.write": lambda: tf.TensorArray(tf.float32, size=1).write(0, i),
}
"""


def _raised_by(program: str, path) -> dict:
    namespace: dict = {}
    exec(compile(program, str(path), "exec"), namespace)
    messages = {}
    for name, call in namespace["failing"].items():
        with pytest.raises((TypeError, ValueError)) as raised:
            call()
        messages[name] = str(raised.value)
    return messages


def test_eager_operators_and_methods_in_a_tf_program_name_tf(tmp_path):
    messages = _raised_by(TF_PROGRAM, tmp_path / "tf_program.py")
    assert messages["x + y"] == ("AddV2: x and y must have the same dtype, got int32 and float32; "
                                 "convert one with tf.cast(value, tf.int32)")
    assert messages["x < y"].endswith("convert one with tf.cast(value, tf.int32)")
    assert messages["x @ y"].endswith("convert one with tf.cast(value, tf.int32)")
    assert messages["x[y]"].endswith("use tf.gather to pick several elements")
    assert messages["x & y"].endswith("or use tf.cast(x, tf.bool)")
    assert messages["-x"].endswith("convert it with tf.cast(x, tf.int32)")
    assert messages["bool(x)"].endswith("e.g. tf.reduce_any(t) or tf.reduce_all(t)")
    assert messages["v.assign"].endswith("convert it with tf.cast(value, tf.float32)")
    assert messages["ta.write"].endswith("convert it with tf.cast(value, tf.float32)")
    assert not any("rt." in message for message in messages.values())


def test_a_program_that_imports_runtime_keeps_rt(tmp_path):
    for header in ("import runtime as rt\n", "import runtime\n"):
        messages = _raised_by(header + TF_PROGRAM, tmp_path / "mixed_program.py")
        assert messages["x + y"].endswith("convert one with rt.cast(value, rt.int32)")
        assert not any("tf." in message for message in messages.values())
    assert str(_raised(lambda: rt.constant(1) + rt.constant(1.0))).endswith("rt.cast(value, rt.int32)")  # this file


def _raised(call) -> BaseException:
    with pytest.raises(Exception) as raised:
        call()
    return raised.value


# --- tf.Module and tf.saved_model ---------------------------------------------------------------------------
class Dense(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.w = tf.Variable([[1.0], [2.0]], name="w")
        self.b = tf.Variable([0.5], name="b")
        self.steps = tf.Variable(0, trainable=False, name="steps")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        with self.name_scope:
            return tf.matmul(x, self.w) + self.b

    @tf.function
    def count(self, n):
        self.steps.assign_add(n)
        return self.steps.read_value()


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense("first"), Dense("second")]
        self.scale = {"a": tf.Variable(3.0, name="scale")}


def test_module_finds_its_variables_through_attributes_lists_and_dicts():
    model = Model()
    assert model.name == "model" and model.layers[0].name == "first" and Dense().name == "dense"
    assert [v.name for v in model.variables] == ["b", "steps", "w", "b", "steps", "w", "scale"]
    assert [v.name for v in model.trainable_variables] == ["b", "w", "b", "w", "scale"]
    assert [v.name for v in model.non_trainable_variables] == ["steps", "steps"]
    assert model.submodules == tuple(model.layers)
    shared = Model()
    shared.layers.append(shared.layers[0])           # a variable reached twice is listed once
    assert len(shared.variables) == 7


def test_module_name_scope_names_its_ops():
    layer = Dense()
    graph = layer.__call__.get_concrete_function().graph
    assert "dense/MatMul" in [op.name for op in graph.operations]
    with pytest.raises(ValueError, match="name must be a valid Python identifier"):
        tf.Module(name="not valid")


def test_module_trains_with_a_tape_and_a_keras_optimizer():
    layer = Dense()
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
    x, y = tf.constant([[1.0, 1.0]]), tf.constant([[1.0]])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.keras.losses.MeanSquaredError()(y, layer(x))
        optimizer.apply_gradients(zip(tape.gradient(loss, layer.trainable_variables), layer.trainable_variables))
        return loss

    losses = [float(step()) for _ in range(3)]
    assert losses[0] == pytest.approx(6.25) and losses[2] < losses[1] < losses[0]


def test_saved_model_round_trip_of_a_module_keeps_shared_variables_shared(tmp_path):
    layer = Dense()
    layer.count(tf.constant(2))
    tf.saved_model.save(layer, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    np.testing.assert_array_equal(loaded(tf.constant([[1.0, 1.0]])).numpy(), [[3.5]])
    assert loaded.count(tf.constant(1)).numpy() == 3 and loaded.count(tf.constant(1)).numpy() == 4
    assert sorted(v.name for v in loaded.variables) == ["b", "steps", "w"]
    assert layer.steps.numpy() == 2   # the original is untouched


def test_saved_model_of_a_function(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def square(x):
        return x * x

    tf.saved_model.save(square, str(tmp_path))
    np.testing.assert_array_equal(tf.saved_model.load(str(tmp_path))(tf.constant([3.0])).numpy(), [9.0])


def test_saved_model_refuses_what_it_cannot_save(tmp_path):
    class Untraced(tf.Module):
        @tf.function
        def f(self, x):
            return x

    with pytest.raises(rt.errors.SaveError, match=r"Untraced.f has not been traced yet and has no input_signature"):
        tf.saved_model.save(Untraced(), str(tmp_path))
    with pytest.raises(rt.errors.SaveError, match="expects a tf.function or a tf.Module, got int"):
        tf.saved_model.save(3, str(tmp_path))
    with pytest.raises(rt.errors.SaveError, match="signatures= and options= are not supported"):
        tf.saved_model.save(Dense(), str(tmp_path), signatures={})


def test_saved_model_load_validates_the_method_list(tmp_path):
    layer = Dense()
    layer.count(1)
    tf.saved_model.save(layer, str(tmp_path))
    (tmp_path / "tf_module.json").write_text('{"methods": ["__init__"]}')
    with pytest.raises(rt.errors.LoadError, match="'methods' must be a non-empty list of public method names"):
        tf.saved_model.load(str(tmp_path))


# --- keras losses and activations ---------------------------------------------------------------------------
def test_keras_losses_match_their_formulas():
    y_true, y_pred = np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[0.2, 0.8], [0.6, 0.4]])
    losses = tf.keras.losses
    np.testing.assert_allclose(losses.mse(y_true, y_pred).numpy(), np.mean((y_pred - y_true) ** 2, -1))
    np.testing.assert_allclose(losses.MeanAbsoluteError()(y_true, y_pred).numpy(), np.mean(np.abs(y_pred - y_true)))
    expected_cce = -np.sum(y_true * np.log(y_pred), -1)
    np.testing.assert_allclose(losses.categorical_crossentropy(y_true, y_pred).numpy(), expected_cce, rtol=1e-6)
    np.testing.assert_allclose(losses.SparseCategoricalCrossentropy()([1, 0], y_pred).numpy(), expected_cce.mean(),
                               rtol=1e-6)
    logits = np.array([[2.0, -1.0], [0.5, 0.5]])
    expected_logits = -np.sum(y_true * (logits - np.log(np.exp(logits).sum(-1, keepdims=True))), -1)
    np.testing.assert_allclose(losses.CategoricalCrossentropy(from_logits=True)(y_true, logits).numpy(),
                               expected_logits.mean(), rtol=1e-6)
    expected_bce = -np.mean(y_true * np.log(y_pred) + (1 - y_true) * np.log(1 - y_pred), -1)
    np.testing.assert_allclose(losses.binary_crossentropy(y_true, y_pred).numpy(), expected_bce, rtol=1e-6)
    np.testing.assert_allclose(losses.BinaryCrossentropy(from_logits=True)(y_true, logits).numpy(),
                               np.mean(np.maximum(logits, 0) - logits * y_true + np.log1p(np.exp(-np.abs(logits)))),
                               rtol=1e-6)


def test_keras_activations():
    x = np.array([-2.0, -0.5, 0.0, 1.5])
    activations = tf.keras.activations
    np.testing.assert_allclose(activations.swish(x).numpy(), x / (1 + np.exp(-x)))
    np.testing.assert_allclose(activations.softsign(x).numpy(), x / (1 + np.abs(x)))
    np.testing.assert_allclose(activations.selu(x).numpy(),
                               1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)))
    np.testing.assert_array_equal(activations.linear(x).numpy(), x)
    assert activations.relu.__wrapped__ is rt.nn.relu


# --- TF's result types ----------------------------------------------------------------------------------------
def test_top_k_unique_and_moments_return_tensorflows_tuples():
    top = tf.math.top_k(tf.constant([1.0, 3.0, 2.0]), k=2)
    np.testing.assert_array_equal(top.values.numpy(), [3.0, 2.0])
    np.testing.assert_array_equal(top.indices.numpy(), [1, 2])
    assert type(top).__name__ == "TopKV2"
    y, idx = tf.unique(tf.constant([4, 1, 4, 2]))
    np.testing.assert_array_equal(y.numpy(), [4, 1, 2])
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 0, 2])
    counted = tf.unique_with_counts(tf.constant([5, 7, 5]))
    np.testing.assert_array_equal(counted.count.numpy(), [2, 1])
    mean, variance = tf.nn.moments(tf.constant([[1.0, 2.0], [3.0, 6.0]]), axes=[0])
    np.testing.assert_array_equal(mean.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(variance.numpy(), [1.0, 4.0])
