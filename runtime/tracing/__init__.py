"""Tracing: ``cond``/``while_loop`` (If/While ops with subgraphs), input signatures, ``Function`` (the
signature-keyed cache of traced graphs) and ``ConcreteFunction`` (one optimized, compiled graph)."""
