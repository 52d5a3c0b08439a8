"""Regressions the differential harness (tests/differential/) found in real packages in how converted code
calls functions and ag.to_graph wrappers (their code and defaults as they are now, their frames) and
how long it keeps them alive."""
import gc
import sys
import weakref
from collections import deque

import pytest

import autograph_lite as ag
from converted_forms import FORMS, in_form

_MARKER = object()


def last_of(iterable, default=_MARKER):
    """Reads a name only this module defines (deque) and a default only the original knows."""
    items = deque(iterable, maxlen=1)
    if items:
        return items[-1]
    return 'empty' if default is _MARKER else default


class Peekable:
    def __init__(self, items):
        self.items = list(items)

    def peek(self, default=_MARKER):
        if self.items:
            return self.items[0]
        if default is _MARKER:
            raise IndexError('peek at an empty Peekable')
        return default


def calls_last_of(values):
    return last_of(values), last_of([]), last_of([], default=7)


def test_a_to_graph_wrapper_called_from_converted_code_is_not_converted_again():
    # more-itertools: `last` patched in place with its to_graph wrapper, then called by another
    # converted function, was converted a second time from the wrapper (its globals: api.py's).
    original = last_of
    try:
        globals()['last_of'] = ag.to_graph(original)
        assert ag.to_graph(calls_last_of)([1, 2, 3]) == calls_last_of([1, 2, 3]) == (3, 'empty', 7)
    finally:
        globals()['last_of'] = original


def test_a_to_graph_method_wrapper_keeps_its_defaults_when_called_from_converted_code():
    # more-itertools: peekable.peek(default=_marker) raised "missing 1 required positional argument".
    original = Peekable.peek
    try:
        Peekable.peek = ag.to_graph(original)

        def peek_twice(p):
            return p.peek(), Peekable([]).peek('none')
        assert ag.to_graph(peek_twice)(Peekable([4])) == (4, 'none')
    finally:
        Peekable.peek = original
# networkx: argmap's wrapper compiles the real function on its first call and swaps it in as its
# own __code__, then calls itself again. A copy converted from the old code ran the old code again.

def _compiled_scale(x, factor=2):
    return x * factor


def lazily_compiled(x, factor=2):
    lazily_compiled.__code__ = _compiled_scale.__code__
    return lazily_compiled(x, factor)


def keyword_scale(x, *, factor=2):
    return x * factor


def calls_lazily_compiled(x):
    return lazily_compiled(x) + 1


def calls_keyword_scale(x):
    return keyword_scale(x)


def test_converted_code_calls_a_function_as_its_code_and_defaults_are_now():
    # RecursionError in every networkx function behind an argmap decorator.
    import runtime as rt
    original = lazily_compiled.__code__
    try:
        assert ag.to_graph(calls_lazily_compiled)(3) == 7
        assert lazily_compiled.__code__ is _compiled_scale.__code__
        assert ag.to_graph(calls_lazily_compiled)(3) == calls_lazily_compiled(3) == 7
        lazily_compiled.__code__ = original
        assert int(ag.function(calls_lazily_compiled)(rt.constant(4)).numpy()) == 9
        # Replaced defaults apply to the next call, as in Python (a converted copy kept the old ones).
        lazily_compiled.__code__ = original
        lazily_compiled.__defaults__ = (10,)
        assert ag.to_graph(calls_lazily_compiled)(3) == calls_lazily_compiled(3) == 31
    finally:
        lazily_compiled.__code__, lazily_compiled.__defaults__ = original, (2,)
    converted = ag.to_graph(calls_keyword_scale)
    try:
        assert converted(3) == 6
        keyword_scale.__kwdefaults__['factor'] = 5      # updated in place
        assert converted(3) == calls_keyword_scale(3) == 15
        keyword_scale.__kwdefaults__ = {'factor': 7}    # replaced
        assert converted(3) == calls_keyword_scale(3) == 21
    finally:
        keyword_scale.__kwdefaults__ = {'factor': 2}


