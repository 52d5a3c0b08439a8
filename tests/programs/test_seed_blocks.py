"""Every code block of the seed documents, run with one changed import: ``import tensorflow as tf`` ->
``from autograph_lite import tf``.

The blocks and the output each seed shows are checked in (tests/data/seed_blocks.txt, with the source
file and line of each) so this always runs; when the seeds themselves are present (../shared/seeds in
the project's workspace) a test also checks that the data holds every block of them, verbatim.
Blocks of one seed run in order in one namespace, like notebook cells; a cell's last expression is
displayed as a notebook would. Each block's check says what is compared (see the data file's header).
"""
import ast
import contextlib
import io
import linecache
import pathlib
import re
from typing import Dict, List, NamedTuple

import pytest

import autograph_lite as ag

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "seed_blocks.txt"
SEED_DIRS = [ROOT.parent / "shared" / "seeds", ROOT.parent.parent / "shared" / "seeds"]


class Block(NamedTuple):
    id: str
    source: str
    check: str
    code: str
    expected: str


def load_blocks() -> List[Block]:
    blocks, current = [], None
    for line in DATA.read_text(encoding="utf-8").split("\n"):
        if line.startswith("=== "):
            block_id, source, check = (part.strip() for part in line[4:].split("|", 2))
            current = {"id": block_id, "source": source, "check": check, "code": [], "expected": [], "part": "code"}
            blocks.append(current)
        elif current is not None and line == "--- expected":
            current["part"] = "expected"
        elif current is not None:
            current[current["part"]].append(line)
    return [Block(b["id"], b["source"], b["check"], "\n".join(b["code"]).strip("\n"),
                  "\n".join(b["expected"]).strip("\n")) for b in blocks]


BLOCKS = load_blocks()
SEEDS = sorted({b.id.split("-")[0] for b in BLOCKS})


def as_our_output(tensorflow_text: str) -> str:
    """TensorFlow's tensor texts as ours: ``tf.Tensor(...)`` and the ``<tf.Tensor: ..., numpy=V>`` display."""
    text = re.sub(r"<tf\.Tensor: shape=(\([^)]*\)), dtype=(\w+), numpy=([^>]*)>", r"Tensor(\3, shape=\1, dtype=\2)",
                  tensorflow_text)
    return text.replace("tf.Tensor(", "Tensor(")


def normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def ported(code: str) -> str:
    return code.replace("import tensorflow as tf", "from autograph_lite import tf")


def run_block(block: Block, namespace: dict) -> str:
    """Run one cell like a notebook: source in linecache (so functions convert), last expression shown."""
    code = ported(block.code)
    filename = f"<seed block {block.id}>"
    linecache.cache[filename] = (len(code), None, [line + "\n" for line in code.split("\n")], filename)
    tree = ast.parse(code, filename)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(tree, filename, "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
            if value is not None:
                print(repr(value))
    return output.getvalue()


@pytest.fixture(scope="module")
def outputs() -> Dict[str, str]:
    """Every runnable block's output, seed by seed in order."""
    results: Dict[str, str] = {}
    for seed in SEEDS:
        namespace: dict = {"__name__": f"seed_{seed}"}
        for block in [b for b in BLOCKS if b.id.startswith(seed + "-")]:
            if block.check.startswith("cannot run"):
                continue
            try:
                results[block.id] = run_block(block, namespace)
            except Exception as error:  # reported by the block's own test
                results[block.id] = error
        ag.run_functions_eagerly(False)  # a seed may leave it on (its cells switch it on and off)
    return results


RUNNABLE = [b for b in BLOCKS if not b.check.startswith("cannot run")]


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_seed_block(block, outputs):
    output = outputs[block.id]
    if isinstance(output, Exception):
        raise AssertionError(f"block {block.id} ({block.source}) raised {type(output).__name__}: {output}")
    if block.check == "exact":
        assert normalized(output) == normalized(as_our_output(block.expected)), block.source
    elif block.check.startswith("same-as "):
        assert output == outputs[block.check.split()[1]] and output.strip(), block.source
    else:
        assert block.check.startswith("unmatched: "), f"unknown check {block.check!r}"


def test_blocks_that_cannot_run_really_cannot():
    """A block marked as not runnable for a Python-level reason fails exactly that way."""
    for block in BLOCKS:
        if "SyntaxError" in block.check or "IndentationError" in block.check:
            expected = IndentationError if "IndentationError" in block.check else SyntaxError
            with pytest.raises(expected):
                compile(ported(block.code), block.id, "exec")


def test_the_unmatched_blocks_produce_our_own_deterministic_output(outputs):
    assert "InvalidArgumentError: GatherV2: indices[0] = 1 is not in [0, 1)" in outputs["001-22"]
    assert outputs["002-13"].split("\n\n")[1].startswith("my_relu(x)\n  Args:\n    x: float32 Tensor, shape=(3,)")
    assert re.fullmatch(r"Eager execution: \d+\.\d+\n", outputs["001-25"])
    assert re.fullmatch(r"Tensor\(\[\d \d \d \d \d\], shape=\(5,\), dtype=int32\)\n" * 2, outputs["001-12"])


def test_counts_of_the_checks():
    """The README lists these numbers; keep them true."""
    checks = [b.check.split(":")[0].split(" ")[0] for b in BLOCKS]
    assert len(BLOCKS) == 93
    assert {kind: checks.count(kind) for kind in set(checks)} == {"exact": 57, "same-as": 2, "unmatched": 24,
                                                                  "cannot": 10}


def _seed_dir():
    return next((d for d in SEED_DIRS if d.is_dir()), None)


@pytest.mark.skipif(_seed_dir() is None, reason="the seed documents are not beside the repository")
def test_the_data_holds_every_block_of_the_seeds_verbatim():
    seed_dir = _seed_dir()
    for path in sorted(seed_dir.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        seed = path.name[:3]
        mine = [b for b in BLOCKS if b.id.startswith(seed + "-")]
        assert mine, f"no blocks for {path.name}"
        for block in mine:
            assert block.source.startswith(path.name + ":")
            assert block.code in text, f"{block.id} is not verbatim in {path.name}"
        cells = len(re.findall(r"^In \[[^\]]*\]:$", text, flags=re.M))
        code_fences = len([m for m in re.finditer(r"^```\w+\n", text, flags=re.M)
                           if "输出结果：" not in text[max(0, m.start() - 12):m.start()]])
        if cells:
            assert len(mine) == cells, path.name
        elif code_fences:
            assert len(mine) == code_fences, path.name
