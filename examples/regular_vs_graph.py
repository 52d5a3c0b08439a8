"""A regular Python function and the same function run as a graph give the same result.

Seed scenario: "Taking advantage of graphs" — ``ag.function`` turns a function into a callable that
traces it once into a graph and then runs the graph.
"""
import autograph_lite as ag
import runtime as rt


def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


# `a_function_that_uses_a_graph` is an ag.function: it traces `a_regular_function` into a graph.
a_function_that_uses_a_graph = ag.function(a_regular_function)


def main():
    x1 = rt.constant([[1.0, 2.0]])
    y1 = rt.constant([[2.0], [3.0]])
    b1 = rt.constant(4.0)

    orig_value = a_regular_function(x1, y1, b1).numpy()
    graph_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    print("regular function:", orig_value)
    print("graph function:  ", graph_value)
    assert (orig_value == graph_value).all()

    graph = a_function_that_uses_a_graph.get_concrete_function(x1, y1, b1).graph
    print("ops in the graph:", ", ".join(op.type for op in graph.operations))


if __name__ == "__main__":
    main()
