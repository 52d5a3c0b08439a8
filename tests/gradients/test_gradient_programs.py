"""Gradients of random differentiable programs (tests/support/gradient_programs.py), checked five ways in float64:
a tape inside the ``ag.function`` (first call, run by the reference interpreter, == second call, compiled),
a tape outside it (the concrete function's VJP), the same two taped eagerly on the converted function
and (without ``x[i] = v``, which plain Python refuses on tensors) under ``run_functions_eagerly``: all
equal to ~1e-12, and equal to central finite differences wherever the program is smooth near the input.
"""
import itertools
import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from example_budgets import examples
from gradient_programs import gradient_programs

_DIR = tempfile.mkdtemp(prefix='ag_gradient_programs_')
_counter = itertools.count()


def load(source: str):
    """The module's namespace, defined from source in a real file (so ``f``'s source can be read back)."""
    path = os.path.join(_DIR, f'generated_{next(_counter)}.py')
    with open(path, 'w') as file:
        file.write(source)
    namespace = {'__name__': 'generated'}
    exec(compile(source, path, 'exec'), namespace)
    return namespace


def tape_inside(f, variable):
    @ag.function
    def loss_and_gradients(x, y, m, n):
        with rt.GradientTape() as tape:
            tape.watch([x, y, m])
            loss = f(x, y, m, n)
        return loss, tape.gradient(loss, [x, y, m, variable])
    return loss_and_gradients


def taped(function, variable, x, y, m, n):
    """Loss and gradients of ``function`` called under a tape outside it."""
    with rt.GradientTape() as tape:
        tape.watch([x, y, m])
        loss = function(x, y, m, n)
    return loss, tape.gradient(loss, [x, y, m, variable])


def persistent(f, variable):
    """Two targets on one persistent tape, an integer source and a watched source the loss never reads."""
    def gradients(x, y, m, n):
        unread = x[:2] * 2.0
        with rt.GradientTape(persistent=True) as tape:
            tape.watch([x, y, m, n, unread])
            loss = f(x, y, m, n)
            squared = loss * loss
        first = tape.gradient(loss, [x, y, m, variable])
        second = tape.gradient(squared, [x, y, m, variable])
        others = tape.gradient(loss, [n, unread]) + [tape.gradient(loss, unread, unconnected_gradients='zero')]
        return loss, first, second, others
    return gradients


def check_persistent(gradients, inputs, expected):
    loss, first, second, (integer, unread, zeros) = gradients(*inputs)
    assert_all_close(as_arrays((loss, first)), expected, 'persistent tape, first target')
    twice = [None if g is None else 2 * np.asarray(loss) * np.asarray(g) for g in first]
    assert_all_close(as_arrays((loss, second)), [expected[0]] + twice, 'persistent tape, second target')
    assert integer is None and unread is None
    assert zeros.dtype == rt.float64 and zeros.numpy().tolist() == [0.0, 0.0]


def as_arrays(result):
    loss, grads = result
    return [np.asarray(loss)] + [None if g is None else np.asarray(g) for g in grads]


def assert_all_close(got, want, what, rtol=1e-11, atol=1e-12):
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            # Op by op, a source whose value the result never used gets None; in a graph, one the result is
            # connected to through a loop or if whose gradient is zero gets zeros (TensorFlow does the same).
            assert g is None and w is None or not np.any(w if g is None else g), f'{what}: output {index}: {g} vs {w}'
            continue
        assert g.shape == w.shape and g.dtype == w.dtype, f'{what}: output {index}: {g!r} vs {w!r}'
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f'{what}: output {index}')


def finite_differences(call, arrays, variable, step):
    """Central differences of the scalar ``call()`` with respect to each array and the Variable's value, and
    where the function has a kink: there the forward and backward differences disagree (a central difference
    straddling a kink is the average of the two slopes at every step, so comparing two steps cannot see it)."""
    grads, kinks = [], []
    at = float(call(arrays))
    for array in arrays + [None]:
        target = variable.numpy().copy() if array is None else array
        grad = np.zeros_like(target)
        kink = np.zeros(target.shape, bool)
        for position in np.ndindex(target.shape):
            values = []
            for sign in (1, -1):
                moved = target.copy()
                moved[position] += sign * step
                if array is None:
                    variable.assign(moved)
                    values.append(float(call(arrays)))
                    variable.assign(target)
                else:
                    values.append(float(call([moved if a is array else a for a in arrays])))
            grad[position] = (values[0] - values[1]) / (2 * step)
            forward, backward = (values[0] - at) / step, (at - values[1]) / step
            kink[position] = abs(forward - backward) > 1e-3 * (1 + abs(grad[position]))
        grads.append(grad)
        kinks.append(kink)
    return grads, kinks


