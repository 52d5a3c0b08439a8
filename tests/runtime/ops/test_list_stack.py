"""TensorListStack stacks elements of one shape and dtype with np.array (np.stack expands every element first:
200 scalars took ~700 us): the same dtype, shape and bits as np.stack, for scalars, 0-d arrays and rows."""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.ops.list_ops import TENSOR_LIST_STACK
from runtime.ops.list_values import ListValue


def stack(elements, dtype):
    return TENSOR_LIST_STACK.kernel(ListValue(list(elements), len(elements)), element_dtype=np.dtype(dtype),
                                    element_shape=None)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.uint64, np.bool_,
                                   np.complex64])
@pytest.mark.parametrize("form", ["numpy scalars", "0-d arrays", "rows", "matrices"])
def test_stacking_gives_np_stack_s_dtype_shape_and_bits(dtype, form):
    values = (np.random.default_rng(0).standard_normal(40) * 50).astype(dtype)
    values[:3] = np.array([np.nan, -0.0, np.inf]).astype(dtype) if values.dtype.kind in "fc" else values[:3]
    elements = {"numpy scalars": list(values), "0-d arrays": [np.asarray(v) for v in values],
                "rows": list(values.reshape(8, 5)), "matrices": list(values.reshape(4, 2, 5))}[form]
    got, want = stack(elements, dtype), np.stack(elements)
    assert got.dtype == want.dtype == np.dtype(dtype) and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    assert got.flags.writeable and not np.shares_memory(got, elements[0])  # a new array, never an element


def test_a_loop_s_appended_scalars_stack_as_eagerly():
    def path(pointers, start):
        state = start
        states = [state]
        for t in rt.range(rt.shape(pointers)[0] - 1, -1, -1):
            state = rt.gather(pointers[t], state)
            states.append(state)
        return rt.stack(states)
    pointers = rt.constant(np.random.default_rng(1).integers(0, 16, (50, 16)).astype(np.int32))
    start = rt.constant(np.int32(3))
    graph, eager = ag.function(path)(pointers, start), ag.to_graph(path)(pointers, start)
    assert graph.dtype == eager.dtype == rt.int32 and graph.shape == eager.shape == (51,)
    np.testing.assert_array_equal(graph.numpy(), eager.numpy())
