"""Comprehensions and generator expressions as functions: what converted code calls for them.

The converter (converters/comprehensions.py) turns ``[f(v) for v in xs if p(v)]`` into
``ag__.list_comp(lambda v: f(v), xs, lambda v: p(v))``.  Over a Python iterable (or an eager tensor)
each operator is the comprehension itself, evaluated by Python.  Over a symbolic tensor, or ``range``
/ ``enumerate`` / ``zip`` of one, the comprehension is a staged loop whose result is the stacked
tensor of the elements (first dimension ``None`` when there is a filter):

* ``list_comp``: the stacked tensor;
* ``generator_exp``: a ``StagedGenerator`` that ``sum``/``any``/``all``/``max``/``min`` (py_builtins)
  and every op (through ``__rt_tensor__``) read as that same stacked tensor;
* ``set_comp`` / ``dict_comp``: Python only (a set or dict keyed by values that exist only while the
  graph runs cannot be built); over a staged iterable they raise a clear error.

A comprehension with several ``for`` clauses nests: the outer one gets ``flatten=True`` and its
element is the inner ``generator_exp``.  A tuple target (``for a, b in pairs``) arrives as
``target=('a', 'b')``: the element function takes the unpacked parts as its parameters.

>>> list_comp(lambda v: v * 2, [1, 2, 3], lambda v: v != 2)
[2, 6]
>>> list_comp(lambda a, b: a + b, [(1, 2), (3, 4)], target=('a', 'b'))
[3, 7]
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator, Optional, Tuple

import runtime as rt
from autograph_lite.operators.iteration import StagedIterable, as_staged_iterable
from autograph_lite.operators.logical import truth_value
from autograph_lite.operators.staged_exceptions import traced
from autograph_lite.operators.unpacking import unpack
from runtime.core import context
from runtime.core.graph import FuncGraph
from runtime.core.tensor import SymbolicTensor
from runtime.ops.shape_ops import constant_value

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import dict, isinstance, iter, len, list, set, tuple, type, zip

Target = Optional[tuple]   # None: one name; else the nested tuple of names of a tuple target


def list_comp(element: Callable[..., Any], iterable: Any, condition: Optional[Callable[..., Any]] = None, *,
              target: Target = None, flatten: bool = False) -> Any:
    """``[element(v) for v in iterable if condition(v)]``; a stacked tensor over a staged iterable.

    >>> list_comp(lambda x: list_comp(lambda y: (x, y), 'ab'), [1, 2])
    [[(1, 'a'), (1, 'b')], [(2, 'a'), (2, 'b')]]
    """
    staged = as_staged_iterable(iterable)
    if staged is not None:
        return StagedGenerator(element, staged, condition, target, flatten).tensor()
    items = _python_items(element, iterable, condition, target, flatten)
    if flatten:
        return _flattened(list(items))
    return list(items)


def generator_exp(element: Callable[..., Any], iterable: Any, condition: Optional[Callable[..., Any]] = None, *,
                  target: Target = None, flatten: bool = False) -> Any:
    """``(element(v) for v in iterable if condition(v))``: a lazy generator, as Python's (``iterable``
    is evaluated and ``iter()`` taken at once, elements on demand); a ``StagedGenerator`` over a staged
    iterable.

    >>> items = generator_exp(lambda v: v + 1, [1, 2])
    >>> next(items), list(items)
    (2, [3])
    """
    staged = as_staged_iterable(iterable)
    if staged is not None:
        return StagedGenerator(element, staged, condition, target, flatten)
    items = _python_items(element, iterable, condition, target, flatten)
    if flatten:
        return itertools.chain.from_iterable(items)
    return items


def set_comp(element: Callable[..., Any], iterable: Any, condition: Optional[Callable[..., Any]] = None, *,
             target: Target = None, flatten: bool = False) -> set:
    """``{element(v) for v in iterable if condition(v)}`` (Python only).

    >>> sorted(set_comp(lambda v: v % 3, range(10)))
    [0, 1, 2]
    """
    _refuse_staged(iterable, "set comprehension",
                   "a set holds distinct values, and a tensor's values are known only when the graph runs. "
                   "Use a list comprehension (a stacked tensor)")
    items = _python_items(element, iterable, condition, target, flatten)
    return set(itertools.chain.from_iterable(items) if flatten else items)


def dict_comp(element: Callable[..., Tuple[Any, Any]], iterable: Any,
              condition: Optional[Callable[..., Any]] = None, *, target: Target = None,
              flatten: bool = False) -> dict:
    """``{key: value for v in iterable if condition(v)}``: ``element`` returns ``(key, value)`` (Python only;
    values may be tensors, keys must be Python values).

    >>> dict_comp(lambda k: (k, k * k), [1, 2])
    {1: 1, 2: 4}
    """
    _refuse_staged(iterable, "dict comprehension",
                   "its keys would be tensors whose values are known only when the graph runs. Iterate over "
                   "Python keys (e.g. range(3) or a list of names), or use a list comprehension (a stacked tensor)")
    items = _python_items(element, iterable, condition, target, flatten)
    return dict(itertools.chain.from_iterable(items) if flatten else items)


# --- Python iterables ----------------------------------------------------------------------------------

def _python_items(element, iterable, condition, target, flatten) -> Iterator[Any]:
    """The comprehension's elements, lazily; ``iter(iterable)`` is taken now, as Python does."""
    iterator = iter(iterable)
    if target is None:
        if condition is None:
            return (element(item) for item in iterator)
        return (element(item) for item in iterator if condition(item))
    if condition is None:
        return (element(*_parts(item, target)) for item in iterator)
    return (element(*parts) for parts in (_parts(item, target) for item in iterator) if condition(*parts))


