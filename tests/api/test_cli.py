"""The autograph-lite command line: to-code, graph, bench, and one-line errors with exit code 2."""
import io
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite.cli import main, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SIMPLE_RELU = f"{EXAMPLES / 'simple_relu.py'}:simple_relu"
REPO_ROOT = str(EXAMPLES.parent)
POWER = f"{EXAMPLES / 'power_speedup.py'}:power"


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def load_example(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def user_file(tmp_path):
    def write(source, name="user_module.py"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(source))
        return path
    return write


# --- to-code ---------------------------------------------------------------------------------------
def test_to_code_prints_the_generated_code():
    code, out, err = cli("to-code", SIMPLE_RELU)
    assert (code, err) == (0, "")
    assert out == ag.to_code(load_example("simple_relu").simple_relu).rstrip("\n") + "\n"
    assert "ag__.if_stmt(ag__.converted_call(rt.greater, (x, 0), None), if_body, else_body," in out


def test_to_code_annotate_points_at_the_users_lines():
    code, out, _ = cli("to-code", SIMPLE_RELU, "--annotate")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"# converted from {EXAMPLES / 'simple_relu.py'}; '# line N' comments point into it"
    assert lines.count("    # line 10: if rt.greater(x, 0):") >= 2
    assert "        # line 11: return x" in lines and "        # line 13: return 0" in lines
    generated = [line for line in lines if not line.lstrip().startswith("# ")]
    assert "\n".join(generated) + "\n" == cli("to-code", SIMPLE_RELU)[1]


def test_to_code_form_plain_prints_the_plain_form():
    code, out, err = cli("to-code", SIMPLE_RELU, "--form", "plain")
    assert (code, err) == (0, "")
    assert out == ("def simple_relu(x):\n"
                   "    if ag__.needs_staged_form():\n"
                   "        return simple_relu_staged(x)\n"
                   "    if ag__.call_target(rt.greater)(x, 0):\n"
                   "        return x\n"
                   "    else:\n"
                   "        return 0\n")
    code, out, _ = cli("to-code", SIMPLE_RELU, "--form", "plain", "--annotate")
    assert code == 0
    assert "    # line 10: if rt.greater(x, 0):\n    if ag__.call_target(rt.greater)(x, 0):\n" in out
    assert "        return simple_relu_staged(x)\n    # line 10" in out   # the dispatch has no user line


def test_to_code_of_a_decorated_function():
    code, out, _ = cli("to-code", f"{EXAMPLES / 'polymorphism.py'}:my_relu")
    assert code == 0 and out == "def my_relu(x):\n    return ag__.converted_call(rt.maximum, (0.0, x), None)\n"


# --- graph -----------------------------------------------------------------------------------------
def test_graph_prints_the_graph_def_text():
    code, out, err = cli("graph", f"{EXAMPLES / 'get_mse.py'}:get_MSE", "--spec", "int32[5]", "--spec", "int32[5]")
    assert code == 0
    assert err == "Calculating MSE!\n"  # the function's own print goes to stderr, not into the graph text
    get_mse = load_example("get_mse").get_MSE
    spec = rt.TensorSpec([5], rt.int32)
    assert out == str(get_mse.get_concrete_function(spec, spec).graph.as_graph_def()).rstrip("\n") + "\n"
    assert 'op: "Mean"' in out


def test_graph_dot_with_unknown_dims():
    code, out, _ = cli("graph", SIMPLE_RELU, "--spec", "int32[]", "--dot")
    assert code == 0 and out.startswith('digraph "simple_relu" {')
    assert "x\\nPlaceholder\\n→ int32[]" in out and "subgraph cluster_1" in out
    code, out, _ = cli("graph", f"{EXAMPLES / 'polymorphism.py'}:my_relu", "--spec", "float32[None,3]", "--dot")
    assert "Maximum\\n→ float32[None,3]\\nx = 0." in out


def test_graph_with_a_python_literal_argument():
    code, out, _ = cli("graph", POWER, "--spec", "int32[10,10]", "--spec", "3")
    assert code == 0 and out.count('op: "MatMul"') == 3


# --- bench -----------------------------------------------------------------------------------------
def test_bench_reports_both_timings_and_the_ratio():
    code, out, err = cli("bench", POWER, "--spec", "int32[10,10]", "--spec", "10", "--number", "20")
    assert code == 0
    lines = out.splitlines()
    assert re.fullmatch(r"first call \(trace \+ run\): [\d.]+ ms", lines[0])
    assert re.fullmatch(r"eager: [\d.]+ us/call   graph: [\d.]+ us/call   \(20 calls each\)", lines[1])
    assert re.fullmatch(r"graph is [\d.]+x (faster|slower) than eager", lines[2])
    assert err == f"eager  [{'#' * 30}] 20/20\ngraph  [{'#' * 30}] 20/20\n"  # not a TTY: finished bars only


def test_progress_bar_redraws_in_place_on_a_terminal():
    from autograph_lite.cli import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    stream = Terminal()
    bar = ProgressBar("eager", 4, stream, width=4)
    for done in range(1, 5):
        bar.update(done)
    assert stream.getvalue() == ("\reager  [#...] 1/4\reager  [##..] 2/4\reager  [###.] 3/4"
                                 "\reager  [####] 4/4\n")


# --- spec parsing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("float32[None,3]", rt.TensorSpec([None, 3], rt.float32)),
    ("int32[]", rt.TensorSpec([], rt.int32)),
    (" bool [ ? , 2 ] ", rt.TensorSpec([None, 2], rt.bool)),
    ("100", 100), ("[1, -1]", [1, -1]), ("'relu'", "relu"),
])
def test_parse_spec(text, expected):
    assert parse_spec(text) == expected


