"""Non-strict execution: a graph runs only what its outputs and side effects need.

Seed scenario: an unused ``gather`` with an out-of-range index raises eagerly but not in a graph.
"""
import autograph_lite as ag
import runtime as rt


def unused_return_eager(x):
    # Getting index 1 fails when len(x) == 1.
    rt.gather(x, [1])  # unused
    return x


@ag.function
def unused_return_graph(x):
    rt.gather(x, [1])  # unused
    return x


def main():
    try:
        print(unused_return_eager(rt.constant([0.0])))
    except rt.errors.InvalidArgumentError as e:
        # All operations run during eager execution, so the error is raised.
        print(f"eager: {type(e).__name__}: {e}")

    # Only needed operations run during graph execution: the error is not raised.
    print("graph:", unused_return_graph(rt.constant([0.0])))


if __name__ == "__main__":
    main()
