"""Tracebacks leaving the library start in user code; the full ones stay one switch away."""
import os
import subprocess
import sys
import textwrap
import traceback

import pytest

import autograph_lite as ag
import runtime as rt

LIBRARY_DIRS = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (rt, ag))


def undefined_after_if(x):
    if x > 0:
        y = x * 2
    return y


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def frames_of(error):
    return [(frame.filename, frame.name) for frame in traceback.extract_tb(error.__traceback__)]


def is_library(filename):
    return filename.startswith(LIBRARY_DIRS) or filename.startswith("<autograph_lite")


@pytest.fixture
def filtering_off():
    ag.set_traceback_filtering("off")
    yield
    ag.set_traceback_filtering("on")


def test_an_error_from_a_converted_function_has_only_user_frames():
    with pytest.raises(rt.errors.StateError) as info:
        ag.function(undefined_after_if)(rt.constant(1))
    frames = frames_of(info.value)
    assert frames == [(__file__, "test_an_error_from_a_converted_function_has_only_user_frames")]


def test_runtime_function_errors_are_filtered_too():
    def bad(x):
        return rt.matmul(x, x)

    with pytest.raises(ValueError) as info:
        rt.function(bad)(rt.constant([1.0, 2.0]))
    assert not any(is_library(filename) for filename, _ in frames_of(info.value))
    assert frames_of(info.value)[-1] == (__file__, "bad")  # the user's own frame stays, innermost last


def test_a_function_called_while_another_traces_leaves_the_filtering_to_the_outermost_call():
    def bad(x):
        return rt.matmul(x, x)

    inner = rt.function(bad)

    def outer(x):
        return inner(x) + 1.0

    with pytest.raises(ValueError, match="MatMul") as info:
        rt.function(outer)(rt.constant([1.0, 2.0]))
    names = [name for filename, name in frames_of(info.value)]
    assert not any(is_library(filename) for filename, _ in frames_of(info.value))
    assert names[-2:] == ["outer", "bad"]  # the user's frames of both functions, innermost last
    rt.function(lambda x: x * 2.0)(rt.constant(1.0))  # and a later call that raises nothing is unaffected


def test_filtering_off_keeps_the_library_frames(filtering_off):
    assert ag.traceback_filtering() == "off"
    with pytest.raises(rt.errors.StateError) as info:
        ag.function(undefined_after_if)(rt.constant(1))
    files = [filename for filename, _ in frames_of(info.value)]
    assert any(f.endswith(os.path.join("runtime", "tracing", "function.py")) for f in files)
    assert any(f.endswith(os.path.join("autograph_lite", "operators", "staged_if.py")) for f in files)


def test_the_environment_variable_turns_filtering_off(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(textwrap.dedent("""
        import autograph_lite as ag
        import runtime as rt

        @ag.function
        def f(x):
            if x > 0:
                y = x * 2
            return y

        f(rt.constant(1))
    """))
    def run(**env):
        return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env={**os.environ, **env}).stderr
    filtered, full = run(), run(AUTOGRAPH_LITE_TRACEBACK_FILTERING="off")
    assert 'line 11, in <module>' in filtered and "staged_if.py" not in filtered
    assert filtered.count('  File "') == 2  # the call site, and the user line of the "in user code" block
    assert "staged_if.py" in full and "function.py" in full


def test_a_bad_mode_is_refused():
    with pytest.raises(ValueError, match=r"traceback filtering mode must be one of \('on', 'off'\), got 'full'"):
        ag.set_traceback_filtering("full")


def test_recursion_on_a_tensor_collapses_the_repeated_frames_and_says_to_use_a_loop():
    with pytest.raises(RecursionError) as info:
        ag.function(factorial)(rt.constant(5))
    note = "\n".join(getattr(info.value, "__notes__", [])) or str(info.value)
    # Every level's frames map to the recursive `return` line (the guard after `if n <= 1: return 1` carries
    # the origin of the code it guards), so the levels collapse into that one line.
    assert "return n * factorial(n - 1)\n" in note and "if n <= 1:" in note
    assert "Write the recursion as a loop (while or for), which becomes one While op" in note
    assert note.count('File "') == 2
    assert not any(is_library(filename) for filename, _ in frames_of(info.value))


def runaway(n):
    if n is not None:     # a Python condition: nothing is staged, the recursion is the user's own
        return runaway(n + 1)
    return n


def test_recursion_on_python_values_gets_no_staging_hint():
    with pytest.raises(RecursionError) as info:
        ag.to_graph(runaway)(0)
    assert getattr(info.value, "__notes__", None) is None   # the original's error, with no hint or note
    assert str(info.value).startswith("maximum recursion depth exceeded")
    frames = traceback.extract_tb(info.value.__traceback__)
    assert sum(frame.name == "runaway" and frame.line == "return runaway(n + 1)" for frame in frames) > 900
