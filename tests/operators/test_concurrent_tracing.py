"""Tracing from several threads at once: each thread's staged loops and ifs keep their own trace-time state.

``Function`` traces on whatever thread calls it, so a server may trace many functions at once. The facts a
staged construct learns while it is traced (which Python lists become tensor lists, which loop is running its
body) belong to the thread that traces it: a construct of another thread must neither see them nor be
interrupted by them, and no signal the operators use among themselves may reach a caller.
"""
import threading

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

THREADS, CALLS = 8, 20
VALUES = np.arange(1, 8, dtype=np.int32)   # evens 2 4 6 (sum 12), odds 1 3 5 7 (sum 16)


def fresh_parity_split():
    """A new function object each time, so that every call converts and traces it from the start."""
    def parity_split(xs):
        evens, odds = [], []
        totals = {'even': 0, 'odd': 0}
        for x in xs:
            if x % 2 == 0:
                evens.append(x)
                totals['even'] += x
            else:
                odds.append(x)
                totals['odd'] += x
        return rt.reduce_sum(rt.stack(evens)), rt.reduce_sum(rt.stack(odds)), totals['even'], totals['odd']
    return parity_split


def run_in_threads(work):
    """``work(thread_index)`` on THREADS threads started together; the results and the exceptions, by thread."""
    start = threading.Barrier(THREADS)
    results, failures = {}, {}

    def run(index):
        start.wait()
        try:
            results[index] = work(index)
        except BaseException as error:   # noqa: B036 -- an internal BaseException escaping is the bug looked for
            failures[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, failures


def test_threads_tracing_loops_that_grow_lists_and_dicts_do_not_see_each_other():
    def work(_):
        outcomes = []
        for _ in range(CALLS):
            staged = ag.function(fresh_parity_split())
            outcomes.append(tuple(int(value.numpy()) for value in staged(rt.constant(VALUES))))
            assert staged.experimental_get_tracing_count() == 1
        return outcomes

    results, failures = run_in_threads(work)
    assert failures == {}
    assert results == {index: [(12, 16, 12, 16)] * CALLS for index in range(THREADS)}


def fresh_nested_lists():
    def nested(n, limit):
        rows = []
        for i in rt.range(n):
            row = []
            for j in rt.range(i + 1):
                if j < limit:
                    row.append(j)
            rows.append(rt.reduce_sum(rt.stack(row)))   # the sum of range(min(i + 1, limit))
            if i > 1:
                rows.append(-i)
        return rt.stack(rows)
    return nested


def test_threads_tracing_nested_loops_and_ifs_that_grow_lists():
    def work(_):
        outcomes = []
        for _ in range(CALLS // 2):
            staged = ag.function(fresh_nested_lists())
            outcomes.append(staged(rt.constant(4), rt.constant(2)).numpy().tolist())
        return outcomes

    results, failures = run_in_threads(work)
    assert failures == {}
    assert results == {index: [[0, 1, 1, -2, 1, -3]] * (CALLS // 2) for index in range(THREADS)}


def test_a_retrace_signal_for_no_construct_being_traced_is_an_internal_error_not_the_signal():
    from autograph_lite.operators.staging import Learned, NeedsPlaceholder, retrace_until_settled

    stale = Learned()

    def trace():
        raise NeedsPlaceholder(stale, 0, 1.0)

    with pytest.raises(RuntimeError, match="internal error of autograph_lite: NeedsPlaceholder for a staged "
                                           "construct that is not being traced on this thread"):
        retrace_until_settled(Learned(), trace, (None,), lambda state: None)
