"""ag.testing.assert_converted_equivalent: passes on correct conversions, and fails, showing both sides, on a
planted difference of each kind it compares (return value, exception, printed output, argument mutations,
warnings) -- the planted "converted function" replaces what ag.to_graph returns, or the staged if operator."""
import warnings

import pytest

import autograph_lite as ag
from autograph_lite import calls
from autograph_lite.testing import equivalence


def clip_all(values, limit):
    clipped = 0
    for i in range(len(values)):
        if values[i] > limit:
            print('clipped', i)
            values[i] = limit
            clipped += 1
    return clipped


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def checked_sqrt(x):
    if x < 0:
        raise ValueError(f'negative: {x}')
    warnings.warn('approximate', RuntimeWarning)
    return x ** 0.5


class Box:
    def __init__(self, items):
        self.items = items


def fill(box, n):
    while len(box.items) < n:
        box.items.append(len(box.items))
    return box


def test_passes_on_correct_conversions_and_returns_the_original_result():
    assert ag.testing.assert_converted_equivalent(clip_all, [1, 5, 9], 4) == 2
    assert [ag.testing.assert_converted_equivalent(sign, x) for x in (-3, 0, 2)] == [-1, 0, 1]
    assert ag.testing.assert_converted_equivalent(checked_sqrt, 4.0) == 2.0
    assert ag.testing.assert_converted_equivalent(fill, Box([]), 3).items == [0, 1, 2]
    assert ag.testing.assert_converted_equivalent(sign, x=5) == 1
    # an ag.function or an ag.to_graph wrapper stands for its Python function
    assert ag.testing.assert_converted_equivalent(ag.function(sign), -7) == -1
    assert ag.testing.assert_converted_equivalent(ag.to_graph(sign), 7) == 1


def test_the_same_exception_both_ways_is_equivalent_and_reraised():
    with pytest.raises(ValueError, match='negative: -1'):
        ag.testing.assert_converted_equivalent(checked_sqrt, -1)


def test_the_caller_arguments_are_not_changed():
    values = [1, 5, 9]
    ag.testing.assert_converted_equivalent(clip_all, values, 4)
    assert values == [1, 5, 9]


def _plant(monkeypatch, fake):
    """ag.to_graph, as assert_converted_equivalent calls it, returns ``fake``: a conversion with a bug."""
    monkeypatch.setattr(equivalence.api, 'to_graph', lambda function: fake)


def test_fails_on_a_branch_that_differs_in_the_staged_form(monkeypatch):
    """A bug in the staged if (it runs the else branch of a Python condition): the plain form is right, the
    staged form is not; the failure names the form, both results, and the generated line where they part."""
    real_if_stmt = calls.AG_NAMESPACE.if_stmt

    def swapped_if_stmt(cond, body, orelse, *rest, **kwargs):
        return real_if_stmt(not cond if isinstance(cond, bool) else cond, body, orelse, *rest, **kwargs)

    monkeypatch.setattr(calls.AG_NAMESPACE, 'if_stmt', swapped_if_stmt)   # what converted code calls
    with pytest.raises(ag.testing.ConversionMismatch) as failure:
        ag.testing.assert_converted_equivalent(sign, 5)
    message = str(failure.value)
    assert 'the converted function (staged form) does not behave like the original' in message
    assert 'return value: 1 != 0' in message   # every if swapped: the final `return 0` runs too
    assert 'original:    returned 1' in message
    assert 'staged form: returned 0' in message
    elif_line = sign.__code__.co_firstlineno + 3
    assert f"where they part: the staged form ran line {elif_line} of {__file__} ('elif x < 0:'), which the " \
           "original never ran" in message
    assert 'generated code: <autograph_lite #' in message and 'ag__.if_stmt(x < 0, if_body_1' in message


def test_fails_on_a_different_return_value(monkeypatch):
    _plant(monkeypatch, lambda values, limit: 3)
    with pytest.raises(ag.testing.ConversionMismatch, match=r'(?s)plain form.*return value: 2 != 3'):
        ag.testing.assert_converted_equivalent(clip_all, [1, 5, 9], 4)


def test_fails_on_a_different_return_type(monkeypatch):
    _plant(monkeypatch, lambda x: True)
    with pytest.raises(ag.testing.ConversionMismatch, match=r'return value: 1 \(int\) != True \(bool\)'):
        ag.testing.assert_converted_equivalent(sign, 4)


def test_fails_on_a_different_exception_type_and_shows_its_traceback(monkeypatch):
    def converted(x):
        raise TypeError('bad operand')
    _plant(monkeypatch, converted)
    with pytest.raises(ag.testing.ConversionMismatch) as failure:
        ag.testing.assert_converted_equivalent(checked_sqrt, -1)
    message = str(failure.value)
    assert 'exception type: ValueError != TypeError' in message
    assert 'traceback of the plain form' in message and "raise TypeError('bad operand')" in message


def test_fails_on_a_different_exception_message(monkeypatch):
    def converted(x):
        raise ValueError('negative')
    _plant(monkeypatch, converted)
    with pytest.raises(ag.testing.ConversionMismatch, match="exception message: 'negative: -1' != 'negative'"):
        ag.testing.assert_converted_equivalent(checked_sqrt, -1)


def test_fails_on_different_printed_output(monkeypatch):
    def converted(values, limit):
        print('clipped', 1)
        values[1:] = [limit, limit]
        return 2
    _plant(monkeypatch, converted)
    with pytest.raises(ag.testing.ConversionMismatch,
                       match=r"printed output: 'clipped 1\\nclipped 2\\n' != 'clipped 1\\n'"):
        ag.testing.assert_converted_equivalent(clip_all, [1, 5, 9], 4)


def test_fails_on_a_different_mutation_of_an_argument(monkeypatch):
    def converted(values, limit):
        print('clipped 1\nclipped 2')
        values[1] = limit
        return 2
    _plant(monkeypatch, converted)
    with pytest.raises(ag.testing.ConversionMismatch, match=r'arguments after the call\[0\]\[0\]\[2\]: 4 != 9'):
        ag.testing.assert_converted_equivalent(clip_all, [1, 5, 9], 4)


def test_fails_on_a_different_mutation_of_an_object_attribute(monkeypatch):
    def converted(box, n):
        box.items.extend(range(n + 1))
        return box
    _plant(monkeypatch, converted)
    with pytest.raises(ag.testing.ConversionMismatch, match=r'\.items: 3 items != 4 items'):
        ag.testing.assert_converted_equivalent(fill, Box([]), 3)


def test_fails_on_different_warnings(monkeypatch):
    _plant(monkeypatch, lambda x: x ** 0.5)
    with pytest.raises(ag.testing.ConversionMismatch,
                       match=r"warnings: \[RuntimeWarning\('approximate'\)\] != \[\]"):
        ag.testing.assert_converted_equivalent(checked_sqrt, 4.0)


def test_arguments_that_cannot_be_copied_are_a_clear_error():
    class Uncopyable:
        def __deepcopy__(self, memo):
            raise RuntimeError('holds a socket')
    with pytest.raises(TypeError, match=r"cannot be deep-copied: RuntimeError: holds a socket.*__deepcopy__"):
        ag.testing.assert_converted_equivalent(sign, Uncopyable())
