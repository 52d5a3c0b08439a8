"""rt.config.set_threads: one budget for the row-block workers and BLAS's threads (runtime.backends.threads)."""
import numpy as np
import pytest

import runtime as rt
from runtime.backends import row_blocks, threads
from runtime.backends.buffer_plan import PARALLEL_MIN_ELEMENTS
from runtime.backends.executor import generated_source
from runtime.tracing import concrete_function


@pytest.fixture(autouse=True)
def default_budget():
    yield
    rt.config.set_threads(None)


def test_set_threads_sets_the_budget_and_none_restores_the_cores():
    rt.config.set_threads(3)
    assert rt.config.get_threads() == 3
    rt.config.set_threads(None)
    assert rt.config.get_threads() == threads.cores()


@pytest.mark.parametrize("count, error, words", [
    (0, ValueError, "count must be >= 1"), (-2, ValueError, "got -2"),
    (1.5, TypeError, "got float 1.5"), (True, TypeError, "got bool True"), ("2", TypeError, "got str '2'")])
def test_set_threads_refuses_what_is_not_a_count(count, error, words):
    with pytest.raises(error, match=words):
        rt.config.set_threads(count)
    assert rt.config.get_threads() == threads.cores()  # unchanged


class _CountingWorkers:
    _max_workers = 8
    asked = 0

    def submit(self, fn):
        _CountingWorkers.asked += 1
        fn()


@pytest.mark.parametrize("budget, workers", [(1, 0), (2, 1), (3, 2)])
def test_row_blocks_ask_at_most_budget_minus_one_workers(monkeypatch, budget, workers):
    monkeypatch.setattr(row_blocks, "_worker_pool", lambda: _CountingWorkers())
    monkeypatch.setattr(row_blocks, "_spare_cores", lambda: True)
    _CountingWorkers.asked = 0
    rt.config.set_threads(budget)
    f = rt.Function(lambda x: (x * 2.0 + 1.0) * x - 3.0)
    x = np.random.default_rng(0).standard_normal(PARALLEL_MIN_ELEMENTS * 2).astype(np.float32)
    np.testing.assert_array_equal(f(rt.constant(x)).numpy(), (x * 2.0 + 1.0) * x - 3.0)
    assert _CountingWorkers.asked == workers


class _FakeBlas:
    """One BLAS library's thread count, with every change recorded."""

    def __init__(self, count):
        self.count, self.changes = count, []

    def get(self):
        return self.count

    def set(self, count):
        self.count = count
        self.changes.append(count)


def _with_fake_blas(monkeypatch, count, spare=True):
    blas = _FakeBlas(count)
    monkeypatch.setattr(threads, "_blas", threads._BlasThreads())
    monkeypatch.setattr(threads, "_blas_libraries", lambda: [(blas.get, blas.set)])
    monkeypatch.setattr(threads, "spare_cores", lambda: spare)
    return blas


def _blas_counts_of_a_call(blas, n):
    """Run a graph whose matmul is n x n x n twice; the BLAS thread counts set during the second call."""
    f = rt.Function(lambda a: rt.matmul(a, a) * 2.0)
    a = np.eye(n, dtype=np.float32)
    np.testing.assert_array_equal(f(rt.constant(a)).numpy(), a * 2.0)
    blas.changes.clear()
    f(rt.constant(a))
    return blas.changes


def test_small_products_run_blas_on_one_thread_and_the_users_setting_comes_back(monkeypatch):
    blas = _with_fake_blas(monkeypatch, 2)
    assert _blas_counts_of_a_call(blas, 65) == [1, 2]
    assert blas.count == 2


def test_products_blas_runs_on_one_thread_anyway_leave_blas_alone(monkeypatch):
    blas = _with_fake_blas(monkeypatch, 2)
    assert _blas_counts_of_a_call(blas, 64) == []


@pytest.mark.parametrize("spare, budget, want", [(True, None, [3, 4]), (True, 2, [2, 4]), (False, None, [1, 4]),
                                                 (True, 1, [1, 4])])
def test_a_big_product_uses_the_budget_while_a_core_is_spare(monkeypatch, spare, budget, want):
    monkeypatch.setattr(threads, "cores", lambda: 3)
    blas = _with_fake_blas(monkeypatch, 4, spare)
    monkeypatch.setattr(threads, "BLAS_PARALLEL_MIN", 0)  # read when the graph is compiled: every product is big
    rt.config.set_threads(budget)
    assert _blas_counts_of_a_call(blas, 65) == want  # never more than the budget, nor BLAS's own setting
    assert blas.count == 4


def test_blas_on_its_users_own_single_thread_is_never_set(monkeypatch):
    blas = _with_fake_blas(monkeypatch, 1)
    monkeypatch.setattr(threads, "BLAS_PARALLEL_MIN", 0)
    assert _blas_counts_of_a_call(blas, 65) == []


def test_a_graph_without_blas_ops_leaves_blas_alone(monkeypatch):
    blas = _with_fake_blas(monkeypatch, 2)
    f = rt.Function(lambda x: rt.tanh(x) + 1.0)
    assert "_enter_blas" not in generated_source(f.get_concrete_function(rt.constant([1.0])).compiled())
    f(rt.constant([1.0]))
    assert blas.changes == []


def test_overlapping_calls_restore_the_users_setting_once_the_last_one_ends(monkeypatch):
    blas = _with_fake_blas(monkeypatch, 2)
    first = threads.enter_blas(False)
    second = threads.enter_blas(False)  # another thread's call, while the first runs
    assert blas.count == 1 and blas.changes == [1]
    threads.leave_blas(first)
    assert blas.count == 1  # the second still runs
    threads.leave_blas(second)
    assert blas.count == 2 and blas.changes == [1, 2]


def test_without_threadpoolctl_graphs_run_and_blas_is_untouched(monkeypatch):
    monkeypatch.setattr(threads, "_blas", threads._BlasThreads())
    monkeypatch.setattr(threads, "_blas_libraries", lambda: [])
    f = rt.Function(lambda a: rt.matmul(a, a))
    np.testing.assert_array_equal(f(rt.constant(np.eye(3, dtype=np.float32))).numpy(), np.eye(3))


def test_the_real_blas_count_is_restored_after_a_call():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    f = rt.Function(lambda a: rt.matmul(a, a))
    f(rt.constant(np.eye(16, dtype=np.float32)))
    after = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    assert after == before


def test_an_interpreted_first_call_runs_blas_on_one_thread_too(monkeypatch):
    blas = _with_fake_blas(monkeypatch, 2)
    monkeypatch.setattr(concrete_function, "check_first_calls", False)  # only the interpreter runs
    f = rt.Function(lambda a: rt.matmul(a, a) + 1.0)
    a = np.eye(65, dtype=np.float32)
    np.testing.assert_array_equal(f(rt.constant(a)).numpy(), a + 1.0)
    assert blas.changes == [1, 2] and blas.count == 2
