"""The fast path of a ``Function``'s cached calls whose every argument is an eager tensor (the common call).

Such a call's signature key (``runtime.tracing.signature.make_key``) is ``((TENSOR, dtype, shape), ...)``: it
says no more than the arguments' dtypes and shapes, in order. ``TensorCalls`` maps those alone (a flat tuple
``(dtype, shape, dtype, shape, ...)``, built and hashed more cheaply than the key) to the concrete function the
``Function``'s cache gave that key, once the slow path has looked it up, and runs it: no binding of arguments, no
key of marked entries, fewer calls of Python functions. Counted in instructions, that is a fifth of our own Python
around a jit_compile=True call of a batch-1 MLP (7 tensors), a third around a call of one tensor (docs/XLA.md,
"Overhead rows").

It holds only what the ``Function``'s cache holds: an all-tensor key's concrete function never changes once
found (keys by identity, the only ones a ``Function`` forgets, never occur in it), and a ``Function`` that evicts
graphs (``max_traces``) has no fast path. Calls with keyword arguments, Python values, Variables, ndarrays or
nested structures take the slow path unchanged.

>>> import runtime as rt
>>> calls = TensorCalls(arity=1)
>>> f = rt.Function(lambda x: x + 1)
>>> x = rt.constant([1.0])
>>> calls.run((x,)) is MISSING   # nothing learnt yet: the slow path runs the call
True
>>> calls.learn((x,), f.get_concrete_function(x))
>>> calls.run((x,))
Tensor([2.], shape=(1,), dtype=float32)
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from runtime.core.tensor import EagerTensor

MISSING = object()   # what ``run`` returns when the call must take the slow path


class TensorCalls:
    """The concrete functions of all-tensor calls of one ``Function``, by their arguments' dtypes and shapes."""

    __slots__ = ("_arity", "_concretes")

    def __init__(self, arity: int):
        self._arity = arity   # the Function's positional parameters (-1 when it has others: never fast)
        self._concretes: Dict[Tuple[Any, ...], Any] = {}

    def run(self, args: Tuple[Any, ...]) -> Any:
        """The call's result when every argument is an eager tensor of a signature already looked up, else
        ``MISSING`` (nothing has run)."""
        if len(args) != self._arity:
            return MISSING
        key: List[Any] = []
        arrays = []
        for value in args:
            if type(value) is not EagerTensor:
                return MISSING
            array = value._value
            arrays.append(array)
            key.append(array.dtype)
            key.append(array.shape)
        concrete = self._concretes.get(tuple(key))
        if concrete is None:
            return MISSING
        return concrete._pack(concrete._run(*arrays))

    def learn(self, values: Sequence[Any], concrete: Any) -> None:
        """Remember ``concrete`` for calls like this one (``values``: its canonical arguments, one per
        parameter), if every one is an eager tensor."""
        if len(values) != self._arity or len(self._concretes) >= _MOST_SIGNATURES:
            return
        key: List[Any] = []
        for value in values:
            if type(value) is not EagerTensor:
                return
            key.append(value._value.dtype)
            key.append(value._value.shape)
        self._concretes[tuple(key)] = concrete


# A Function called with ever new shapes keeps every trace anyway; this only bounds the fast path's own dict
_MOST_SIGNATURES = 1024
