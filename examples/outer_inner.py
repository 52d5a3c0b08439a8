"""``ag.function`` applies to a function and to every function it calls.

Seed scenario: ``outer_function`` calls the plain Python ``inner_function``; one graph holds both.
"""
import autograph_lite as ag
import runtime as rt


def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


@ag.function
def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


def main():
    x = rt.constant([[1.0, 2.0]])
    print("outer_function:", outer_function(x).numpy())
    graph = outer_function.get_concrete_function(x).graph
    print("ops in outer_function's graph:", ", ".join(op.type for op in graph.operations))


if __name__ == "__main__":
    main()
