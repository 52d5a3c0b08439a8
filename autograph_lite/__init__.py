"""autograph_lite: convert Python control flow into graph-building code, AutoGraph-style.

>>> import autograph_lite as ag
>>> import runtime as rt
>>> @ag.function
... def relu(x):
...     if x > 0:          # a tensor condition: staged as an If op
...         return x
...     return 0
>>> relu(rt.constant(-3.0))
Tensor(0.0, shape=(), dtype=float32)

``ag.to_code(f)`` shows the generated source; see ``autograph_lite.api``.
"""
from autograph_lite.api import (UnconvertedWarning, convert, do_not_convert, function, functions_run_eagerly,
                                run_functions_eagerly, set_strict_conversion, set_traceback_filtering,
                                strict_conversion, to_code, to_graph, traceback_filtering)
from autograph_lite.operators.loop_options import set_loop_options
from autograph_lite.pyct.errors import ConversionError
from runtime.core.errors import RetraceWarning

__all__ = ['function', 'to_code', 'to_graph', 'convert', 'do_not_convert', 'run_functions_eagerly',
           'functions_run_eagerly', 'set_traceback_filtering', 'traceback_filtering', 'ConversionError',
           'set_strict_conversion', 'strict_conversion', 'UnconvertedWarning', 'RetraceWarning', 'set_loop_options',
           'testing']


def __getattr__(name: str):
    # ``ag.testing`` (the toolkit for users' tests) sits on top of everything and nothing imports it: it is
    # imported when first used, so importing autograph_lite does not pay for it.
    if name == 'testing':
        import importlib
        return importlib.import_module('autograph_lite.testing')
    raise AttributeError(f"module 'autograph_lite' has no attribute {name!r}")
