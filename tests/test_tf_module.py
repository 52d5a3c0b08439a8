"""``from autograph_lite import tf``: TensorFlow's names over ours (autograph_lite/tf.py)."""
import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import api, tf


def test_functions_and_autograph_are_ours():
    assert tf.function is ag.function
    assert tf.autograph.to_code is ag.to_code and tf.autograph.to_graph is ag.to_graph
    assert tf.autograph.experimental.do_not_convert is ag.do_not_convert
    assert tf.config.run_functions_eagerly is ag.run_functions_eagerly
    set_loop_options = getattr(ag, "set_loop_options", None) or getattr(api, "set_loop_options", None)
    if set_loop_options is not None:  # wired once loop options exist
        assert tf.autograph.experimental.set_loop_options is set_loop_options
    else:
        assert not hasattr(tf.autograph.experimental, "set_loop_options")
    if hasattr(rt, "TensorArray"):
        assert tf.TensorArray is rt.TensorArray
    else:
        assert not hasattr(tf, "TensorArray")


def test_tensors_dtypes_and_ops_are_the_runtimes():
    assert tf.constant is rt.constant and tf.Variable is rt.Variable and tf.TensorSpec is rt.TensorSpec
    assert tf.Tensor is rt.Tensor
    assert tf.float32 is rt.float32 and tf.dtypes.int32 is rt.int32 and tf.int64 is rt.int64
    assert tf.matmul is rt.matmul and tf.reduce_sum is rt.reduce_sum and tf.maximum is rt.maximum
    assert tf.cond is rt.cond and tf.while_loop is rt.while_loop and tf.range is rt.range and tf.print is rt.print
    assert tf.random.uniform is rt.random.uniform and tf.errors.InvalidArgumentError is rt.errors.InvalidArgumentError
    assert tf.debugging is rt.debugging


def test_op_namespaces_hold_tensorflows_names():
    assert tf.math.reduce_sum is rt.reduce_sum and tf.math.add is rt.add
    assert tf.math.tanh is rt.math.tanh and tf.math.top_k is rt.math.top_k
    assert tf.linalg.matmul is rt.linalg.matmul and tf.linalg.det is rt.linalg.det
    assert tf.nn.relu is rt.nn.relu and tf.nn.softmax is rt.nn.softmax
    assert tf.one_hot is rt.one_hot and tf.einsum is rt.einsum
    for namespace in (tf.math, tf.nn, tf.linalg):
        assert all(callable(member) for member in vars(namespace).values())


def test_executing_eagerly_is_false_only_while_tracing():
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        return x + 1

    assert tf.executing_eagerly() is True
    assert f(tf.constant(1)).numpy() == 2
    tf.config.run_functions_eagerly(True)
    try:
        assert f(tf.constant(1)).numpy() == 2
    finally:
        tf.config.run_functions_eagerly(False)
    assert seen == [False, True]


def test_a_name_we_do_not_have_is_an_attribute_error_not_a_stand_in():
    with pytest.raises(AttributeError):
        tf.keras  # noqa: B018
    with pytest.raises(AttributeError):
        tf.math.bessel_i0  # noqa: B018


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
