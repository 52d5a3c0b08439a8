"""Test suites written for the numpy executor, rerun with every traced function compiled by XLA (the
``xla_everywhere`` plugin, tests/support/xla_everywhere.py): their own expected values then judge the compiled
programs. Each suite must pass whole, but for the tests listed with the LoweringError they must raise (programs
XLA cannot compile, docs/XLA.md): never a wrong value, never a crash inside JAX.

Marked slow (CI's slow step): each suite is ~10 s of XLA compiles. The other suites checked this way by hand (all
pass, or fail only with a LoweringError, or on an exact float comparison XLA's tolerance allows: docs/XLA.md) are
listed in docs/XLA.md.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

pytest.importorskip("jax")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# suite: {test name: the text its LoweringError must hold}
SUITES = {
    "tests/programs/test_user_programs.py": {},
    "tests/programs/test_seed_blocks.py": {},
}


def failures_under_xla(paths, tmp_path):
    """{test name: failure message} of the suites at ``paths`` run with the xla_everywhere plugin, the count of
    tests run, and of the functions the plugin compiled by XLA."""
    report = tmp_path / "report.xml"
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests", "support")]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xla_everywhere",
                    f"--junitxml={report}", *paths], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=900)
    compiled = int(run.stdout.split("xla_everywhere: ")[1].split()[0])
    cases = ElementTree.parse(report).getroot().iter("testcase")
    failed, count = {}, 0
    for case in cases:
        count += 1
        for problem in list(case.findall("failure")) + list(case.findall("error")):
            failed[case.get("name")] = problem.get("message") or ""
    return failed, count, compiled


@pytest.mark.slow
def test_the_suites_pass_with_every_function_compiled_by_xla(tmp_path):
    failed, count, compiled = failures_under_xla(list(SUITES), tmp_path)
    assert count >= 120 and compiled >= 100, (count, compiled)
    expected = {name: text for refusals in SUITES.values() for name, text in refusals.items()}
    unexpected = {name: message[:500] for name, message in failed.items()
                  if name not in expected or "LoweringError" not in message or expected[name] not in message}
    assert not unexpected, unexpected
    assert set(failed) == set(expected), set(expected) - set(failed)
