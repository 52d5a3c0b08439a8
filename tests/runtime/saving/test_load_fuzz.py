"""A seeded fuzz test of rt.load: mutations of saved functions (If, While, Variables, tensor lists, a
gradient) as an attacker would make them -- truncation, byte flips, field edits, type swaps, tensor
references, huge sizes, deep nesting, non-regular files, hostile strings.

Each outcome must be one of

- ``LoadError``, within ``LOAD_SECONDS``;
- a load whose calls give the original's numbers (bit for bit, same dtypes and shapes);
- a load of a valid but edited graph (a constant, an axis, a flag changed): its calls give other numbers or
  a clean library error (``InvalidArgumentError``; ``TypeError`` when the saved signature no longer
  accepts the arguments), or run past ``CALL_SECONDS`` (an edited loop bound: loading promises nothing
  about what a valid graph computes; see docs/SAVING.md);

and never another exception, a hang in ``rt.load``, memory growth above ``MAX_RSS_GROWTH``, or executed
code (every hostile string tries to create a marker file).

CI runs ``DEFAULT_MUTATIONS`` (800; about 20 s on two cores). A larger run is one command, which prints the outcome table:

    PYTHONPATH=$PWD python tests/runtime/saving/test_load_fuzz.py --mutations 20000 --seed 7
"""
import argparse
import collections
import contextlib
import io
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import autograph_lite as ag
import runtime as rt
from runtime.core.errors import InvalidArgumentError, LoadError
from runtime.saving.serialize import CONSTANTS_FILE, GRAPH_FILE

DEFAULT_MUTATIONS = int(os.environ.get("AUTOGRAPH_LITE_LOAD_FUZZ_MUTATIONS", "800"))
LOAD_SECONDS = 1.0
CALL_SECONDS = 1.0
MAX_RSS_GROWTH = 1 << 30
MARKER = "fuzz_marker_executed"
PAYLOAD = f"__import__('os').system('touch {MARKER}')"


# --- the saved functions ----------------------------------------------------------------------------
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def dense(x, w):
    y = rt.matmul(x, w) + rt.constant([0.5, -0.5])
    return rt.reduce_sum(rt.maximum(y, 0.0), axis=1), rt.cumsum(y, axis=0, reverse=True)


def running_squares(n):
    array = rt.TensorArray(rt.float32, size=n)
    for i in rt.range(n):
        array = array.write(i, rt.cast(i * i, rt.float32))
    return array.stack()


def gradient_of_cube(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x * x * x)
    return tape.gradient(y, x)


def _corpus():
    """(name, function, argument tuples): traced on every argument tuple, saved, called with each again."""
    counter = rt.Variable(np.float32(1.5))

    def accumulate(x):
        counter.assign_add(rt.reduce_sum(x))
        return counter.read_value() * 2.0

    return [
        ("collatz", ag.function(collatz), [(rt.constant(6),), (rt.constant(27),)]),
        ("dense", ag.function(dense), [(rt.constant([[1.0, 2.0], [3.0, -4.0]]), rt.constant([[1.0, 0.0], [0.5, 2.0]]))]),
        ("tensor_array", ag.function(running_squares), [(rt.constant(5),)]),
        ("gradient", ag.function(gradient_of_cube), [(rt.constant([1.0, -2.0, 0.5]),)]),
        ("variable", ag.function(accumulate), [(rt.constant([1.0, 2.0]),)]),
    ]


class Artifact:
    """A saved function's files and the numbers its calls gave before saving."""

    def __init__(self, name, function, calls, directory: Path):
        self.name, self.calls = name, calls
        for args in calls:
            function(*args)
        rt.save(function, directory)
        self.graph = (directory / GRAPH_FILE).read_bytes()
        self.constants = (directory / CONSTANTS_FILE).read_bytes()
        self.expected = self.run(rt.load(directory))

    def run(self, loaded):
        # a fresh load each time: Variables start from their saved values, so calls are comparable
        return [[np.asarray(t) for t in _flatten(loaded(*args))] for args in self.calls]


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flatten(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _flatten(value[key])]
    return [value]


def _same(a, b) -> bool:
    return len(a) == len(b) and all(
        len(x) == len(y) and all(p.dtype == q.dtype and p.shape == q.shape and np.array_equal(p, q, equal_nan=p.dtype.kind == "f")
                                 for p, q in zip(x, y)) for x, y in zip(a, b))


