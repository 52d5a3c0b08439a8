"""graph.as_graph_def(): TensorFlow-style text and a plain dict; the reference interpreter."""
import json

import numpy as np
import pytest

import runtime as rt
from runtime.core.context import graph_scope
from runtime.backends.interpreter import make_callable, needed_operations, run_graph

GREATER_TEXT = """node {
  name: "x"
  op: "Placeholder"
  attr {
    key: "dtype"
    value {
      type: DT_INT32
    }
  }
  attr {
    key: "shape"
    value {
      shape {
      }
    }
  }
}
node {
  name: "Greater/y"
  op: "Const"
  attr {
    key: "dtype"
    value {
      type: DT_INT32
    }
  }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_INT32
        tensor_shape {
        }
        int_val: 0
      }
    }
  }
}
node {
  name: "Greater"
  op: "Greater"
  input: "x"
  input: "Greater/y"
  attr {
    key: "T"
    value {
      type: DT_INT32
    }
  }
}
"""


def traced_graph(fn, *args):
    return rt.function(fn).get_concrete_function(*args).unoptimized_graph


def test_simple_graph_text_matches_tensorflow_layout():
    graph = traced_graph(lambda x: rt.greater(x, 0), rt.constant(1))
    assert str(graph.as_graph_def()) == GREATER_TEXT


def test_to_dict_is_plain_json():
    graph_def = traced_graph(lambda x: rt.greater(x, 0), rt.constant(1)).as_graph_def()
    data = json.loads(json.dumps(graph_def.to_dict()))
    assert [n["name"] for n in data["node"]] == ["x", "Greater/y", "Greater"]
    assert data["node"][2] == {"name": "Greater", "op": "Greater", "input": ["x", "Greater/y"],
                               "attr": {"T": {"type": "DT_INT32"}}}
    assert data["node"][1]["attr"]["value"]["tensor"]["int_val"] == [0]


def test_shapes_values_and_multiple_outputs():
    graph = traced_graph(lambda x: (x * [1.5, 2.0], x), rt.TensorSpec([None, 2], rt.float32))
    text = str(graph.as_graph_def())
    assert "shape {\n        dim {\n          size: -1\n        }\n        dim {\n          size: 2\n        }" in text
    assert "float_val: 1.5\n        float_val: 2\n" in text
    node = graph.as_graph_def().node[0]
    assert (node.name, node.op, node.attr["dtype"]) == ("x", "Placeholder", {"type": "DT_FLOAT"})


def test_control_flow_nodes_reference_library_functions():
    def f(x):
        y = rt.cond(x > 0, lambda: x + 1, lambda: x - 1)
        return rt.while_loop(lambda i: i < 10, lambda i: rt.cond(i > 5, lambda: i + 2, lambda: i + 1), (y,))

    graph_def = traced_graph(f, rt.constant(1)).as_graph_def()
    data = graph_def.to_dict()
    by_op = {n["op"]: n for n in data["node"]}
    if_attrs, while_attrs = by_op["If"]["attr"], by_op["While"]["attr"]
    then_name = if_attrs["then_branch"]["func"]["name"]
    assert if_attrs["Tcond"] == {"type": "DT_BOOL"} and if_attrs["Tout"] == {"list": {"type": ["DT_INT32"]}}
    library = {fn["signature"]["name"]: fn for fn in data["library"]["function"]}
    # the top-level If's branches, the While's cond and body, and the If nested in the body
    assert len(library) == 6
    assert then_name in library and while_attrs["body"]["func"]["name"] in library
    assert library[then_name]["signature"]["input_arg"] == [{"name": "x", "type": "DT_INT32"}]
    assert library[then_name]["ret"] == {"output_0": "AddV2"}
    text = str(graph_def)
    assert "library {\n  function {\n    signature {" in text
    assert f'then_branch"\n    value {{\n      func {{\n        name: "{then_name}"' in text


def test_stateful_nodes_list_control_inputs_and_variable():
    v = rt.Variable(1.0, name="weight")

    def f():
        rt.print("a")
        v.assign_add(1.0)
        return v.read_value()

    nodes = traced_graph(f).as_graph_def().node
    assign = next(n for n in nodes if n.op == "AssignAddVariableOp")
    assert assign.input[-1].startswith("^") and assign.attr["variable"] == {"s": "weight"}


def test_interpreter_is_non_strict_but_runs_stateful_ops_in_order(capsys):
    g = rt.FuncGraph("f")
    with graph_scope(g):
        x = g.add_placeholder(rt.float32, (1,), name="x")
        unused = rt.gather(x, [1])
        rt.print("first")
        rt.print("second")
        g.outputs = [x * 2.0]
    types = [op.type for op in needed_operations(g)]
    assert "GatherV2" not in [t for t in types] and unused.op.type == "GatherV2"
    assert run_graph(g, [np.array([3.0], dtype=np.float32)])[0].tolist() == [6.0]
    assert capsys.readouterr().out == "first\nsecond\n"


def test_interpreter_errors():
    g = rt.FuncGraph("f")
    with graph_scope(g):
        x = g.add_placeholder(rt.float32, (None,), name="x")
        g.outputs = [rt.gather(x, [3])]
    run = make_callable(g)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"^GatherV2: "):
        run(np.array([1.0], dtype=np.float32))
    with pytest.raises(TypeError, match="graph f takes 1 input arrays, got 0"):
        run()
    orphan = rt.FuncGraph("orphan")
    with graph_scope(orphan):
        y = orphan.add_placeholder(rt.int32, (), name="y")
        orphan.inputs = []
        orphan.outputs = [y + 1]
    with pytest.raises(ValueError, match="placeholder y is needed but is not one of the graph's inputs"):
        make_callable(orphan)


def test_interpreter_matches_compiled_executor_on_a_traced_function():
    from runtime.backends.executor import make_callable as compiled

    def f(x):
        total = rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + x * rt.cast(i, rt.float32)),
                              (0, rt.zeros_like(x)))[1]
        return rt.cond(rt.reduce_sum(total) > 10.0, lambda: total, lambda: -total)

    graph = traced_graph(f, rt.TensorSpec([3], rt.float32))
    for values in ([1.0, 2.0, 3.0], [0.1, 0.1, 0.1]):
        array = np.array(values, dtype=np.float32)
        np.testing.assert_array_equal(run_graph(graph, [array])[0], compiled(graph)(array)[0])
