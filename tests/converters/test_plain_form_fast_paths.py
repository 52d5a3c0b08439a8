"""The plain form's fast paths on Python values: the staged form's operators take Python's own semantics, the
dispatch asks no thread state while no thread builds a graph, builtins called by their name are called directly,
and dict/list changes skip the staging checks while no staged construct carries containers. Each is checked
against what Python does and against the slow path it skips (split from test_plain_form.py)."""
import sys

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import calls
from autograph_lite.operators.forms import staged_form_always
from runtime.core.context import graph_scope


# --- the staged form's operators on Python values: the fast path is Python's own semantics -----------------

class Falsy(int):
    """An int subclass with its own truth: not a type of the fast path, so it takes the general one."""

    def __bool__(self):
        return False


PYTHON_VALUES = [0, 1, -2, 0.0, 2.5, '', 'a', None, True, False, [], [0], (), (1,), {}, {1: 2}, set(), {3},
                 Falsy(5)]


@pytest.mark.parametrize('left', PYTHON_VALUES, ids=repr)
@pytest.mark.parametrize('right', [0, 'b', [1]], ids=repr)
def test_and_or_not_if_on_python_values_are_pythons(left, right):
    from autograph_lite.operators import and_, if_exp, if_stmt, not_, or_
    assert and_(lambda: left, lambda: right) is (left and right)
    assert or_(lambda: left, lambda: right) is (left or right)
    assert not_(left) is (not left)
    assert if_exp(left, lambda: 'yes', lambda: 'no') == ('yes' if left else 'no')
    taken = []
    if_stmt(left, lambda: taken.append('if'), lambda: taken.append('else'), tuple, print, (), 0)
    assert taken == (['if'] if left else ['else'])


def test_the_operators_read_an_eager_tensor_list_as_its_length():
    from autograph_lite.operators import and_, if_exp, not_, or_
    empty, full = rt.TensorList.empty(rt.int32), rt.TensorList.from_tensors([1])
    assert not_(empty) is True and not_(full) is False
    assert and_(lambda: empty, lambda: 1) is empty and and_(lambda: full, lambda: 1) == 1
    assert or_(lambda: full, lambda: 1) is full and or_(lambda: empty, lambda: 1) == 1
    assert if_exp(full, lambda: 'yes', lambda: 'no') == 'yes'


def _ask_the_dispatch():
    # What the plain form's first statement asks, read from the ag__ namespace as generated code reads it.
    return bool(calls.AG_NAMESPACE.needs_staged_form())


def test_the_dispatch_is_true_on_the_thread_building_a_graph_only_and_false_again_after():
    import threading
    asked_in_trace, asked_elsewhere, building, answered = [], [], threading.Event(), threading.Event()

    def elsewhere():
        building.wait(10)
        asked_elsewhere.append(_ask_the_dispatch())
        answered.set()

    @ag.function
    def traced(x):
        asked_in_trace.append(_ask_the_dispatch())
        building.set()
        answered.wait(10)   # the other thread asks while this one builds the graph
        return x + 1
    other = threading.Thread(target=elsewhere)
    other.start()
    assert traced(rt.constant(1)).numpy() == 2
    other.join()
    assert (asked_in_trace, asked_elsewhere) == ([True], [False])
    assert not _ask_the_dispatch()
    with graph_scope(rt.Graph()):
        assert _ask_the_dispatch()
        with graph_scope(None):   # eager inside a graph (an init_scope): the thread builds none
            assert not _ask_the_dispatch()
        assert _ask_the_dispatch()
    with staged_form_always():
        assert _ask_the_dispatch()
    assert not _ask_the_dispatch()


def uses_builtins_by_name(words):
    longest = max(len(word) for word in words)
    return [str(index) for index in range(longest)], int('7'), sorted(words, key=len)


