"""One Function, many graphs: a new input signature traces a new concrete function.

Seed scenario: "Polymorphism" with ``my_relu``.
"""
import autograph_lite as ag
import runtime as rt


@ag.function
def my_relu(x):
    return rt.maximum(0., x)


def main():
    # `my_relu` creates new graphs as it observes more signatures.
    print(my_relu(rt.constant(5.5)))
    print(my_relu([1, -1]))
    print(my_relu(rt.constant([3., -3.])))
    print("traces so far:", my_relu.experimental_get_tracing_count())

    # These two calls do *not* create new graphs.
    print(my_relu(rt.constant(-2.5)))       # Signature matches `rt.constant(5.5)`.
    print(my_relu(rt.constant([-1., 1.])))  # Signature matches `rt.constant([3., -3.])`.
    print("traces after two more calls:", my_relu.experimental_get_tracing_count())
    print()
    print(my_relu.pretty_printed_concrete_signatures())


if __name__ == "__main__":
    main()
