"""One sample run of every op with a kernel, recorded from eager calls: (op_def, input arrays, attrs).

The sample calls are the ops' own doctests (runtime/ops) plus ``extra_calls`` for the ops those do not
reach. Shared by the kernel-output checks and the hostile-attr checks of the loader and the executor.
"""
import contextlib
import doctest
import importlib
import io
import pkgutil

import runtime as rt
import runtime.ops
from runtime.core import registry
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