def test_a_builtin_called_by_its_name_is_called_directly_and_a_rebound_name_still_goes_through_call_target(
        monkeypatch):
    targets = []
    real_call_target = calls.call_target
    monkeypatch.setattr(calls.AG_NAMESPACE, 'call_target', lambda f: targets.append(f) or real_call_target(f))
    words = ['kitten', 'sitting', 'ab']
    assert ag.to_graph(uses_builtins_by_name)(words) == uses_builtins_by_name(words)
    assert targets == []   # max, len, str, range, int, sorted: the builtins themselves

    def callee(x):
        return sys._getframe(1).f_code.co_name, x

    def rebinds_len(x, function):
        len = function   # noqa: A001 - a builtin's name holding a user function
        return len(x)
    assert ag.to_graph(rebinds_len)(3, callee) == rebinds_len(3, callee) == ('rebinds_len', 3)
    assert targets == [callee, sys._getframe]   # the callee, converted, calls sys._getframe
    # A converted function under the name runs from rebinds_len's own frame (call_target unwraps the wrapper
    # ag.to_graph returned): no frame of ours between them.
    assert ag.to_graph(rebinds_len)(3, ag.to_graph(callee)) == ('rebinds_len', 3)
    assert calls.converted_from(targets[2]) is callee and targets[3:] == [sys._getframe]


def counts_and_appends(words):
    counts, seen, order = {}, [], [0, 0]
    for word in words:
        counts[word] = counts.get(word, 0) + 1
        seen.append(word)
        order[0] += 1
    return counts, seen, order


def test_dict_and_list_changes_outside_staged_constructs_skip_the_staging_checks(monkeypatch):
    from autograph_lite.operators.containers import data_structures
    from autograph_lite.operators.staging import carrying_anywhere
    words = ['a', 'b', 'a']
    expected = counts_and_appends(words)
    assert carrying_anywhere == [0]

    def refuse(*args):
        raise AssertionError('a staging check ran')
    for check in ('_stage_list_change', '_loop_copy_item_assigned', '_watched_entry'):
        monkeypatch.setattr(data_structures, check, refuse)
    assert ag.to_graph(counts_and_appends)(words) == expected
    monkeypatch.undo()

    # A staged loop that carries a list is still told of its changes (it makes the list a tensor list).
    @ag.function
    def grows(n):
        values = []
        i = 0
        while i < n:
            values.append(i)
            i += 1
        return rt.stack(values)
    assert list(grows(rt.constant(3)).numpy()) == [0, 1, 2]
    assert carrying_anywhere == [0]


# --- call_target: converted functions are recognised by their code's identity ---------------------------

def doubles_positive(x):
    if x > 0:
        return 2 * x
    return x


class Doubler:
    def twice(self, x):
        return 2 * x


def test_call_target_gives_a_converted_function_and_its_methods_back_as_they_are_without_the_cache(monkeypatch):
    from autograph_lite import conversion
    plain = calls.convert(doubles_positive)
    assert conversion.is_plain_form(plain) and id(plain.__code__) in conversion.converted_code_ids
    monkeypatch.setattr(Doubler, 'twice', calls.convert(Doubler.twice))
    doubler = Doubler()
    monkeypatch.setattr(calls, '_target_for', lambda function: pytest.fail(f'{function} went to the cache'))
    assert calls.call_target(plain) is plain
    bound = doubler.twice
    assert calls.call_target(bound) is bound and calls.call_target(bound)(4) == 8
    assert (plain(3), plain(-3)) == (doubles_positive(3), doubles_positive(-3)) == (6, -3)


def test_the_registry_of_converted_code_holds_nested_code_and_forgets_a_code_object_when_it_dies():
    from autograph_lite import conversion
    module = compile('def outer():\n    return lambda: 1\n', '<made here>', 'exec')
    outer = module.co_consts[0]
    inner = next(constant for constant in outer.co_consts if hasattr(constant, 'co_code'))
    keys = [id(outer), id(inner)]
    conversion._register_converted(outer)
    assert all(key in conversion.converted_code_ids for key in keys)
    del module, outer, inner
    assert not any(key in conversion.converted_code_ids for key in keys)


# --- methods of builtin types called on a name: Python's own call when the name holds exactly that type -----

class Shouting(str):
    """A str subclass with its own method: the receiver is not exactly a str, so call_target decides."""

    def lower(self):
        return 'shouted ' + str.lower(self)