# --- errors: one line on stderr, exit code 2, never a traceback -----------------------------------
def assert_usage_error(result, message):
    code, out, err = result
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("autograph-lite: error: ")
    assert message in err, err


def test_missing_file():
    assert_usage_error(cli("graph", "no/such/file.py:f", "--spec", "int32[]"), "no such file: no/such/file.py")


def test_target_without_function():
    assert_usage_error(cli("to-code", str(EXAMPLES / "simple_relu.py")), "expected FILE.py:FUNCTION, got")


def test_missing_function_lists_what_exists():
    assert_usage_error(cli("to-code", f"{EXAMPLES / 'simple_relu.py'}:simple_reul"),
                       "defines no function 'simple_reul'; it defines: graph_simple_relu, main, simple_relu")


def test_attribute_that_is_not_callable(user_file):
    path = user_file("LIMIT = 3\n")
    assert_usage_error(cli("to-code", f"{path}:LIMIT"), f"{path}:LIMIT is a int, not a function")


@pytest.mark.parametrize("spec, message", [
    ("flot32[3]", "bad --spec 'flot32[3]': 'flot32' is not a dtype; use one of bool, float16"),
    ("float32[3,x]", "bad --spec 'float32[3,x]': dimension 'x' is not a size; use a number or None"),
    ("float32[3", "bad --spec 'float32[3': expected DTYPE[DIMS] such as 'float32[None,3]'"),
    ("__import__('os')", "bad --spec \"__import__('os')\": expected DTYPE[DIMS]"),
])
def test_bad_specs(spec, message):
    assert_usage_error(cli("graph", SIMPLE_RELU, "--spec", spec), message)


def test_wrong_number_of_specs():
    assert_usage_error(cli("graph", SIMPLE_RELU), "simple_relu(x) cannot be called with 0 argument(s); give one "
                                                  "--spec per argument")
    assert_usage_error(cli("bench", POWER, "--spec", "int32[2,2]"), "power(x, y) cannot be called with 1")


def test_syntax_error_in_the_users_file(user_file):
    path = user_file("def f(x):\n    return x +\n")
    assert_usage_error(cli("to-code", f"{path}:f"), f"{path}, line 2: syntax error: invalid syntax")


def test_exception_while_importing_the_users_file(user_file):
    path = user_file("import no_such_module_anywhere\n")
    assert_usage_error(cli("to-code", f"{path}:f"), "importing")
    assert_usage_error(cli("to-code", f"{path}:f"), "ModuleNotFoundError: No module named 'no_such_module_anywhere'")


def test_bad_number_and_unknown_command():
    assert_usage_error(cli("bench", POWER, "--spec", "int32[2,2]", "--spec", "2", "--number", "0"),
                       "--number must be at least 1, got 0")
    assert_usage_error(cli("frobnicate"), "invalid choice: 'frobnicate'")
    assert_usage_error(cli("graph"), "the following arguments are required: FILE.py:FUNC")


def test_failure_in_the_users_code_is_reported_without_a_traceback(user_file):
    path = user_file("""
        import runtime as rt

        def mismatch(x):
            return rt.matmul(x, x)
    """)
    code, out, err = cli("graph", f"{path}:mismatch", "--spec", "float32[2,3]")
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.startswith("autograph-lite: ValueError: MatMul (MatMul): inner dimensions differ: (2, 3) @ (2, 3)")
    assert f'File "{path}", line 5, in mismatch\n      return rt.matmul(x, x)' in err  # the user's line


# --- the installed entry points --------------------------------------------------------------------
@pytest.mark.parametrize("command", [[sys.executable, "-m", "autograph_lite"],
                                     [os.path.join(os.path.dirname(sys.executable), "autograph-lite")]])
def test_entry_points(command):
    if not os.path.exists(command[0]):
        pytest.skip("the autograph-lite script is not installed in this environment")
    # The installed script must import this checkout (not wherever the package was installed from).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([REPO_ROOT, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(command + ["to-code", SIMPLE_RELU], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0 and result.stdout == cli("to-code", SIMPLE_RELU)[1]
    result = subprocess.run(command + ["graph", "missing.py:f"], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 2 and result.stderr == "autograph-lite: error: no such file: missing.py\n"


def _annotations_match_their_lines(out, path):
    """Every '# line N: text' comment quotes line N of the file, and the first generated line below
    it with the same text as line N (a statement kept as written) is the very next one."""
    source = Path(path).read_text().splitlines()
    lines = out.splitlines()
    checked = 0
    for index, line in enumerate(lines):
        match = re.match(r"\s*# line (\d+): (.*)$", line)
        if match is None:
            continue
        number, text = int(match.group(1)), match.group(2)
        assert source[number - 1].strip() == text, (number, text)
        if lines[index + 1].strip() == text:
            checked += 1
    return checked


@pytest.mark.parametrize("nested", [False, True])
def test_to_code_annotate_comments_sit_on_the_line_they_name(nested, user_file):
    # A top-level function is compiled under a two-line header, a closure under a one-line one.
    path = user_file("""
        def make(scale):
            def inner(x):
                y = x * scale
                if y > 0:
                    y = y + 1
                z = y - 2
                return z
            return inner

        def top(x):
            y = x * 2
            if y > 0:
                y = y + 1
            z = y - 2
            return z
    """)
    target = f"{path}:make" if nested else f"{path}:top"
    if nested:
        import importlib.util
        spec = importlib.util.spec_from_file_location("annotate_nested", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        from autograph_lite.cli import annotated_code
        out = annotated_code(module.make(3))
    else:
        code, out, _ = cli("to-code", target, "--annotate")
        assert code == 0
    assert _annotations_match_their_lines(out, path) >= 3   # y = ..., y = y + 1, z = y - 2
