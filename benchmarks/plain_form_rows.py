"""Rows of issue 23: converted code on Python values, written as third-party packages write it (method
calls, dunders entered by Python itself, builtins in loops), converted in place as the differential harness
does (every function and method replaced by its ``ag.to_graph``), against the original. Target <= 1.5x."""
from __future__ import annotations

import bisect
import types
from typing import Callable, Dict, List

from timing import compare_wall_and_cpu

NAME = "23 plain form on package-style code: converted vs original"


def _row(measured: str, value: float, ratio: float, target: str = "", ok=None) -> dict:
    return {"benchmark": NAME, "measured": measured, "median": value, "unit": "ms", "ratio": ratio,
            "target": target, "meets_target": ok}


# --- a string-distance package: optimal string alignment (restricted Damerau-Levenshtein) ----------------

def make_distance_module() -> types.SimpleNamespace:
    class StringDistance:
        def __init__(self, substitution_cost=1):
            self.substitution_cost = substitution_cost

        def cost(self, a, b):
            return 0 if a == b else self.substitution_cost

        def distance(self, s0, s1):
            if s0 == s1:
                return 0
            if not s0 or not s1:
                return max(len(s0), len(s1))
            rows = len(s0) + 1
            columns = len(s1) + 1
            table = [[0] * columns for _ in range(rows)]
            for i in range(rows):
                table[i][0] = i
            for j in range(columns):
                table[0][j] = j
            for i in range(1, rows):
                for j in range(1, columns):
                    cost = self.cost(s0[i - 1], s1[j - 1])
                    table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                    if i < 2 or j < 2:
                        continue
                    if s0[i - 1] == s1[j - 2] and s0[i - 2] == s1[j - 1]:
                        table[i][j] = min(table[i][j], table[i - 2][j - 2] + cost)
            return int(table[rows - 1][columns - 1])

    def all_distances(words):
        metric = StringDistance()
        total = 0
        for first in words:
            for second in words:
                total += metric.distance(first.lower(), second.lower())
        return total

    return types.SimpleNamespace(classes=[StringDistance], functions={'all_distances': all_distances})


# --- an interval-tree package: sorted intervals, Python compares them through their dunders --------------

def make_interval_module() -> types.SimpleNamespace:
    class Interval:
        __slots__ = ('begin', 'end', 'data')

        def __init__(self, begin, end, data=None):
            self.begin, self.end, self.data = begin, end, data

        def __lt__(self, other):
            return (self.begin, self.end) < (other.begin, other.end)

        def __eq__(self, other):
            return isinstance(other, Interval) and self.begin == other.begin and self.end == other.end

        def __hash__(self):
            return hash((self.begin, self.end))

        def __getitem__(self, index):
            return (self.begin, self.end, self.data)[index]

        def overlaps(self, point):
            return self.begin <= point < self.end

    class IntervalList:
        def __init__(self):
            self.items = []
            self.seen = set()

        def add(self, interval):
            if interval in self.seen:
                return False
            self.seen.add(interval)
            bisect.insort(self.items, interval)
            return True

        def at(self, point):
            found = []
            for interval in self.items:
                if interval[0] > point:
                    break
                if interval.overlaps(point):
                    found.append(interval)
            return found

    def build_and_query(n):
        tree = IntervalList()
        for i in range(n):
            begin = (i * 7919) % (3 * n)
            tree.add(Interval(begin, begin + 1 + i % 13, i))
        hits = 0
        for point in range(0, 3 * n, 5):
            hits += len(tree.at(point))
        return hits

    return types.SimpleNamespace(classes=[Interval, IntervalList], functions={'build_and_query': build_and_query})


# --- a bignum loop: digits of e by the spigot over Python ints ---------------------------------------------

def make_bignum_module() -> types.SimpleNamespace:
    def next_term(term, k):
        return term // k

    def digits_of_e(count):
        scale = 10 ** (count + 10)
        total, term, k = 0, scale, 0
        while term:
            total += term
            k += 1
            term = next_term(term, k)
        text = str(total)
        return int(text[:count])

    return types.SimpleNamespace(classes=[], functions={'digits_of_e': digits_of_e})


# --- a text-indexing package: a character loop with str methods, dict counts, list appends, item assignment --

def make_index_module() -> types.SimpleNamespace:
    def tokenize(text):
        tokens = []
        word = ''
        for character in text:
            if character.isalnum():
                word += character.lower()
            elif word:
                tokens.append(word)
                word = ''
        if word:
            tokens.append(word)
        return tokens

    def build_index(documents):
        index = {}
        counts = {}
        for number, text in enumerate(documents):
            for position, token in enumerate(tokenize(text)):
                postings = index.get(token)
                if postings is None:
                    postings = []
                    index[token] = postings
                postings.append((number, position))
                counts[token] = counts.get(token, 0) + 1
        top = sorted(counts, key=lambda word: (-counts[word], word))[:10]
        return len(index), [(word, counts[word]) for word in top]

    return types.SimpleNamespace(classes=[], functions={'build_index': build_index})


def convert_in_place(ag, module: types.SimpleNamespace) -> Dict[str, Callable]:
    """Every method of the module's classes and every function replaced by its ag.to_graph, as the
    differential harness converts a package (tests/differential/convert.py)."""
    for cls in module.classes:
        for name, value in list(vars(cls).items()):
            if isinstance(value, types.FunctionType):
                setattr(cls, name, ag.to_graph(value))
    return {name: ag.to_graph(function) for name, function in module.functions.items()}


WORDS = ['kitten', 'sitting', 'Saturday', 'Sunday', 'rosettacode', 'raisethysword', 'abcdef', 'badcfe',
         'intention', 'execution']


DOCUMENTS = [' '.join(f"{WORDS[(i * 7 + j) % len(WORDS)]}-{(i * j) % 17}, {WORDS[(i + j * 3) % len(WORDS)].upper()}."
                      for j in range(12)) for i in range(60)]


def bench_plain_form_packages(repeat: int) -> List[dict]:
    from run import converter
    ag, reason = converter()
    if ag is None:
        return [_row(f"skipped ({reason})", float("nan"), None)]
    cases = [("OSA string distance, 10x10 words", make_distance_module, 'all_distances', (WORDS,), 3),
             ("interval list: 400 inserts, 240 queries", make_interval_module, 'build_and_query', (400,), 2),
             ("bignum loop: 300 digits of e", make_bignum_module, 'digits_of_e', (300,), 300),
             ("text index: 60 documents, str methods, dict and list changes", make_index_module, 'build_index',
              (DOCUMENTS,), 3)]
    rows = []
    for label, make, entry, args, number in cases:
        original = make().functions[entry]
        converted = convert_in_place(ag, make())[entry]
        assert converted(*args) == original(*args), label
        # CPU time, not wall time: on a shared machine (load 12-20 on 2 cores when these rows were written)
        # wall-clock samples of one call varied 8x, CPU-time samples by a few percent.
        _, times = compare_wall_and_cpu({"original": lambda: original(*args), "converted": lambda: converted(*args)},
                                        number, repeat + 2)
        ratio = times["converted"] / times["original"]
        rows.append(_row(f"{label}: original (CPU)", times["original"] * 1e3, 1.0))
        rows.append(_row(f"{label}: converted (CPU)", times["converted"] * 1e3, ratio, "<= 1.5x", ratio <= 1.5))
    return rows


BENCHMARKS = [bench_plain_form_packages]
