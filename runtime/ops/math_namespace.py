"""``rt.math``: TensorFlow's ``tf.math`` names — elementwise math, reductions and ordering.

Every name is the same function as elsewhere in ``runtime`` (``rt.math.add is rt.add``), except
TensorFlow's second names ``floormod`` (``mod``) and ``truediv`` (``divide``): copies named for themselves.

>>> import runtime as rt
>>> rt.math.top_k([1.0, 3.0, 2.0], k=2)[1]
Tensor([1 2], shape=(2,), dtype=int32)
"""
from runtime.ops.linalg_ops import norm  # noqa: F401
from runtime.ops.logical_ops import logical_and, logical_not, logical_or  # noqa: F401
from runtime.ops.math_ops import (add, divide, equal, floordiv, greater, greater_equal, less,  # noqa: F401
                                  less_equal, maximum, minimum, multiply, not_equal, pow, subtract)  # noqa: A004
from runtime.ops.math_ops import mod  # noqa: F401
from runtime.core.public_names import alias
from runtime.ops.reduction_ops import (argmax, argmin, cumprod, cumsum, reduce_all, reduce_any,  # noqa: F401
                                       reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
                                       reduce_sum)
from runtime.ops.sort_ops import argsort, sort, top_k  # noqa: F401
from runtime.ops.statistics_ops import reduce_std, reduce_variance  # noqa: F401
from runtime.ops.special_math_ops import erf, erfc  # noqa: F401
from runtime.ops.unary_ops import (abs, ceil, cos, exp, expm1, floor, is_finite, is_nan, log, log1p,  # noqa: F401,A004
                                   log_sigmoid, negative, reciprocal, round, rsqrt, sigmoid, sign, sin, softplus, sqrt,
                                   square, tanh)

floormod = alias(mod, "floormod", __name__)
truediv = alias(divide, "truediv", __name__)
