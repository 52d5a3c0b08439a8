"""Train a small MLP on the Iris data: one @ag.function `fit` whose tensor `while` stops early on the validation
loss; each epoch runs train steps (GradientTape + Adam) inside the loop's body.

Data: examples/data/iris.csv, Fisher's Iris data (R. A. Fisher, 1936; UCI Machine Learning Repository,
CC BY 4.0), copied from scikit-learn's bundled copy (sklearn/datasets/data/iris.csv, BSD-3-Clause).
150 flowers, 4 measurements, 3 species. First line: row count, feature count, class names.

Run: python examples/train_mlp.py
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

import autograph_lite as ag
import runtime as rt

DATA = Path(__file__).resolve().parent / "data" / "iris.csv"
HIDDEN, BATCH, MAX_EPOCHS, PATIENCE = 16, 20, 200, 10


def load_iris():
    with open(DATA, newline="") as handle:
        rows = list(csv.reader(handle))
    classes = rows[0][2:]
    values = np.array(rows[1:], dtype=np.float32)
    return values[:, :4], values[:, 4].astype(np.int32), classes


def split(features, labels, seed=0):
    order = np.random.default_rng(seed).permutation(len(labels))
    features = (features - features.mean(axis=0)) / features.std(axis=0)
    parts = np.split(order, [100, 125])  # 100 train, 25 validation, 25 test
    return [(features[p], labels[p]) for p in parts]


rng = np.random.default_rng(42)
w1 = rt.Variable(rng.normal(0, 0.5, (4, HIDDEN)).astype(np.float32), name="w1")
b1 = rt.Variable(np.zeros(HIDDEN, np.float32), name="b1")
w2 = rt.Variable(rng.normal(0, 0.5, (HIDDEN, 3)).astype(np.float32), name="w2")
b2 = rt.Variable(np.zeros(3, np.float32), name="b2")
variables = [w1, b1, w2, b2]
optimizer = rt.optimizers.Adam(learning_rate=0.05)


def logits_of(x):
    hidden = rt.maximum(rt.matmul(x, w1) + b1, 0.0)
    return rt.matmul(hidden, w2) + b2


def cross_entropy(logits, labels):
    shifted = logits - rt.reduce_max(logits, axis=1, keepdims=True)
    log_probs = shifted - rt.log(rt.reduce_sum(rt.exp(shifted), axis=1, keepdims=True))
    picked = rt.gather_nd(log_probs, rt.stack([rt.range(rt.shape(labels)[0]), labels], axis=1))
    return -rt.reduce_mean(picked)


@ag.function
def train_step(x, y):
    with rt.GradientTape() as tape:
        loss = cross_entropy(logits_of(x), y)
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


@ag.function
def evaluate(x, y):
    logits = logits_of(x)
    correct = rt.equal(rt.argmax(logits, axis=1, output_type=rt.int32), y)
    return cross_entropy(logits, y), rt.reduce_mean(rt.cast(correct, rt.float32))


def print_progress(epoch, train_loss, val_loss, width=20):
    """One progress line, printed when the graph runs: a bar of `width` characters, then the losses."""
    filled = epoch * width // MAX_EPOCHS
    rt.print("epoch", epoch, "[", end="")
    for position in rt.range(width):
        if position < filled:
            rt.print("#", end="")
        else:
            rt.print(".", end="")
    rt.print("] train loss", rounded(train_loss), " val loss", rounded(val_loss))


def rounded(value, digits=4):
    scale = 10.0 ** digits
    return rt.round(value * scale) / scale


@ag.function
def fit(x_train, y_train, x_val, y_val):
    """Train until the validation loss has not improved for PATIENCE epochs (or MAX_EPOCHS): one graph.

    The `while` tests tensors (the epoch count and how long the validation loss has stalled), so it
    is staged as a graph loop whose trip count is decided by the data; each epoch's train steps (with
    their GradientTape and Adam updates) run inside its body.
    """
    epoch, waited = rt.constant(0), rt.constant(0)
    best = rt.constant(np.inf)
    while epoch < MAX_EPOCHS and waited < PATIENCE:
        starts = range(0, len(y_train), BATCH)  # Python ints: unrolled into one train step per batch
        train_loss = 0.0
        for start in starts:
            train_loss += train_step(x_train[start:start + BATCH], y_train[start:start + BATCH])
        train_loss /= len(starts)
        val_loss, _ = evaluate(x_val, y_val)
        epoch += 1
        if val_loss < best - 1e-4:
            best, waited = val_loss, 0
        else:
            waited += 1
        if epoch % 10 == 0 or waited == PATIENCE:
            print_progress(epoch, train_loss, val_loss)
    return epoch, waited, best


def main():
    features, labels, classes = load_iris()
    (x_train, y_train), (x_val, y_val), (x_test, y_test) = split(features, labels)
    print(f"Iris: {len(y_train)} train, {len(y_val)} validation, {len(y_test)} test; classes {', '.join(classes)}")
    epoch, waited, best = fit(rt.constant(x_train), rt.constant(y_train), rt.constant(x_val), rt.constant(y_val))
    print(f"stopped after {int(epoch)} epochs (validation loss last improved {int(waited)} epochs before, best "
          f"{float(best):.4f}); fit traced {fit.experimental_get_tracing_count()} time(s)")
    test_loss, test_accuracy = evaluate(rt.constant(x_test), rt.constant(y_test))
    print(f"test loss {float(test_loss):.4f}, test accuracy {float(test_accuracy):.2%}")


if __name__ == "__main__":
    main()
