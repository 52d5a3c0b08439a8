"""Tensors: the values ops consume and produce.

``EagerTensor`` holds a numpy array and is what you get outside a traced function.
``SymbolicTensor`` is the output of an op inside a graph being traced: it knows its dtype and
(possibly partial) shape, but not its value, so Python cannot branch on it.

>>> from runtime import constant
>>> t = constant([1.0, 0.0])
>>> t
Tensor([1. 0.], shape=(2,), dtype=float32)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np

from runtime.core import dtypes, source_locations
from runtime.core.errors import OperatorNotAllowedInGraphError, in_users_words
from runtime.core.tensor_shape import TensorShape, known

Shape = Optional[Tuple[Optional[int], ...]]  # None = unknown rank; a None dim = unknown size


class Tensor:
    """Base class of eager and symbolic tensors; carries the Python operator overloads."""

    __slots__ = ()
    __array_priority__ = 100  # make ``ndarray + tensor`` defer to our reflected operators

    # Python operators (+, *, <, [], ...) are installed by runtime.ops.operators: each is one op.
    if TYPE_CHECKING:  # what the subclasses and runtime.ops.operators give every tensor, for type checkers
        dtype: np.dtype   # EagerTensor and Variable read them from their arrays
        shape: Any

        def __add__(self, other: Any) -> "Tensor": ...
        def __radd__(self, other: Any) -> "Tensor": ...
        def __sub__(self, other: Any) -> "Tensor": ...
        def __rsub__(self, other: Any) -> "Tensor": ...
        def __mul__(self, other: Any) -> "Tensor": ...
        def __rmul__(self, other: Any) -> "Tensor": ...
        def __truediv__(self, other: Any) -> "Tensor": ...
        def __rtruediv__(self, other: Any) -> "Tensor": ...
        def __floordiv__(self, other: Any) -> "Tensor": ...
        def __mod__(self, other: Any) -> "Tensor": ...
        def __pow__(self, other: Any) -> "Tensor": ...
        def __matmul__(self, other: Any) -> "Tensor": ...
        def __neg__(self) -> "Tensor": ...
        def __lt__(self, other: Any) -> "Tensor": ...
        def __le__(self, other: Any) -> "Tensor": ...
        def __gt__(self, other: Any) -> "Tensor": ...
        def __ge__(self, other: Any) -> "Tensor": ...
        def __getitem__(self, key: Any) -> "Tensor": ...

    # numpy's protocols (np.sum(t) becomes an op) are installed by runtime.ops.numpy_dispatch.

    @property
    def ndim(self) -> Optional[int]:
        return None if self.shape is None else len(self.shape)


def value_text(array: np.ndarray) -> str:
    """How a tensor's value prints: numpy's own text, with a scalar printed in its dtype's precision (numpy
    prints a 0-d array through a Python float, so float32 0.1 would show float64 digits).

    >>> value_text(np.array(0.1, np.float32)), value_text(np.array([0.1, 0.5], np.float32))
    ('0.1', '[0.1 0.5]')
    """
    return str(array[()]) if array.ndim == 0 else str(array)


class EagerTensor(Tensor):
    """A tensor with a concrete value (a numpy array of one of the supported dtypes)."""

    __slots__ = ("_value",)

    def __init__(self, value: np.ndarray):
        self._value = value

    @property
    def dtype(self) -> np.dtype:  # type: ignore[override]  # read-only here, set on a SymbolicTensor
        return self._value.dtype

    @property
    def shape(self) -> TensorShape:  # type: ignore[override]
        return known(self._value.shape)

    def get_shape(self) -> TensorShape:
        """``self.shape``, as TensorFlow's ``get_shape()``."""
        return known(self._value.shape)

    @property
    def ndim(self) -> int:  # the array's own (Tensor.ndim goes through .shape: hot in eager ops)
        return self._value.ndim

    def _own_value(self) -> np.ndarray:
        value = self._value
        if not value.flags.writeable:
            # A result of a jit_compile=True call views JAX's read-only buffer: the caller gets an array of its own,
            # which it may change in place as it may the numpy executor's results (copied once, on first use)
            value = self._value = value.copy()
        return value

    def numpy(self) -> np.ndarray:
        """The value as a numpy array (a scalar tensor gives a 0-d array's scalar, like TF)."""
        value = self._own_value()
        return value[()] if value.ndim == 0 else value

    def __array__(self, dtype=None, copy=None):
        # np.asarray(t) is t.numpy()'s array (writable, whichever executor made t); np.array(t) (copy=True) a new one
        value = self._own_value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            if copy is False:
                raise ValueError(f"np.asarray(..., copy=False) of a {value.dtype.name} tensor as "
                                 f"{np.dtype(dtype).name} needs a copy")
            return value.astype(dtype)
        return value.copy() if copy else value

    def __repr__(self) -> str:
        return f"Tensor({value_text(self._value)}, shape={self._value.shape}, dtype={self._value.dtype.name})"

    __str__ = __repr__

    def __bool__(self) -> bool:
        if self._value.size != 1:
            raise ValueError(in_users_words(
                f"The truth value of a tensor with shape {self._value.shape} is ambiguous; "
                "reduce it first, e.g. rt.reduce_any(t) or rt.reduce_all(t)"))
        return bool(self._value)

    def __int__(self) -> int: return int(self._value)
    def __float__(self) -> float: return float(self._value)
    def __index__(self) -> int:
        if not dtypes.is_integer(self._value.dtype) or self._value.ndim != 0:
            raise TypeError(f"only scalar integer tensors can be used as an index, got {self!r}")
        return int(self._value)

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a scalar tensor")
        return len(self._value)

    # __iter__ (rows, as ops a recording GradientTape sees) is installed by runtime.ops.operators.


