"""converted_call's per-function cache (one dict lookup by id, checked by a weak reference) and its fast
paths for builtins and classes: the same results as calling the function, converted once."""
import gc

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import calls, conversion


def test_a_function_is_converted_once_and_its_entry_dies_with_it(monkeypatch):
    instantiated = []
    real = conversion.instantiate
    monkeypatch.setattr(conversion, 'instantiate', lambda f, ns: instantiated.append(f.__name__) or real(f, ns))

    def make():
        def clamp(x):
            if x > 3:
                return 3
            return x
        return clamp

    clamp = make()
    assert [calls.converted_call(clamp, (v,), None) for v in (1, 5, 2)] == [1, 3, 2]
    assert instantiated == ['clamp']
    assert calls.converted_call(clamp, (), {'x': 9}) == 3
    assert instantiated == ['clamp']
    key = id(clamp)
    assert calls._targets[key][0]() is clamp
    del clamp
    gc.collect()
    assert key not in calls._targets


def test_a_new_function_at_a_reused_id_gets_its_own_target():
    results = []
    for offset in range(30):   # functions die each round: CPython reuses their ids
        namespace = {}
        exec(f'def add(x):\n    return x + {offset}\n', namespace)
        results.append(calls.converted_call(namespace['add'], (100,), None))   # no source: called as it is
    assert results == [100 + offset for offset in range(30)]

    def first(x):
        return x + 1

    def second(x):
        return x + 2

    assert (calls.converted_call(first, (1,), None), calls.converted_call(second, (1,), None)) == (2, 3)


class Point:
    def __init__(self, x, y=0):
        self.x, self.y = x, y


def test_builtins_and_classes_with_and_without_keywords():
    assert calls.converted_call(len, ([1, 2],), None) == 2
    assert calls.converted_call(len, ([1, 2],), {}) == 2
    assert calls.converted_call(sorted, ([3, 1, 2],), {'reverse': True}) == [3, 2, 1]
    assert calls.converted_call(int, ('12',), {'base': 8}) == 10
    assert calls.converted_call(range, (3,), None) == range(3)
    point = calls.converted_call(Point, (1,), {'y': 5})
    assert (type(point), point.x, point.y) == (Point, 1, 5)
    with pytest.raises(TypeError, match='len'):
        calls.converted_call(len, (), None)


def test_overridden_builtins_still_stage_on_symbolic_tensors():
    def length_and_abs(x):
        return len(x), abs(x[0])

    staged = ag.function(length_and_abs)
    n, first = staged(rt.constant([-4.0, 2.0, 1.0]))
    assert (int(n.numpy()), float(first.numpy())) == (3, 4.0)
