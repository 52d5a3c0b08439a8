"""Python ``print`` runs while tracing only; ``rt.print`` is an op, so it runs on every call."""
import autograph_lite as ag
import runtime as rt


@ag.function
def noisy_square(x):
    print("print: tracing noisy_square")       # a Python side effect: trace time only
    rt.print("rt.print: running with x =", x)   # a graph op: every call
    return x * x


def main():
    for value in (2, 3, 4):
        result = noisy_square(rt.constant(value))
        print("result:", result.numpy())
    print("traces:", noisy_square.experimental_get_tracing_count())


if __name__ == "__main__":
    main()
