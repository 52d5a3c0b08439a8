"""A user's module: small signal-processing functions with Python control flow on tensors.

Its tests (test_signals.py, test_properties.py) use ag.testing; docs/TESTING.md walks through them.
"""
import autograph_lite as ag
import runtime as rt


def clip_norm(x, max_norm):
    """Scale ``x`` down so that its L2 norm is at most ``max_norm``."""
    norm = rt.sqrt(rt.reduce_sum(x * x))
    if norm > max_norm:
        x = x * (max_norm / norm)
    return x


def mean_of_present(values):
    """The mean of the values that are not None (plain Python: converted code must behave the same)."""
    total = 0.0
    count = 0
    for value in values:
        if value is None:
            continue
        total += value
        count += 1
    if count == 0:
        raise ValueError('no values present')
    return total / count


def smooth_l1(x):
    """Huber's loss with delta 1: quadratic near zero, linear beyond (kinks of the second derivative only)."""
    small = rt.abs(x) < 1.0
    return rt.reduce_sum(rt.where(small, 0.5 * x * x, rt.abs(x) - 0.5))


@ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def normalize(x):
    """``x`` shifted to mean zero and, unless it is constant, scaled to unit maximum magnitude."""
    x = x - rt.reduce_mean(x)
    peak = rt.reduce_max(rt.abs(x))
    if peak > 0.0:
        x = x / peak
    return x
