"""User mistakes in arguments get a clear error in the library's words, never one from deep inside it
(issue 21, item 7): a float axis (int(1.5) silently picked axis 1 in eight ops), to_onnx of something that is
not a traced function, a list nested deeper than a tensor can be."""
import numpy as np
import pytest

import runtime as rt

X = rt.constant([[1.0, 2.0], [3.0, 4.0]])

FLOAT_AXIS_CALLS = {
    "Sum": lambda: rt.reduce_sum(X, axis=1.5),
    "Mean": lambda: rt.reduce_mean(X, axis=[0, 1.5]),
    "ArgMax": lambda: rt.argmax(X, axis=1.5),
    "Cumsum": lambda: rt.cumsum(X, axis=1.5),
    "ConcatV2": lambda: rt.concat([X, X], axis=1.5),
    "ExpandDims": lambda: rt.expand_dims(X, 1.5),
    "Squeeze": lambda: rt.squeeze(X, 1.5),
    "GatherV2": lambda: rt.gather(X, [0], axis=1.5),
    "ReverseV2": lambda: rt.reverse(X, [1.5]),
    "Pack": lambda: rt.stack([X, X], axis=1.5),
    "Softmax": lambda: rt.nn.softmax(X, axis=1.5),
    "Sort": lambda: rt.sort(X, axis=1.5),
    "SplitV": lambda: rt.split(X, 2, axis=1.5),
    "Unpack": lambda: rt.unstack(X, axis=1.5),
    "OneHot": lambda: rt.one_hot([1], 3, axis=1.5),
    "Repeat": lambda: rt.repeat(X, 2, axis=1.5),
}


@pytest.mark.parametrize("op", sorted(FLOAT_AXIS_CALLS))
def test_a_float_axis_is_a_type_error_naming_the_op(op):
    with pytest.raises(TypeError, match=rf"^{op}: axis must be an int( or a list of ints)?, got .*1\.5"):
        FLOAT_AXIS_CALLS[op]()


def test_a_float_perm_and_a_bool_axis_are_refused_too():
    with pytest.raises(TypeError, match=r"^Transpose: perm must be an int or a list of ints, got \[0.5, 1\]"):
        rt.transpose(X, [0.5, 1])
    with pytest.raises(TypeError, match=r"^Sum: axis must be an int or a list of ints, got True"):
        rt.reduce_sum(X, axis=True)


def test_integer_axes_of_every_kind_still_work():
    assert rt.concat([X, X], axis=np.int64(1)).shape == (2, 4)
    assert rt.concat([X, X], axis=rt.constant(1)).shape == (2, 4)
    assert rt.reduce_sum(X, axis=np.array([0, 1])).numpy() == 10.0
    assert rt.transpose(X, np.array([1, 0])).numpy().tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_to_onnx_of_something_else_says_what_to_pass(tmp_path):
    pytest.importorskip("onnx")
    with pytest.raises(TypeError, match=r"to_onnx expects a ConcreteFunction \(f.get_concrete_function\(...\)\) "
                                        r"or a FuncGraph, got object"):
        rt.export.to_onnx(object(), tmp_path / "x.onnx")
    f = rt.Function(lambda x: x + 1.0)
    with pytest.raises(TypeError, match=r"to_onnx exports one traced signature: pass f.get_concrete_function"):
        rt.export.to_onnx(f, tmp_path / "x.onnx")


def _nested(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("convert", [rt.constant, rt.convert_to_tensor, lambda v: rt.constant(v, rt.float32),
                                     lambda v: rt.add(v, 1), rt.Variable])
def test_a_list_nested_10000_deep_is_a_value_error_not_a_recursion_error(convert):
    with pytest.raises(ValueError, match="cannot convert a list nested more than 64 deep to a tensor: a tensor has "
                                         "at most 64 dimensions"):
        convert(_nested(10_000))


def test_a_list_nested_as_deep_as_numpy_allows_still_converts():
    assert rt.constant(_nested(32)).shape == (1,) * 32
