"""ag.function where there is no source file: IPython/Jupyter cells (their source is in linecache), and
exec / python -c, where there truly is no source: a warning, once, and the function runs unconverted."""
import os
import subprocess
import sys
import warnings

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite.pyct.errors import SourceUnavailableError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def not_strict():
    ag.set_strict_conversion(False)
    yield
    ag.set_strict_conversion(False)


def define(source: str, name: str):
    namespace = {"ag": ag, "rt": rt}
    # A file name of its own, which linecache has no lines for: under compile()'s default, '<string>', a process
    # started by `python -c` on 3.13 (as pytest-xdist's workers are) holds that program's lines (test_pyct_parser.py).
    exec(compile(source, "<source of its own, never registered>", "exec"), namespace)
    return namespace[name]


def test_a_function_without_source_warns_once_and_runs_unconverted():
    add_one = define("@ag.function\ndef add_one(x):\n    return x + 1\n", "add_one")
    with pytest.warns(ag.UnconvertedWarning) as record:
        assert add_one(rt.constant(1)).numpy() == 2
        assert add_one(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]  # a second trace
    assert len(record) == 1
    message = str(record[0].message)
    assert "cannot convert 'add_one': its source code is not available" in message
    assert "it runs unconverted: its tensor ops still trace into the graph" in message
    assert "ag.set_strict_conversion(True)" in message and "AUTOGRAPH_LITE_STRICT_CONVERSION=1" in message
    assert add_one.experimental_get_tracing_count() == 2


def test_unconverted_tensor_control_flow_is_the_clear_graph_error():
    relu = define("@ag.function\ndef relu(x):\n    if x > 0:\n        return x\n    return 0 * x\n", "relu")
    with pytest.warns(ag.UnconvertedWarning):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="as a Python bool is not allowed"):
            relu(rt.constant(1))
    assert ag.to_graph(relu.python_function) is relu.python_function  # unconverted, same Python behaviour
    assert relu.python_function(3) == 3 and relu.python_function(-3) == 0


def test_strict_conversion_makes_it_the_error():
    ag.set_strict_conversion(True)
    assert ag.strict_conversion() is True
    add_one = define("@ag.function\ndef add_one(x):\n    return x + 1\n", "add_one")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SourceUnavailableError, match="cannot convert 'add_one': its source code is not available"):
            add_one(rt.constant(1))


def run_python_c(code: str, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT, **env})


PYTHON_C = ("import autograph_lite as ag, runtime as rt\n"
            "f = ag.function(lambda x: x + 1)\n"
            "print(f(rt.constant(41)))\n")


# Python 3.13 keeps the -c program's text in linecache (under '<string>', for its tracebacks): its functions convert.
PYTHON_C_KEEPS_SOURCE = sys.version_info >= (3, 13)


def test_python_c_works_with_a_warning_or_converted_where_python_keeps_its_source():
    result = run_python_c(PYTHON_C + "print(ag.to_graph(f.python_function) is f.python_function)\n")
    assert result.returncode == 0, result.stderr
    if PYTHON_C_KEEPS_SOURCE:
        assert (result.stdout, result.stderr) == ("Tensor(42, shape=(), dtype=int32)\nFalse\n", "")
    else:
        assert result.stdout == "Tensor(42, shape=(), dtype=int32)\nTrue\n"
        assert result.stderr.count("UnconvertedWarning") == 1
        assert "cannot convert '<lambda>': its source code is not available" in result.stderr


# Code exec'd without a file name is compiled under '<string>' too: on 3.13 the -c program's line 1 (a lambda of the
# same arguments) was converted in its place, silently (the program printed 105).
PYTHON_C_EXEC = ("g = lambda x: x + 100\n"
                 "import autograph_lite as ag, runtime as rt\n"
                 "exec('g = lambda x: x * 2')\n"
                 "print(ag.function(g)(rt.constant(5)))\n")


def test_code_exec_d_in_python_c_runs_unconverted_with_a_warning():
    result = run_python_c(PYTHON_C_EXEC)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Tensor(10, shape=(), dtype=int32)\n"
    assert result.stderr.count("UnconvertedWarning") == 1
    assert "cannot convert '<lambda>': its " in result.stderr


def test_the_environment_variable_makes_python_c_strict():
    result = run_python_c(PYTHON_C_EXEC, AUTOGRAPH_LITE_STRICT_CONVERSION="1")
    assert result.returncode == 1
    expected = ("its code was compiled from a string without a file name of its own" if PYTHON_C_KEEPS_SOURCE
                else "its source code is not available")
    assert f"SourceUnavailableError: cannot convert '<lambda>': {expected}" in result.stderr


def test_ipython_cells_are_converted():
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ag.UnconvertedWarning)
        result = shell.run_cell(
            "import autograph_lite as ag, runtime as rt\n"
            "@ag.function\n"
            "def relu_plus_one(x):\n"
            "    if x > 0:\n"
            "        return x + 1\n"
            "    return x - 1\n"
            "outputs = (relu_plus_one(rt.constant(2)).numpy(), relu_plus_one(rt.constant(-2)).numpy())\n")
    assert result.success, result.error_in_exec
    assert shell.user_ns["outputs"] == (3, -3)
    code = shell.user_ns["ag"].to_code(shell.user_ns["relu_plus_one"].python_function)
    assert "ag__.if_stmt(x > 0, if_body, else_body" in code
    assert shell.user_ns["relu_plus_one"].experimental_get_tracing_count() == 1
