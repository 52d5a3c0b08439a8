"""Hypothesis strategies for tensors: by ``TensorSpec``, by shape with None dims, by a function's input_signature.

hypothesis is optional (``pip install autograph-lite[testing]``); it is imported when a strategy is made, and
its absence is an ``ImportError`` that says what to install.

>>> import autograph_lite as ag, runtime as rt
>>> from hypothesis import HealthCheck, given, settings
>>> @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
... @given(ag.testing.strategies.tensors(rt.TensorSpec([None, 3], rt.float32)))
... def test_rows(x):
...     assert x.dtype == rt.float32 and x.shape[1] == 3
>>> test_rows()
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

import runtime as rt
from autograph_lite.testing.graphs import assert_graph_matches_eager
from autograph_lite.testing.values import leaves


def _hypothesis():
    try:
        import hypothesis
        import hypothesis.extra.numpy
        import hypothesis.strategies
    except ImportError:
        raise ImportError('autograph_lite.testing.strategies needs hypothesis: pip install '
                          '"autograph-lite[testing]" (or pip install hypothesis)') from None
    return hypothesis


def _dims(shape: Any) -> Optional[Tuple[Optional[int], ...]]:
    """The dims of a shape given as a TensorSpec, TensorShape, list or tuple (None: unknown rank)."""
    if isinstance(shape, rt.TensorSpec):
        shape = shape.shape
    if shape is None:
        return None
    dims = getattr(shape, 'dims', shape)
    if dims is None:
        return None
    return tuple(None if d is None else int(getattr(d, 'value', d)) for d in dims)


def shapes(shape: Any = None, min_side: int = 1, max_side: int = 4, max_rank: int = 3):
    """Concrete shapes matching ``shape``: each None dim becomes a size in ``[min_side, max_side]``; an unknown
    rank (``shape=None``) a rank in ``[0, max_rank]``.

    >>> from hypothesis import HealthCheck, given, settings
    >>> @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    ... @given(shapes([None, 2]))
    ... def test(shape):
    ...     assert len(shape) == 2 and shape[1] == 2 and 1 <= shape[0] <= 4
    >>> test()
    """
    st = _hypothesis().strategies
    dims = _dims(shape)
    if dims is None:
        return st.integers(0, max_rank).flatmap(lambda rank: shapes([None] * rank, min_side, max_side))
    return st.tuples(*[st.just(d) if d is not None else st.integers(min_side, max_side) for d in dims])


def _elements(dtype: np.dtype, min_value: float, max_value: float):
    st = _hypothesis().strategies
    if dtype.kind == 'b':
        return st.booleans()
    if dtype.kind in 'iu':
        info = np.iinfo(dtype)
        return st.integers(max(int(min_value), int(info.min)), min(int(max_value), int(info.max)))
    if dtype.kind == 'f':
        width = dtype.itemsize * 8
        return st.floats(min_value, max_value, allow_nan=False, allow_infinity=False, width=width)
    raise TypeError(f'strategies.tensors: no elements strategy for dtype {dtype}')


def tensors(spec: rt.TensorSpec, min_value: float = -10.0, max_value: float = 10.0, elements: Any = None,
            min_side: int = 1, max_side: int = 4, shape: Any = None):
    """Eager tensors matching ``spec``: its dtype, its known dims, sizes in ``[min_side, max_side]`` for the None
    ones. Numbers are finite, in ``[min_value, max_value]`` (or drawn from ``elements``); ``shape`` fixes the
    shape (a strategy or a tuple), e.g. to share a drawn size between arguments."""
    hypothesis = _hypothesis()
    if not isinstance(spec, rt.TensorSpec):
        raise TypeError(f'strategies.tensors needs an rt.TensorSpec, got {spec!r}')
    dtype = np.dtype(spec.dtype)
    shape_strategy = shape if shape is not None else shapes(spec, min_side, max_side)
    if isinstance(shape_strategy, tuple):
        shape_strategy = hypothesis.strategies.just(shape_strategy)
    arrays = hypothesis.extra.numpy.arrays(dtype, shape_strategy,
                                           elements=elements or _elements(dtype, min_value, max_value))
    return arrays.map(lambda array: rt.constant(array, spec.dtype))


def _signature_of(function: Any) -> Sequence[Any]:
    signature = getattr(function, 'input_signature', None)
    if signature is None:
        raise TypeError(f'{getattr(function, "__name__", function)!r} has no input_signature: declare one, e.g. '
                        '@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)]), or pass the specs')
    return signature


def arguments(function_or_specs: Any, shared_dims: bool = True, **tensor_options: Any):
    """Tuples of arguments for a function's ``input_signature`` (or a list of specs; nested lists, tuples and
    dicts of specs give the same structures of tensors).

    With ``shared_dims=True`` (the default) the None dims of every spec at the same axis get one drawn size,
    so arguments like ``x: [None, 3]`` and ``w: [None]`` agree on their batch size; ``False`` draws each
    alone. ``tensor_options`` go to ``tensors``."""
    hypothesis = _hypothesis()
    st = hypothesis.strategies
    specs = list(function_or_specs) if isinstance(function_or_specs, (list, tuple)) else \
        list(_signature_of(function_or_specs))
    flat = leaves(specs)
    ranks = [len(_dims(s)) for s in flat if _dims(s) is not None]
    min_side, max_side = tensor_options.pop('min_side', 1), tensor_options.pop('max_side', 4)

    def with_sizes(sizes: Tuple[int, ...]):
        def build(spec: Any):
            if isinstance(spec, rt.TensorSpec):
                dims = _dims(spec)
                if shared_dims and dims is not None:
                    shape = tuple(sizes[axis] if d is None else d for axis, d in enumerate(dims))
                    return tensors(spec, shape=shape, **tensor_options)
                return tensors(spec, min_side=min_side, max_side=max_side, **tensor_options)
            if isinstance(spec, (list, tuple)):
                return st.tuples(*[build(s) for s in spec]).map(type(spec) if type(spec) in (list, tuple) else tuple)
            if isinstance(spec, dict):
                return st.fixed_dictionaries({key: build(value) for key, value in spec.items()})
            raise TypeError(f'strategies.arguments: expected rt.TensorSpec (or lists/tuples/dicts of them), '
                            f'got {spec!r}')
        return st.tuples(*[build(spec) for spec in specs])

    sizes = st.tuples(*[st.integers(min_side, max_side) for _ in range(max(ranks, default=0))])
    return sizes.flatmap(with_sizes)


def given_signature(function: Any, max_examples: int = 25, rtol: float = 1e-6, atol: float = 1e-6,
                    **tensor_options: Any) -> Callable[[Callable], Callable]:
    """Make a test a property test over ``function``'s ``input_signature``: for each drawn set of arguments,
    ``assert_graph_matches_eager(function, *args)`` must hold, and then the test's own body runs with them
    (it takes the arguments, or none). ``max_examples`` is hypothesis's budget.

    >>> import autograph_lite as ag, runtime as rt
    >>> @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ... def clip_to_unit(x):
    ...     if rt.reduce_max(rt.abs(x)) > 1.0:
    ...         x = x / rt.reduce_max(rt.abs(x))
    ...     return x
    >>> @ag.testing.given_signature(clip_to_unit, max_examples=10)
    ... def test_clip_to_unit(x):
    ...     assert float(rt.reduce_max(rt.abs(clip_to_unit(x)))) <= 1.0
    >>> test_clip_to_unit()
    """
    hypothesis = _hypothesis()
    strategy = arguments(function, **tensor_options)

    def decorate(test: Callable) -> Callable:
        takes_arguments = bool(inspect.signature(test).parameters)

        def property_test(drawn: Tuple[Any, ...]) -> None:
            __tracebackhide__ = True
            assert_graph_matches_eager(function, *drawn, rtol=rtol, atol=atol)
            if takes_arguments:
                test(*drawn)
            else:
                test()

        # Tracing and graph runs make examples slow by hypothesis's measure (more so on a loaded machine).
        runner = hypothesis.settings(max_examples=max_examples, deadline=None,
                                     suppress_health_check=[hypothesis.HealthCheck.too_slow])(
            hypothesis.given(strategy)(property_test))

        def wrapper() -> None:
            __tracebackhide__ = True
            runner()
        # The test's name, not its signature: pytest must not look for fixtures named like its arguments.
        for attribute in ('__module__', '__name__', '__qualname__', '__doc__'):
            setattr(wrapper, attribute, getattr(test, attribute))
        return wrapper
    return decorate
