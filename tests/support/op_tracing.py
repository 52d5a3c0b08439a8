"""Helpers for op tests: trace a function into a FuncGraph, and run it traced vs eagerly."""
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

import runtime as rt
from runtime.backends import executor, interpreter
from runtime.core import nest
from runtime.core.context import graph_scope
from runtime.core.graph import PLACEHOLDER, FuncGraph

Spec = Tuple[Any, Any]  # (dtype, shape)


def trace_graph(fn: Callable, *specs: Any, name: Optional[str] = None, placeholder_prefix: str = "arg",
                identity_outputs: bool = False) -> FuncGraph:
    """Trace ``fn`` by hand on placeholders named ``{placeholder_prefix}0``, ... into a FuncGraph named
    ``name`` (default: ``fn``'s name). A spec is a TensorSpec or a (dtype, shape) pair. The outputs are
    ``fn``'s result flattened; ``identity_outputs`` wraps the outputs that are not ops of this graph
    (placeholders passed through, captured tensors) in an Identity, as exporters want.

    >>> graph = trace_graph(lambda x: x * 2, (rt.int32, ()), name="double")
    >>> graph.name, [t.op.name for t in graph.inputs], len(graph.outputs)
    ('double', ['arg0'], 1)
    """
    graph = FuncGraph(name or fn.__name__)
    with graph_scope(graph):
        placeholders = [graph.add_placeholder(*_dtype_and_shape(spec), name=f"{placeholder_prefix}{i}")
                        for i, spec in enumerate(specs)]
        result = fn(*placeholders)
        outputs = nest.flatten(result)
        if identity_outputs:
            outputs = [rt.identity(t) if t.op.graph is not graph or t.op.op_def is PLACEHOLDER else t
                       for t in outputs]
        graph.outputs = outputs
        graph.structured_outputs = result
    return graph


def _dtype_and_shape(spec: Any) -> Spec:
    return (spec.dtype, spec.shape) if isinstance(spec, rt.TensorSpec) else spec


def trace(fn: Callable, *specs: Spec) -> Tuple[FuncGraph, Any]:
    """Trace ``fn`` on placeholders of the given (dtype, shape) specs; returns (graph, fn's result)."""
    graph = trace_graph(fn, *specs, name="traced")
    return graph, graph.structured_outputs


def run_traced(fn: Callable, *arrays: np.ndarray, shapes: Sequence[Any] = None) -> List[np.ndarray]:
    """Trace ``fn`` (unknown dims where ``shapes`` says so), run it with the reference interpreter and the
    compiled executor, check they agree, and return the interpreter's outputs."""
    arrays = [np.asarray(a) for a in arrays]
    shapes = shapes or [a.shape for a in arrays]
    graph, _ = trace(fn, *[(a.dtype, s) for a, s in zip(arrays, shapes)])
    interpreted = interpreter.run_graph(graph, arrays)
    compiled = executor.make_callable(graph)(*arrays)
    for a, b in zip(interpreted, compiled):
        assert_same(np.asarray(a), np.asarray(b))
    return interpreted


def eager(fn: Callable, *arrays: np.ndarray) -> List[np.ndarray]:
    result = fn(*[rt.constant(np.asarray(a)) for a in arrays])
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(r._value) for r in results]


def assert_same(a: np.ndarray, b: np.ndarray) -> None:
    """Same dtype, shape and values (nan equal to nan)."""
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def assert_graph_matches_eager(fn: Callable, *arrays: Any, unknown_dims: bool = False) -> List[np.ndarray]:
    """Run ``fn`` eagerly and traced (with static shapes, and with every dim unknown if asked)."""
    arrays = [np.asarray(a) for a in arrays]
    expected = eager(fn, *arrays)
    for got_list in [run_traced(fn, *arrays)] + (
            [run_traced(fn, *arrays, shapes=[(None,) * a.ndim for a in arrays])] if unknown_dims else []):
        assert len(got_list) == len(expected)
        for got, want in zip(got_list, expected):
            assert_same(np.asarray(got), want)
    return expected
