"""Backends: what runs or shows a graph — the compiled executor, the reference interpreter, GraphDef
text, Graphviz DOT, the on-disk codec and ONNX export.

Importing this package gives every ``Graph`` its two views, ``as_graph_def()`` and ``to_dot()``: the
graph lives in ``runtime.core`` and must not import the backends above it.

>>> import runtime as rt
>>> graph = rt.Function(lambda x: x + 1).get_concrete_function(rt.TensorSpec([], rt.int32)).graph
>>> [node["op"] for node in graph.as_graph_def().to_dict()["node"]]
['Placeholder', 'Const', 'AddV2']
>>> graph.to_dot().splitlines()[0]
'digraph "<lambda>" {'
"""
from runtime.backends.dot import to_dot
from runtime.backends.graph_def import GraphDef
from runtime.core.graph import Graph


def _as_graph_def(graph: Graph) -> GraphDef:
    """The graph in TensorFlow's GraphDef form; ``print`` it for the text format."""
    return GraphDef.from_graph(graph)


def _to_dot(graph: Graph) -> str:
    """Graphviz DOT text of this graph (see ``runtime.backends.dot``)."""
    return to_dot(graph)


Graph.as_graph_def = _as_graph_def
Graph.to_dot = _to_dot
