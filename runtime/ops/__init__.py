"""All public ops. Each module registers its ops in ``runtime.ops.registry`` when imported."""
from runtime.ops import core  # noqa: F401  (Const, Placeholder, Identity)
from runtime.ops.convert import constant, convert_to_tensor
from runtime.ops.math_ops import (add, equal, greater, greater_equal, less, less_equal, matmul, maximum,
                                  minimum, multiply, not_equal, subtract)
