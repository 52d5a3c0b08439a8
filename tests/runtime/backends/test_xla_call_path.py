"""What a jit_compile=True call does around XLA's program (runtime/backends/xla/compiled.py): the results' structure,
and the checks that are compiled in and those that are not."""
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.core import nest
from runtime.ops.creation_ops import RANGE

jax = pytest.importorskip("jax")


def program_of(function, *args):
    return function.get_concrete_function(*args)._run.program


def test_one_output_several_and_nested_ones_keep_the_numpy_executors_structure():
    x = rt.constant([1.0, 2.0])
    for body in (
            lambda x: x * 2.0,
            lambda x: (x * 2.0,),
            lambda x: [x, x + 1.0],
            lambda x: {"a": x, "b": (x - 1.0, rt.reduce_sum(x))},
            lambda x: None):
        expected, got = ag.function(body)(x), ag.function(body, jit_compile=True)(x)
        assert type(got) is type(expected)
        assert nest.map_structure(lambda t: t.numpy().tolist(), got) == \
            nest.map_structure(lambda t: t.numpy().tolist(), expected)
    single = ag.function(lambda x: x * 2.0, jit_compile=True)
    single(x)
    pair = ag.function(lambda x: (x, x), jit_compile=True)
    pair(x)
    assert program_of(single, x).single and not program_of(pair, x).single


def test_a_range_of_a_constant_step_compiles_no_check_and_a_zero_step_is_the_numpy_executors_error():
    def total(n, step):
        result = 0
        for i in rt.range(0, n, step):
            result += i
        return result
    constant_step = ag.function(lambda n: total(n, 2), jit_compile=True)
    assert constant_step(rt.constant(7)).numpy() == 0 + 2 + 4 + 6
    assert RANGE not in [op.op_def for op in program_of(constant_step, rt.constant(7)).checks]
    tensor_step = ag.function(total, jit_compile=True)
    assert tensor_step(rt.constant(7), rt.constant(3)).numpy() == 0 + 3 + 6
    with pytest.raises(rt.errors.InvalidArgumentError) as compiled_error:
        tensor_step(rt.constant(7), rt.constant(0))
    with pytest.raises(rt.errors.InvalidArgumentError) as numpy_error:
        ag.function(total)(rt.constant(7), rt.constant(0))
    assert str(compiled_error.value) == str(numpy_error.value)