def _user_location() -> str:
    """' (File "f.py", line 3, in g)' for the innermost caller outside the libraries, if it is a real file.

    Converted code (a generated "<...>" file) gets its user location from autograph_lite instead.
    """
    site = source_locations.creation_site()
    if site is None or site[0].startswith("<"):
        return ""
    filename, lineno, function_name = site
    return f' (File "{filename}", line {lineno}, in {function_name})'


def _symbolic_misuse(tensor: "SymbolicTensor", what: str, fix: str,
                     as_what: str = "") -> OperatorNotAllowedInGraphError:
    return OperatorNotAllowedInGraphError(in_users_words(
        f"{what} a symbolic tensor ({tensor.name}, dtype={tensor.dtype.name}, shape={tensor.shape}){as_what} "
        f"is not allowed while tracing{_user_location()}: its value is only known when the graph runs. {fix}"))


_CONTROL_FLOW_FIX = ("Let ag.function convert the Python control flow (autograph=True), or use "
                     "rt.cond / rt.while_loop explicitly.")


class SymbolicTensor(Tensor):
    """The output number ``index`` of ``op`` in a graph being traced."""

    __slots__ = ("op", "index", "dtype", "shape")

    def __init__(self, op, index: int, dtype: np.dtype, shape: Shape):
        self.op = op
        self.index = index
        self.dtype = dtype
        self.shape = shape if shape is None else known(shape)  # a TensorShape (None: unknown rank)

    def get_shape(self) -> TensorShape:
        """``self.shape``, as TensorFlow's ``get_shape()`` (a TensorShape; TensorShape(None) for unknown rank)."""
        return TensorShape(self.shape)

    @property
    def graph(self):
        return self.op.graph

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.index}"

    def __repr__(self) -> str:
        return f"<SymbolicTensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __bool__(self):
        raise _symbolic_misuse(self, "Using", _CONTROL_FLOW_FIX, as_what=" as a Python bool")

    def __len__(self):
        raise _symbolic_misuse(self, "Taking len() of",
                               "Use rt.shape(t)[0] for a dynamic length, or give the argument a fixed shape.")

    def __iter__(self):
        raise _symbolic_misuse(self, "Iterating over",
                               "Iterate with a `for` statement or a comprehension in a converted function "
                               "(ag.function), which becomes a graph loop; list(...), tuple(...) and other "
                               "consumers of iterators are not converted. Outside converted code use "
                               "rt.while_loop.")

    def __index__(self):
        raise _symbolic_misuse(self, "Using", "Use tensor ops (e.g. rt.gather) instead.",
                               as_what=" as a Python int (e.g. a list index)")

    def __int__(self):
        raise _symbolic_misuse(self, "Converting to a Python int",
                               "Use rt.cast(t, rt.int32) to stay in the graph.")

    def __float__(self):
        raise _symbolic_misuse(self, "Converting to a Python float",
                               "Use rt.cast(t, rt.float32) to stay in the graph.")

    def __array__(self, dtype=None, copy=None):
        raise _symbolic_misuse(self, "Converting to a numpy array",
                               "numpy functions with an op mapping (np.sum, np.dot, np.exp, ...) become ops; "
                               "for others use the rt op that computes it, or return the tensor and use numpy "
                               "on the result.")

    def numpy(self):
        raise _symbolic_misuse(self, "Calling .numpy() on",
                               "Return the tensor from the function, or use rt.print to see it at run time.")


def is_symbolic(value: Any) -> bool:
    """True if ``value`` is a tensor inside a graph being traced (its value is not known yet)."""
    return isinstance(value, SymbolicTensor)


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a tensor (eager or symbolic; a Variable is one too).

    >>> import runtime as rt
    >>> rt.is_tensor(rt.constant(1.0)), rt.is_tensor(rt.Variable(1.0)), rt.is_tensor([1.0])
    (True, True, False)
    """
    return isinstance(value, Tensor)


def _spec_shape(shape: Any) -> Tuple[Optional[int], ...]:
    try:
        dims = None if isinstance(shape, str) else tuple(shape)
    except TypeError:
        dims = None
    if dims is not None and all(d is None or isinstance(d, (int, np.integer)) for d in dims):
        return tuple(None if d is None else int(d) for d in dims)
    raise TypeError(f"TensorSpec: shape must be a list of ints or None, got {shape!r}; "
                    "e.g. rt.TensorSpec(shape=[None, 3], dtype=rt.float32)")


class TensorSpec:
    """Describes a tensor argument: shape (``None`` dims accept any size) and dtype.

    >>> from runtime.core.dtypes import float32
    >>> TensorSpec([None, 3], float32)
    TensorSpec(shape=(None, 3), dtype=float32, name=None)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape=None, dtype=dtypes.float32, name: Optional[str] = None):
        self.shape: Shape = None if shape is None else _spec_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, tensor: Any) -> bool:
        """True if a tensor/array of this dtype and a shape matching every known dim is accepted."""
        if tensor.dtype != self.dtype:
            return False
        return shape_compatible(self.shape, tensor.shape)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype, self.name) == (
            other.shape, other.dtype, other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name!r})"


def shape_compatible(expected: Shape, actual: Shape) -> bool:
    """True if ``actual`` fits ``expected`` (None rank or None dims in ``expected`` match anything)."""
    if expected is None or actual is None:
        return True
    if len(expected) != len(actual):
        return False
    return all(e is None or a is None or e == a for e, a in zip(expected, actual))

