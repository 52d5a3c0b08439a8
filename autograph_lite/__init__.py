"""autograph_lite: convert Python control flow into graph-building code, AutoGraph-style.

>>> import autograph_lite as ag
>>> print(ag.to_code(some_function))
"""
from autograph_lite.api import (convert, do_not_convert, function, functions_run_eagerly,
                                run_functions_eagerly, to_code, to_graph)
from autograph_lite.errors import ConversionError

__all__ = ['function', 'to_code', 'to_graph', 'convert', 'do_not_convert', 'run_functions_eagerly',
           'functions_run_eagerly', 'ConversionError']
