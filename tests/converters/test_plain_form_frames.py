"""What frames converted code runs in (issue 23, bug 6): the plain form *is* the user's frame (compiled under
the user's file and lines) and calls what it calls from that frame, so one converted call takes one Python
frame, as the original does. Recursion depth, ``warnings.warn(stacklevel=N)``, ``sys._getframe`` and
tracebacks then see what they see in the original."""
import sys
import traceback
import warnings

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import conversion
from user_errors import line_of


def depth(n):
    if n == 0:
        return 0
    return 1 + depth(n - 1)


def deepest(function, limit=20000):
    """The largest n for which function(n) raises no RecursionError (a binary search)."""
    low, high = 1, limit
    while low < high:
        middle = (low + high + 1) // 2
        try:
            function(middle)
            low = middle
        except RecursionError:
            high = middle - 1
    return low


def test_recursion_reaches_the_depth_of_the_original():
    # Was 496 converted for 997 unconverted: converted_call's frame under each level.
    original, converted = deepest(depth), deepest(ag.to_graph(depth))
    # One level fewer: at the deepest level the plain form asks call_target what to call (a frame for that moment).
    assert original - 1 <= converted <= original


def old_api(x):
    warnings.warn('old_api is deprecated', DeprecationWarning, stacklevel=2)
    return x + 1


def calls_old_api(x):
    y = old_api(x)
    return y


def warned_at(function, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        function(*args)
    return [(w.filename, w.lineno, str(w.message)) for w in caught]


def test_a_warning_with_stacklevel_names_the_users_caller():
    # It named the generated code ('<autograph_lite #2: converted ...>') or converted_call's frame.
    expected = [(__file__, line_of(calls_old_api, 'y = old_api(x)'), 'old_api is deprecated')]
    assert warned_at(calls_old_api, 1) == expected
    assert warned_at(ag.to_graph(calls_old_api), 1) == expected


def where_am_i():
    frame = sys._getframe(1)
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name


def asks_where_it_is():
    return where_am_i()


def test_the_caller_frame_is_the_users_file_and_line():
    assert ag.to_graph(asks_where_it_is)() == asks_where_it_is() == (
        __file__, line_of(asks_where_it_is, 'return where_am_i()'), 'asks_where_it_is')
    assert conversion.is_plain_form(ag.to_graph(asks_where_it_is))


def fails_inside(values):
    total = 0
    for value in values:
        total += 10 // value
    return total


def test_a_traceback_on_python_values_is_the_originals():
    def frames(function):
        with pytest.raises(ZeroDivisionError) as info:
            function([1, 0])
        return [(f.filename, f.lineno, f.name, f.line) for f in traceback.extract_tb(info.value.__traceback__)][-1:]
    assert frames(ag.to_graph(fails_inside)) == frames(fails_inside)


def recurses_on_python_values(n, x):
    if n == 0:
        return x
    return recurses_on_python_values(n - 1, x + 1)


def test_deep_python_recursion_while_tracing_says_how_to_raise_the_limit():
    # While tracing, the staged form runs (several frames per call): a recursion the original survives
    # may hit the limit; the note says so and how to raise it.
    limit = sys.getrecursionlimit()
    levels = limit // 3
    assert recurses_on_python_values(levels, 0) == levels
    with pytest.raises(RecursionError) as info:
        ag.function(recurses_on_python_values)(levels, rt.constant(0))
    note = '\n'.join(getattr(info.value, '__notes__', []))
    assert 'sys.setrecursionlimit' in note and 'frames' in note, note


# --- ag.to_graph(f) is the plain form itself: no frame of ours between an unconverted caller and it --------

@ag.do_not_convert
def stack_size():
    frame, size = sys._getframe(1), 0
    while frame is not None:
        frame, size = frame.f_back, size + 1
    return size


def measures_its_stack():
    return stack_size()


def test_a_converted_function_called_from_unconverted_code_takes_one_frame():
    # ag.to_graph returned a wrapper(*args, **kwargs) calling the plain form: two frames per call.
    assert ag.to_graph(measures_its_stack)() == measures_its_stack()


class Version:
    def __init__(self, number):
        self.number = number

    def __lt__(self, other):
        Version.sizes.append(stack_size())
        return self.number < other.number


def test_a_dunder_converted_in_place_is_entered_by_python_in_one_frame():
    # An interval tree converted in place spent half its time in the wrappers Python entered for each dunder.
    original = Version.__dict__['__lt__']
    Version.sizes = []
    assert sorted([Version(2), Version(1)])[0].number == 1
    try:
        Version.__lt__ = ag.to_graph(original)
        assert sorted([Version(2), Version(1)])[0].number == 1
    finally:
        Version.__lt__ = original
    assert Version.sizes[0] == Version.sizes[1]


def depth_in_place(n):
    if n == 0:
        return 0
    return 1 + depth_in_place(n - 1)


def test_a_recursive_function_converted_in_place_takes_one_frame_per_level():
    original = depth_in_place
    levels = [deepest(original)]
    try:
        globals()['depth_in_place'] = ag.to_graph(original)
        levels.append(deepest(globals()['depth_in_place']))
    finally:
        globals()['depth_in_place'] = original
    # One level fewer at most: the plain form asks call_target for what to call, from the deepest frame.
    assert levels[0] - 1 <= levels[1] <= levels[0]


def warns_its_caller(x):
    warnings.warn('warns_its_caller is deprecated', DeprecationWarning, stacklevel=2)
    return x


CONVERTED_WARNER = ag.to_graph(warns_its_caller)


def calls_the_converted_warner(x):   # unconverted code
    return CONVERTED_WARNER(x)


def test_a_converted_function_warning_with_stacklevel_names_its_unconverted_caller():
    # pluggy's deprecation warnings (stacklevel=2/3) named ag.to_graph's wrapper in api.py.
    expected = [(__file__, line_of(calls_the_converted_warner, 'return CONVERTED_WARNER(x)'),
                 'warns_its_caller is deprecated')]
    assert warned_at(calls_the_converted_warner, 1) == expected


def test_the_conversion_carries_wraps_metadata_and_nothing_of_ours_that_wraps_would_copy():
    import functools
    import inspect
    from autograph_lite import calls
    converted = ag.to_graph(warns_its_caller)
    assert converted.__wrapped__ is warns_its_caller and inspect.signature(converted) == inspect.signature(
        warns_its_caller)
    assert set(vars(converted)) == {'__wrapped__'}   # recognised by identity, not by an attribute

    @functools.wraps(converted)
    def users_wrapper(x):
        return converted(x) + 100
    assert calls.converted_from(users_wrapper) is None and calls.converted_from(converted) is warns_its_caller
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert ag.to_graph(lambda x: users_wrapper(x))(1) == 101
