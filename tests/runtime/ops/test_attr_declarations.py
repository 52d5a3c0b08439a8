"""The attr declarations (each op's ``attrs``, in the kinds of runtime/core/attrs.py) match the kernels: an op whose kernel needs an
attr declares it, and every declared attr is one the kernel takes, so the loader's check and the executor's
keyword names can never refuse a graph that tracing makes."""
import inspect

import numpy as np
import pytest

from runtime.core import dtypes
from runtime.core.attrs import BOOL, SHAPE, SLICE_KEY, TEMPLATE, attr_problem, input_problem
from runtime.core.registry import register_op, registered_ops
from runtime.ops.array_ops import RESHAPE
from runtime.ops.gradient_ops import SUM_TO_SHAPE
from runtime.ops.indexing import STRIDED_SLICE
from runtime.ops.list_gradients import TENSOR_LIST_ADD_N
from runtime.ops.reduction_ops import CUMSUM

KERNEL_OPS = [op_def for op_def in registered_ops().values()
              if op_def.kernel is not None and not isinstance(op_def.kernel, np.ufunc)]


@pytest.mark.parametrize("op_def", KERNEL_OPS, ids=lambda op_def: op_def.name)
def test_the_declared_attrs_are_exactly_the_kernels_keywords(op_def):
    try:
        parameters = inspect.signature(op_def.kernel).parameters.values()
    except (TypeError, ValueError):
        pytest.skip(f"{op_def.name}: a builtin kernel without a signature")
    keywords = {p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}
    required = {p.name for p in parameters
                if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty}
    declared = set(op_def.attrs)
    assert required <= declared, f"{op_def.name} does not declare {required - declared}"
    assert declared <= keywords, f"{op_def.name} declares {declared - keywords}, which its kernel does not take"


def test_kinds_refuse_look_alikes():
    assert not BOOL.test(1) and not BOOL.test("True")
    assert SHAPE.test((None, 3)) and not SHAPE.test((-1,)) and not SHAPE.test([3]) and not SHAPE.test((True,))
    assert SLICE_KEY.test((("index", 1), ("slice", None, ("input", 0), None), ("ellipsis",)))
    assert not SLICE_KEY.test((("index", "1"),)) and not SLICE_KEY.test((("call", print),))
    assert TEMPLATE.test(("x =", 0, ("dict", (("'k'", 1),)))) and not TEMPLATE.test((1.5,))


def test_problems_name_the_attr_and_the_expected_kind():
    attrs = {"axis": 0, "exclusive": False, "reverse": "yes"}
    assert attr_problem(CUMSUM, attrs, 1) == "attr 'reverse' must be a bool, got 'yes'"
    assert attr_problem(CUMSUM, {**attrs, "reverse": True}, 2) == "Cumsum takes 1 input(s), the node has 2"


def test_an_omittable_attr_may_be_absent_and_a_required_one_may_not():
    # Reshape's static_shape stands in for its shape input when tracing knew it; SumToShape's is required
    assert attr_problem(RESHAPE, {}, 2) is None
    assert attr_problem(SUM_TO_SHAPE, {}, 2) == "attr 'static_shape' is missing"
    assert RESHAPE.attrs["static_shape"].omittable and not SUM_TO_SHAPE.attrs["static_shape"].omittable


def test_an_op_checks_its_attrs_against_its_inputs():
    key = (("index", ("input", 0)),)  # reads one index input
    assert attr_problem(STRIDED_SLICE, {"key": key}, 2) is None
    assert attr_problem(STRIDED_SLICE, {"key": key}, 1) == "attr 'key' reads index inputs [0], but the node has 0"


def test_both_inputs_of_a_list_sum_must_be_handles():
    assert input_problem(TENSOR_LIST_ADD_N, [dtypes.variant, dtypes.variant]) is None
    assert (input_problem(TENSOR_LIST_ADD_N, [dtypes.variant, dtypes.float32])
            == "input 1 (other_handle) must be a tensor list handle, got a float32 tensor")


def test_an_attr_is_declared_with_a_kind():
    with pytest.raises(TypeError, match="op 'BadAttrOp': attr 'axis' must be declared with an AttrKind"):
        register_op("BadAttrOp", ("x",), lambda specs, attrs: specs, lambda x, *, axis: x, attrs={"axis": int})
    assert "BadAttrOp" not in registered_ops()


def test_the_declaration_is_read_only():
    with pytest.raises(TypeError):
        CUMSUM.attrs["hidden"] = BOOL  # type: ignore[index]
