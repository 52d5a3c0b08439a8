"""A conversion pauses Python's cyclic garbage collector (pyct/allocation.py) and always restores it."""
import gc

import pytest

import autograph_lite as ag


def counted(n):
    total = 0
    for i in range(n):
        if i % 2:
            total += i
    return total


def generator(n):
    yield n


def test_the_collector_runs_again_after_a_conversion():
    assert gc.isenabled()
    assert ag.to_graph(counted)(5) == counted(5) == 4
    assert gc.isenabled()


def test_the_collector_runs_again_after_a_conversion_error():
    with pytest.raises(ag.ConversionError, match="'generator' cannot be converted"):
        ag.to_code(generator)
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off():
    def fresh(n):
        return -n if n < 0 else n
    gc.disable()
    try:
        assert ag.to_graph(fresh)(-3) == 3
        assert not gc.isenabled()
    finally:
        gc.enable()