def _parts(item: Any, target: tuple) -> list:
    """``item`` unpacked as the tuple target ``target`` (nested tuples of names), flat, with Python's errors.

    >>> _parts((1, (2, 3)), ('a', ('b', 'c')))
    [1, 2, 3]
    """
    values = tuple(unpack(item))
    if len(values) != len(target):
        if len(values) > len(target):
            raise ValueError(f"too many values to unpack (expected {len(target)})")
        raise ValueError(f"not enough values to unpack (expected {len(target)}, got {len(values)})")
    flat = []
    for value, name in zip(values, target):
        flat.extend(_parts(value, name) if isinstance(name, tuple) else [value])
    return flat


def _flattened(pieces: list) -> Any:
    """The items of every piece (each an inner comprehension); one tensor if an inner one was staged."""
    if any(isinstance(piece, StagedGenerator) for piece in pieces):
        return rt.concat([_as_rows(piece) for piece in pieces], 0)
    return [item for piece in pieces for item in piece]


def _as_rows(piece: Any) -> Any:
    if isinstance(piece, StagedGenerator):
        return piece.tensor()
    return rt.convert_to_tensor(list(piece))


def _refuse_staged(iterable: Any, what: str, why: str) -> None:
    if as_staged_iterable(iterable) is not None:
        raise rt.errors.OperatorNotAllowedInGraphError(
            f"a {what} over a symbolic tensor cannot be staged: {why}.")


# --- staged iterables ----------------------------------------------------------------------------------

