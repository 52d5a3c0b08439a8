"""The one op registry. Each op is declared once here-by-registration; everything reads it.

An ``OpDef`` has a name (the op type, e.g. ``"MatMul"``), its input argument names, a function that
infers output dtypes/shapes from input specs and attrs, a numpy kernel, and whether it is stateful.
Eager execution, tracing, constant folding, the executor, serialization, drawing and export all look
ops up here by name.

>>> from runtime.core.registry import get_op
>>> get_op("MatMul").inputs
('a', 'b')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from runtime.core import context, dtypes
from runtime.core.attrs import AttrKind, AttrsCheck
from runtime.core.errors import InvalidArgumentError
from runtime.core.numpy_errors import QUIET_ERROR_STATE, RESET_ERROR_STATE, SET_ERROR_STATE
from runtime.core.tensor import EagerTensor, Shape, Tensor

OutputSpec = Tuple[np.dtype, Shape]
InferFn = Callable[[List[OutputSpec], Dict[str, Any]], List[OutputSpec]]


@dataclass(frozen=True)
class Algebra:
    """What the arithmetic pass may assume about an op, declared with the op.

    ``neutral``: ``(positions, value, zero_sign)`` entries: the op returns its other operand when the
    operand at one of ``positions`` is the constant ``value`` (for a float zero, only one with sign bit
    ``zero_sign`` is neutral: ``x + -0.0 == x`` but ``-0.0 + 0.0 == 0.0``; None: any). ``self_inverse``:
    ``op(op(x)) == x``. ``noop_when_same_dtype``: the op returns its one input when the dtypes agree.
    """

    neutral: Tuple[Tuple[Tuple[int, ...], Any, Optional[bool]], ...] = ()
    self_inverse: bool = False
    noop_when_same_dtype: bool = False


NO_ALGEBRA = Algebra()


@dataclass(frozen=True, eq=False)
class OpDef:
    """Declaration of one op type.

    ``inputs``: argument names, used for naming captured constants (``Greater/y``) and for
    documentation; a single name starting with ``*`` means "any number of inputs".
    ``infer(input_specs, attrs)`` returns one (dtype, shape) per output; shapes use None for unknown
    dims and raise ``ValueError``/``TypeError`` with a clear message on incompatible inputs.
    ``kernel(*arrays, **attrs)`` returns an ndarray (one output) or a tuple of ndarrays.
    ``stateful`` ops are never pruned, folded or merged, and run in program order.
    ``algebra``: the identities the arithmetic pass may use (``Algebra``).
    ``shape_only`` ops (``Shape``, ``Size``, ``Rank``) read only their inputs' dtypes and shapes, never
    the values, so constant folding evaluates them whenever those shapes are fully known.
    ``ufunc``: the numpy ufunc the kernel applies elementwise when the kernel only wraps it to silence
    floating-point warnings (the compiled executor silences them once per call and calls the ufunc
    directly, with ``out=`` buffers); ``zero_divisor_error``: for integer inputs the kernel also raises
    ``InvalidArgumentError`` on a zero in input 1, so the ufunc alone is only right for a divisor known to
    be nonzero. A kernel that *is* a ufunc needs neither (see ``elementwise_ufunc``).
    ``in_place_kernel``: for ops whose result is input 0 with a part replaced (``x[i, j] = v``, scatter),
    the same computation writing into input 0's array and returning it, with the same checks and errors.
    The kernel copies input 0 (tensors are immutable); the compiled executor calls this one instead only
    where its memory plan proves input 0's array is the call's own and dies at this op
    (``runtime.backends.in_place``).
    ``into_kernel``: for elementwise ops that are no single ufunc (``Sigmoid``, ``Softplus``, ``Relu``),
    ``into_kernel(*arrays, out=buffer)``: the kernel's values written into ``buffer`` (the result's shape
    and dtype, sharing no memory with an input), returning it. Each result element depends only on the
    same element of the inputs, so the compiled executor may run it on row blocks and into pooled
    buffers, like a ufunc; the kernel itself should call it, so that both give the same bits.
    ``attrs``: the attrs the op takes, each name with the kind of its value (``runtime.core.attrs``); an op
    that declares none takes none. The loader refuses any other attr, and the compiled executor writes only
    these names into its source. ``attrs_check``: what the attrs must say about the inputs, checked by the
    loader after the kinds (``attrs_check(attrs, input_count) -> problem or None``). ``variadic``: the op
    takes any number of inputs after the named ones (If's branch inputs, While's loop variables; an input
    name starting with ``*`` says the same).
    """

    name: str
    inputs: Tuple[str, ...]
    infer: InferFn
    kernel: Optional[Callable[..., Any]]
    stateful: bool = False
    doc: str = ""
    shape_only: bool = False
    ufunc: Optional[np.ufunc] = None
    zero_divisor_error: bool = False
    algebra: Algebra = NO_ALGEBRA
    in_place_kernel: Optional[Callable[..., Any]] = None
    into_kernel: Optional[Callable[..., Any]] = None
    attrs: Mapping[str, AttrKind] = field(default_factory=dict)
    attrs_check: Optional[AttrsCheck] = None
    variadic: bool = False

    # The VJP rule, set once by ``register_gradient``/``not_differentiable`` right below the op's
    # declaration: ``rule(op, output_grads, ops) -> input grads`` (see ``register_gradient``).
    gradient: Any = None

    def __post_init__(self):
        # What an eager op calls. ``apply_op`` silences numpy's warnings itself, so a kernel that only
        # wraps its ufunc to silence them (``np.errstate``, ~1.3 us) is skipped, as the executor does.
        direct = self.ufunc is not None and not self.zero_divisor_error
        object.__setattr__(self, "eager_kernel", self.ufunc if direct else self.kernel)
        for attr_name, kind in self.attrs.items():
            if not isinstance(kind, AttrKind):
                raise TypeError(f"op {self.name!r}: attr {attr_name!r} must be declared with an AttrKind "
                                f"(runtime.core.attrs), got {kind!r}")
        object.__setattr__(self, "attrs", MappingProxyType(dict(self.attrs)))  # read-only, as the op is

    @property
    def elementwise_ufunc(self) -> Optional[np.ufunc]:
        """The elementwise numpy ufunc this op computes (its kernel or ``ufunc``), or None."""
        if self.ufunc is not None:
            return self.ufunc
        kernel = self.kernel
        return kernel if isinstance(kernel, np.ufunc) and kernel.signature is None else None

    def input_name(self, index: int) -> str:
        if len(self.inputs) == 1 and self.inputs[0].startswith("*"):
            return f"{self.inputs[0][1:]}_{index}"
        return self.inputs[index] if index < len(self.inputs) else f"input_{index}"


_REGISTRY: Dict[str, OpDef] = {}


def register_op(name: str, inputs: Sequence[str], infer: InferFn, kernel: Optional[Callable[..., Any]],
                stateful: bool = False, doc: str = "", **features: Any) -> OpDef:
    """Declare an op. ``features``: OpDef's other fields by keyword (``shape_only``, ``ufunc``,
    ``zero_divisor_error``, ``algebra``, ``in_place_kernel``, ``into_kernel``, ``attrs``, ``attrs_check``,
    ``variadic``; see OpDef). Registering the
    same name twice is a programming error, and so is a gradient given here (``register_gradient`` declares it)."""
    if name in _REGISTRY:
        raise ValueError(f"op {name!r} is already registered")
    if "gradient" in features:
        raise TypeError(f"register_op({name!r}): declare the gradient with register_gradient, below the op")
    op_def = OpDef(name, tuple(inputs), infer, kernel, stateful, doc, **features)
    _REGISTRY[name] = op_def
    return op_def


class NotDifferentiable:
    """The gradient "rule" of an op that has no gradient (its input gradients are None, as in TF)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"NotDifferentiable({self.reason!r})"