class Store:
    """A user class with methods named as builtin types' are (get, lower): converted when called."""

    def __init__(self):
        self.reads = 0

    def get(self, key, default=None):
        for _ in range(key):   # a loop: the converted method's plain form runs it
            default += 1
        return default

    @property
    def key(self):
        self.reads += 1
        return 2


def uses_builtin_methods(word, table, store):
    letters = [character.lower() for character in word if character.isalnum()]
    found = table.get(store.key, 0) + store.get(store.key, 10)
    return ', '.join(letters), found, word.lower(), b'-'.join([b'a', b'b']), table.get(len(word))


def test_methods_of_builtin_types_on_names_skip_call_target_when_the_type_is_exact_and_only_then(monkeypatch):
    targets = []
    real_call_target = calls.call_target
    monkeypatch.setattr(calls.AG_NAMESPACE, 'call_target', lambda f: targets.append(f) or real_call_target(f))
    converted = ag.to_graph(uses_builtin_methods)
    store, original_store = Store(), Store()
    assert converted('Ab1!', {2: 5, 4: 1}, store) == uses_builtin_methods('Ab1!', {2: 5, 4: 1}, original_store) \
        == ('a, b, 1', 17, 'ab1!', b'a-b', 1)
    assert store.reads == original_store.reads == 2   # each argument read once, as in the original
    # Only the calls that are no method of an exact builtin type: store.get, and table.get(len(word)) (an
    # argument that calls: written once, the general way).
    assert [getattr(target, '__name__', None) for target in targets] == ['get', 'get']
    assert targets[0].__self__ is store and targets[1].__self__ == {2: 5, 4: 1}

    targets.clear()
    shouting = Shouting('Ab1!')
    assert converted(shouting, {}, Store())[2] == uses_builtin_methods(shouting, {}, Store())[2] == 'shouted ab1!'
    # The letters are exact strs (iterating a str subclass gives strs): only Shouting's own lower goes through
    # call_target (converted, its str.lower(self) reads the class str, not a str: the general way).
    assert [(target.__name__, type(getattr(target, '__self__', None)).__name__) for target in targets] == [
        ('get', 'Store'), ('lower', 'Shouting'), ('lower', 'NoneType'), ('get', 'dict')]
    assert calls.conversion.is_plain_form(real_call_target(Store().get).__func__)


def test_the_plain_form_of_builtin_method_calls_reads_as_the_fast_call_or_the_general_one():
    def f(word, table, items):
        return word.lower(), table.get(word, 0), ', '.join(items), table.get(word.strip()), items.data.count(1)
    assert ' '.join(line.strip() for line in ag.to_code(f, form='plain').splitlines()[3:]) == (
        "return (word.lower() if builtin_type(word) is builtin_str else "
        "ag__.call_target(word.lower)(), table.get(word, 0) if builtin_type(table) is builtin_dict "
        "else ag__.call_target(table.get)(word, 0), ', '.join(items), "
        "ag__.call_target(table.get)(word.strip() if builtin_type(word) is builtin_str else "
        "ag__.call_target(word.strip)()), ag__.call_target(items.data.count)(1))")


builtin_str = 'a global of the user named as a pinned builtin would be'


def uses_the_pinned_names(builtin_len):
    label = builtin_str.upper()
    return len(label) + builtin_len, label.lower()


def test_the_pinned_builtins_are_free_variables_that_take_no_name_of_the_users_function():
    plain = ag.to_code(uses_the_pinned_names, form='plain')
    assert '(len if len is builtin_len_1 else ag__.call_target(len))(label)' in plain
    assert 'label.lower() if builtin_type(label) is builtin_str_1 else' in plain
    assert ag.to_graph(uses_the_pinned_names)(2) == uses_the_pinned_names(2) == (
        57, 'a global of the user named as a pinned builtin would be')
    converted = calls.call_target(uses_the_pinned_names)
    cells = dict(zip(converted.__code__.co_freevars, converted.__closure__))
    assert cells['builtin_len_1'].cell_contents is len and cells['builtin_type'].cell_contents is type
    assert 'builtin_len' not in cells and not hasattr(calls.AG_NAMESPACE, 'builtin_len')