class StagedGenerator:
    """A comprehension over a staged iterable; ``tensor()`` builds the loop that stacks its elements.

    Each element must be one tensor (or a Python number), all of the same dtype and rank. Without a
    filter the result's first dimension is the iterable's length; with one it is ``None``.
    """

    def __init__(self, element, staged: StagedIterable, condition, target: Target, flatten: bool):
        self.element, self.staged, self.condition = element, staged, condition
        self.target, self.flatten = target, flatten
        self._tensor = None

    def _arguments(self, item: Any) -> list:
        return [item] if self.target is None else _parts(item, self.target)

    def _rows(self, item_arguments: list) -> Any:
        """The element(s) one iteration adds, as a tensor of rows ([1, ...], or [k, ...] when flattening)."""
        value = traced(self.element, "element of a comprehension over a symbolic tensor", *item_arguments)
        if self.flatten:
            return _as_rows(value)
        if isinstance(value, (tuple, list, dict)):
            raise TypeError(
                f"each element of a comprehension over a tensor must be one tensor, got {type(value).__name__} "
                f"{value!r}; the result is a stacked tensor, so build one comprehension per component")
        return rt.expand_dims(rt.convert_to_tensor(value), 0)

    def tensor(self) -> Any:
        """The stacked elements (built once; a symbolic tensor of the current graph)."""
        if self._tensor is None:
            self._tensor = self._build()
        return self._tensor

    def __rt_tensor__(self) -> Any:
        return self.tensor()

    def __iter__(self):
        raise rt.errors.OperatorNotAllowedInGraphError(
            "a generator expression over a symbolic tensor cannot be iterated in Python while tracing; "
            "pass it to sum/any/all/max/min or to an rt op (it is the stacked tensor of its elements), or "
            "make it a list comprehension")

    def _build(self) -> Any:
        length = self.staged.length()
        dtype, row_shape = self._probe()
        known = row_shape is not None and all(dim is not None for dim in row_shape)
        static_length = constant_value(length) if self.condition is None and not self.flatten else None
        if static_length is not None and known:
            return self._build_in_place(int(static_length), dtype, row_shape)
        start = rt.zeros((0,) + tuple(0 if dim is None else dim for dim in (row_shape or ())), dtype)

        def cond(index, taken, rows):
            return index < length

        def body(index, taken, rows):
            arguments = self._arguments(self.staged.element(index))

            def append():
                new = self._rows(arguments)
                if known:
                    return taken + rt.shape(new)[0], rt.concat([rows, new], 0)
                # The first rows replace the empty start, whose unknown dims were only a guess.
                return taken + rt.shape(new)[0], rt.cond(taken > 0, lambda: rt.concat([rows, new], 0),
                                                         lambda: new)

            keep = True if self.condition is None else traced(
                self.condition, "condition of a comprehension over a symbolic tensor", *arguments)
            if isinstance(keep, SymbolicTensor):
                taken, rows = rt.cond(truth_value(keep), append, lambda: (taken, rows))
            elif keep:
                taken, rows = append()
            return index + 1, taken, rows

        names = ("<comprehension index>", "<comprehension count>", "<comprehension elements>")
        # Declared: the number of rows grows (and unknown dims stay unknown), so the loop is traced once.
        invariants = [None, None, None if row_shape is None else (None,) + row_shape]
        _, _, rows = rt.while_loop(cond, body, (rt.constant(0), rt.constant(0), start), loop_var_names=names,
                                   shape_invariants=invariants)
        return rows

    def _build_in_place(self, count: int, dtype: Any, row_shape: Tuple[int, ...]) -> Any:
        """The stacked elements when their number and shape are known while tracing (no filter, an iterable of
        static length): each iteration writes its row into a tensor of the final shape, a loop variable of one
        shape (so ``jit_compile=True`` compiles it: XLA fixes every loop variable's shape, docs/XLA.md)."""
        def body(index, rows):
            new = self._rows(self._arguments(self.staged.element(index)))
            return index + 1, rt.tensor_scatter_nd_update(rows, rt.reshape(index, [1, 1]), new)

        _, rows = rt.while_loop(lambda index, rows: index < count, body,
                                (rt.constant(0), rt.zeros((count,) + row_shape, dtype)),
                                loop_var_names=("<comprehension index>", "<comprehension elements>"))
        return rows

    def _probe(self) -> Tuple[Any, Any]:
        """The dtype and shape of one iteration's rows, from tracing the element once in a scratch graph."""
        scratch = FuncGraph("comprehension_probe", outer_graph=context.current_graph())
        with context.graph_scope(scratch):
            index = scratch.add_placeholder(rt.int32, (), name="index")
            rows = self._rows(self._arguments(self.staged.element(index)))
        return rows.dtype, None if rows.shape is None else tuple(rows.shape[1:])

    def __repr__(self) -> str:
        return f"StagedGenerator(over {self.staged!r})"
