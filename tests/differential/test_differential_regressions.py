"""Regressions for converter bugs the differential harness (tests/differential/) found in real packages:
source constructs converted wrongly (calls into to_graph wrappers: test_differential_wrappers.py)."""
import functools

import pytest

import autograph_lite as ag
from converted_forms import FORMS, in_form


def update_in_shape(d, keys):
    """toolz.update_in: a loop temporary that only the branches of an if bind, used after the if."""
    inner = {}
    for key in keys:
        if key in d:
            d = d[key]
            temp = dict(d) if isinstance(d, dict) else d
        else:
            d = temp = {}
        inner[key] = temp
    return inner


def while_temporary(n):
    total = 0
    while n > 0:
        n -= 1
        if n % 2:
            step = n
        else:
            for k in range(2):
                step = -k
        total += step
    return total


def test_loop_temporaries_bound_only_in_nested_constructs_compile_and_run():
    # Generated code used to fail to compile: "no binding for nonlocal 'temp' found".
    for function, args in [(update_in_shape, ({'a': {'b': 1}}, ['a', 'z'])), (while_temporary, (5,))]:
        compile(ag.to_code(function), '<to_code>', 'exec')
        assert ag.to_graph(function)(*args) == function(*args)
    assert while_temporary(5) == 1


def signed_steps(n):
    total = 0
    while n > 0:
        n -= 1
        if n % 2:
            step = n
        else:
            step = -n
        total += step
    return total


def test_loop_temporaries_in_a_tensor_loop_match_python():
    import runtime as rt
    traced = ag.function(signed_steps)
    assert int(traced(rt.constant(5)).numpy()) == signed_steps(5) == -2
    assert int(traced(rt.constant(0)).numpy()) == signed_steps(0) == 0


def make_decorator(deco):
    """funcy.decorator's shape: the returned closure carries the decorated function as __wrapped__."""
    def decorator_fab(*dargs, **dkwargs):
        return deco('call', *dargs, **dkwargs)
    return functools.wraps(deco)(decorator_fab)


def retry(call, tries, errors=Exception):
    return (call, tries, errors)


def test_a_wraps_wrapper_is_converted_from_its_own_source_not_the_wrapped_one():
    # funcy: converting `retry = decorator(retry)` parsed retry's source (via __wrapped__) and
    # gave it decorator_fab's closure: "retry() missing 2 required positional arguments".
    wrapped = make_decorator(retry)
    assert 'decorator_fab' in ag.to_code(wrapped)
    assert ag.to_graph(wrapped)(3) == wrapped(3) == ('call', 3, Exception)


def once(func):
    """boltons.funcutils.once: a nonlocal assigned in an if nested in a `with`, after early returns."""
    unset = object()
    result = unset

    def wrapper():
        nonlocal result
        if result is not unset:
            return result
        with open(__file__):
            if result is not unset:
                return result
            result = func()
            return result
    return wrapper


COUNTER = 0


def bump_global(flag):
    global COUNTER
    if flag:
        COUNTER = COUNTER + 10
        return 'bumped'
    return 'kept'


def test_nonlocal_and_global_assigned_in_converted_branches_stay_the_outer_variable():
    # boltons: once() ran the function on every call: `result = func()` bound a new local.
    calls = []
    wrapper = ag.to_graph(once)(lambda: calls.append(1) or len(calls))
    assert [wrapper(), wrapper(), wrapper()] == [1, 1, 1] and calls == [1]
    assert (ag.to_graph(bump_global)(True), COUNTER) == ('bumped', 10)
    assert (ag.to_graph(bump_global)(False), COUNTER) == ('kept', 10)


# Found by the extended program generator (tests/support/program_grammar.py), not by a package.

def walrus_in_a_branch(n):
    a = 1
    if n > 1:
        a = ((t := n + 2) + t) % 97
    return a


def walrus_in_a_loop(n):
    a = n % 7
    i = 0
    while i < n:
        i += 1
        a = ((t := a) + t) % 97
    return a


def test_a_walrus_read_later_in_the_same_expression_is_not_read_before_written():
    # `(t := x) + t` was analysed as reading t first: a branch declared t nonlocal with no binding
    # (SyntaxError), and a tensor loop took t for loop state (StateError: defined inside the loop).
    import runtime as rt
    for n in (0, 1, 3):
        assert ag.to_graph(walrus_in_a_branch)(n) == walrus_in_a_branch(n)
        assert int(ag.function(walrus_in_a_branch)(rt.constant(n)).numpy()) == walrus_in_a_branch(n)
        assert int(ag.function(walrus_in_a_loop)(rt.constant(n)).numpy()) == walrus_in_a_loop(n)
    assert [walrus_in_a_loop(n) for n in (0, 1, 3)] == [0, 2, 24]


# networkx: argmap (a class) writes its wrapper inside a method, then gives the wrapper the
# decorated function's __qualname__. Python mangles the wrapper's names by where it is written.

