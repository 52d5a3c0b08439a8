"""What a jit_compile=True call does around XLA's program (runtime/backends/xla/compiled.py): the results' structure,
and the checks that are compiled in and those that are not."""
import threading

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


def test_a_failed_check_names_its_own_op_whichever_input_shape_jax_lowered_the_program_for_last():
    # One graph accepts every length (input_signature); JAX lowers it again for each length (here by
    # experimental_get_compiler_ir), and a lowering records only the checks its shapes leave. The error code
    # of a call must still name that call's op, not the op of the same number in the last lowering.
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], jit_compile=True)
    def second_and_fourth(x):
        return x[1] + x[3]
    assert second_and_fourth(rt.constant([1.0, 2.0, 3.0, 4.0])).numpy() == 6.0
    program = program_of(second_and_fourth, rt.constant([1.0]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        second_and_fourth(rt.constant([1.0]))          # both reads out of range: x[1]'s check fails first
    # The failed check was rerun on the numpy executor to raise its exact error; later calls stay compiled
    # (they ran on the numpy executor from then on, found with this test)
    assert program_of(second_and_fourth, rt.constant([1.0])) is program
    second_and_fourth.experimental_get_compiler_ir(rt.constant([1.0, 2.0]))   # a lowering with x[3]'s check only
    first_read, second_read = program.checks
    assert first_read.name != second_read.name
    program.rerun = None    # as when the numpy executor's rerun passes (a random draw): the code alone names the op
    with pytest.raises(rt.errors.InvalidArgumentError) as failed:
        second_and_fourth(rt.constant([1.0]))          # JAX's executable for length 1, made first: x[1]'s code
    assert str(failed.value).startswith(first_read.name + ":")


def test_a_python_int_index_out_of_range_of_an_unknown_length_is_the_numpy_executors_error_not_a_clamped_read():
    # Found this round: x[1] of a length-1 x read x[0] (JAX clamps an index it is given as a Python int)
    def second(x):
        return x[1] * 10.0
    signature = [rt.TensorSpec([None], rt.float32)]
    compiled = ag.function(second, input_signature=signature, jit_compile=True)
    numpy_executor = ag.function(second, input_signature=signature)
    assert compiled(rt.constant([1.0, 2.0])).numpy() == 20.0
    with pytest.raises(rt.errors.InvalidArgumentError) as compiled_error:
        compiled(rt.constant([1.0]))
    with pytest.raises(rt.errors.InvalidArgumentError) as numpy_error:
        numpy_executor(rt.constant([1.0]))
    assert str(compiled_error.value) == str(numpy_error.value)
    assert str(compiled_error.value).startswith("StridedSlice: index 1 is out of bounds for axis 0 with size 1")


def test_a_plain_program_runs_as_a_closure_and_keeps_its_program_and_results():
    # A program without state, checks or 64-bit types is called through a bare closure over its jitted function
    # (no Program.__call__ per call): the same results and structure, and the program still reachable for
    # experimental_get_compiler_ir
    x = rt.constant([1.0, -2.0, 3.0])
    single = ag.function(lambda x: rt.maximum(x, 0.0) * 2.0, jit_compile=True)
    pair = ag.function(lambda x: (x + 1.0, rt.reduce_sum(x)), jit_compile=True)
    assert single(x).numpy().tolist() == [2.0, 0.0, 6.0]
    first, total = pair(x)
    assert first.numpy().tolist() == [2.0, -1.0, 4.0] and total.numpy() == 2.0
    for function in (single, pair):
        run = function.get_concrete_function(x)._run
        assert not isinstance(run, type(run.program)) and run.program.plain
        assert "stablehlo" in function.experimental_get_compiler_ir(x)


def test_a_stateful_call_writes_back_each_assigned_variable_whatever_the_order_of_reads_and_assigns():
    # The write-back pairs each written value with its own Variable (resolved once per program): Variables read
    # and never assigned stay as they are, and ones assigned in another order than first read get their own values
    read_only, first, second = rt.Variable(10.0), rt.Variable(1.0), rt.Variable(2.0)

    def step(x):
        total = read_only + first + second + x
        second.assign(total * 2.0)          # assigned before first, though read after it
        first.assign_add(x)
        return total

    values = {}
    for jit_compile in (None, True):
        read_only.assign(10.0), first.assign(1.0), second.assign(2.0)
        function = ag.function(step, jit_compile=jit_compile)
        results = [function(rt.constant(float(i))).numpy().item() for i in range(3)]
        values[jit_compile] = results, read_only.numpy().item(), first.numpy().item(), second.numpy().item()
    assert values[True] == values[None] == ([13.0, 38.0, 90.0], 10.0, 4.0, 180.0)


def test_a_call_interrupted_while_taking_its_variables_locks_releases_those_it_took_and_no_other():
    variables = [rt.Variable(float(i)) for i in range(3)]

    @ag.function(jit_compile=True)
    def step():
        for variable in variables:
            variable.assign_add(1.0)
        return variables[0] + 0.0

    step()
    program = step.get_concrete_function()._run
    locks = program._variable_locks
    assert len(locks) == 3 and program._acquire_locks == [lock.acquire for lock in locks]

    def interrupted():
        raise KeyboardInterrupt   # e.g. Ctrl-C while the third lock is being taken

    program._acquire_locks = program._acquire_locks[:2] + [interrupted]
    with pytest.raises(KeyboardInterrupt):
        step()
    # Each lock is free again: another thread could take it (an RLock still held here would not block this thread)
    for lock in locks:
        taken = []
        thread = threading.Thread(target=lambda lock=lock: taken.append(lock.acquire(timeout=5) and lock.release()))
        thread.start()
        thread.join()
        assert taken == [None]
    assert [v.numpy().item() for v in variables] == [1.0, 2.0, 3.0]   # the interrupted call assigned nothing
    program._acquire_locks = [lock.acquire for lock in locks]
    assert step().numpy() == 2.0 and [v.numpy().item() for v in variables] == [2.0, 3.0, 4.0]
