"""All public ops. Each module registers its ops in ``runtime.core.registry`` when imported.

``debugging`` (Assert and assert_*), ``random`` (uniform, normal, categorical), ``math``, ``nn`` and ``linalg`` are
namespaces, as in TensorFlow; the names TensorFlow also has at its top level (``tanh``, ``sort``, ...)
are here too.
"""
from runtime.ops import core  # noqa: F401  (Const, Placeholder, Identity)
from runtime.ops import debugging  # noqa: F401
from runtime.ops import math_namespace as math  # noqa: F401
from runtime.ops import gradient_ops  # noqa: F401  (broadcast_to, stop_gradient, unbroadcast)
from runtime.ops.gradient_ops import broadcast_to, stop_gradient
from runtime.ops import linalg_namespace as linalg  # noqa: F401
from runtime.ops import nn_namespace as nn  # noqa: F401
from runtime.ops import random_ops as random  # noqa: F401
from runtime.ops.array_ops import cast, expand_dims, identity, reshape, squeeze, tile, transpose
from runtime.ops.combine_ops import where
from runtime.ops.rows_ops import concat, stack
from runtime.ops.convert import constant, convert_to_tensor
from runtime.ops.creation_ops import eye, fill, ones, ones_like, range, zeros, zeros_like  # noqa: A004
from runtime.ops.indexing import gather, slice_by_key, unsorted_segment_sum, update_by_key
from runtime.ops.logging_ops import print  # noqa: A004
from runtime.ops.logical_ops import logical_and, logical_not, logical_or
from runtime.ops.math_ops import (add, divide, equal, floordiv, greater, greater_equal, less, less_equal, matmul,
                                  maximum, minimum, mod, multiply, not_equal, pow, subtract)  # noqa: A004
from runtime.ops.list_ops import TensorList
from runtime.ops.tensor_array_ops import TensorArray
from runtime.ops import list_gradients  # noqa: F401  (the list ops' gradient rules)
from runtime.ops.scatter_ops import gather_nd, scatter_nd, tensor_scatter_nd_add, tensor_scatter_nd_update
from runtime.ops.reduction_ops import (argmax, argmin, cumsum, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
                                       reduce_mean, reduce_min, reduce_prod, reduce_sum)
from runtime.ops.shape_ops import rank, shape, size
from runtime.ops.sort_ops import argsort, sort
from runtime.ops.set_ops import unique, unique_with_counts
from runtime.ops.einsum_ops import einsum
from runtime.ops.linalg_ops import norm
from runtime.ops.manipulation_ops import clip_by_value, one_hot, pad, repeat, reverse
from runtime.ops.split_ops import split, unstack
from runtime.ops.unary_ops import (abs, ceil, cos, exp, floor, log, negative, round, sigmoid, sign, sin,  # noqa: A004
                                   sqrt, square, tanh)
from runtime.ops import operators  # noqa: F401  (installs +, *, <, [] ... on Tensor)
from runtime.ops import control_flow_ops, variables  # noqa: F401  (If/While and the Variable ops)
from runtime.ops import custom_gradient_ops  # noqa: F401  (CustomGradient: rt.custom_gradient in a graph)
from runtime.ops import numpy_dispatch  # noqa: F401,E402  (np.sum(t) and friends become these ops)