# --- mutations ----------------------------------------------------------------------------------------
def _paths(node, path=()):
    """Every (path, value) inside a JSON document."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, path + (index,))


def _set(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _delete(document, path):
    node = document
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]


_DEEP = "deep nesting goes here"


def _deep_text(depth: int) -> str:
    """JSON of a list nested ``depth`` deep (json.dumps itself cannot write one 5000 deep)."""
    return "[" * depth + "0" + "]" * depth


def _replacement(rng, old):
    """A value to put where ``old`` was: a type swap, a boundary number, a hostile string, a reference..."""
    choices = [
        lambda: PAYLOAD, lambda: f"x:0);{PAYLOAD}#", lambda: {"tuple": [PAYLOAD]}, lambda: {"dtype": PAYLOAD},
        lambda: None, lambda: True, lambda: 0, lambda: -1, lambda: 1.5, lambda: 2 ** 63, lambda: 10 ** 12,
        lambda: -(2 ** 31), lambda: [], lambda: {}, lambda: "", lambda: "nowhere:0", lambda: "x:999",
        lambda: {"float": "nan"}, lambda: {"ndarray": "a999"}, lambda: {"variable": 7}, lambda: {"output": 99},
        lambda: {"graph": {"name": "g", "ops": []}}, lambda: [10 ** 12, 10 ** 12], lambda: _DEEP,
        lambda: {"tensor_spec": {"dtype": "float32", "shape": [10 ** 12]}}, lambda: {"dtype": "object"},
    ]
    if isinstance(old, bool):
        choices += [lambda: not old, lambda: int(old), lambda: str(old)]
    elif isinstance(old, int):
        choices += [lambda: old + 1, lambda: old - 1, lambda: float(old), lambda: str(old), lambda: [old], lambda: -old]
    elif isinstance(old, float):
        choices += [lambda: old * 2, lambda: int(old), lambda: str(old)]
    elif isinstance(old, str):
        choices += [lambda: old + "x", lambda: old[:-1], lambda: old.upper(), lambda: old + "\x00", lambda: [old]]
    elif isinstance(old, list):
        choices += [lambda: old[:-1], lambda: old + old[-1:], lambda: list(reversed(old)), lambda: {"list": old}]
    elif isinstance(old, dict):
        choices += [lambda: {k: v for k, v in list(old.items())[:-1]}, lambda: list(old.values())]
    return rng.choice(choices)()


def _edit_json(rng, graph_bytes):
    document = json.loads(graph_bytes)
    paths = [p for p, _ in _paths(document) if p]
    kind = rng.choice(["replace", "replace", "replace", "delete", "add_key", "swap_refs"])
    path = rng.choice(paths)
    if kind == "replace":
        old = document
        for key in path:
            old = old[key]
        _set(document, path, _replacement(rng, old))
    elif kind == "delete":
        _delete(document, path)
    elif kind == "add_key":
        dicts = [p for p, v in _paths(document) if isinstance(v, dict)]
        target = document
        for key in rng.choice(dicts):
            target = target[key]
        target[rng.choice([PAYLOAD, f"reverse={PAYLOAD}==0,zz", "axis", "extra", "__class__"])] = \
            _replacement(rng, None)
    else:  # point a tensor reference somewhere else: another op, a later op, itself
        refs = [p for p, v in _paths(document) if isinstance(v, str) and ":" in v and p and p[-2:-1] != ("name",)]
        if refs:
            names = [v for p, v in _paths(document) if p and p[-1] == "name" and isinstance(v, str)]
            _set(document, rng.choice(refs), f"{rng.choice(names)}:{rng.choice([0, 0, 1, 5])}")
    text = json.dumps(document).replace(json.dumps(_DEEP), _deep_text(rng.choice([50, 5000])))
    return kind, text.encode()


def mutate(rng, artifact: Artifact, directory: Path) -> str:
    """Write a mutated copy of ``artifact`` into ``directory``; returns the mutation's kind."""
    graph, constants = artifact.graph, artifact.constants
    kind = rng.choice(["truncate", "flip", "json", "json", "json", "json", "json", "special"])
    target = rng.choice(["graph", "constants"])
    if kind == "truncate":
        if target == "graph":
            graph = graph[:rng.randrange(len(graph))]
        else:
            constants = constants[:rng.randrange(len(constants))]
        kind = f"truncate {target}"
    elif kind == "flip":
        data = bytearray(graph if target == "graph" else constants)
        for _ in range(rng.choice([1, 1, 2, 8])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        graph, constants = (bytes(data), constants) if target == "graph" else (graph, bytes(data))
        kind = f"byte flip {target}"
    elif kind == "json":
        edit, graph = _edit_json(rng, graph)
        kind = f"json {edit}"
    (directory / GRAPH_FILE).write_bytes(graph)
    (directory / CONSTANTS_FILE).write_bytes(constants)
    if kind == "special":
        kind = rng.choice(["fifo", "directory", "symlink out", "huge npy header", "bomb", "missing file"])
        victim = directory / rng.choice([GRAPH_FILE, CONSTANTS_FILE])
        if kind in ("fifo", "directory", "symlink out", "missing file"):
            victim.unlink()
            if kind == "fifo":
                os.mkfifo(victim)
            elif kind == "directory":
                victim.mkdir()
            elif kind == "symlink out":
                outside = directory.parent / f"outside_{directory.name}"
                outside.write_bytes(artifact.graph if victim.name == GRAPH_FILE else artifact.constants)
                victim.symlink_to(outside)
        else:
            _overwrite_first_array(directory / CONSTANTS_FILE, kind)
        kind = f"file: {kind}"
    return kind


def _overwrite_first_array(path: Path, kind: str) -> None:
    """Replace the archive's first array by a huge header or a highly compressible big array (same key)."""
    import zipfile
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        members = {name: archive.read(name) for name in names}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for index, name in enumerate(names):
            if index == 0 and kind == "huge npy header":
                with archive.open(name, "w", force_zip64=True) as member:
                    np.lib.format.write_array_header_1_0(
                        member, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 6, 10 ** 6)})
                    member.write(b"\0" * 64)
            elif index == 0:  # 96 MiB of zeros: about 100 KB compressed
                with archive.open(name, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.zeros(96 << 20, np.uint8))
            else:
                archive.writestr(name, members[name])


