"""``rt.config``: settings of how compiled graphs run.

>>> import runtime as rt
>>> rt.config.set_threads(2); rt.config.get_threads()
2
>>> rt.config.set_threads(None)  # the default again: the machine's cores
"""
from runtime.backends.threads import get_threads, set_threads

__all__ = ["get_threads", "set_threads"]
