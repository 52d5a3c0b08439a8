"""Static analysis of a function: activity, then reaching definitions and liveness (one pass each; liveness
reads the reaching definitions at loops)."""
from autograph_lite.pyct.static_analysis import activity, liveness, reaching_definitions


def analyze(function_node, always_live=frozenset()) -> activity.FunctionScope:
    """Annotate a FunctionDef (and everything nested in it) with ACTIVITY, LIVE_OUT, DEFINED_IN.

    ``always_live``: names to consider live everywhere (e.g. generated flags shown as state).
    """
    scope = activity.analyze_function(function_node)
    reaching_definitions.analyze(function_node)
    liveness.analyze(function_node, frozenset(always_live))
    return scope
