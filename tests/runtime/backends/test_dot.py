"""graph.to_dot(): Graphviz text with op types, dtype/shape labels, folded constants, control-flow clusters."""
import re
import shutil
import subprocess

import pytest

import runtime as rt
from artifact_graphs import countdown_graph, dense_relu_graph, simple_relu_graph, variable_graph
from runtime.core.context import graph_scope
from runtime.backends.dot import describe, to_dot
from runtime.core.graph import FuncGraph
from runtime.ops.variables import Variable


def _labels(dot: str):
    return re.findall(r'label="((?:[^"\\]|\\.)*)"', dot)


def test_describe_formats_dtype_and_shape():
    assert describe(rt.float32, (None, 3)) == "float32[None,3]"
    assert describe(rt.int32, ()) == "int32[]"
    assert describe(rt.bool, None) == "bool[...]"


def test_graph_method_and_function_agree():
    graph = dense_relu_graph()
    assert graph.to_dot() == to_dot(graph)


def test_nodes_show_op_type_and_output_dtype_shape():
    dot = dense_relu_graph().to_dot()
    labels = _labels(dot)
    assert "x\\nPlaceholder\\n→ float32[None,3]" in labels
    assert "MatMul\\n→ float32[None,1]\\nb = [[1.],[2.],[3.]]" in labels
    assert "Greater\\n→ bool[None,1]\\ny = 1." in labels
    assert dot.startswith('digraph "dense_relu" {\n') and dot.endswith("}\n")


def test_constants_are_folded_into_their_consumers():
    dot = dense_relu_graph().to_dot()
    assert "Const" not in dot  # no separate node for a constant that feeds an op
    assert "AddV2\\n→ float32[None,1]\\ny = 0.5" in _labels(dot)
    assert len(re.findall(r"^\s*n\d+ \[label=", dot, flags=re.M)) == 5  # x, MatMul, AddV2, Maximum, Greater


def test_a_constant_returned_as_output_is_drawn():
    graph = FuncGraph("const_out")
    with graph_scope(graph):
        graph.outputs = [rt.constant([1, 2])]
    assert "Const\\n→ int32[2]\\n[1,2]" in _labels(graph.to_dot())


def test_large_constants_are_summarized():
    graph = FuncGraph("big")
    with graph_scope(graph):
        x = graph.add_placeholder(rt.float32, (10, 10), name="x")
        graph.outputs = [rt.matmul(x, rt.constant([[0.5] * 10] * 10))]
    assert "MatMul\\n→ float32[10,10]\\nb = <float32[10,10] constant>" in _labels(graph.to_dot())


def test_if_branches_are_clusters():
    dot = simple_relu_graph().to_dot()
    assert dot.count("subgraph cluster_") == 2
    assert 'label="cond: then_branch"' in dot and 'label="cond: else_branch"' in dot
    assert "cond\\nIf\\n→ int32[]" in _labels(dot)
    assert "ltail=cluster_1" in dot and "ltail=cluster_2" in dot


def test_while_cond_and_body_are_clusters_with_named_loop_constants():
    dot = countdown_graph().to_dot()
    assert 'label="while: cond"' in dot and 'label="while: body"' in dot
    assert "while\\nWhile\\n→ float32[], int32[]\\nsteps = 0" in _labels(dot)
    assert "Mul\\n→ float32[]\\ny = 0.5" in _labels(dot)


def test_stateful_order_is_drawn_dashed():
    dot = variable_graph(Variable(1.0)).to_dot()
    ids = dict((label.split("\\n")[0], node) for node, label in
               re.findall(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', dot, flags=re.M))
    assert f"{ids['AssignAddVariableOp']} -> {ids['ReadVariableOp']} [style=dashed" in dot


def test_quotes_in_names_are_escaped():
    graph = FuncGraph('say "hi"')
    assert graph.to_dot().startswith('digraph "say \\"hi\\"" {')


def nested_graph():
    def body(i, total):
        return i + 1, rt.cond(i % 2 == 0, lambda: total + i, lambda: total - i)
    graph = FuncGraph("nested")
    with graph_scope(graph):
        n = graph.add_placeholder(rt.int32, (), name="n")
        graph.outputs = list(rt.while_loop(lambda i, total: i < n, body, [0, 0]))
    return graph


def test_nested_clusters_point_at_their_own_cluster():
    dot = nested_graph().to_dot()
    assert dot.count("subgraph cluster_") == 4
    # the While's body is cluster 2 and holds the If's branches (clusters 3 and 4)
    tails = re.findall(r"ltail=cluster_(\d+), style=dotted, label=\"(\w+)\"", dot)
    assert tails == [("1", "cond"), ("3", "then_branch"), ("4", "else_branch"), ("2", "body")]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("build", [dense_relu_graph, simple_relu_graph, countdown_graph, nested_graph,
                                   lambda: variable_graph(Variable([1.0, 2.0]))])
def test_dot_program_renders_svg(build):
    result = subprocess.run(["dot", "-Tsvg"], input=build().to_dot(), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "<svg" in result.stdout and "</svg>" in result.stdout
