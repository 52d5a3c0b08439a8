"""``rt.nn``: TensorFlow's ``tf.nn`` names — activations, softmax, cross-entropies, l2_normalize, top_k, moments.

>>> import runtime as rt
>>> rt.nn.relu([-1.0, 2.0])
Tensor([0. 2.], shape=(2,), dtype=float32)
"""
from runtime.ops.nn_ops import (elu, gelu, l2_normalize, leaky_relu, log_softmax, relu, relu6,  # noqa: F401
                                sigmoid_cross_entropy_with_logits, softmax, softmax_cross_entropy_with_logits)
from runtime.ops.sort_ops import top_k  # noqa: F401
from runtime.ops.statistics_ops import moments  # noqa: F401
from runtime.ops.unary_ops import sigmoid, softplus, tanh  # noqa: F401
