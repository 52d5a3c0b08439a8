"""Code snapshots: ``assert_code_matches(f, path)`` compares ``ag.to_code(f)`` with a golden file.

A changed conversion then shows up as a failing test with a diff; ``pytest --ag-update-snapshots`` (the
plugin's option; or the environment variable ``AUTOGRAPH_LITE_UPDATE_SNAPSHOTS=1``, or
``set_update_snapshots(True)``) rewrites the files instead, so the change is reviewed as a diff in version
control.
"""
from __future__ import annotations

import difflib
import os
import pathlib
import sys
from typing import Callable, Optional, Union

from autograph_lite import api
from autograph_lite.testing import forms, subjects

UPDATE_ENV_VAR = 'AUTOGRAPH_LITE_UPDATE_SNAPSHOTS'
_update = [os.environ.get(UPDATE_ENV_VAR, '').strip().lower() not in ('', '0', 'false', 'no')]


class SnapshotMismatch(AssertionError):
    """The converted code no longer matches its golden file (or the file is missing)."""


def set_update_snapshots(flag: bool) -> None:
    """With True, ``assert_code_matches`` writes the golden files instead of comparing with them.

    >>> set_update_snapshots(False); updating_snapshots()
    False
    """
    _update[0] = bool(flag)


def updating_snapshots() -> bool:
    """Whether golden files are being rewritten (``--ag-update-snapshots``)."""
    return _update[0]


def _resolved(path: Union[str, 'os.PathLike[str]'], depth: int) -> pathlib.Path:
    """``path``; a relative one is taken from the directory of the file that called the assertion."""
    path = pathlib.Path(path)
    if path.is_absolute():
        return path
    caller = sys._getframe(depth).f_code.co_filename
    return pathlib.Path(caller).resolve().parent / path


def assert_code_matches(function: Callable, path: Union[str, 'os.PathLike[str]'], form: str = 'staged',
                        update: Optional[bool] = None) -> str:
    """Assert that ``ag.to_code(function, form)`` is the text of the golden file ``path``; returns the code.

    A relative ``path`` is relative to the directory of the calling file (the test's), so tests find their
    snapshots from any working directory. ``update=None`` follows ``pytest --ag-update-snapshots``: then the
    file is written (directories created) and the assertion passes. A missing file fails with the command
    that writes it; a different one fails with a unified diff (golden file first).

    >>> import autograph_lite as ag, tempfile, os
    >>> def relu(x):
    ...     return x if x > 0 else 0
    >>> golden = os.path.join(tempfile.mkdtemp(), 'relu.py')
    >>> _ = ag.testing.assert_code_matches(relu, golden, update=True)      # writes the snapshot
    >>> print(ag.testing.assert_code_matches(relu, golden), end='')        # compares with it
    def relu(x):
        return ag__.if_exp(x > 0, lambda: x, lambda: 0, 'x if x > 0 else 0')
    """
    __tracebackhide__ = True   # pytest shows the caller's line, not ours
    code = api.to_code(function, form=form)
    subjects.note(forms.python_function_of(function))
    golden = _resolved(path, 2)
    if update if update is not None else _update[0]:
        golden.parent.mkdir(parents=True, exist_ok=True)
        if not golden.exists() or golden.read_text() != code:
            golden.write_text(code)
        return code
    name = getattr(function, '__qualname__', repr(function))
    if not golden.exists():
        raise SnapshotMismatch(f'no snapshot of the converted code of {name} at {golden}; run '
                               f'`pytest --ag-update-snapshots` to write it (then review it and commit it)')
    expected = golden.read_text()
    if expected != code:
        diff = ''.join(difflib.unified_diff(expected.splitlines(True), code.splitlines(True),
                                            f'{golden} (snapshot)', f'ag.to_code({name}) now'))
        raise SnapshotMismatch(f'the converted code of {name} changed since its snapshot {golden}:\n{diff}\n'
                               'If the change is intended, run `pytest --ag-update-snapshots` and review the diff '
                               'of the snapshot in version control.')
    return code
