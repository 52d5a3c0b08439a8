"""A tensor-dependent ``if`` becomes an ``If`` op; ``ag.to_code`` shows the code the converter wrote.

Seed scenario: "Converting Python functions to graphs" with ``simple_relu``.
"""
import autograph_lite as ag
import runtime as rt


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


# `graph_simple_relu` is an ag.function that wraps `simple_relu`.
graph_simple_relu = ag.function(simple_relu)


def main():
    print("First branch, with graph:", graph_simple_relu(rt.constant(1)).numpy())
    print("Second branch, with graph:", graph_simple_relu(rt.constant(-1)).numpy())
    print()
    print("# The generated code:")
    print(ag.to_code(simple_relu))
    print("# The graph:")
    print(graph_simple_relu.get_concrete_function(rt.constant(1)).graph.as_graph_def())


if __name__ == "__main__":
    main()
