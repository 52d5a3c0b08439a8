"""A real training loop with data-dependent control flow: gradient descent with early stopping.

Linear regression fitted by plain gradient descent (the gradients written out by hand). The loop
stops when the loss improves by less than ``tolerance`` — a tensor-dependent ``break`` inside a
tensor-dependent ``while``, so the whole loop is one ``While`` op with an ``If`` inside, and the number
of epochs is decided while the graph runs. Graph and eager execution give the same weights.
"""
import numpy as np

import autograph_lite as ag
import runtime as rt


def train(features, targets, learning_rate=0.1, tolerance=1e-7, max_epochs=1000):
    count = rt.cast(rt.shape(features)[0], rt.float32)
    weights = rt.zeros([features.shape[1], 1])
    bias = rt.constant(0.0)
    previous_loss = rt.constant(np.inf, dtype=rt.float32)
    loss = previous_loss
    epoch = rt.constant(0)
    while epoch < max_epochs:
        error = rt.matmul(features, weights) + bias - targets
        loss = rt.reduce_mean(error * error)
        if previous_loss - loss < tolerance:
            break
        weights = weights - learning_rate * 2.0 * rt.matmul(rt.transpose(features), error) / count
        bias = bias - learning_rate * 2.0 * rt.reduce_mean(error)
        previous_loss = loss
        epoch += 1
    return weights, bias, loss, epoch


train_graph = ag.function(train)


def make_data(rows=64, seed=0):
    """Points on the plane 3*x1 - 2*x2 + 1, plus a little noise."""
    generator = np.random.default_rng(seed)
    features = generator.uniform(-1, 1, size=(rows, 2)).astype(np.float32)
    targets = features @ np.array([[3.0], [-2.0]], np.float32) + 1.0
    targets += generator.normal(0, 0.01, size=(rows, 1)).astype(np.float32)
    return rt.constant(features), rt.constant(targets)


def main():
    features, targets = make_data()
    weights, bias, loss, epochs = train_graph(features, targets)
    print("graph: stopped after", epochs.numpy(), "epochs")
    print("graph: weights", np.round(weights.numpy().ravel(), 3), "bias", np.round(bias.numpy(), 3),
          "loss", f"{loss.numpy():.6f}")
    eager = train(features, targets)
    same = all(np.array_equal(g.numpy(), e.numpy()) for g, e in zip((weights, bias, loss, epochs), eager))
    print("eager gives identical results:", same)
    graph = train_graph.get_concrete_function(features, targets).graph
    print("top-level ops:", ", ".join(op.type for op in graph.operations if op.type not in ("Const",)))


if __name__ == "__main__":
    main()
