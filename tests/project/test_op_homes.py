"""One home per op: backends and passes read what an op declares, and every backend table covers every
registered op or says why not. Op types are registry constants outside runtime/ops."""
import ast
import pathlib

import numpy as np
import pytest

import runtime as rt
from runtime.backends.onnx import ops as onnx_ops
from runtime.core.registry import NO_ALGEBRA, get_op, registered_ops

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_registered_op_exports_to_onnx_or_says_why_not():
    registered = set(registered_ops())
    # both tables key by OpDef (identity); compared here by name
    exported = {op_def.name for op_def in onnx_ops.CONVERTERS}
    refused = {op_def.name for op_def in onnx_ops.NOT_EXPORTED}
    assert set(onnx_ops.CONVERTERS) | set(onnx_ops.NOT_EXPORTED) <= set(registered_ops().values())
    assert exported <= registered, f"ONNX converters for unknown ops: {sorted(exported - registered)}"
    assert refused <= registered, f"reasons for unknown ops: {sorted(refused - registered)}"
    assert not exported & refused, f"both exported and refused: {sorted(exported & refused)}"
    assert registered - exported - refused == set(), (
        f"no ONNX converter and no reason in NOT_EXPORTED: {sorted(registered - exported - refused)}")
    assert all(reason.strip() for reason in onnx_ops.NOT_EXPORTED.values())


def test_every_op_without_a_kernel_is_one_the_backends_run_themselves():
    without_kernel = {name for name, op_def in registered_ops().items() if op_def.kernel is None}
    assert without_kernel == {"Placeholder", "If", "While"}


@pytest.mark.parametrize("name, algebra", [
    ("AddV2", ((((0, 1), 0, True),), False, False)),
    ("Sub", ((((1,), 0, False),), False, False)),
    ("Mul", ((((0, 1), 1, None),), False, False)),
    ("RealDiv", ((((1,), 1, None),), False, False)),
    ("Neg", ((), True, False)),
    ("Identity", ((), False, True)),
    ("Cast", ((), False, True)),
    ("MatMul", ((), False, False)),
])
def test_the_arithmetic_identities_are_declared_with_the_op(name, algebra):
    declared = get_op(name).algebra
    assert (declared.neutral, declared.self_inverse, declared.noop_when_same_dtype) == algebra


def test_the_arithmetic_pass_reads_the_declaration():
    @rt.function
    def f(x):
        return -(-((x * 1.0 + (-0.0)) / 1.0 - 0.0))
    concrete = f.get_concrete_function(rt.TensorSpec([3], rt.float32))
    assert [op.type for op in concrete.graph.operations] == ["Placeholder"]
    assert np.array_equal(concrete(rt.constant([1.0, -0.0, 2.0])).numpy(), [1.0, -0.0, 2.0])
    assert get_op("Maximum").algebra is NO_ALGEBRA


def _op_type_literals(path: pathlib.Path):
    """(line, literal) for comparisons of an ``.type`` with a string, in one file."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "type":
            for right in node.comparators:
                values = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
                for value in values:
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        yield node.lineno, value.value


def test_op_types_are_registry_constants_outside_the_ops():
    found = [f"{path.relative_to(ROOT)}:{line}: {literal!r}"
             for package in ("runtime", "autograph_lite")
             for path in sorted((ROOT / package).rglob("*.py"))
             if "ops" not in path.relative_to(ROOT / package).parts[:1]
             for line, literal in _op_type_literals(path)]
    assert found == [], "compare op_def with the op's constant (e.g. `op.op_def is IF`):\n" + "\n".join(found)


def test_every_registered_op_lowers_to_xla_or_says_why_not():
    pytest.importorskip("jax")
    from runtime.backends.xla import compiled  # noqa: F401  (declares every lowering)
    from runtime.backends.xla.table import LOWERINGS, NOT_LOWERED, has_lowering
    registered = set(registered_ops().values())
    lowered = {op_def for op_def in registered if has_lowering(op_def)}
    assert set(LOWERINGS) <= registered and set(NOT_LOWERED) <= registered
    assert not lowered & set(NOT_LOWERED), f"both lowered and refused: {sorted(o.name for o in lowered & set(NOT_LOWERED))}"
    missing = registered - lowered - set(NOT_LOWERED)
    assert missing == set(), f"no JAX lowering and no reason in NOT_LOWERED: {sorted(o.name for o in missing)}"
    assert all(reason.strip() for reason in NOT_LOWERED.values())
