"""The layer map (docs/INTERNALS.md) holds: every import of ours goes down a layer or stays inside its own
room, and no two modules import each other, directly or around a cycle.

Imports are read from the source (module level and inside functions alike), so a lazy import does not
hide an arrow that goes the wrong way.
"""
import ast
import pathlib
from typing import Dict, List, Set, Tuple

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Rooms of runtime, lowest first: a room imports only rooms before it (and itself).
RUNTIME_LAYERS = ["core", "ops", "passes", "backends", "tracing", "saving"]

# Rooms of autograph_lite and what each may import besides itself. The conversion layer (api,
# conversion, calls, cli, error_locations) sits on top and may import everything.
AUTOGRAPH_ALLOWED = {
    "pyct": set(),
    "contract": set(),
    "converters": {"pyct", "contract"},
    "operators": {"contract", "runtime"},
}


def modules(package: str) -> Dict[str, pathlib.Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


ALL_MODULES = {**modules("runtime"), **modules("autograph_lite")}


def imports_of(name: str, path: pathlib.Path) -> List[Tuple[str, int]]:
    """(module imported, line) for every import of ours in the file, resolved to a module name."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from pkg import submodule` depends on the submodule; `from pkg import name` on pkg.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in ALL_MODULES else base
                       for alias in node.names]
        else:
            continue
        found += [(target, node.lineno) for target in targets
                  if target.split(".")[0] in ("runtime", "autograph_lite")]
    return found


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def runtime_violation(importer: str, imported: str) -> str:
    if imported.startswith("autograph_lite"):
        return "runtime never imports autograph_lite"
    if importer == "runtime" or imported == "runtime" and importer == "runtime":
        return ""
    if imported == "runtime":
        return "import the module that defines the name, not the runtime package"
    mine, theirs = room(importer), room(imported)
    if mine not in RUNTIME_LAYERS or theirs not in RUNTIME_LAYERS:
        return f"every runtime module belongs to a room of {RUNTIME_LAYERS}"
    if RUNTIME_LAYERS.index(theirs) > RUNTIME_LAYERS.index(mine):
        return f"{mine} is below {theirs}"
    return ""


def autograph_violation(importer: str, imported: str) -> str:
    mine = room(importer)
    if room(imported) == "testing" and mine != "testing" and importer != "autograph_lite":
        # The toolkit for users' tests sits on top: it imports everything, nothing imports it (the package
        # only makes ``ag.testing`` importable on first use).
        return "nothing imports autograph_lite.testing"
    if mine not in AUTOGRAPH_ALLOWED:
        return ""  # the conversion layer on top
    theirs = "runtime" if imported.startswith("runtime") else room(imported)
    if theirs == mine or theirs in AUTOGRAPH_ALLOWED[mine]:
        return ""
    return f"{mine} may import only {sorted(AUTOGRAPH_ALLOWED[mine] | {mine})}"


def test_every_import_goes_down_the_layer_map():
    problems = []
    for name, path in ALL_MODULES.items():
        check = runtime_violation if name.startswith("runtime") else autograph_violation
        for imported, line in imports_of(name, path):
            why = check(name, imported)
            if why:
                problems.append(f"{path.relative_to(ROOT)}:{line}: {name} imports {imported} ({why})")
    assert not problems, "\n".join(problems)


def import_cycles() -> List[List[str]]:
    graph = {name: {m for m, _ in imports_of(name, path) if m in ALL_MODULES and m != name}
             for name, path in ALL_MODULES.items()}
    # A package's __init__ re-exports its submodules: that edge is how a package is built, not a
    # dependency a submodule can lean on, so only the submodule -> package edges are kept.
    for name in graph:
        graph[name] = {m for m in graph[name] if not m.startswith(name + ".")}
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    cycles = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_import_cycles():
    assert import_cycles() == []


@pytest.mark.parametrize("importer, imported, allowed", [
    ("runtime.ops.math_ops", "runtime.core.tensor", True),
    ("runtime.core.graph", "runtime.backends.dot", False),
    ("runtime.tracing.function", "runtime.autograph_lite", False),
    ("autograph_lite.converters.control_flow", "autograph_lite.pyct.templates", True),
    ("autograph_lite.converters.control_flow", "autograph_lite.operators.staged_if", False),
    ("autograph_lite.operators.staged_if", "runtime.core.nest", True),
    ("autograph_lite.pyct.parser", "autograph_lite.conversion", False),
    ("autograph_lite.testing.graphs", "autograph_lite.api", True),
    ("autograph_lite.api", "autograph_lite.testing.snapshots", False),
])
def test_the_checker_itself(importer, imported, allowed):
    check = runtime_violation if importer.startswith("runtime") else autograph_violation
    assert (check(importer, imported) == "") is allowed
