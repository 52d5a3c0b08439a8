"""A pytest plugin that runs a test suite with every traced function compiled by XLA: ``ag.function``,
``rt.function`` and ``tf.function`` made with ``jit_compile=None`` (the default) get ``jit_compile=True``.

    PYTHONPATH=.:tests/support python -m pytest -p xla_everywhere tests/programs

A suite written for the numpy executor then checks the compiled programs against its own expected values: a
failure is a wrong value or a crash of the XLA backend, or a ``LoweringError`` (a program XLA cannot compile,
docs/XLA.md). ``tests/runtime/backends/test_xla_corpora.py`` runs some suites this way.
"""
import runtime.tracing.function as function

_checked_jit_compile = function.checked_jit_compile
FORCED = []   # the functions given jit_compile=True by this plugin (their names)


def _compiled_everywhere(owner, jit_compile):
    if jit_compile is None:
        FORCED.append(owner)
        jit_compile = True
    return _checked_jit_compile(owner, jit_compile)


def pytest_configure(config):
    function.checked_jit_compile = _compiled_everywhere


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"xla_everywhere: {len(FORCED)} functions compiled by XLA")


def pytest_unconfigure(config):
    function.checked_jit_compile = _checked_jit_compile
