def clip_norm(x, max_norm):
    """Scale ``x`` down so that its L2 norm is at most ``max_norm``."""
    norm = ag__.converted_call(rt.sqrt, (ag__.converted_call(rt.reduce_sum, (x * x,), None),), None)

    def get_state():
        return (x,)

    def set_state(vars_):
        nonlocal x
        (x,) = vars_

    def if_body():
        nonlocal x
        x = x * (max_norm / norm)

    def else_body():
        pass

    ag__.if_stmt(norm > max_norm, if_body, else_body, get_state, set_state, ('x',), 1)
    return x