def _set_gradient(op_def: OpDef, rule: Any) -> None:
    if op_def.gradient is not None:
        raise ValueError(f"op {op_def.name!r} already declares a gradient")
    object.__setattr__(op_def, "gradient", rule)  # OpDef is frozen; this is its one late field


def register_gradient(op_def: OpDef) -> Callable[[Callable], Callable]:
    """Declare ``op_def``'s gradient, a VJP written with runtime ops so that it traces.

    The rule is called as ``rule(op, output_grads, ops)``: ``op`` has ``.inputs``, ``.outputs`` and
    ``.attrs``; ``output_grads`` has one gradient per output (zeros for an unused output of a
    multi-output op); ``ops`` is the ``runtime.ops`` namespace, passed in so that an op module can
    use ops declared above it without importing them (imports go one way only). It returns one
    gradient (or None) per input, shaped like that input.

    >>> get_op("Identity").gradient(None, ["g"], None)
    ['g']
    """
    def decorate(rule: Callable) -> Callable:
        _set_gradient(op_def, rule)
        return rule
    return decorate


class GradientNotImplemented(NotDifferentiable):
    """The gradient "rule" of an op that *has* a gradient we do not compute yet: a gradient reaching it is
    an error (never a silent None)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"GradientNotImplemented({self.reason!r})"


def gradient_not_implemented(op_def: OpDef, reason: str) -> None:
    """Declare that ``op_def``'s gradient exists mathematically but is not implemented; why, and what to do.

    Differentiating through it raises ``GradientError`` with ``reason`` instead of returning None.
    """
    _set_gradient(op_def, GradientNotImplemented(reason))


def not_differentiable(op_def: OpDef, reason: str) -> None:
    """Declare that ``op_def`` has no gradient (e.g. integer or bool results, shapes); why, in words."""
    _set_gradient(op_def, NotDifferentiable(reason))


# Called after every eager op as ``hook(op_def, inputs, attrs, outputs)``: how a GradientTape records
# (set by the tape module; empty when no tape is recording, so eager ops pay one list test).
eager_op_hooks: List[Callable[..., None]] = []


def get_op(name: str) -> OpDef:
    """The registered ``OpDef`` called ``name``; ``KeyError`` with the known names otherwise."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r}; registered ops: {', '.join(sorted(_REGISTRY))}") from None


