"""runtime: tensors, one op registry, graphs, tracing and signature-keyed functions, on numpy.

The package is built in layers, each importing only the ones below it (``docs/INTERNALS.md``):
``core`` (tensors, graphs, the registry) < ``ops`` < ``passes`` < ``backends`` < ``tracing`` < ``saving``.

>>> import runtime as rt
>>> rt.matmul([[2.0]], [[2.0]])
Tensor([[4.]], shape=(1, 1), dtype=float32)
"""
from runtime.core import errors
from runtime.core.errors import RetraceWarning
from runtime.core.context import in_graph_mode, name_scope
from runtime.core.dtypes import (bool, float16, float32, float64, int8, int16, int32, int64, uint8,  # noqa: A004
                                 as_dtype)
from runtime.core.graph import FuncGraph, Graph, Operation
from runtime.core.shapes import TensorShape
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, TensorSpec, is_symbolic, is_tensor
from runtime.ops import *  # noqa: F401,F403
from runtime.ops import constant, convert_to_tensor
from runtime.ops import debugging, linalg, math, nn, random  # namespaces: rt.debugging.assert_equal, rt.math.erf, ...
from runtime.ops.variables import Variable
from runtime.passes.gradients import gradients
from runtime.passes import control_flow_gradients  # noqa: F401  (registers the gradient of If)
from runtime import backends  # noqa: F401  (gives graphs as_graph_def() and to_dot())
from runtime.backends import onnx as export  # rt.export.to_onnx
from runtime.backends import config  # rt.config.set_threads(n), rt.config.get_threads()
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.tape import GradientTape
from runtime.tracing import optimizers  # rt.optimizers.SGD, rt.optimizers.Adam
from runtime.tracing import distribute  # rt.distribute.data_parallel(step, devices) (jit_compile, the jax extra)
from runtime.tracing.function import ConcreteFunction, Function, function, functions_run_eagerly, run_functions_eagerly
from runtime.tracing.function_gradient import function_gradient
from runtime.tracing.custom_gradient import custom_gradient
from runtime.saving.serialize import load, save

newaxis = None  # t[:, rt.newaxis] adds a dimension of size 1, as numpy's np.newaxis
