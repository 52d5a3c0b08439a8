"""Every ``python`` block of docs/LIMITS.md runs as written, in order,
in one namespace; a block followed by a plain (unlabelled) block raises the error that block shows: its
type's name, then its message's first line, exactly. A ``# Tensor(...)`` comment after a block's last
expression is that expression's value."""
import ast
import linecache
import pathlib
import re
from typing import List, NamedTuple, Optional

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "LIMITS.md"


class Block(NamedTuple):
    line: int
    code: str
    error: Optional[str]


def load_blocks(text: str) -> List[Block]:
    fences = [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 2)
              for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, flags=re.M | re.S)]
    blocks = []
    for i, (lang, body, line) in enumerate(fences):
        if lang != "python":
            continue
        after = fences[i + 1] if i + 1 < len(fences) else None
        error = after[1].strip() if after is not None and after[0] == "" else None
        blocks.append(Block(line, body, error))
    return blocks


BLOCKS = load_blocks(DOC.read_text(encoding="utf-8"))


def _run(block: Block, namespace: dict, doc: str = "docs/LIMITS.md") -> object:
    filename = f"<{doc}:{block.line}>"
    linecache.cache[filename] = (len(block.code), None, block.code.splitlines(True), filename)
    tree = ast.parse(block.code, filename)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), namespace)
    return None if last is None else eval(compile(ast.Expression(last.value), filename, "eval"), namespace)


def _shown_value(code: str) -> Optional[str]:
    last = code.rstrip("\n").split("\n")[-1]
    match = re.search(r"#\s*(Tensor\(.*\))\s*$", last)
    return match.group(1) if match else None


def test_the_doc_has_examples_of_errors_and_values():
    assert len(BLOCKS) >= 15
    assert sum(b.error is not None for b in BLOCKS) >= 8


def test_every_block_runs_as_written_or_raises_the_error_it_shows():
    namespace: dict = {"__name__": "limits_doc"}
    for block in BLOCKS:
        if block.error is None:
            value = _run(block, namespace)
            shown = _shown_value(block.code)
            if shown is not None:
                assert repr(value) == shown or str(value) == shown, f"block at line {block.line}"
            continue
        with pytest.raises(BaseException) as caught:
            _run(block, namespace)
        first_line = str(caught.value).split("\n")[0]
        assert f"{type(caught.value).__name__}: {first_line}" == block.error, f"block at line {block.line}"
