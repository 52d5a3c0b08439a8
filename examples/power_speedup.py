"""Seeing the speed-up: 100 chained matmuls, eagerly and as one traced graph.

Seed scenario: "Seeing the speed-up" with ``power``. The Python ``for`` over ``range(y)`` with a Python
int runs while tracing, so the graph holds 100 ``MatMul`` nodes; calling it skips all Python overhead.
"""
import sys
import timeit

import autograph_lite as ag
import runtime as rt


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


power_as_graph = ag.function(power)


def main(number=1000):
    x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32, seed=0)
    eager_value = power(x, 100).numpy()
    graph_value = power_as_graph(x, 100).numpy()  # the first call traces
    assert (eager_value == graph_value).all()
    print("same result eagerly and as a graph:", (eager_value == graph_value).all())
    matmuls = sum(op.type == "MatMul" for op in power_as_graph.get_concrete_function(x, 100).graph.operations)
    print("MatMul nodes in the graph:", matmuls)
    eager = timeit.timeit(lambda: power(x, 100), number=number)
    graph = timeit.timeit(lambda: power_as_graph(x, 100), number=number)
    print(f"Eager execution: {eager:.3f} s for {number} calls")
    print(f"Graph execution: {graph:.3f} s for {number} calls")
    print(f"speed-up: {eager / graph:.1f}x")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))  # optional: number of timed calls
