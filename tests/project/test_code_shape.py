"""Rules about the shape of the product code that a reader relies on, checked mechanically over both packages.

* No function takes more than 8 parameters (``self``/``cls`` not counted; ``*args`` and ``**kwargs`` count as
  one each): a longer list is a spec object waiting to be named (``LoopSpec``, ``IfSpec``), or two concepts.
* Container semantics (how Python lists, dicts and sets behave in staged code) have one room on each side:
  converters/containers/ decides the roles from the source, operators/containers/ acts on them. What can be
  stated mechanically of "no container rule outside them" is checked here.
"""
import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("autograph_lite", "runtime")
MAX_PARAMETERS = 8


def product_files():
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


@functools.lru_cache(maxsize=None)
def parsed(path: pathlib.Path) -> ast.AST:
    return ast.parse(path.read_text(), str(path))


def parameter_count(function: ast.AST) -> int:
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return len([name for name in names if name not in ("self", "cls")])


def test_no_function_takes_more_than_eight_parameters():
    found = []
    for path in product_files():
        for node in ast.walk(parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                count = parameter_count(node)
                if count > MAX_PARAMETERS:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {getattr(node, 'name', 'lambda')} "
                                 f"takes {count} parameters")
    assert found == [], "\n".join(found)


def test_the_parameter_count_counts_what_a_caller_passes():
    (method,) = ast.parse("class C:\n    def m(self, a, /, b, *rest, c, **options): pass").body[0].body
    assert parameter_count(method) == 5


CONTAINER_ROOMS = ("autograph_lite/converters/containers/", "autograph_lite/operators/containers/")
CONTAINER_ROLES = {"ALIASED", "BORROWED", "PICKED"}          # contract.py declares them
CONTAINER_STACKS = {"loop_containers", "if_lists"}           # operators/staging.py declares them
PYTHON_CONTAINERS = {"list", "dict", "set"}


def container_rule_breaches(path: pathlib.Path, tree: ast.AST):
    """(line, what) for each container rule ``tree`` (the module at ``path``, outside the rooms) states."""
    where = path.relative_to(ROOT).as_posix()
    for node in ast.walk(tree):
        names = ([node.id] if isinstance(node, ast.Name) else [node.attr] if isinstance(node, ast.Attribute)
                 else [alias.name for alias in node.names] if isinstance(node, ast.ImportFrom) else [])
        if where != "autograph_lite/contract.py" and CONTAINER_ROLES & set(names):
            yield node.lineno, f"names the container role {sorted(CONTAINER_ROLES & set(names))[0]}"
        if where != "autograph_lite/operators/staging.py" and isinstance(node, ast.Attribute) \
                and node.attr in CONTAINER_STACKS:
            yield node.lineno, f"touches the staged constructs' containers (staging.{node.attr})"
        if (where.startswith("autograph_lite/operators/") and isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Call) and getattr(node.left.func, "id", None) == "type"
                and any(isinstance(c, ast.Name) and c.id in PYTHON_CONTAINERS
                        or isinstance(c, ast.Tuple) and any(getattr(e, "id", None) in PYTHON_CONTAINERS for e in c.elts)
                        for c in node.comparators)):
            yield node.lineno, "tells a Python list, dict or set by its type"
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "setanno" and len(node.args) > 1
                and getattr(node.args[1], "attr", None) == "CONTAINER_ROLES"):
            yield node.lineno, "writes the container roles annotation"


def test_no_container_rule_outside_the_two_rooms():
    found = []
    for path in product_files():
        if path.relative_to(ROOT).as_posix().startswith(CONTAINER_ROOMS):
            continue
        found += [f"{path.relative_to(ROOT)}:{line} {what}"
                  for line, what in container_rule_breaches(path, parsed(path))]
    assert found == [], "\n".join(found)


def test_the_container_rule_check_sees_each_kind_of_rule():
    source = ("from autograph_lite.contract import PICKED\n"
              "if type(value) in (list, set):\n    staging.if_lists.append(1)\n"
              "anno.setanno(node, anno.CONTAINER_ROLES, roles)\n")
    path = ROOT / "autograph_lite" / "operators" / "staged_if.py"
    assert sorted(container_rule_breaches(path, ast.parse(source))) == [
        (1, "names the container role PICKED"), (2, "tells a Python list, dict or set by its type"),
        (3, "touches the staged constructs' containers (staging.if_lists)"),
        (4, "writes the container roles annotation")]


# Module-level state of the operators that changes while programs run, each with why it is not per trace.
OPERATOR_MODULE_STATE = {
    ("autograph_lite/operators/forms.py", "_always_staged"): "a switch for tests (staged_form_always)",
    ("autograph_lite/operators/forms.py", "_namespaces"): "the ag__ namespaces staged_form_always switches (set at import)",
    ("autograph_lite/operators/forms.py", "_graph_on_some_thread"):
        "whether any thread builds a graph (process-wide by design: the plain form's cheap first question)",
    ("autograph_lite/operators/staging.py", "carrying_anywhere"):
        "how many staged constructs carry containers on any thread (process-wide by design: a cheap 'none')",
    ("autograph_lite/operators/patterns.py", "_cache"): "a memo of parsed match patterns, a pure function of the key",
    ("autograph_lite/operators/containers/data_structures.py", "method_target"):
        "a hook calls.py sets once at import (the operators cannot import what converts functions)",
}
_MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary",
                  "WeakSet", "deque"}


def module_state(tree: ast.Module):
    """(name, line) for each module-level name bound to a mutable container, other than an UPPER_CASE table."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        value = getattr(node, "value", None)
        mutable = isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", None)) in _MUTABLE_CALLS)
        for target in targets:
            if mutable and isinstance(target, ast.Name) and not (target.id.strip("_").isupper()
                                                                 or target.id.startswith("__")):
                yield target.id, node.lineno


def test_the_operators_keep_no_state_in_their_modules():
    # What a staged construct knows while it is traced lives in operators/staging.py's thread-local object:
    # two threads may trace at once (tests/operators/test_concurrent_tracing.py).
    found = []
    for path in sorted((ROOT / "autograph_lite" / "operators").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        found += [f"{where}:{line} {name}" for name, line in module_state(parsed(path))
                  if (where, name) not in OPERATOR_MODULE_STATE]
    assert found == [], "\n".join(found)
    assert list(module_state(ast.parse("_seen = []\nTABLE = {}\n_stack: list = list()"))) == [("_seen", 1), ("_stack", 3)]
