"""Converted == original on real pure-Python algorithms, over many inputs."""
import random

import pytest

import autograph_lite as ag
from converted_forms import FORMS, in_form


def binary_search(items, target):
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid
        elif items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def heap_push(heap, item):
    heap.append(item)
    i = len(heap) - 1
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] <= heap[i]:
            break
        heap[parent], heap[i] = heap[i], heap[parent]
        i = parent
    return heap


def heap_pop(heap):
    last = heap.pop()
    if not heap:
        return last
    top, heap[0] = heap[0], last
    i, n = 0, len(heap)
    while True:
        left, right, smallest = 2 * i + 1, 2 * i + 2, i
        if left < n and heap[left] < heap[smallest]:
            smallest = left
        if right < n and heap[right] < heap[smallest]:
            smallest = right
        if smallest == i:
            break
        heap[i], heap[smallest] = heap[smallest], heap[i]
        i = smallest
    return top


def heap_sort(values):
    heap = []
    for v in values:
        heap_push(heap, v)
    return [heap_pop(heap) for _ in range(len(values))]


def gcd(a, b):
    while b:
        a, b = b, a % b
    return abs(a)


def insertion_sort(values):
    values = list(values)
    for i in range(1, len(values)):
        key = values[i]
        j = i - 1
        while j >= 0 and values[j] > key:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = key
    return values


def tokenize(text):
    tokens, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch.isdigit():
            start = i
            while i < len(text) and text[i].isdigit():
                i += 1
            tokens.append(('num', int(text[start:i])))
        elif ch.isalpha() or ch == '_':
            start = i
            while i < len(text) and (text[i].isalnum() or text[i] == '_'):
                i += 1
            tokens.append(('name', text[start:i]))
        elif ch in '+-*/()=':
            tokens.append(('op', ch))
            i += 1
        else:
            raise ValueError(f'unexpected character {ch!r} at {i}')
    return tokens


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def fizzbuzz(n):
    out = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            out.append('FizzBuzz')
        elif i % 3 == 0:
            out.append('Fizz')
        elif i % 5 == 0:
            out.append('Buzz')
        else:
            out.append(str(i))
    return out


def is_prime(n):
    if n < 2:
        return False
    for d in range(2, n):
        if d * d > n:
            break
        if n % d == 0:
            return False
    else:
        return True
    return True


def primes_with_for_else(limit):
    found = []
    for n in range(2, limit):
        for p in found:
            if n % p == 0:
                break
        else:
            found.append(n)
    return found


def first_repeat_with_while_else(values):
    seen = set()
    i = 0
    while i < len(values):
        if values[i] in seen:
            result = values[i]
            break
        seen.add(values[i])
        i += 1
    else:
        result = None
    return result, i


def run_length(text):
    out, count, prev = [], 0, None
    for ch in text:
        if ch == prev:
            count += 1
            continue
        if prev is not None:
            out.append(f'{count}{prev}')
        prev, count = ch, 1
    if prev is not None and count:
        out.append(f'{count}{prev}')
    return ''.join(out)


def outcome(function, *args):
    try:
        return 'value', function(*args)
    except Exception as exc:
        return 'raised', type(exc), str(exc)


RNG = random.Random(1234)
INT_LISTS = [sorted(RNG.sample(range(-50, 50), RNG.randint(0, 12))) for _ in range(40)]
CASES = [
    (binary_search, [(items, t) for items in INT_LISTS[:15] for t in (-60, 0, 7, 13) + tuple(items[:2])]),
    (heap_sort, [([RNG.randint(-9, 9) for _ in range(RNG.randint(0, 15))],) for _ in range(40)]),
    (gcd, [(RNG.randint(-200, 200), RNG.randint(-200, 200)) for _ in range(60)] + [(0, 0), (0, 5)]),
    (insertion_sort, [([RNG.randint(-20, 20) for _ in range(RNG.randint(0, 12))],) for _ in range(40)]),
    (tokenize, [('x1 = 42 + foo_bar*(7 - y)',), ('',), ('  12 34 ',), ('a $ b',), ('((x))',)]),
    (collatz_steps, [(n,) for n in range(1, 60)]),
    (fizzbuzz, [(n,) for n in (0, 1, 15, 31)]),
    (is_prime, [(n,) for n in range(-2, 80)]),
    (primes_with_for_else, [(n,) for n in (0, 2, 3, 30, 60)]),
    (first_repeat_with_while_else, [([RNG.randint(0, 8) for _ in range(RNG.randint(0, 8))],) for _ in range(30)]),
    (run_length, [('',), ('aaabccdddd',), ('abc',), ('zzzzzz',)]),
]


@pytest.mark.parametrize('function, inputs', CASES, ids=[c[0].__name__ for c in CASES])
def test_algorithm_behaves_like_the_original(function, inputs):
    converted = ag.to_graph(function)
    for args in inputs:
        expected = outcome(function, *args)
        for form in FORMS:   # the plain form, and the staged form (what runs while tracing)
            copied = [list(a) if isinstance(a, list) else a for a in args]
            assert in_form(form, outcome, converted, *copied) == expected, (form, function.__name__, args)


def test_heap_push_mutates_like_the_original():
    heap, plain_heap, staged_heap = [], [], []
    push = ag.to_graph(heap_push)
    for v in [5, 3, 8, 1, 9, 2]:
        heap_push(heap, v)
        in_form('plain form', push, plain_heap, v)
        in_form('staged form', push, staged_heap, v)
    assert plain_heap == staged_heap == heap == [1, 3, 2, 5, 9, 8]
