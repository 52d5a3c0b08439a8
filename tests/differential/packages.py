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
    quick_modules: Tuple[str, ...] = ()   # the quick run converts only these modules (all if empty)
    unimportable: Tuple[str, ...] = ()    # modules that need what is not installed (counted as import errors)


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
    Package('networkx', '3.6.1', ('networkx',), '.',
            tuple('networkx/algorithms/' + t for t in (
                'shortest_paths/tests', 'traversal/tests', 'components/tests', 'tree/tests',
                'coloring/tests',
                'tests/test_dag.py', 'tests/test_cycles.py', 'tests/test_simple_paths.py',
                'tests/test_matching.py', 'tests/test_cluster.py', 'tests/test_euler.py',
                'tests/test_bridges.py', 'tests/test_chordal.py', 'tests/test_clique.py',
                'tests/test_core.py', 'tests/test_dominance.py', 'tests/test_planarity.py',
                'tests/test_lowest_common_ancestors.py', 'tests/test_mis.py',
                'tests/test_distance_measures.py', 'tests/test_triads.py', 'tests/test_tournament.py')) +
            ('networkx/classes/tests',),
            ('networkx/algorithms/shortest_paths/tests/test_generic.py',
             'networkx/algorithms/shortest_paths/tests/test_weighted.py',
             'networkx/algorithms/tests/test_dag.py', 'networkx/algorithms/tests/test_cycles.py',
             'networkx/algorithms/components/tests'),
            why='graph algorithms: nested loops with break/continue/else, early returns from loops, '
                'heaps and dict/set state, recursion; functions live in _dispatchable objects',
            quick_modules=('networkx.algorithms.shortest_paths', 'networkx.algorithms.dag',
                           'networkx.algorithms.cycles', 'networkx.algorithms.components',
                           'networkx.classes', 'networkx.utils')),
    Package('python-dateutil', '4.0.0', ('dateutil',), 'src',
            ('tests/test_parser.py', 'tests/test_relativedelta.py', 'tests/test_rrule.py',
             'tests/test_easter.py', 'tests/test_isoparser.py', 'tests/test_utils.py', 'tests/test_tz.py',
             'tests/property'),
            ('tests/test_relativedelta.py', 'tests/test_easter.py'),
            # its filterwarnings = error meets its conftest's pytest-cov mark (not installed)
            ('-W', 'ignore::pytest.PytestUnknownMarkWarning'),
            why='a hand-written date parser (token loops, try/except, while with index arithmetic), '
                'relativedelta arithmetic, rrule iteration'),
    Package('humanize', '4.17.0', ('humanize',), 'src',
            ('tests/test_filesize.py', 'tests/test_lists.py', 'tests/test_number.py', 'tests/test_time.py',
             'tests/test_i18n.py'),
            ('tests/test_number.py', 'tests/test_filesize.py'),
            why='formatting with early returns, loops over units with break, float/int edge cases'),
    Package('inflect', '7.6.0', ('inflect',), '.', ('tests',), ('tests/test_pwd.py',),
            why='a large rule engine: long if/elif chains, regex loops, early returns, typeguard '
                'instrumented methods'),
    Package('attrs', '26.1.0', ('attr', 'attrs'), 'src', ('tests',), ('tests/test_funcs.py',),
            ('--ignore=tests/test_mypy.yml', '--ignore=tests/test_pyright.py', '--ignore=tests/test_3rd_party.py'),
            why='class decorators that generate code, closures, recursion over nested instances'),
    Package('pyparsing', '3.3.3', ('pyparsing',), '.',
            ('tests/test_simple_unit.py', 'tests/test_unit.py', 'tests/test_util.py', 'tests/test_testing.py'),
            ('tests/test_simple_unit.py',),
            why='parser combinators: a deep class hierarchy with super() and overridden parse methods, '
                'try/except as control flow in loops, recursion, packrat caches, closures'),
    Package('sqlparse', '0.6.1', ('sqlparse',), '.', ('tests',), ('tests/test_tokenize.py', 'tests/test_split.py'),
            why='a lexer and a statement splitter (state machines), token-list grouping passes with '
                'while loops over indices, recursion into token trees, filters as classes'),
    Package('mistune', '3.4.0', ('mistune',), 'src', ('tests',), ('tests/test_syntax.py',),
            why='a markdown parser: regex-driven block and inline state machines, loops with break '
                'and early returns, plugins as closures, renderer class hierarchies'),
    Package('tabulate', '0.10.0', ('tabulate',), '.', ('test',), ('test/test_output.py',),
            why='table formatting: long if/elif chains on types, nested loops and comprehensions, '
                'named tuples of functions, optional imports in try/except'),
    Package('parse', '1.22.4', ('parse',), '.', ('tests',), ('tests/test_parse.py',),
            why='the inverse of format(): a hand-written format-spec parser, regex building in loops, '
                'type converters as closures and classes'),
    Package('chardet', '7.7.0', ('chardet',), 'src', ('tests',), ('tests/test_utf8.py', 'tests/test_escape.py'),
            # test_accuracy, test_utils and 3 other tests clone a test corpus from a code host (no network
            # here); test_cli runs the installed chardet in a subprocess (none here); test_benchmark bounds
            # time ratios (a different few fail at each run on a loaded machine, unconverted too)
            ('--ignore=tests/test_accuracy.py', '--ignore=tests/test_utils.py', '--ignore=tests/test_cli.py',
             '--ignore=tests/test_benchmark.py',
             '--deselect=tests/test_mime_type.py::test_none_none_files_have_correct_mime_types',
             '--deselect=tests/test_models.py::test_all_test_data_pairs_have_models',
             '--deselect=tests/test_postprocess.py::test_demote_niche_latin_stands_down_on_sparse_evidence'),
            why='encoding detection: byte-level loops over bytes and memoryviews, state machines for '
                'escape sequences and multi-byte encodings, early returns, a staged pipeline of classes'),
    Package('pycparser', '3.12', ('pycparser',), '.', ('tests',),
            ('tests/test_c_parser.py::TestCParser_whole_code', 'tests/test_c_parser.py::TestCParser_typenames'),
            why='a C lexer and a hand-written recursive-descent parser: long if/elif chains on tokens, '
                'while loops with break, deep AST class hierarchies, visitors dispatching by name'),
    Package('markdown', '3.11.3', ('markdown',), '.', ('tests',), ('tests/test_syntax/blocks',),
            # test_legacy turns warnings into errors at import: pytest's warning about md_in_html's
            # TestSuite class (a unittest helper, not a test) then is a collection error (1, both ways)
            ('--continue-on-collection-errors',),
            why='Python-Markdown: block processors as a class hierarchy run in a loop until one applies, '
                'inline patterns, tree processors walking ElementTree recursively, registries'),
    Package('ecdsa', '0.19.2', ('ecdsa',), 'src', ('src/ecdsa',),   # its tests are modules of the package
            ('src/ecdsa/test_numbertheory.py',),
            # in the staged form test_malformed_sigs' module-level key generation hits the recursion limit
            # (jacobi's recursion: see README's Limits), which would stop the whole collection
            ('--continue-on-collection-errors',),
            why='elliptic-curve arithmetic on big ints: modular inverse and square-root loops, windowed '
                'scalar multiplication with precomputed tables, DER parsing with early returns'),
    Package('pyasn1', '0.6.5', ('pyasn1',), '.', ('tests',), ('tests/codec/der',),
            why='ASN.1 types and BER/CER/DER codecs: tag-dispatched decoder state machines over bytes, '
                'deep class hierarchies of types with overridden methods, recursion into constructed values'),
    Package('docutils', '0.23', ('docutils',), '.', ('test',), ('test/test_statemachine.py', 'test/test_nodes.py'),
            why='reStructuredText: a state machine of state classes whose transitions are regex-matched '
                'methods, nested state machines for nested blocks, node tree visitors, transforms'),
    # Added for issue 23 (what its bugs touched: decorators, callable objects and mocks, descriptors and
    # dunder-heavy structures, deep recursion).
    Package('wrapt', '2.5.2', ('wrapt',), 'src', ('tests/core',), ('tests/core/test_function_wrapper.py',),
            why='decorators and proxies: pure-Python ObjectProxy/FunctionWrapper (the C extension is not built '
                'from the sdist) forwarding every dunder, descriptors binding wrappers to instances and classes, '
                'decorators stacked on decorators, partial-like callable proxies'),
    Package('decorator', '5.3.1', ('decorator',), 'src', ('tests/test.py',), ('tests/test.py',),
            why='signature-preserving decorators: callers wrapped into generated functions, decorator factories, '
                'decorators of decorators, dispatch on argument types'),
    Package('intervaltree', '3.2.1', ('intervaltree', 'sortedcontainers'), '.', ('test',),
            ('test/intervaltree_methods/query_test.py', 'test/interval_methods'),
            ('-o', 'python_files=*_test.py'),
            why="an AVL interval tree on sortedcontainers' SortedDict (both converted): recursion over nodes, "
                'rotations, namedtuple-based intervals with their own __eq__/__lt__/__hash__, set-like dunders'),
    Package('tenacity', '9.2.1', ('tenacity',), '.', ('tests',),
            ('tests/test_tenacity.py', '-k', 'TestDecoratorWrapper or TestInvokeAsCallable or TestMockingSleep '
             'or TestPickle or TestWaitConditions'),
            # tornado and trio are not installed (their tests skip or need them)
            ('--ignore=tests/test_tornado.py',),
            why='retrying decorators: strategies as callable objects combined with __and__/__or__, '
                'Retrying objects called as functions, wraps-stacked wrappers, tests built on unittest.mock',
            unimportable=('tenacity.tornadoweb',)),
    Package('simplejson', '4.3.0', ('simplejson',), '.', ('simplejson/tests',), ('simplejson/tests/test_decode.py',),
            why="a JSON codec's pure-Python scanner and encoder (the C speedups are not built): recursive descent "
                'into nested containers, circular-reference checks, hooks as callables, Decimal/namedtuple dispatch',
            unimportable=('simplejson.ordered_dict',)),   # Python 2's (imports UserDict)
    Package('pluggy', '1.7.0', ('pluggy',), 'src', ('testing',), ('testing/test_hookcaller.py',),
            why="pytest's plugin system: hook callers as callable objects, markers as decorators, a multicall "
                'loop over generators (wrappers), tracing through monkeypatched methods'),
    Package('blinker', '1.9.0', ('blinker',), 'src', ('tests',), ('tests/test_signals.py',),
            # its configuration names pytest-asyncio's option (not installed), and its one async test needs it
            ('-W', 'ignore::pytest.PytestConfigWarning', '--deselect=tests/test_signals.py::test_async_receiver'),
            why='signals: receivers held by weak references (functions, bound methods through WeakMethod, '
                'callable objects), sent to in loops over a copy of the receivers, decorators that connect'),
    Package('pyrsistent', '0.20.0', ('pyrsistent',), '.', ('tests',), ('tests/vector_test.py',),
            why='persistent data structures in pure Python (the C pvector is not built): dunder-heavy vectors, '
                'maps and sets, descriptors and metaclasses for records and classes, recursive freeze/thaw'),
)


def by_name(name: str) -> Package:
    for package in PACKAGES:
        if package.name == name:
            return package
    raise KeyError(f'unknown package {name!r}; known: {", ".join(p.name for p in PACKAGES)}')