def hessian_times(f, direction):
    """The Hessian (with respect to x) times ``direction``: a tape over a tape."""
    def product(x, y, m, n):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                loss = f(x, y, m, n)
            slope = rt.reduce_sum(inner.gradient(loss, x, unconnected_gradients='zero') * direction)
        return outer.gradient(slope, x, unconnected_gradients='zero')
    return product


def check_second_order(f, inside, arrays, inputs):
    direction = np.array([0.6, -0.8, 0.3])
    graph = np.asarray(ag.function(hessian_times(f, direction))(*inputs))
    eager = np.asarray(hessian_times(ag.to_graph(f), direction)(*inputs))
    assert_all_close([graph], [eager], 'Hessian times a vector, graph vs eager')

    def slopes(step):
        moved = [rt.constant(arrays[0] + sign * step * direction) for sign in (1, -1)]
        up, down = [np.asarray(inside(x, *inputs[1:])[1][0]) for x in moved]
        return (up - down) / (2 * step)
    coarse, fine = slopes(1e-5), slopes(1e-6)
    smooth = np.abs(coarse - fine) < 1e-4 * (1 + np.abs(coarse))
    np.testing.assert_allclose(graph[smooth], fine[smooth], rtol=1e-4, atol=1e-5,
                               err_msg='Hessian times a vector vs finite differences of the gradient')


def check_program(source, arrays, trips):
    namespace = load(source)
    f, variable = namespace['f'], namespace['V']
    inputs = [rt.constant(a) for a in arrays] + [rt.constant(trips, rt.int32)]
    inside = tape_inside(f, variable)
    first = as_arrays(inside(*inputs))
    second = as_arrays(inside(*inputs))
    assert_all_close(second, first, 'second call vs first call', rtol=0, atol=0)
    outside = ag.function(f)
    assert_all_close(as_arrays(taped(outside, variable, *inputs)), first, 'tape outside the function')
    converted = ag.to_graph(f)
    assert_all_close(as_arrays(taped(converted, variable, *inputs)), first, 'converted, eagerly')
    check_persistent(ag.function(persistent(f, variable)), inputs, first)
    check_persistent(persistent(converted, variable), inputs, first)
    if '] = ' not in source:
        ag.run_functions_eagerly(True)
        try:
            assert_all_close(as_arrays(inside(*inputs)), first, 'run_functions_eagerly, tape inside')
            assert_all_close(as_arrays(taped(outside, variable, *inputs)), first,
                             'run_functions_eagerly, tape outside')
        finally:
            ag.run_functions_eagerly(False)
    assert first[0].dtype == np.float64 and first[0].shape == ()
    for grad, array in zip(first[1:], list(arrays) + [variable.numpy()]):
        assert grad is None or (grad.dtype == np.float64 and grad.shape == array.shape)

    def call(values):
        return outside(*[rt.constant(v) for v in values], inputs[3])
    coarse, _ = finite_differences(call, list(arrays), variable, 1e-5)
    fine, kinks = finite_differences(call, list(arrays), variable, 1e-6)
    for index, (ours, c, d, kink) in enumerate(zip(first[1:], coarse, fine, kinks)):
        ours = np.zeros_like(d) if ours is None else ours   # unconnected: the differences are zero
        # a kink or jump near the input moves the differences; one at the input makes its sides disagree
        smooth = (np.abs(c - d) < 1e-5 * (1 + np.abs(c))) & ~kink
        np.testing.assert_allclose(ours[smooth], d[smooth], rtol=1e-5, atol=1e-6,
                                   err_msg=f'finite differences, gradient {index}')
    if first[1] is not None:
        check_second_order(f, inside, arrays, inputs)


floats = st.floats(-1.5, 1.5, allow_nan=False).filter(lambda v: abs(v) > 0.05)
ARRAYS = st.tuples(st.lists(floats, min_size=3, max_size=3), st.lists(floats, min_size=3, max_size=3),
                   st.lists(floats, min_size=9, max_size=9)).map(
    lambda t: (np.array(t[0]), np.array(t[1]), np.array(t[2]).reshape(3, 3)))


@examples(quick=4, full=15)
def test_random_programs_have_the_same_gradient_every_way(max_examples):
    @settings(max_examples=max_examples, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(gradient_programs(), ARRAYS, st.integers(1, 3))
    def check(source, arrays, trips):
        check_program(source, arrays, trips)
    check()

