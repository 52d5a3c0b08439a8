"""Runs in a fresh subprocess: convert one package in place, then run its own tests with pytest.

Usage: python child.py SPEC.json RESULT.json  (written by run.py; SPEC holds the unpacked sdist,
the source root, the import packages, the pytest arguments, and whether to convert at all).
"""
import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


class Collector:
    """A pytest plugin: counts outcomes and keeps the first failures; bounds each test's time."""

    def __init__(self, seconds_per_test: int, keep: int = 40):
        self.seconds = seconds_per_test
        self.keep = keep
        self.counts = {'passed': 0, 'failed': 0, 'skipped': 0, 'errors': 0, 'collection_errors': 0}
        self.failures = []

    def _timeout(self, signum, frame):
        raise TimeoutError(f'differential harness: the test ran longer than {self.seconds} s '
                           f'(a converted loop that does not end?)')

    def pytest_runtest_setup(self, item):
        signal.signal(signal.SIGALRM, self._timeout)
        signal.alarm(self.seconds)

    def pytest_runtest_teardown(self, item):
        signal.alarm(0)

    def _remember(self, nodeid, report):
        if len(self.failures) < self.keep:
            crash = getattr(report.longrepr, 'reprcrash', None)
            message = crash.message if crash is not None else str(report.longrepr).strip().split('\n')[-1]
            self.failures.append({'test': nodeid, 'error': message.split('\n')[0][:300]})

    def pytest_runtest_logreport(self, report):
        if report.when == 'call':
            if report.passed:
                self.counts['passed'] += 1
            elif report.failed:
                self.counts['failed'] += 1
                self._remember(report.nodeid, report)
        if report.skipped:
            self.counts['skipped'] += 1
        if report.failed and report.when != 'call':
            self.counts['errors'] += 1
            self._remember(report.nodeid + f' ({report.when})', report)

    def pytest_collectreport(self, report):
        if report.failed:
            self.counts['collection_errors'] += 1
            self._remember(report.nodeid + ' (collection)', report)


def main(spec_path: str, result_path: str) -> None:
    with open(spec_path) as f:
        spec = json.load(f)
    os.chdir(spec['sdist'])
    sys.path.insert(0, os.path.join(spec['sdist'], spec['source_root']))
    sys.path.insert(0, spec['sdist'])
    sys.path.insert(0, REPO)      # this checkout's autograph_lite
    sys.path.insert(1, HERE)
    result = {'convert': spec['convert']}
    start = time.perf_counter()
    if spec['convert']:
        from convert import convert_packages
        result['conversion'] = convert_packages(spec['imports'], tuple(spec.get('only_modules', ()))).as_dict()
    result['convert_seconds'] = round(time.perf_counter() - start, 2)
    import pytest
    collector = Collector(spec['seconds_per_test'], spec.get('keep_failures', 40))
    start = time.perf_counter()
    # The package's own pytest configuration applies, minus addopts (they may need plugins). Our own plugin
    # (installed as a pytest11 entry point) stays out, and since pytest still marks an installed plugin's
    # distribution for assert rewriting, its 'already imported' warning is ignored: autograph_lite and runtime
    # are imported by now, and a package whose configuration turns warnings into errors would stop there.
    args = ['-q', '-p', 'no:cacheprovider', '-p', 'no:autograph_lite.testing.plugin', '-o', 'addopts=',
            '--rootdir', spec['sdist'], '-W', 'ignore::DeprecationWarning',
            '-W', 'ignore::pytest.PytestAssertRewriteWarning'] + spec['pytest_args']
    if spec.get('staged_form'):
        from autograph_lite.operators.forms import staged_form_always
        with staged_form_always():
            result['exit_code'] = int(pytest.main(args, plugins=[collector]))
    else:
        result['exit_code'] = int(pytest.main(args, plugins=[collector]))
    result['test_seconds'] = round(time.perf_counter() - start, 2)
    result.update(collector.counts)
    result['failures'] = collector.failures
    with open(result_path, 'w') as f:
        json.dump(result, f, indent=1)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
