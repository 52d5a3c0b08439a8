"""The docs site (mkdocs.yml, docs/): every page is in the navigation, and every ``python`` block of every page
runs as written, in order, in one namespace per page (started with ``ag``, ``rt`` and ``np`` imported, as the
first block of Getting started does), in a scratch working directory.

The README's blocks run the same way.

A ``python`` block followed by a plain (unlabelled) block shows what it does: if the block raises, the plain block
holds ``ErrorType: first line of the message`` (a whole traceback may be shown around it, and the type may be
qualified); otherwise the plain
block is exactly what it prints; in both, ``...`` stands for any text. A ``# Tensor(...)`` comment after a block's
last expression is that expression's value, and one after a ``print(...)`` line is what it prints (compared with
runs of whitespace as one space: a printed array may span lines). Output that changes from run to run is fenced as ``text`` (not
compared); listings that are not programs (generated code, signatures, excerpts) are fenced as ``py``:
highlighted the same, not run. docs/LIMITS.md and docs/TESTING.md have runners of their own.
"""
import contextlib
import io
import pathlib
import re
import warnings

import pytest

from test_limits_doc import _run, _shown_value, load_blocks

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NAV = re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), flags=re.M)
OPTIONAL = {"onnx": "onnx", "onnxruntime": "onnx", "jax": "jax"}   # module: the extra that installs it
RUN_ELSEWHERE = {"LIMITS.md": "tests/project/test_limits_doc.py", "TESTING.md": "tests/api/test_testing_docs.py"}


def runnable_pages():
    return [p for p in NAV if p not in RUN_ELSEWHERE and (DOCS / p).exists() and
            "```python" in (DOCS / p).read_text(encoding="utf-8")]


def matches(shown: str, printed: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in shown.strip().split("..."))
    return re.fullmatch(pattern, printed.strip(), flags=re.S) is not None


def shows_error(shown: str, raised: str) -> bool:
    """``shown`` (an error's line, perhaps in a traceback, perhaps ending in ...) shows ``raised``."""
    kind = raised.split(":")[0]
    lines = [line for line in shown.strip().split("\n") if re.search(rf"\b{kind}:", line)]
    return bool(lines) and matches(re.sub(r"^.*?\b(?={kind}:)".replace("{kind}", kind), "", lines[-1]), raised)


def printed_comments(code: str):
    """The ``# Tensor(...)`` (or ``# <...>``) comments after ``print(...)`` lines: what those lines print."""
    return [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s*#\s*((?:Tensor\(|<).*?)\s*$", code, flags=re.M)]


def squeezed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def run_page(path: pathlib.Path) -> None:
    page = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    namespace: dict = {"__name__": "docs_" + re.sub(r"\W", "_", page[:-3])}
    exec("import autograph_lite as ag\nimport numpy as np\nimport runtime as rt", namespace)
    for block in load_blocks(path.read_text(encoding="utf-8")):
        where = f"{page}, the block at line {block.line}"
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed), warnings.catch_warnings():
                warnings.simplefilter("ignore")   # a page may show a warning (a retrace, an unconverted call)
                value = _run(block, namespace, page)
        except ModuleNotFoundError as error:
            if error.name in OPTIONAL:   # the rest of the page needs an extra that is not installed
                pytest.skip(f"{where} needs {error.name} (pip install 'autograph-lite[{OPTIONAL[error.name]}]')")
            raise
        except Exception as error:
            raised = f"{type(error).__name__}: {str(error).split(chr(10))[0]}"
            assert block.error is not None, f"{where} raised {raised}"
            assert shows_error(block.error, raised), f"{where} raised {raised}"
            continue
        if block.error is not None:
            assert matches(block.error, printed.getvalue()), f"{where} printed:\n{printed.getvalue()}"
        shown = _shown_value(block.code)
        if shown is not None and not block.code.rstrip().split("\n")[-1].lstrip().startswith("print("):
            assert repr(value) == shown or str(value) == shown, where
        position, output = 0, squeezed(printed.getvalue())
        for expected in printed_comments(block.code):
            found = output.find(squeezed(expected), position)
            assert found >= 0, f"{where}: {expected!r} is not printed (after what came before) in:\n{output}"
            position = found + len(squeezed(expected))


def test_every_page_is_in_the_navigation_and_every_entry_exists():
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == set(NAV), (sorted(pages - set(NAV)), sorted(set(NAV) - pages))


def test_pages_run_elsewhere_have_their_runner():
    for runner in RUN_ELSEWHERE.values():
        assert (ROOT / runner).exists()


@pytest.mark.parametrize("page", runnable_pages())
def test_every_python_block_runs_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(DOCS / page)


def test_the_readmes_python_blocks_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(ROOT / "README.md")


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 300
    for page in NAV:   # each guide is linked
        if "/" not in page and page != "index.md":
            assert f"(docs/{page})" in readme, page
