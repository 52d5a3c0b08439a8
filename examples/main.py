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


def main():
    graph_sqrt = ag.function(newton_sqrt)
    a = rt.constant([0.0, 2.0, 9.0, 1e4])

    print("# Generated code (ag.to_code):")
    print(ag.to_code(newton_sqrt))

    roots, steps = graph_sqrt(a)
    print("# Result:")
    print("newton_sqrt", a.numpy(), "=", roots.numpy(), f"after {steps.numpy()} steps")
    print("numpy sqrt  ", np.sqrt(a.numpy()))
    print()

    print("# Graph:")
    concrete = graph_sqrt.get_concrete_function(a)
    print(concrete.graph.as_graph_def())


if __name__ == "__main__":
    main()
