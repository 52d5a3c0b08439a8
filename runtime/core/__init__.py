"""The core: dtypes, tensors, the op registry's mechanism, graphs, the tracing context, nest, errors and
source locations. It imports nothing else of ours; every other layer builds on it."""
