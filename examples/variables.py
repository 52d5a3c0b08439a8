"""Variables: create them outside the function, read and update them inside.

Seed advice: "Create Variables outside the Python function and modify them on the inside." A Variable
is captured by identity, so its updates are visible after each call and the function is not retraced.
The function is then saved with ``rt.save`` and loaded with ``rt.load``: the loaded copy has its own
variable, starting from the saved value.
"""
import tempfile

import autograph_lite as ag
import runtime as rt

total = rt.Variable(0.0)
calls = rt.Variable(0)


@ag.function
def accumulate(x):
    total.assign_add(rt.reduce_sum(x))
    calls.assign_add(1)
    return total / rt.cast(calls, rt.float32)  # the running mean of the sums


def main():
    for batch in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
        mean = accumulate(rt.constant(batch))
        print(f"after {batch}: total = {total.numpy()}, calls = {calls.numpy()}, mean = {mean.numpy()}")
    print("traces:", accumulate.experimental_get_tracing_count())

    with tempfile.TemporaryDirectory() as directory:
        rt.save(accumulate, directory)
        restored = rt.load(directory)
    print("restored call:", restored(rt.constant([7.0, 8.0])).numpy())
    print("restored variables:", [v.numpy().item() for v in restored.variables])
    print("original variables untouched:", total.numpy(), calls.numpy())


if __name__ == "__main__":
    main()
