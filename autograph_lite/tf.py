"""TensorFlow's names over autograph_lite and runtime: port a program by changing one import.

``import tensorflow as tf`` becomes ``from autograph_lite import tf``; ``tf.function``,
``tf.autograph.to_code``, ``tf.config.run_functions_eagerly``, ``tf.constant``, ``tf.matmul``,
``tf.math``/``tf.nn``/``tf.linalg``/``tf.random``, ``tf.cond``, ``tf.while_loop`` ... are ours.
Names TensorFlow has and we do not are simply absent (``AttributeError``), never a stand-in.

>>> from autograph_lite import tf
>>> @tf.function
... def my_relu(x):
...     return tf.maximum(0., x)
>>> my_relu(tf.constant([1., -1.]))
Tensor([1. 0.], shape=(2,), dtype=float32)
>>> tf.executing_eagerly()
True
"""
from __future__ import annotations

import types
from typing import Any, Iterable, Optional

import runtime as rt
from autograph_lite import api

__version__ = "autograph_lite (TensorFlow-compatible names)"

# --- tensors, dtypes, variables ------------------------------------------------------------------------
Tensor, TensorSpec, Variable = rt.Tensor, rt.TensorSpec, rt.Variable
if hasattr(rt, "TensorArray"):
    TensorArray = rt.TensorArray
constant, convert_to_tensor = rt.constant, rt.convert_to_tensor
float16, float32, float64 = rt.float16, rt.float32, rt.float64
int8, int16, int32, int64, uint8, bool = rt.int8, rt.int16, rt.int32, rt.int64, rt.uint8, rt.bool  # noqa: A001
as_dtype = rt.as_dtype
DType = type(rt.float32)
dtypes = types.SimpleNamespace(float16=float16, float32=float32, float64=float64, int8=int8, int16=int16,
                               int32=int32, int64=int64, uint8=uint8, bool=bool, as_dtype=as_dtype, DType=DType)


def executing_eagerly() -> bool:
    """True outside a traced function (and inside one run with ``run_functions_eagerly(True)``)."""
    return not rt.in_graph_mode()


# --- functions and AutoGraph -----------------------------------------------------------------------------
function = api.function


def _loop_options_if_available() -> dict:
    import autograph_lite  # the package has finished importing when `from autograph_lite import tf` runs
    set_loop_options = getattr(autograph_lite, "set_loop_options", None) or getattr(api, "set_loop_options", None)
    return {} if set_loop_options is None else {"set_loop_options": set_loop_options}


autograph = types.SimpleNamespace(
    to_code=api.to_code, to_graph=api.to_graph,
    experimental=types.SimpleNamespace(do_not_convert=api.do_not_convert, **_loop_options_if_available()))
config = types.SimpleNamespace(run_functions_eagerly=api.run_functions_eagerly,
                               functions_run_eagerly=api.functions_run_eagerly)

# --- control flow, printing, errors ----------------------------------------------------------------------
cond, while_loop = rt.cond, rt.while_loop
print = rt.print  # noqa: A001
range = rt.range  # noqa: A001
errors, debugging, random = rt.errors, rt.debugging, rt.random
for _name in ("assert_equal", "assert_greater", "assert_less", "Assert"):
    if hasattr(rt.debugging, _name):
        globals()[_name] = getattr(rt.debugging, _name)


# --- op namespaces: everything the runtime has under TensorFlow's namespace names -------------------------
def _namespace(name: str, top_level: Iterable[str]) -> types.SimpleNamespace:
    """``tf.<name>``: ``rt.<name>``'s functions (when the runtime has that namespace) plus the top-level
    ops TensorFlow also lists there (``tf.math.reduce_sum`` is ``tf.reduce_sum``)."""
    members = {n: getattr(rt, n) for n in top_level if hasattr(rt, n)}
    submodule: Optional[Any] = getattr(rt, name, None)
    if submodule is not None:
        members.update({n: getattr(submodule, n) for n in dir(submodule)
                        if not n.startswith("_") and callable(getattr(submodule, n))})
    return types.SimpleNamespace(**members)


_MATH = ("abs add argmax argmin cumsum divide equal exp floordiv greater greater_equal less less_equal log "
         "logical_and logical_not logical_or maximum minimum mod multiply negative not_equal pow reduce_all "
         "reduce_any reduce_max reduce_mean reduce_min reduce_prod reduce_sum sign sqrt square subtract tanh "
         "sigmoid floor ceil round sin cos").split()
math = _namespace("math", _MATH)
nn = _namespace("nn", ("relu", "sigmoid", "softmax"))
linalg = _namespace("linalg", ("matmul", "transpose", "eye"))

# Top-level ops (tf.matmul, tf.reduce_sum, tf.reshape, ...): every public function of the runtime's op set.
for _name in dir(rt.ops):
    _value = getattr(rt.ops, _name)
    if not _name.startswith("_") and callable(_value) and _name not in globals() and not isinstance(_value, type):
        globals()[_name] = _value
del _name, _value
