"""pyproject.toml tells the truth about Python versions: ``requires-python`` holds the interpreter the tests
run on, and the classifiers name exactly the minor versions it allows (3.9 and 3.10 were claimed while the
product needed 3.11's exception notes; 3.13 was refused while the code generator failed on it: see the comment
in pyproject.toml)."""
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def allowed_range():
    """(lowest, first excluded) minor versions of ``requires-python``, which is written ``>=3.a,<3.b``."""
    bounds = dict(re.fullmatch(r"(>=|<)3\.(\d+)", part.strip()).groups() for part in PROJECT["requires-python"].split(","))
    return int(bounds[">="]), int(bounds["<"])


def test_the_interpreter_running_the_tests_is_one_requires_python_allows():
    lowest, excluded = allowed_range()
    assert sys.version_info[0] == 3 and lowest <= sys.version_info[1] < excluded, PROJECT["requires-python"]


def test_the_classifiers_name_exactly_the_allowed_minor_versions():
    lowest, excluded = allowed_range()
    named = sorted(int(m.group(1)) for c in PROJECT["classifiers"]
                   if (m := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c)))
    assert named == list(range(lowest, excluded))
    assert "Programming Language :: Python :: 3 :: Only" in PROJECT["classifiers"]


def test_the_readme_says_the_same_versions():
    lowest, excluded = allowed_range()
    names = [f"3.{minor}" for minor in range(lowest, excluded)]
    versions = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)   # 3.11, 3.12 or 3.13
    assert f"(Python {versions})" in (ROOT / "README.md").read_text(encoding="utf-8")
