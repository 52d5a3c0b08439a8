"""User code may replace builtins, even with converted functions: the library's own machinery must
not call the replacement (bug class 7: it recursed until the stack ran out)."""
import builtins
import contextlib

import pytest

import autograph_lite as ag
import runtime as rt


def caching(fn):
    cache = {}

    def wrapper(x):
        if x in cache:
            return cache[x]
        result = fn(x)
        cache[x] = result
        return result
    return wrapper


def counting(fn, calls):
    def wrapper(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)
    return wrapper


def uses_everything(xs, n):
    total = 0
    for i, x in enumerate(xs):
        if x > 0 and i < n:
            total += int(abs(x))
        while total > 100:
            total -= len(xs)
    return total if total else -1


@contextlib.contextmanager
def replaced(name, value):
    """builtins.<name> = value inside the block only (pytest itself uses the builtins around tests)."""
    original = getattr(builtins, name)
    setattr(builtins, name, value)
    try:
        yield
    finally:
        setattr(builtins, name, original)


def test_a_converted_memoizing_len_installed_as_the_builtin():
    with replaced('len', ag.to_graph(caching)(len)):
        results = [len("abcd"), len("abcd"), len("xy")]
    assert results == [4, 4, 2]


# The builtin functions (types such as tuple or range cannot be replaced by a function: even
# isinstance(x, tuple) in plain Python code would break).
@pytest.mark.parametrize('name', ['len', 'isinstance', 'getattr', 'hasattr', 'setattr', 'iter', 'next',
                                  'abs', 'any', 'all', 'repr', 'sorted', 'print'])
def test_converted_code_runs_with_each_builtin_replaced_by_a_converted_wrapper(name):
    expected = uses_everything([3, -1, 250, 7], 3)
    calls = []
    with replaced(name, ag.to_graph(counting)(getattr(builtins, name), calls)):
        converted = ag.to_graph(uses_everything)([3, -1, 250, 7], 3)
        staged = ag.function(uses_everything)(rt.constant([3, -1, 250, 7]), rt.constant(3))
    assert converted == expected
    assert staged.numpy() == expected


def test_a_replaced_builtin_does_not_reach_a_fresh_conversion():
    original_len = len

    def python_len(x):
        return original_len(x)

    def fresh(xs):
        out = []
        for x in xs:
            out.append(x * 2)
        return out
    with replaced('len', ag.to_graph(python_len)):
        results = ag.to_graph(fresh)([1, 2]), len([1, 2, 3])
    assert results == ([2, 4], 3)


GLOBAL_CACHE = {}


def memo_in_a_global(x):
    if x in GLOBAL_CACHE:
        return GLOBAL_CACHE[x]
    GLOBAL_CACHE[x] = x * 2
    return GLOBAL_CACHE[x]


def test_item_assignment_to_a_global_or_closure_dict_stays_a_mutation():
    # Rebinding the name (x = set_item(x, ...)) would make it a local: UnboundLocalError.
    assert ag.to_graph(memo_in_a_global)(3) == 6 and GLOBAL_CACHE == {3: 6}
    wrapper = ag.to_graph(caching)(abs)
    assert wrapper(-2) == 2 and wrapper(-2) == 2
