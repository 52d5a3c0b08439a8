"""``jit_compile=True``: a traced, optimized graph lowered to one JAX function and compiled by XLA.

JAX is an optional extra (``pip install 'autograph-lite[jax]'``), imported only when a function asks for
``jit_compile``. ``runtime.backends.xla.ops`` and its neighbours hold each op's lowering (or the reason it
has none); ``lowering`` walks a graph with them; ``compiled`` makes the jitted callable that reads and writes
back Variables, advances random keys and raises the numpy executor's errors.

>>> import runtime as rt
>>> f = rt.function(lambda x: rt.reduce_sum(x * x), jit_compile=True)   # doctest: +SKIP
>>> f(rt.constant([1.0, 2.0]))                                          # doctest: +SKIP
Tensor(5.0, shape=(), dtype=float32)
"""
from __future__ import annotations

from typing import Any

INSTALL_HINT = "pip install 'autograph-lite[jax]'"


def import_jax() -> Any:
    """The ``jax`` module, or an ImportError that says what to install."""
    try:
        import jax
    except ImportError as error:
        raise ImportError(f"jit_compile=True lowers graphs to XLA through JAX, which is not installed: "
                          f"{INSTALL_HINT} (or keep jit_compile=None: the numpy executor)") from error
    return jax


def checked_jit_compile(owner: str, jit_compile: Any) -> Any:
    """``jit_compile`` normalized (None for the numpy executor), once it is valid and JAX is there if it asks
    for XLA: the clear ImportError comes when the function is made, not at its first call."""
    if jit_compile is None or jit_compile is False:
        return None
    if jit_compile is not True and jit_compile != "auto" and not isinstance(jit_compile, DataParallel):
        raise ValueError(f"{owner}: jit_compile must be None (the numpy executor), True (XLA through JAX) or "
                         f"'auto' (XLA, falling back to numpy for graphs XLA cannot compile), got {jit_compile!r}")
    import_jax()
    return jit_compile


class DataParallel:
    """A placement for ``jit_compile``: the batch axis of the tensor arguments is split over ``devices`` (all of
    JAX's devices by default) and everything else (Variables, arguments whose first dim does not divide evenly)
    is replicated, so XLA inserts the all-reduce a gradient over the batch needs. Built by
    ``rt.distribute.data_parallel``; results equal one device's, up to the order of float sums."""

    def __init__(self, devices: Any = None):
        self.devices = None if devices is None else list(devices)
        if self.devices is not None and not self.devices:
            raise ValueError("data_parallel: devices is empty; give JAX devices (jax.devices()) or None for all")

    def shardings(self, jax: Any) -> Any:
        """(sharding of a batch-split array, replicated sharding, device count) on this placement's mesh."""
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        devices = self.devices if self.devices is not None else jax.devices()
        mesh = Mesh(np.array(devices), ("batch",))
        return NamedSharding(mesh, PartitionSpec("batch")), NamedSharding(mesh, PartitionSpec()), len(devices)

    def __repr__(self) -> str:
        return f"DataParallel(devices={self.devices!r})"
