"""Errors raised while a graph runs name the failing node and the user's line that created it.

Both executors (compiled and reference interpreter) add the same "in user code:" section, for ops
made by converted code (mapped back through the origin map), by unconverted code, inside If/While
bodies and inside helper functions; graphs loaded from disk have no source to point at.
"""
import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt
from runtime.backends import interpreter
from runtime.core.source_locations import creation_site, resolve
from user_errors import LIBRARY_DIRS, line_of


def user_code(function, text, name=None):
    name = name or getattr(function, "python_function", function).__name__
    return (f'\n  in user code:\n    File "{__file__}", line {line_of(function, text)}, in {name}\n'
            f'      {text}')


def graph_error(function, *args):
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        function(*args)
    message = str(info.value)
    for library_dir in LIBRARY_DIRS:
        assert library_dir not in message
    return message


@ag.function
def gathers_in_a_branch(x):
    if rt.reduce_sum(x) > 0:
        x = rt.gather(x, [7])
    return x


def test_error_inside_a_tensor_if_names_the_branch_op_and_its_line():
    message = graph_error(gathers_in_a_branch, rt.constant([1, 2]))
    assert message == ("cond: GatherV2: indices[0] = 7 is not in [0, 2)"
                       + user_code(gathers_in_a_branch, "x = rt.gather(x, [7])"))
    assert gathers_in_a_branch(rt.constant([-1, -2])).numpy().tolist() == [-1, -2]  # the other branch is fine


@ag.function
def divides_in_a_loop(n):
    i = 0
    s = 0
    while i < n:
        s += 10 // (3 - i)
        i += 1
    return s


def test_error_inside_a_tensor_while_names_the_loop_body_line():
    assert int(divides_in_a_loop(rt.constant(3))) == 3 + 5 + 10
    message = graph_error(divides_in_a_loop, rt.constant(5))
    assert message.startswith("while: FloorDiv: ")
    assert message.endswith(user_code(divides_in_a_loop, "s += 10 // (3 - i)"))


def pick(values, index):
    return rt.gather(values, index)


@ag.function
def calls_a_helper(x):
    return pick(x, [4]) + 1


def test_error_in_an_op_made_by_a_helper_names_the_helpers_line():
    message = graph_error(calls_a_helper, rt.constant([1, 2]))
    assert message.endswith(user_code(pick, "return rt.gather(values, index)"))


@ag.function(autograph=False, input_signature=[rt.TensorSpec([None], rt.int32)])  # shape unknown: fails at run
def unconverted(x):
    return rt.reshape(x, [3])


def test_unconverted_functions_name_their_own_line():
    message = graph_error(unconverted, rt.constant([1, 2]))
    assert message.startswith("Reshape: ")
    assert message.endswith(user_code(unconverted, "return rt.reshape(x, [3])"))


def test_the_reference_interpreter_adds_the_same_location_once():
    concrete = gathers_in_a_branch.get_concrete_function(rt.TensorSpec([2], rt.int32))
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        interpreter.run_graph(concrete.graph, [np.array([1, 2], np.int32)])
    assert str(info.value) == ("cond: GatherV2: indices[0] = 7 is not in [0, 2)"
                               + user_code(gathers_in_a_branch, "x = rt.gather(x, [7])"))
    assert str(info.value).count("in user code:") == 1


def test_ops_remember_where_they_were_created_through_optimization():
    concrete = calls_a_helper.get_concrete_function(rt.TensorSpec([2], rt.int32))
    sites = {op.type: op.creation_site for op in concrete.graph.operations}
    assert resolve(sites["GatherV2"]).lineno == line_of(pick, "return rt.gather(values, index)")
    assert resolve(sites["AddV2"]).source_line == "return pick(x, [4]) + 1"


def test_loaded_graphs_have_no_source_and_still_name_the_node(tmp_path):
    concrete = gathers_in_a_branch.get_concrete_function(rt.TensorSpec([2], rt.int32))
    rt.save(concrete, tmp_path)
    loaded = rt.load(tmp_path)
    message = graph_error(loaded, rt.constant([1, 2]))
    assert message == "cond: GatherV2: indices[0] = 7 is not in [0, 2)"


def test_creation_site_skips_library_frames():
    site = creation_site()
    assert site[0] == __file__ and site[2] == "test_creation_site_skips_library_frames"
