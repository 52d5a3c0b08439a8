"""The differential harness: convert real third-party packages in place, run their own test suites.

    python tests/differential/run.py                 # every package, full suites (several minutes)
    python tests/differential/run.py --quick         # the CI subset
    python tests/differential/run.py --package toolz --failures 20
    python tests/differential/run.py --baseline      # also run each suite unconverted, for comparison

Sdists are fetched with ``pip download`` (pinned versions, see packages.py) into
``build/differential/`` and unpacked there. Each package runs in its own subprocess.
"""
import argparse
import contextlib
import glob
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(REPO, 'build', 'differential')
sys.path.insert(0, HERE)

from packages import PACKAGES, Package, by_name  # noqa: E402


class FetchError(Exception):
    """The sdist could not be downloaded (no network, or the index does not have the version)."""


def _normalized(name: str) -> str:
    return re.sub(r'[-_.]+', '_', name).lower()


@contextlib.contextmanager
def _fetch_lock():
    """One fetch at a time across processes: the suite runs under pytest-xdist, and two workers (one per
    form) asking for the same sdist would download into one folder and race to rename it into place."""
    os.makedirs(BUILD, exist_ok=True)
    with open(os.path.join(BUILD, '.fetch.lock'), 'w') as lock:
        try:
            import fcntl
        except ImportError:  # not POSIX: no other worker to wait for is assumed
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def fetch(package: Package) -> str:
    """Download and unpack the pinned sdist (once); returns the unpacked folder."""
    target = os.path.join(BUILD, 'src', f'{_normalized(package.name)}-{package.version}')
    if os.path.isdir(target):
        return target
    with _fetch_lock():
        if os.path.isdir(target):  # another process fetched it while this one waited
            return target
        return _download_and_unpack(package, target)


def _download_and_unpack(package: Package, target: str) -> str:
    sdists = os.path.join(BUILD, 'sdists')
    os.makedirs(sdists, exist_ok=True)
    pattern = os.path.join(sdists, f'{_normalized(package.name)}-{package.version}.tar.gz')
    if not glob.glob(pattern):
        command = [sys.executable, '-m', 'pip', 'download', '--quiet', '--no-deps', '--no-binary', ':all:',
                   '--dest', sdists, f'{package.name}=={package.version}']
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not glob.glob(pattern):
            raise FetchError(f'pip download {package.name}=={package.version} failed: '
                             f'{(done.stderr or done.stdout).strip()[-500:]}')
    unpack_to = tempfile.mkdtemp(dir=os.path.join(BUILD))
    with tarfile.open(glob.glob(pattern)[0]) as archive:
        options = {'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}
        archive.extractall(unpack_to, **options)
    (inner,) = os.listdir(unpack_to)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    os.replace(os.path.join(unpack_to, inner), target)
    os.rmdir(unpack_to)
    return target


def run_package(package: Package, quick: bool, convert: bool = True, seconds_per_test: int = 60,
                timeout: int = 1800, staged_form: bool = False, keep_failures: int = 40) -> dict:
    """Run one package's tests in a subprocess (converted unless ``convert=False``); the result dict.
    With ``staged_form``, converted functions run their staged form on Python values too (the form that
    runs while tracing) instead of their plain form."""
    sdist = fetch(package)
    tests = list(package.quick if quick else package.tests)
    spec = {'sdist': sdist, 'source_root': package.source_root, 'imports': list(package.imports),
            'convert': convert, 'seconds_per_test': seconds_per_test,
            'only_modules': list(package.quick_modules if quick else ()),
            'pytest_args': tests + list(package.exclude), 'staged_form': staged_form,
            'keep_failures': keep_failures}
    with tempfile.TemporaryDirectory() as scratch:
        spec_path, result_path = os.path.join(scratch, 'spec.json'), os.path.join(scratch, 'result.json')
        with open(spec_path, 'w') as f:
            json.dump(spec, f)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, os.path.join(HERE, 'child.py'), spec_path, result_path],
                              capture_output=True, text=True, timeout=timeout)
        if not os.path.exists(result_path):
            raise RuntimeError(f'{package.name}: the harness subprocess died (exit {done.returncode}):\n'
                               f'{done.stdout[-3000:]}\n{done.stderr[-3000:]}')
        with open(result_path) as f:
            result = json.load(f)
    result.update(package=package.name, version=package.version,
                  seconds=round(time.perf_counter() - start, 1), output_tail=done.stdout[-2000:])
    result['run'] = result['passed'] + result['failed'] + result['errors']
    return result


def _short(reason: str) -> str:
    return (reason.replace("ConversionError: generator function '…' cannot be converted: it uses ", '')
            .replace("ConversionError: the '…' statement cannot be converted yet", 'match'))


def table(results: List[dict], failures: int = 3) -> str:
    """The markdown table README.md shows."""
    rows = ['| package | version | converted | refused (reasons) | converter bugs | tests run | passed | '
            'passed unconverted | first failures |', '|' + ' --- |' * 9]
    for r in results:
        conversion = r.get('conversion', {})
        refusals = conversion.get('refusals', {})
        reasons = '; '.join(f'{n} {_short(reason)}' for reason, n in sorted(refusals.items(), key=lambda kv: -kv[1]))
        refused = f'{sum(refusals.values())} ({reasons})' if refusals else '0'
        bugs = conversion.get('converter_errors', {})
        bugs = '; '.join(f'{n} {reason}' for reason, n in bugs.items()) or '0'
        first = '; '.join(f"`{f['test'].split('::')[-1]}`: {f['error'][:120]}" for f in r['failures'][:failures])
        baseline = r.get('baseline')
        rows.append(f"| {r['package']} | {r['version']} | {conversion.get('converted', '-')} | {refused} | {bugs} | "
                    f"{r['run']} | {r['passed']} | {baseline['passed'] if baseline else '-'} | {first or '-'} |")
    return '\n'.join(rows)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='run the CI subset of each suite')
    parser.add_argument('--package', action='append', help='only this package (repeatable)')
    parser.add_argument('--baseline', action='store_true', help='also run each suite unconverted')
    parser.add_argument('--failures', type=int, default=3, help='failures to list per package')
    parser.add_argument('--staged-form', action='store_true',
                        help='run the staged form of converted functions on Python values (the form that runs while '
                             'tracing) instead of the plain form')
    parser.add_argument('--timeout', type=int, default=1800,
                        help="seconds for one package's whole run (networkx's full suite needs more)")
    parser.add_argument('--json', help='write all results to this file')
    args = parser.parse_args(argv)
    packages = [by_name(n) for n in args.package] if args.package else list(PACKAGES)
    results = []
    for package in packages:
        keep = max(40, args.failures)
        result = run_package(package, args.quick, staged_form=args.staged_form, timeout=args.timeout,
                             keep_failures=keep)
        if args.baseline:
            result['baseline'] = run_package(package, args.quick, convert=False, timeout=args.timeout,
                                             keep_failures=keep)
        results.append(result)
        print(f"{package.name} {package.version}: converted {result['conversion']['converted']}, "
              f"tests {result['run']}, passed {result['passed']} ({result['seconds']} s)", flush=True)
        for failure in result['failures'][:args.failures]:
            print(f"    FAIL {failure['test']}: {failure['error']}")
    print()
    print(table(results, args.failures))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
