"""When does a Function trace? Tensors trace once per signature; Python arguments trace per value.

Seed scenario: "When is a Function tracing?" with ``a_function_with_python_side_effect``.
"""
import autograph_lite as ag
import runtime as rt


@ag.function
def a_function_with_python_side_effect(x):
    print("Tracing!")  # An eager-only side effect.
    return x * x + rt.constant(2)


def main():
    # This is traced the first time.
    print(a_function_with_python_side_effect(rt.constant(2)))
    print()
    # The second time through, you won't see the side effect.
    print(a_function_with_python_side_effect(rt.constant(3)))
    print()
    # This retraces each time the Python argument changes,
    # as a Python argument could be an epoch count or other hyperparameter.
    print(a_function_with_python_side_effect(2))
    print()
    print(a_function_with_python_side_effect(3))
    print()
    print("traces:", a_function_with_python_side_effect.experimental_get_tracing_count())


if __name__ == "__main__":
    main()
