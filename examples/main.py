"""The main example: convert a real function, run it, and look at what was made.

``newton_sqrt`` computes square roots by Newton's method, iterating until every entry is within a
relative tolerance — a ``while`` whose condition depends on the data. ``ag.function`` converts it
(``ag.to_code`` prints the generated code), traces it into a graph with a ``While`` op, and runs it.
"""
import numpy as np

import autograph_lite as ag
import runtime as rt


def newton_sqrt(a, tolerance=1e-6, max_steps=50):
    """Square roots of the entries of ``a`` (>= 0) by Newton's method."""
    scale = rt.maximum(a, 1.0)
    x = scale  # a starting point above every root
    steps = 0
    while rt.reduce_max(rt.abs(x * x - a) / scale) > tolerance and steps < max_steps:
        x = 0.5 * (x + a / x)
        steps += 1
    return x, steps


def describe_graph(graph, indent=""):
    """One line per op: ``name = Type(inputs) -> dtype[shape]``; If/While subgraphs indented below."""
    lines = []
    for op in graph.operations:
        inputs = ", ".join(t.op.name for t in op.inputs)
        outputs = ", ".join(f"{t.dtype.name}{list(t.shape) if t.shape is not None else '[...]'}"
                            for t in op.outputs)
        lines.append(f"{indent}{op.name} = {op.type}({inputs}) -> {outputs}")
        for attr, value in op.attrs.items():
            if isinstance(value, rt.Graph):
                lines.append(f"{indent}  {attr}:")
                lines.append(describe_graph(value, indent + "    "))
    return "\n".join(lines)


def main():
    graph_sqrt = ag.function(newton_sqrt)
    a = rt.constant([2.0, 9.0, 0.25, 1e4])

    print("# Generated code (ag.to_code):")
    print(ag.to_code(newton_sqrt))

    roots, steps = graph_sqrt(a)
    print("# Result:")
    print("newton_sqrt", a.numpy(), "=", roots.numpy(), f"after {steps.numpy()} steps")
    print("numpy sqrt  ", np.sqrt(a.numpy()))
    print()

    concrete = graph_sqrt.get_concrete_function(a)
    print("# Graph (the full GraphDef text: concrete.graph.as_graph_def(); a drawing: .to_dot()):")
    print(describe_graph(concrete.graph))


if __name__ == "__main__":
    main()