def registered_ops() -> Dict[str, OpDef]:
    return dict(_REGISTRY)


def run_kernel(op_def: OpDef, arrays: Sequence[np.ndarray], attrs: Dict[str, Any], node_name: str,
               kernel: Optional[Callable[..., Any]] = None):
    """Run ``op_def``'s kernel (or ``kernel``, for ops a backend runs itself, such as If/While), turning
    numpy's complaints into InvalidArgumentError naming the node. numpy's floating-point warnings are
    off while it runs: integer wraparound, inf and nan pass silently, exactly as in a compiled graph."""
    numpy_errors = SET_ERROR_STATE(QUIET_ERROR_STATE)
    try:
        return (kernel or op_def.kernel)(*arrays, **attrs)
    except _KERNEL_ERRORS as error:
        raise _named_kernel_error(error, node_name) from None
    finally:
        RESET_ERROR_STATE(numpy_errors)


# What a kernel may raise for bad values; it reaches the user as InvalidArgumentError naming the node.
_KERNEL_ERRORS = (InvalidArgumentError, ValueError, IndexError, FloatingPointError, ZeroDivisionError)
_NO_ATTRS: Dict[str, Any] = {}  # never mutated: the attrs of an eager op called without any
_thread_state = context.thread_state


def _named_kernel_error(error: Exception, node_name: str) -> InvalidArgumentError:
    if isinstance(error, InvalidArgumentError) and str(error).startswith(node_name + ":"):
        return error  # a nested run already named it
    return InvalidArgumentError(f"{node_name}: {error}")


def apply_op(op_def: OpDef, inputs: Sequence[Tensor], attrs: Optional[Dict[str, Any]] = None,
             name: Optional[str] = None):
    """Run an op now (eager) or add it to the graph being traced; returns tensor(s).

    ``inputs`` are tensors (convert Python values first, see ``runtime.ops.convert``).
    Returns a single tensor for one-output ops, else a tuple.
    """
    graph = _thread_state.graph  # context.current_graph(), without the call
    if graph is not None:
        op = graph.create_op(op_def, inputs, attrs or {}, name=name)  # the op owns its attrs dict
        return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)
    # Eager: the hot path of every eager op, so run_kernel's steps are written out here.
    try:
        arrays = [t._value for t in inputs]
    except AttributeError:
        raise _leaked_symbolic_error(op_def, inputs) from None
    if attrs is None:
        attrs = _NO_ATTRS
    numpy_errors = SET_ERROR_STATE(QUIET_ERROR_STATE)
    try:
        result = op_def.eager_kernel(*arrays, **attrs)
    except _KERNEL_ERRORS as error:
        raise _named_kernel_error(error, op_def.name) from None
    finally:
        RESET_ERROR_STATE(numpy_errors)
    if type(result) is np.ndarray:
        outputs = EagerTensor(result)
    elif isinstance(result, tuple):
        outputs = tuple(EagerTensor(_as_array(r)) for r in result)
    else:
        outputs = EagerTensor(np.asarray(result))  # numpy scalars (e.g. of reductions) become 0-d arrays
    if eager_op_hooks:
        for hook in eager_op_hooks:
            hook(op_def, inputs, attrs, outputs)
    return outputs


def _leaked_symbolic_error(op_def: OpDef, inputs: Sequence[Tensor]) -> Exception:
    leaked = [t for t in inputs if not isinstance(t, EagerTensor)]
    return TypeError(
        f"{op_def.name}: input {leaked[0]!r} is a symbolic tensor from a traced function, used outside "
        "of it. Return it from the function instead of storing it (e.g. in a global or an attribute).")


def _as_array(value) -> np.ndarray:
    # Kernels may return numpy scalars (e.g. reductions); keep everything an ndarray.
    return value if type(value) is np.ndarray else np.asarray(value)


def infer_output_specs(op_def: OpDef, input_specs: List[OutputSpec], attrs: Dict[str, Any],
                       node_name: str) -> List[OutputSpec]:
    """Shape/dtype inference with the node named in any error."""
    try:
        specs = op_def.infer(input_specs, attrs)
    except (ValueError, TypeError) as error:
        raise type(error)(f"{node_name} ({op_def.name}): {error}") from None
    if type(specs) is list and len(specs) == 1:  # most ops (no list comprehension frame for them)
        (dtype, shape), = specs
        return [(dtypes.as_dtype(dtype), shape)]
    return [(dtypes.as_dtype(d), s) for d, s in specs]
