"""Every public function of ``runtime`` and of its namespaces (rt.math, rt.nn, rt.linalg, rt.random,
rt.debugging, rt.export, rt.optimizers, rt.errors) carries the name it is published under: ``__name__`` and
``__qualname__`` are that name, its ``__module__`` holds it under that name, and it has a docstring. Functions
made by a factory (one per op: rt.add, rt.reduce_sum, ...) and TensorFlow's aliases (rt.math.floormod,
rt.math.truediv, rt.linalg.matrix_transpose) included."""
import sys
import types

import numpy as np
import pytest

import runtime as rt

NAMESPACES = ["math", "nn", "linalg", "random", "debugging", "export", "optimizers", "errors"]


def public_functions():
    """(public name, function) for rt's functions (not its modules or classes) and each namespace's."""
    found = [(f"rt.{name}", name, value) for name, value in vars(rt).items()
             if not name.startswith("_") and isinstance(value, types.FunctionType)]
    for namespace in NAMESPACES:
        module = getattr(rt, namespace)
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        found += [(f"rt.{namespace}.{name}", name, getattr(module, name)) for name in names
                  if isinstance(getattr(module, name), types.FunctionType)]
    return found


PUBLIC = public_functions()


def test_there_are_public_functions_to_check():
    published = {full for full, _, _ in PUBLIC}
    assert len(PUBLIC) > 150
    assert {"rt.add", "rt.reduce_sum", "rt.abs", "rt.is_tensor", "rt.math.floormod", "rt.math.truediv",
            "rt.linalg.matrix_transpose", "rt.debugging.assert_equal", "rt.random.uniform",
            "rt.export.to_onnx", "rt.nn.relu"} <= published
    assert "rt.debugging.render" not in published   # an import of debugging.py, not part of rt.debugging


@pytest.mark.parametrize("full_name, name, function", PUBLIC, ids=[full for full, _, _ in PUBLIC])
def test_each_public_function_has_its_public_name_and_a_docstring(full_name, name, function):
    assert function.__name__ == name, full_name
    assert function.__qualname__ == name, full_name
    assert getattr(sys.modules[function.__module__], name) is function, full_name
    assert function.__doc__ and function.__doc__.strip(), full_name


def test_factory_made_functions_show_their_names():
    assert [f.__name__ for f in (rt.add, rt.less_equal, rt.negative, rt.sqrt, rt.reduce_sum, rt.reduce_any,
                                 rt.math.is_nan, rt.tanh)] == \
        ["add", "less_equal", "negative", "sqrt", "reduce_sum", "reduce_any", "is_nan", "tanh"]
    assert repr(rt.reduce_mean).startswith("<function reduce_mean at ")


def test_aliases_are_copies_that_compute_the_same():
    assert rt.math.floormod is not rt.mod and rt.math.floormod.__name__ == "floormod"
    assert rt.math.truediv is not rt.divide and rt.math.truediv.__name__ == "truediv"
    a, b = np.array([7, -7, 5]), np.array([3, 3, -2])
    np.testing.assert_array_equal(rt.math.floormod(a, b).numpy(), rt.mod(a, b).numpy())
    np.testing.assert_array_equal(rt.math.floormod(a, b).numpy(), np.array([1, 2, -1]))
    assert float(rt.math.truediv(1.0, 4.0)) == 0.25
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(rt.linalg.matrix_transpose(m).numpy(), m.T)
    assert "The same function as ``mod``, under the name ``floormod``." in rt.math.floormod.__doc__
    assert rt.math.add is rt.add   # the other names are the very same functions
