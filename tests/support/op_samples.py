"""One sample run of every op with a kernel, recorded from eager calls: (op_def, input arrays, attrs).

The sample calls are the ops' own doctests (runtime/ops) plus ``extra_calls`` for the ops those do not
reach. Shared by the kernel-output checks and the hostile-attr checks of the loader and the executor.
"""
import contextlib
import doctest
import importlib
import io
import functools
import pkgutil

import numpy as np

import runtime as rt
import runtime.ops
from runtime.core import registry
from runtime.core.attrs import input_problem
from runtime.core.context import graph_scope
from runtime.core.graph import FuncGraph
from runtime.ops import list_gradients


def extra_calls():
    x = rt.constant([0.25, -1.5, 2.0])
    ints = rt.constant([7, -3, 4])
    rt.reduce_any(rt.constant([True, False]))
    rt.debugging.assert_greater(x + 5.0, x)
    v = rt.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    v.read_value()
    for unary in (rt.math.ceil, rt.math.floor, rt.math.cos, rt.math.sin, rt.math.expm1, rt.math.log1p,
                  rt.math.reciprocal, rt.math.sigmoid, rt.math.softplus, rt.math.log_sigmoid, rt.math.tanh, rt.math.sign,
                  rt.math.is_nan):
        unary(x)
    rt.math.sign(ints)
    ints // rt.constant([2, 2, 2])
    ints % rt.constant([2, 5, 3])
    rt.math.pow(x, 2.0)
    rt.math.minimum(x, 0.0)
    rt.reduce_mean(x)
    rt.reduce_min(x)
    rt.reduce_prod(x)
    with contextlib.redirect_stdout(io.StringIO()):
        rt.print(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x[1:] * 2.0)
    tape.gradient(y, x)   # StridedSliceGrad
    items = rt.TensorList.from_tensor(rt.constant([[1, 2], [3, 4]]))
    items = items.set_item(0, rt.constant([5, 6]))
    items.length()
    items.concat()
    items.pop()
    array = rt.TensorArray(rt.int32, size=3)
    array = array.scatter([0, 2], rt.constant([[1, 2], [5, 6]]))   # TensorListScatterIntoExistingList
    array = array.write(1, rt.constant([3, 4]))
    array.gather([2, 0])                                            # TensorListGather
    floats = rt.TensorList.from_tensor(rt.constant([[1.0, 2.0], [3.0, 4.0]]))
    list_gradients.add_lists(floats.handle, list_gradients.zeros_like_list(floats.handle))  # gradient-only ops


def record_eager_runs(record) -> None:
    """Run every sample call with ``record(op_def, inputs, attrs, outputs)`` hooked into eager ops."""
    registry.eager_op_hooks.append(record)
    try:
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        for module in pkgutil.walk_packages(runtime.ops.__path__, "runtime.ops."):
            for test in doctest.DocTestFinder().find(importlib.import_module(module.name)):
                with contextlib.redirect_stdout(io.StringIO()):
                    runner.run(test, out=lambda text: None)
        extra_calls()
    finally:
        registry.eager_op_hooks.remove(record)


@functools.lru_cache(maxsize=None)
def recorded_samples():
    """{op name: (op_def, input arrays, attrs)}: the first sample run of each op (``record_eager_runs``)."""
    seen = {}

    def record(op_def, inputs, attrs, outputs):
        if op_def.name not in seen:
            seen[op_def.name] = (op_def, [np.array(t._value) for t in inputs], dict(attrs or {}))

    record_eager_runs(record)
    return seen


def one_op_graph(op_def, arrays, attrs, constant_inputs=()) -> FuncGraph:
    """A graph of the one op ``op_def`` on placeholders of ``arrays``' dtypes and shapes; the inputs whose
    indices are in ``constant_inputs`` are ``Const`` nodes of their sample values instead (not fed)."""
    graph = FuncGraph(f"one_{op_def.name}")
    with graph_scope(graph):
        inputs = [rt.constant(a) if i in constant_inputs else graph.add_placeholder(a.dtype, a.shape, name=f"in{i}")
                  for i, a in enumerate(arrays)]
        op = graph.create_op(op_def, inputs, dict(attrs), name="op", site=None)
        graph.outputs = list(op.outputs)
        graph.inputs = [t for i, t in enumerate(inputs) if i not in constant_inputs]
    return graph


FLOAT_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, 3.0, 1e30, -1e30, 1e-30, 1e-40, 65504.0,
               3.4e38, 123456789.0]
# Ops whose every input decides the result's size (a redrawn Range(0, 2**31 - 1, 1) would take 8 GiB).
SIZE_ONLY_INPUTS = {"Range"}


def size_inputs(op_def, arrays):
    """The indices of ``arrays`` that are sizes, shapes or indices (integer inputs the op reads as such)."""
    return [i for i in range(len(arrays)) if op_def.name in SIZE_ONLY_INPUTS or input_problem(
        op_def, [np.dtype(np.float32) if j == i else a.dtype for j, a in enumerate(arrays)])]


def redrawn(rng, op_def, arrays, variant, float_edges=FLOAT_EDGES):
    """The sample arrays with each input that is not a size, shape or index redrawn (edges, then random)."""
    out = []
    kept = size_inputs(op_def, arrays)
    for i, array in enumerate(arrays):
        if i in kept:
            out.append(array)  # a size, shape or index: the sample's own value
            continue
        dtype = array.dtype
        if dtype.kind == "f":
            pool = np.array(float_edges, np.float64)
            drawn = rng.choice(pool, size=array.shape) if variant % 2 == 0 else rng.standard_normal(array.shape) * 10
            with np.errstate(all="ignore"):
                out.append(np.asarray(drawn.astype(dtype)))
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            pool = np.array([0, 1, -1, 2, -3, 7, info.min, info.max, info.min + 1], np.int64)
            pool = pool[(pool >= info.min) & (pool <= info.max)]
            drawn = rng.choice(pool, size=array.shape) if variant % 2 == 0 else rng.integers(-9, 10, array.shape)
            out.append(np.asarray(np.clip(drawn, info.min, info.max).astype(dtype)))
        elif dtype.kind == "b":
            out.append(np.asarray(rng.random(array.shape) < 0.5))
        else:
            out.append(array)
    return out


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between two float arrays (0 where both are nan or equal)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(bits).astype(np.int64), b.view(bits).astype(np.int64)
    top = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -(ia + top), ia)  # two's-complement order: -0.0 next to 0.0
    ib = np.where(ib < 0, -(ib + top), ib)
    distance = np.abs(ia - ib)
    return np.where((np.isnan(a) & np.isnan(b)) | (a == b), 0, distance)
