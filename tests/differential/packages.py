"""The third-party packages the differential harness converts, pinned.

Each entry names the source distribution on the package index (its sdist ships the tests), the
import packages to convert, where the tests live inside the unpacked sdist, and a quick subset
of test files for CI. Packages were picked for the variety of their control flow.
"""
from typing import NamedTuple, Tuple


class Package(NamedTuple):
    name: str                    # the distribution's name on the package index
    version: str                 # pinned: the table in README.md is for exactly this version
    imports: Tuple[str, ...]     # import packages whose functions are converted
    source_root: str             # folder of the unpacked sdist that holds the import packages
    tests: Tuple[str, ...]       # test paths (relative to the unpacked sdist) for the full run
    quick: Tuple[str, ...]       # a fast subset for CI (test paths and pytest arguments)
    exclude: Tuple[str, ...] = ()       # pytest --deselect / --ignore arguments
    why: str = ''                # the control flow that makes it worth converting


PACKAGES = (
    Package('more-itertools', '11.2.1', ('more_itertools',), '.', ('tests',),
            ('tests/test_more.py', '-k', 'Chunked or Windowed or Interleave or Peekable or Last '
             'or SplitAt or Collapse or Unique or Distribute or Spy'),
            why='generators, nested functions, try/except StopIteration in loops, early returns'),
    Package('toolz', '1.2.0', ('toolz', 'tlz'), '.', ('toolz/tests',),
            ('toolz/tests/test_dicttoolz.py', 'toolz/tests/test_itertoolz.py'),
            why='curried functions, closures, loops with early returns, introspection of signatures'),
    Package('cachetools', '8.0.1', ('cachetools',), 'src', ('tests',),
            ('tests/test_lru.py', 'tests/test_keys.py'),
            why='classes with private (mangled) names, try/except KeyError, properties, decorators'),
    Package('funcy', '2.1', ('funcy',), '.', ('tests',),
            ('tests/test_colls.py', 'tests/test_strings.py'),
            why='decorators built from nested functions, loops with early returns, while/else'),
    Package('boltons', '26.2.0', ('boltons',), '.',
            ('tests/test_iterutils.py', 'tests/test_strutils.py', 'tests/test_dictutils.py',
             'tests/test_listutils.py', 'tests/test_setutils.py', 'tests/test_queueutils.py',
             'tests/test_cacheutils.py', 'tests/test_mathutils.py', 'tests/test_tbutils.py',
             'tests/test_funcutils.py', 'tests/test_typeutils.py', 'tests/test_formatutils.py',
             'tests/test_urlutils.py', 'tests/test_statsutils.py', 'tests/test_tableutils.py'),
            ('tests/test_strutils.py', 'tests/test_mathutils.py'),
            why='loop else, try/finally in loops, private names, recursion, class hierarchies'),
    Package('packaging', '26.3', ('packaging',), 'src',
            ('tests/test_version.py', 'tests/test_markers.py', 'tests/test_requirements.py',
             'tests/test_utils.py'),
            ('tests/test_version.py',),
            why='parsers (tokenizer classes), properties, dataclass-like value types, early returns'),
)


def by_name(name: str) -> Package:
    for package in PACKAGES:
        if package.name == name:
            return package
    raise KeyError(f'unknown package {name!r}; known: {", ".join(p.name for p in PACKAGES)}')