# networkx: its full suite, converted, grew past 18 GB. Converted code calls a lambda or nested function
# it made as it is (it is converted code already), and converted_call's cache entry for it held the
# function itself: its weak reference never died, so every closure made per call stayed alive with all
# it held (graphs). ag.to_graph's cache held each wrapper, which holds its function, the same way.

class Payload:
    pass


def lightest(items, keep):
    payload = Payload()
    keep(weakref.ref(payload))
    weight = lambda item: (item[1], payload is not None)

    def depth(k):   # recursive: its own closure cell holds it
        return 0 if k == 0 else depth(k - 1) + 1

    best = None
    for item in items:
        if best is None or weight(item) < weight(best):
            best = item
    return best[0], depth(len(items))


def make_scaler(keep):
    payload = Payload()
    keep(weakref.ref(payload))
    return lambda x: x * 2 if payload is not None else x


@pytest.mark.parametrize('form', FORMS)
def test_closures_made_per_call_in_converted_code_die_with_the_call(form):
    converted, payloads = ag.to_graph(lightest), []
    items = [('a', 3), ('b', 1), ('c', 2)]
    assert [in_form(form, converted, items, payloads.append) for _ in range(5)] == [('b', 3)] * 5
    assert lightest(items, [].append) == ('b', 3)
    gc.collect()
    assert [payload() for payload in payloads] == [None] * 5


def test_a_function_given_to_to_graph_dies_with_its_wrapper():
    payloads = []
    for value in range(5):
        scale = make_scaler(payloads.append)
        assert ag.to_graph(scale)(value) == scale(value) == 2 * value
    assert ag.to_graph(scale) is ag.to_graph(scale)   # the same wrapper while it lives
    del scale
    gc.collect()
    assert [payload() for payload in payloads] == [None] * 5


def make_named_scaler(keep):
    payload = Payload()
    keep(weakref.ref(payload))

    def scale(x):
        return x * 2 if payload is not None else x
    return scale


def calls_it(function, x):
    return function(x)


def test_a_function_given_to_to_graph_dies_with_its_conversion_when_converted_code_called_both():
    # ag.to_graph returns the plain form itself (its __wrapped__ holds the function): neither the registry of
    # conversions nor converted code's cache may hold it, or a function converted per call lives forever.
    payloads = []
    for value in range(5):
        scale = make_named_scaler(payloads.append)
        converted = ag.to_graph(scale)
        assert converted(value) == ag.to_graph(calls_it)(scale, value) == ag.to_graph(calls_it)(converted, value) \
            == 2 * value
    del scale, converted
    gc.collect()
    assert [payload() for payload in payloads] == [None] * 5


# networkx: argmap's stub compiles the real wrapper at its first call and swaps that code in as its
# own. ag.to_graph's wrapper (here: of Graph.__new__, patched into the class) kept running its copy of
# the stub, which compiled again on every call (and grew memory); a function's defaults replaced
# after ag.to_graph were ignored the same way (a silently stale value).

def tripled(x):
    return x * 3 if x > 0 else -x


def compiles_on_first_call(x):
    compiles_on_first_call.compilations += 1
    compiles_on_first_call.__code__ = tripled.__code__
    return compiles_on_first_call(x)


def offset_by(x, offset=1):
    if x > 0:
        return x + offset
    return offset


@pytest.mark.parametrize('form', FORMS)
def test_a_to_graph_wrapper_runs_the_code_and_defaults_the_function_has_now(form):
    original_code = compiles_on_first_call.__code__
    compiles_on_first_call.compilations = 0
    try:
        converted = ag.to_graph(compiles_on_first_call)
        assert [in_form(form, converted, x) for x in (2, -2, 5)] == [6, 2, 15]
        assert compiles_on_first_call.compilations == 1
    finally:
        compiles_on_first_call.__code__ = original_code
    converted = ag.to_graph(offset_by)
    assert in_form(form, converted, 2) == 3
    try:
        offset_by.__defaults__ = (10,)
        # Called directly, the conversion is the plain form itself (one frame, no check per call): it has the
        # defaults it was made with until it is converted again, which updates the same object (converted
        # code calling offset_by or its conversion updates it too).
        assert in_form(form, converted, 2) == 3
        assert ag.to_graph(offset_by) is converted
        assert in_form(form, converted, 2) == offset_by(2) == 12
        assert in_form(form, converted, -2) == 10
    finally:
        offset_by.__defaults__ = (1,)
    assert ag.to_graph(offset_by) is converted and in_form(form, converted, 2) == 3


