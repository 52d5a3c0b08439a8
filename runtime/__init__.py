"""runtime: tensors, one op registry, graphs, tracing and signature-keyed functions, on numpy.

>>> import runtime as rt
>>> rt.matmul([[2.0]], [[2.0]])
Tensor([[4.]], shape=(1, 1), dtype=float32)
"""
from runtime import errors
from runtime.context import in_graph_mode
from runtime.dtypes import (bool, float16, float32, float64, int8, int16, int32, int64, uint8,  # noqa: A004
                            as_dtype)
from runtime.graph import FuncGraph, Graph, Operation
from runtime.ops import *  # noqa: F401,F403
from runtime.ops import constant, convert_to_tensor
from runtime.ops import debugging, random  # namespaces: rt.debugging.assert_equal, rt.random.uniform
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, TensorSpec, is_symbolic, is_tensor
from runtime.control_flow import cond, while_loop
from runtime.state import Variable
from runtime.function import ConcreteFunction, Function, function, functions_run_eagerly, run_functions_eagerly
from runtime import export
from runtime.serialize import load, save
