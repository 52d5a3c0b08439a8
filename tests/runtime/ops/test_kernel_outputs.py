"""Every op's kernel returns arrays the runtime may treat as its own: writeable, and new wherever the
executor's memory plan counts on a new array (runtime/backends/buffer_plan.py pools a value in a reused
buffer only when every op reading it returns a new array; an op that returned a view of such a value
would see it overwritten by a later op).

The sample calls are ``op_samples``: the ops' own doctests (runtime/ops) plus extra calls for the ops those do
not reach; an eager hook records what each kernel returned.
"""
import numpy as np
import pytest

import runtime as rt
from runtime.core import registry
from runtime.ops.cast_op import CAST
from runtime.ops.combine_ops import SELECT
from runtime.ops.math_ops import MATMUL

from op_samples import record_eager_runs

# Ops whose kernel may return a view of (or the very array of) an input, and why that is safe: tensors
# are never written in place, and the memory plan never pools a value one of these ops reads.
VIEW_OPS = {
    "Identity": "returns its input",
    "CustomGradient": "returns its first inputs (the custom-gradient function's values)",
    "StopGradient": "returns its input",
    "EnsureDefined": "returns its input once the 'defined' flag is checked",
    "Reshape": "numpy reshape is a view when it can be",
    "ExpandDims": "a reshape",
    "Squeeze": "a reshape",
    "Transpose": "numpy transpose is a view",
    "Cast": "a cast to the same dtype returns its input (the memory plan checks the dtypes)",
}
# Ops with a kernel that no eager call can reach: they only run inside a graph.
GRAPH_ONLY = {
    "CustomGradient": "made only while tracing (eagerly, rt.custom_gradient records its gradient on the tapes)",
    "Const": "a graph constant: its value is bound when the graph is compiled",
    "AssignVariableOp": "eager writes call the kernel directly (checked below)",
    "AssignAddVariableOp": "eager writes call the kernel directly (checked below)",
    "AssignSubVariableOp": "eager writes call the kernel directly (checked below)",
}


@pytest.fixture(scope="module")
def kernel_outputs():
    """op name -> list of (input arrays, output arrays) of every eager run of its kernel."""
    seen = {}

    def record(op_def, inputs, attrs, outputs):
        arrays = [t._value for t in inputs]
        results = [t._value for t in (outputs if isinstance(outputs, tuple) else (outputs,))]
        seen.setdefault(op_def.name, []).append((arrays, results))

    record_eager_runs(record)
    return seen


def test_the_sample_calls_run_every_op_with_a_kernel(kernel_outputs):
    with_kernel = {name for name, op in registry.registered_ops().items() if op.kernel is not None}
    assert with_kernel - set(kernel_outputs) - set(GRAPH_ONLY) == set()


def test_every_kernel_result_is_writeable(kernel_outputs):
    read_only = sorted(name for name, runs in kernel_outputs.items()
                       for _, results in runs for result in results if not result.flags.writeable)
    assert read_only == []


def _shares_an_input(arrays, results):
    return any(np.shares_memory(result, array) for result in results for array in arrays
               if isinstance(array, np.ndarray))


def test_only_the_documented_ops_return_views_of_their_inputs(kernel_outputs):
    aliasing = {name for name, runs in kernel_outputs.items() if any(_shares_an_input(*run) for run in runs)}
    assert aliasing <= set(VIEW_OPS), sorted(aliasing - set(VIEW_OPS))


def _returns_new_for_the_memory_plan(op_def, arrays, results):
    """The ops whose readers buffer_plan counts as returning new arrays (plan_memory's ``returns_new``)."""
    return (op_def.elementwise_ufunc is not None or op_def in (MATMUL, SELECT)
            or (op_def is CAST and arrays[0].dtype != results[0].dtype))


def test_ops_the_memory_plan_trusts_return_new_arrays(kernel_outputs):
    ops = registry.registered_ops()
    trusted = [(name, run) for name, runs in kernel_outputs.items() for run in runs
               if _returns_new_for_the_memory_plan(ops[name], *run)]
    assert len({name for name, _ in trusted}) > 30
    assert [name for name, run in trusted if _shares_an_input(*run)] == []


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.bool_, np.uint8])
def test_elementwise_kernels_never_return_an_input_for_any_dtype(dtype):
    # A ufunc can hand back its input for some dtypes (floor of an int, abs of an unsigned...).
    samples = np.array([3, 0, 1, 2], dtype=dtype)
    checked = 0
    for name, op_def in registry.registered_ops().items():
        if op_def.elementwise_ufunc is None:
            continue
        arity = 1 if len(op_def.inputs) == 1 else 2
        arrays = [samples.copy() for _ in range(arity)]
        try:
            with np.errstate(all="ignore"):
                result = op_def.kernel(*arrays)
        except (TypeError, ValueError, rt.errors.InvalidArgumentError):
            continue   # the op refuses this dtype
        checked += 1
        assert not _shares_an_input(arrays, [np.asarray(result)]), name
    assert checked >= 5



@pytest.mark.parametrize("write", ["assign", "assign_add", "assign_sub"])
def test_a_variable_write_stores_a_new_array_and_never_changes_an_earlier_read(write):
    # The write kernels replace the Variable's array (never write into it), so a value read before stays.
    v = rt.Variable([1.0, 2.0])
    before = v.read_value()
    held = before.numpy()
    result = getattr(v, write)(rt.constant([4.0, 8.0]))
    assert before.numpy().tolist() == [1.0, 2.0] and held.tolist() == [1.0, 2.0]
    assert not np.shares_memory(held, v.read_value().numpy())
    assert v.read_value().numpy().flags.writeable
    expected = {"assign": [4.0, 8.0], "assign_add": [5.0, 10.0], "assign_sub": [-3.0, -6.0]}[write]
    assert v.read_value().numpy().tolist() == expected
    assert result.numpy().tolist() == expected


def test_broadcast_to_returns_a_new_writeable_array():
    source = rt.constant([1, 2, 3])
    result = rt.broadcast_to(source, [2, 3])
    assert result.numpy().flags.writeable and not np.shares_memory(result.numpy(), source.numpy())
    assert result.numpy().tolist() == [[1, 2, 3], [1, 2, 3]]
