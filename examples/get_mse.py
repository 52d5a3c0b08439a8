"""Graph vs eager execution of the same Function, and Python ``print`` as a trace-time side effect.

Seed scenario: "Graph execution vs. eager execution" with ``get_MSE``.
"""
import autograph_lite as ag
import runtime as rt


@ag.function
def get_MSE(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


def main():
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32, seed=1)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32, seed=2)
    print("y_true:", y_true)
    print("y_pred:", y_pred)

    print("-- as a graph (print runs once, while tracing):")
    graph_results = [get_MSE(y_true, y_pred) for _ in range(3)]
    print("graph result:", graph_results[0])

    print("-- eagerly (print runs on every call):")
    ag.run_functions_eagerly(True)
    try:
        eager_results = [get_MSE(y_true, y_pred) for _ in range(3)]
    finally:
        ag.run_functions_eagerly(False)  # Don't forget to set it back when you are done.
    print("eager result:", eager_results[0])
    assert eager_results[0].numpy() == graph_results[0].numpy()
    print("graph and eager agree:", eager_results[0].numpy() == graph_results[0].numpy())


if __name__ == "__main__":
    main()
