"""The attr declarations (runtime/ops/attr_declarations.py) match the kernels: an op whose kernel needs an
attr declares it, and every declared attr is one the kernel takes, so the loader's check and the executor's
keyword names can never refuse a graph that tracing makes."""
import inspect

import numpy as np
import pytest

from runtime.core.registry import registered_ops
from runtime.ops.attr_declarations import BOOL, SHAPE, SLICE_KEY, TEMPLATE, attr_problem, declared_attrs
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
    declared = set(declared_attrs(op_def))
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
