"""Shared test set-up.

Subprocesses started by tests (examples, the CLI, loading in a fresh interpreter) import this checkout's
packages, not whatever copy is installed: the repository root goes first on their PYTHONPATH.
"""
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [REPO_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
