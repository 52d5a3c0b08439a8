"""Functions written by hand in the exact shape the converter generates (docs/GENERATED_CODE.md).

They let the operator tests run the same converted code on Python values, eager tensors and
symbolic tensors without depending on the converter.  Each ``*_generated`` function has a plain
Python twin it must agree with.
"""
import autograph_lite.operators as ag__


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps


def collatz_steps_generated(n):
    steps = 0

    def get_state():
        return (n, steps)

    def set_state(vars_):
        nonlocal n, steps
        (n, steps) = vars_

    def loop_test():
        return n != 1

    def loop_body():
        nonlocal n, steps

        def get_state_1():
            return (n,)

        def set_state_1(vars_):
            nonlocal n
            (n,) = vars_

        def if_body():
            nonlocal n
            n = n // 2

        def else_body():
            nonlocal n
            n = 3 * n + 1

        ag__.if_stmt(n % 2 == 0, if_body, else_body, get_state_1, set_state_1, ('n',), 1)
        steps = steps + 1

    ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('n', 'steps'))
    return steps


def first_index_above(values, limit):
    """for with break and early return: index of the first prefix sum above ``limit``, else -1."""
    total = 0
    for i in range(len(values)):
        total = total + values[i]
        if total > limit:
            return i
    return -1


def first_index_above_generated(values, limit):
    do_return = False
    retval_ = ag__.UndefinedReturnValue()
    total = 0
    i = ag__.Undefined('i')

    def get_state():
        return (do_return, retval_, total)

    def set_state(vars_):
        nonlocal do_return, retval_, total
        (do_return, retval_, total) = vars_

    def loop_body(itr):
        nonlocal do_return, retval_, total
        i = itr
        total = total + values[i]

        def get_state_1():
            return (do_return, retval_)

        def set_state_1(vars_):
            nonlocal do_return, retval_
            (do_return, retval_) = vars_

        def if_body():
            nonlocal do_return, retval_
            do_return = True
            retval_ = i

        def else_body():
            pass

        ag__.if_stmt(total > limit, if_body, else_body, get_state_1, set_state_1, ('do_return', 'retval_'), 2,
                     roles={'do_return': 'return_flag', 'retval_': 'return_value'})

    ag__.for_stmt(ag__.BUILTIN_OVERRIDES[range](ag__.BUILTIN_OVERRIDES[len](values)),
                  lambda: ag__.not_(do_return), loop_body, get_state, set_state,
                  ('do_return', 'retval_', 'total'), roles={'do_return': 'return_flag', 'retval_': 'return_value'})

    def get_state_2():
        return (do_return, retval_)

    def set_state_2(vars_):
        nonlocal do_return, retval_
        (do_return, retval_) = vars_

    def if_body_2():
        nonlocal do_return, retval_
        do_return = True
        retval_ = -1

    def else_body_2():
        pass

    ag__.if_stmt(ag__.not_(do_return), if_body_2, else_body_2, get_state_2, set_state_2,
                 ('do_return', 'retval_'), 2, roles={'do_return': 'return_guard', 'retval_': 'return_value'})
    return ag__.return_value(retval_)


def trace_and_run(fn, *args, unknown_dims=False):
    """Trace ``fn`` on placeholders for its tensor arguments (Python args stay Python), then run the
    graph on the arguments' values with both the reference interpreter and the compiled executor.

    ``unknown_dims=True`` traces tensor arguments with every dim unknown (like TensorSpec([None]*rank)).
    Returns (interpreter results, executor results, graph) as numpy values. Kept independent of
    rt.Function so the operators can be tested on their own.
    """
    import numpy as np

    import runtime as rt
    from runtime.core import context, nest

    from runtime.backends import executor, interpreter
    graph = rt.FuncGraph("test_fn")
    with context.graph_scope(graph):
        traced_args = [graph.add_placeholder(a.dtype, (None,) * len(a.shape) if unknown_dims else a.shape,
                                             name=f"arg{i}") if isinstance(a, rt.Tensor) else a
                       for i, a in enumerate(args)]
        result = fn(*traced_args)
        flat = [rt.convert_to_tensor(v) for v in nest.flatten(result)]
        graph.outputs = [graph._as_graph_tensor(t, "output", "value") if not isinstance(t, rt.SymbolicTensor)
                         else t for t in flat]
    arrays = [np.asarray(a) for a in args if isinstance(a, rt.Tensor)]
    interpreted = interpreter.run_graph(graph, arrays)
    compiled = executor.make_callable(graph)(*arrays)
    return ([np.asarray(v) for v in interpreted], [np.asarray(v) for v in compiled], graph)