# pycparser: its recursive-descent parser calls about 15 functions per nesting level of an expression.
# With every function patched with its to_graph wrapper (as the harness does, and as decorating
# helpers with @ag.to_graph does), converted code called each wrapper through the wrapper's frame and
# its api boundary's: 4 Python frames per call instead of 2, so 30 nested sizeof(...) hit the recursion
# limit (26 levels converted, 109 unconverted). Converted code now enters the wrapper's function.

@ag.do_not_convert
def stack_depth():
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def descend(n):
    if n == 0:
        return stack_depth()
    return descend_again(n - 1)


def descend_again(n):
    return descend(n)


def frames_per_level(function):
    return (function(10) - function(0)) / 10


@pytest.mark.parametrize('form', FORMS)
def test_converted_code_calls_a_to_graph_wrapper_with_no_more_frames_than_a_plain_function(form):
    converted = ag.to_graph(descend)
    through_converted_call = in_form(form, frames_per_level, converted)
    originals = descend, descend_again
    try:
        globals().update(descend=ag.to_graph(descend), descend_again=ag.to_graph(descend_again))
        through_wrappers = in_form(form, frames_per_level, globals()['descend'])
    finally:
        globals().update(descend=originals[0], descend_again=originals[1])
    assert frames_per_level(descend) == 2.0
    assert through_wrappers == through_converted_call
    if form == 'plain form':
        assert through_wrappers == 2.0   # each of the 2 calls: the function's own frame only, as in Python


def calls_offset_by(x):
    return offset_by(x)


def swaps_in_its_code(x):
    ORIGINAL_STUB.compilations += 1
    ORIGINAL_STUB.__code__ = tripled.__code__
    return ORIGINAL_STUB(x)   # itself, as networkx's argmap calls itself (through its `__wrapper` default)


ORIGINAL_STUB = swaps_in_its_code


@pytest.mark.parametrize('form', FORMS)
def test_converted_code_calling_a_conversion_runs_what_it_was_made_from_until_its_function_is_called(form):
    # ag.to_graph returns the plain form itself (one frame a call), which converted code calls as it is: a
    # conversion is a copy of its function as it was (as TensorFlow's). Converted code calling the function
    # itself (bug 16: networkx's argmap stub calls itself so after swapping in its code), or ag.to_graph
    # asked again, brings the conversion up to date: the same object then runs the new code and defaults.
    originals = offset_by, swaps_in_its_code, swaps_in_its_code.__code__
    swaps_in_its_code.compilations = 0
    try:
        globals().update(offset_by=ag.to_graph(offset_by), swaps_in_its_code=ag.to_graph(swaps_in_its_code))
        caller = ag.to_graph(calls_offset_by)
        assert in_form(form, caller, 2) == 3
        originals[0].__defaults__ = (10,)
        assert in_form(form, caller, 2) == 3
        assert ag.to_graph(originals[0]) is globals()['offset_by']
        assert in_form(form, caller, 2) == 12
        # The stub swaps in its new code and calls itself: its conversion (the module attribute) follows.
        assert [in_form(form, globals()['swaps_in_its_code'], x) for x in (2, -2, 5)] == [6, 2, 15]
        assert originals[1].compilations == 1
    finally:
        originals[0].__defaults__ = (1,)
        originals[1].__code__ = originals[2]
        globals().update(offset_by=originals[0], swaps_in_its_code=originals[1])
