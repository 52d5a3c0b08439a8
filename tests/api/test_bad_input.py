"""Bad input gets a clear error: the problem, the variable, the user's own file and line, and the fix.

Never a crash deep inside the library, and never a location inside autograph_lite or runtime.
"""

import traceback

import pytest

import autograph_lite as ag
import runtime as rt
from user_errors import full_message, line_of, raises


# --- structured state that changes shape -----------------------------------------------------------------
@ag.function
def dict_gains_a_key_in_loop(x):
    d = {'a': x}
    while d['a'] < 10:
        d = {'a': d['a'] + 1, 'b': 2}
    return d


def test_loop_dict_changing_keys_names_the_variable_and_line():
    raises(rt.errors.StateError, dict_gains_a_key_in_loop, (rt.constant(3),), "'d'", "structure",
           at="while d['a'] < 10")


@ag.function
def dict_with_other_keys_in_branch(x):
    d = {'a': x}
    if x > 0:
        d = {'b': x}
    return d


def test_branch_dict_with_other_keys_names_the_variable_and_line():
    raises(rt.errors.StateError, dict_with_other_keys_in_branch, (rt.constant(3),), "'d'", "structure",
           at="if x > 0")


@ag.function
def tuple_grows_in_branch(x):
    pair = (x, x)
    if x > 0:
        pair = (x, x, x)
    return pair


def test_branch_tuple_of_other_length_names_the_variable_and_line():
    raises(rt.errors.StateError, tuple_grows_in_branch, (rt.constant(3),), "'pair'", "structure",
           at="if x > 0")


# --- undefined variables on Python values behave like Python ----------------------------------------
def returns_maybe_unbound(x):
    if x > 0:
        result = x * 2
    return result


def test_returning_an_unbound_local_raises_like_python_and_names_the_line():
    with pytest.raises(UnboundLocalError) as original:
        returns_maybe_unbound(-3)
    converted = ag.to_graph(returns_maybe_unbound)
    assert converted(3) == 6
    with pytest.raises(UnboundLocalError) as info:
        converted(-3)
    assert str(info.value) == str(original.value)
    # Exactly the original's exception: no note; its traceback names the line, as the original's does.
    assert full_message(info.value) == full_message(original.value)
    assert (__file__, line_of(returns_maybe_unbound, "return result")) in [
        (frame.filename, frame.lineno) for frame in traceback.extract_tb(info.value.__traceback__)]


def test_python_argument_reaching_an_unbound_return_in_a_graph_function():
    function = ag.function(returns_maybe_unbound)
    assert function(3).numpy() == 6
    with pytest.raises(UnboundLocalError, match="'result'"):
        function(-3)
    raises(rt.errors.StateError, function, (rt.constant(3),), "'result'", "initialize it before the if",
           at="if x > 0")


# --- wrong values given to ops and to the API ------------------------------------------------------------
def test_adding_a_string_to_a_tensor_names_both():
    with pytest.raises(TypeError, match=r"cannot convert 'a' \(a str\) to a tensor of dtype int32"):
        rt.add(rt.constant(1), "a")

    @ag.function
    def add_a_string(x):
        return x + "a"

    message = raises(TypeError, add_a_string, (rt.constant(1),), "cannot convert 'a' (a str)",
                     at='return x + "a"')
    assert "invalid literal" not in message


def test_ragged_nested_list_is_a_clear_error():
    with pytest.raises(TypeError, match="nested lists must be rectangular"):
        rt.constant([[1, 2], [3]])


def test_tensor_spec_with_a_bad_shape():
    with pytest.raises(TypeError, match=r"TensorSpec: shape must be a list of ints or None, got 'abc'"):
        rt.TensorSpec("abc")
    with pytest.raises(TypeError, match=r"TensorSpec: shape must be a list of ints or None, got \[2, 'x'\]"):
        rt.TensorSpec([2, "x"])
    assert rt.TensorSpec([None, 3]).shape == (None, 3)


def test_concrete_function_called_with_a_string():
    concrete = ag.function(lambda x: x * 2).get_concrete_function(rt.TensorSpec([None], rt.float32))
    with pytest.raises(TypeError, match=r"cannot convert 'ab' \(a str\) to a tensor of dtype float32"):
        concrete("ab")
    with pytest.raises(TypeError, match=r"argument 'x' expected float32 Tensor, shape=\(None,\), got int32"):
        concrete(rt.constant([1, 2]))