# --- running one mutation -----------------------------------------------------------------------------
class _TimeLimit(BaseException):
    pass


@contextlib.contextmanager
def time_limit(seconds: float):
    def interrupt(signum, frame):
        raise _TimeLimit()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


LOAD_ERROR_SECONDS = []  # how long each LoadError took (the table's footer)


def outcome_of(artifact: Artifact, directory: Path) -> str:
    """What loading and calling the (mutated) files in ``directory`` did; "FAIL: ..." if not allowed."""
    started = time.perf_counter()
    try:
        with time_limit(LOAD_SECONDS * 5):
            loaded = rt.load(directory)
    except LoadError:
        elapsed = time.perf_counter() - started
        LOAD_ERROR_SECONDS.append(elapsed)
        return "LoadError" if elapsed < LOAD_SECONDS else f"FAIL: LoadError after {elapsed:.2f} s"
    except _TimeLimit:
        return "FAIL: rt.load hung"
    except Exception as error:  # noqa: BLE001 - what the fuzz test is looking for
        return f"FAIL: rt.load raised {type(error).__name__}: {str(error)[:200]}"
    try:
        with time_limit(CALL_SECONDS), contextlib.redirect_stdout(io.StringIO()):
            got = artifact.run(loaded)
    except _TimeLimit:
        return "loads; a call runs past the time limit (valid edit)"
    except InvalidArgumentError:
        return "loads; a call raises InvalidArgumentError (valid edit)"
    except TypeError as error:
        if "no saved signature matches" in str(error):
            return "loads; the edited signature refuses the call"
        return f"FAIL: a call raised TypeError: {str(error)[:200]}"
    except Exception as error:  # noqa: BLE001
        return f"FAIL: a call raised {type(error).__name__}: {str(error)[:200]}"
    return "loads; same numbers" if _same(got, artifact.expected) else "loads; other numbers (valid edit)"


def fuzz(mutations: int, seed: int, work: Path):
    """Run ``mutations`` seeded mutations; returns ({(mutation kind, outcome): count}, [failures])."""
    work = Path(work)
    os.chdir(work)  # the marker file would appear here
    artifacts = []
    for name, function, calls in _corpus():
        artifacts.append(Artifact(name, function, calls, work / f"original_{name}"))
    rng = random.Random(seed)
    table = collections.Counter()
    failures = []
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for number in range(mutations):
        artifact = rng.choice(artifacts)
        directory = work / f"m{number}"
        directory.mkdir()
        kind = mutate(rng, artifact, directory)
        outcome = outcome_of(artifact, directory)
        if os.path.exists(MARKER):
            outcome = "FAIL: executed code from the file"
            os.remove(MARKER)
        table[(kind, outcome)] += 1
        if outcome.startswith("FAIL"):
            failures.append((number, artifact.name, kind, outcome))
        shutil.rmtree(directory, ignore_errors=True)
        for leftover in work.glob(f"outside_m{number}"):
            leftover.unlink()
    growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before
    if growth > MAX_RSS_GROWTH:
        failures.append(("all", "", "memory", f"FAIL: peak memory grew by {growth >> 20} MiB"))
    return table, failures


def format_table(table) -> str:
    by_outcome = collections.Counter()
    for (_, outcome), count in table.items():
        by_outcome[outcome] += count
    lines = [f"{'outcome':60} {'count':>7}"] + [f"{o:60} {c:7d}" for o, c in by_outcome.most_common()]
    lines += ["", f"{'mutation':28} {'outcome':60} {'count':>7}"]
    lines += [f"{k:28} {o:60} {c:7d}" for (k, o), c in sorted(table.items())]
    return "\n".join(lines)


def test_load_fuzz(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table, failures = fuzz(DEFAULT_MUTATIONS, seed=21, work=tmp_path)
    print(format_table(table))
    assert not failures, "\n".join(map(str, failures[:20]))
    outcomes = {outcome for _, outcome in table}
    assert "LoadError" in outcomes and "loads; same numbers" in outcomes


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutations", type=int, default=DEFAULT_MUTATIONS)
    parser.add_argument("--seed", type=int, default=21)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        result, problems = fuzz(options.mutations, options.seed, Path(scratch))
        print(format_table(result))
        print(f"\n{options.mutations} mutations in {time.perf_counter() - started:.1f} s; {len(problems)} failure(s); "
              f"LoadError in {1e3 * np.median(LOAD_ERROR_SECONDS):.1f} ms median, "
              f"{1e3 * max(LOAD_ERROR_SECONDS):.0f} ms at most")
        for problem in problems[:50]:
            print(problem)
    sys.exit(1 if problems else 0)
