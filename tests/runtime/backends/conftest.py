"""Fixtures shared by the backends' tests."""
import pytest

from runtime.tracing import concrete_function


@pytest.fixture
def numpy_executors(monkeypatch):
    """The graphs each numpy executor is built for, in order, while the test runs (the first-call tier's
    check that would build one at once is off)."""
    made = []
    real = concrete_function.build_executor

    def counting(graph):
        made.append(graph)
        return real(graph)

    monkeypatch.setattr(concrete_function, "build_executor", counting)
    monkeypatch.setattr(concrete_function, "check_first_calls", False)
    return made