def test_function_autograph_flag_must_be_a_bool():
    with pytest.raises(TypeError, match="autograph must be True or False, got 'yes'"):
        ag.function(lambda x: x, autograph='yes')


@pytest.mark.parametrize("call, argument", [
    (lambda: rt.cond(True, 1, lambda: 2), "true_fn"),
    (lambda: rt.cond(rt.constant(True), lambda: 1, 2), "false_fn"),
    (lambda: rt.while_loop(1, lambda i: (i,), (0,)), "cond"),
    (lambda: rt.while_loop(lambda i: i < 2, 2, (0,)), "body"),
])
def test_control_flow_functions_must_be_callables(call, argument):
    with pytest.raises(TypeError, match=rf"{argument} must be a callable \(e.g. a lambda\), got int"):
        call()


# --- symbolic tensors used as Python values in code that is not converted --------------------------------
def python_if_on_a_tensor(x):
    if x > 0:
        return x
    return -x


def python_while_on_a_tensor(x):
    while x > 0:
        x -= 1
    return x


@pytest.mark.parametrize("function, line", [(python_if_on_a_tensor, "if x > 0"),
                                            (python_while_on_a_tensor, "while x > 0")])
def test_symbolic_tensor_as_python_bool_without_autograph(function, line):
    unconverted = ag.function(function, autograph=False)
    message = raises(rt.errors.OperatorNotAllowedInGraphError, unconverted, (rt.constant(1),),
                     "Using a symbolic tensor (Greater:0, dtype=bool, shape=()) as a Python bool is not allowed",
                     "autograph=True", "rt.cond / rt.while_loop")
    assert f'File "{__file__}", line {line_of(function, line)}, in {function.__name__}' in message
    assert ag.function(function)(rt.constant(-4)).numpy() == {python_if_on_a_tensor: 4,
                                                              python_while_on_a_tensor: -4}[function]


def test_symbolic_tensor_as_list_index_in_converted_code():
    @ag.function
    def pick(x):
        options = [10, 20, 30]
        return options[x]

    raises(rt.errors.OperatorNotAllowedInGraphError, pick, (rt.constant(1),),
           "as a Python int (e.g. a list index)", "rt.gather", at="return options[x]")


# --- errors from rt.cond / rt.while_loop raised on behalf of converted code --------------------------------
@ag.function
def doubles_until_big(x):
    while rt.size(x) < 5:
        x = rt.concat([x, x], 0)
    return x


@ag.function
def wraps_each_step(x):
    while rt.size(x) < 5:
        x = rt.stack([x, x])
    return x


def test_loop_variable_growing_along_a_dim_is_relaxed_but_a_rank_change_names_the_user_loop():
    assert doubles_until_big(rt.constant([1])).numpy().tolist() == [1] * 8
    message = raises(rt.errors.StateError, wraps_each_step, (rt.constant([1]),), "'x'", "shape (1,)",
                     "(2, 1)", "must keep its rank", at="while rt.size(x) < 5")
    assert "<autograph_lite" not in message


@ag.function
def label_of(x):
    return "big" if x > 0 else "small"


def test_ternary_choosing_strings_on_a_tensor():
    message = raises(rt.errors.StateError, label_of, (rt.constant(1),), "cannot convert a str ('big')",
                     at="return \"big\" if x > 0")
    assert "<autograph_lite" not in message


@ag.function
def halves_into_an_int(n):
    s = 0
    i = 0
    while i < n:
        s = s + 0.5
        i += 1
    return s


def test_loop_making_a_python_int_a_float_names_the_variable_and_the_fix():
    message = raises(TypeError, halves_into_an_int, (rt.constant(3),), "fractional part",
                     "'s' is the Python int 0 before the tensor-dependent loop, so it is an int32 tensor inside it",
                     "initialize it as 0.0", at="s = s + 0.5")
    assert f'line {line_of(halves_into_an_int, "while i < n")}' in message
    assert ag.to_graph(halves_into_an_int.python_function)(3) == 1.5  # fine on Python values


@ag.function
def gathers_out_of_range(x):
    picked = rt.gather(x, [5])
    return picked