class ArgMap:
    """networkx.utils.decorators.argmap's shape: ``__wrapper`` compiles as ``_ArgMap__wrapper``."""

    def __call__(self, f):
        def wrapper(*args, __wrapper=None, **kwargs):
            scale = 1 if __wrapper is None else __wrapper
            return f(*args, **kwargs) * scale
        wrapper.__qualname__ = f.__qualname__
        return wrapper


__LIMIT = 100   # a module-level private name: never mangled (no class encloses it)


def clamp_to_limit(f):
    @functools.wraps(f)
    def clamped(*args):
        value = f(*args)
        if value > __LIMIT:
            return __LIMIT
        return value
    return clamped


class Graphish:
    def degree(self, n):
        return n + 1

    @clamp_to_limit
    def weight(self, n):
        return n * n


def test_private_names_are_mangled_by_where_the_code_is_written_not_by_its_qualname():
    # networkx: every argmap-decorated function took the __qualname__ of the first one converted
    # (`Graph....`): "chvatal_graph() missing 1 required keyword-only argument: '_Graph__wrapper'".
    import runtime as rt
    on_method = ArgMap()(Graphish.degree)
    on_function = ArgMap()(lambda n: n - 1)
    assert on_method.__qualname__ == 'Graphish.degree'
    for wrapper, args in ((on_method, (None, 4)), (on_function, (4,))):
        assert ag.to_graph(wrapper)(*args, _ArgMap__wrapper=3) == wrapper(*args, _ArgMap__wrapper=3)
        assert ag.to_graph(wrapper)(*args) == wrapper(*args)
        assert '_ArgMap__wrapper' in ag.to_code(wrapper)
    graph = ag.function(lambda n: ag.to_graph(on_method)(None, n, _ArgMap__wrapper=2))
    assert int(graph(rt.constant(4)).numpy()) == on_method(None, 4, _ArgMap__wrapper=2) == 10
    # functools.wraps gives a module-level wrapper a method's qualname: its __LIMIT stays as written.
    assert [ag.to_graph(Graphish.weight)(Graphish(), n) for n in (3, 20)] == [9, 100]
    assert int(ag.function(Graphish.weight)(Graphish(), rt.constant(20)).numpy()) == 100


# packaging: Version._validate_pre binds `normalized` with a walrus in the middle of an `and`
# chain. The converter moved each operand into a lambda, where the walrus bound the lambda's own
# name: the function then read an unbound (or an older, stale) `normalized`.

def validate_pre(value, normalized='stale'):
    if isinstance(value, tuple) and len(value) == 2:
        letter, number = value
        if isinstance(letter, str) and (normalized := letter.lower()) in {'a', 'b', 'rc'} and number >= 0:
            return normalized, number
    return None


def walrus_in_or(x, k=0):
    return (x or (k := 5)), k


def walrus_in_if_expression(x, k=0):
    y = (k := x + 1) if x > 0 else (k := x - 1)
    return y, k


def walrus_in_a_comparison_chain(x, m=0):
    return 0 < x < (m := 10), m


def walrus_under_a_tensor_and(x):
    if x > 0 and (y := x * 2) > 3:
        return y
    return x


def test_a_walrus_in_a_deferred_operand_binds_the_functions_own_name():
    cases = [(validate_pre, ('A', 1)), (validate_pre, ('x', 1)), (validate_pre, None),
             (walrus_in_or, 0), (walrus_in_or, 3), (walrus_in_if_expression, 2),
             (walrus_in_if_expression, -2), (walrus_in_a_comparison_chain, 3)]
    for function, argument in cases:
        assert ag.to_graph(function)(argument) == function(argument), (function.__name__, argument)
    assert ag.to_graph(validate_pre)(('A', 1)) == ('a', 1)
    assert "('normalized',)) and ag__.walrus_guard(ag__.in_((normalized := " in ag.to_code(validate_pre)   # Python's own `and`
    # On a symbolic tensor Python's `and` needs bool(): a clear error naming the walrus, not a wrong value.
    import runtime as rt
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="this `and` assigns 'y' with :="):
        ag.function(walrus_under_a_tensor_and)(rt.constant(3))
    assert ag.to_graph(walrus_under_a_tensor_and)(3) == walrus_under_a_tensor_and(3) == 6


# docutils and pyparsing (2026-11-27): a function holding a generator expression in an f-string
# (docutils' Input.decode) failed at its first call with "AttributeError: 'arg' object has no attribute
# 'id'" for a while on main (the unparser met a stdlib node where it expected a gast one; fixed there).

def tried_encodings(candidates):
    for encoding in candidates:
        if encoding == 'utf-8':
            return encoding
    return f'none of {", ".join(repr(encoding) for encoding in candidates)}'


@pytest.mark.parametrize('form', FORMS)
def test_a_generator_expression_in_an_f_string_is_converted(form):
    converted = ag.to_graph(tried_encodings)
    assert in_form(form, converted, ['latin-1', 'utf-8']) == 'utf-8'
    assert in_form(form, converted, ['a', 'b']) == tried_encodings(['a', 'b']) == "none of 'a', 'b'"