def test_graph_runtime_error_names_the_user_line():
    raises(rt.errors.InvalidArgumentError, gathers_out_of_range, (rt.constant([1, 2]),),
           "GatherV2", "indices[0] = 5", at="picked = rt.gather(x, [5])")


# --- a Python global rebound inside a staged loop or if ---------------------------------------------------
GLOBAL_REBINDING_FIX = ("is a Python global rebound inside a tensor-dependent", "exists only while the graph runs",
                        "Keep the value in a local variable", "return it", "rt.Variable",
                        "assign(...)", "assign_add(...)")
steps_taken = 0
last_sign = 0


def counts_steps_in_while(n):
    global steps_taken
    i = 0
    while i < n:
        steps_taken += 1
        i += 1
    return steps_taken


def counts_steps_in_for(n):
    global steps_taken
    for _ in rt.range(n):
        steps_taken += 2
    return steps_taken


def records_sign_in_if(x):
    global last_sign
    if x > 0:
        last_sign = 1
    else:
        last_sign = -1
    return last_sign


@pytest.mark.parametrize("function, construct, line", [
    (counts_steps_in_while, "loop", "while i < n"),
    (counts_steps_in_for, "loop", "for _ in rt.range(n)"),
    (records_sign_in_if, "if", "if x > 0"),
])
def test_global_rebound_in_a_staged_construct_names_it_the_line_and_the_fix(function, construct, line):
    global steps_taken, last_sign
    steps_taken, last_sign = 5, 7
    name = "'last_sign'" if function is records_sign_in_if else "'steps_taken'"
    message = raises(rt.errors.StateError, ag.function(function), (rt.constant(3),), name,
                     f"Python global rebound inside a tensor-dependent {construct};", *GLOBAL_REBINDING_FIX, at=line)
    assert message.startswith(name)
    # Refused before tracing the body: the globals still hold their Python values, not symbolic tensors.
    assert (steps_taken, last_sign) == (5, 7)


@pytest.mark.parametrize("function, argument", [(counts_steps_in_while, 3), (counts_steps_in_for, 3),
                                                (counts_steps_in_for, 0), (records_sign_in_if, 2),
                                                (records_sign_in_if, -2)])
def test_global_rebound_on_python_values_behaves_like_the_original(function, argument):
    global steps_taken, last_sign
    steps_taken, last_sign = 5, 7
    expected_result = function(argument)
    expected_globals = (steps_taken, last_sign)
    steps_taken, last_sign = 5, 7
    assert ag.to_graph(function)(argument) == expected_result
    assert (steps_taken, last_sign) == expected_globals
    assert expected_globals != (5, 7) or argument == 0


cycles = None


def counts_cycles_in_a_variable(n):
    i = 0
    while i < n:
        cycles.assign_add(1)
        i += 1
    return i


def test_the_suggested_fix_a_global_variable_updated_in_place_works_in_a_staged_loop():
    global cycles
    cycles = rt.Variable(0)
    function = ag.function(counts_cycles_in_a_variable)
    assert function(rt.constant(3)).numpy() == 3
    assert function(rt.constant(4)).numpy() == 4
    assert cycles.numpy() == 7


class Tally:
    def __init__(self):
        self.count = 0

    def add(self, n):
        count = 0
        i = 0
        while i < n:
            count += 1
            self.count = self.count + 1
            i += 1
        return count + self.count


def test_local_named_like_a_rebound_attribute_is_not_taken_for_a_global():
    tally = Tally()
    assert ag.function(tally.add)(rt.constant(3)).numpy() == 6


def counts_and_signs_in_while(n):
    global steps_taken, last_sign
    while steps_taken < n:
        steps_taken += 1
        last_sign = -last_sign
    return steps_taken


def test_every_global_rebound_in_a_staged_loop_is_named():
    global steps_taken, last_sign
    steps_taken, last_sign = 0, 1
    raises(rt.errors.StateError, ag.function(counts_and_signs_in_while), (rt.constant(3),),
           "'last_sign' and 'steps_taken' are Python globals rebound inside a tensor-dependent loop; their new "
           "values would be symbolic tensors that exist only while the graph runs", "last_sign.assign_add(...)",
           at="while steps_taken < n")
    assert (steps_taken, last_sign) == (0, 1)
