"""Parsing live functions and lambdas back into gast trees.

>>> def f(x):
...     return x
>>> node, _ = parse_entity(f)
>>> node.name
'f'
"""
import ast
import copy
import inspect
import linecache
import os
import sys
import textwrap
from typing import Callable, Dict, List, Optional, Tuple

import gast

from autograph_lite.pyct import nodes, origin_info, python_ast
from autograph_lite.pyct.errors import ConversionError, SourceUnavailableError


def _parse(source: str) -> gast.Module:
    # gast.parse, with a faster conversion of the stdlib tree to gast (python_ast.to_gast).
    return python_ast.to_gast(ast.parse(source))


def parse_str(code: str) -> gast.Module:
    """Parse a code string (dedented first) into a gast Module."""
    return _parse(textwrap.dedent(code))


def _source_of(entity: Callable) -> Tuple[List[str], int, str]:
    """(all lines of the defining file, index of the entity's first line in them, file name)."""
    try:
        # The function's own code, never what ``__wrapped__`` points to: a functools.wraps wrapper
        # converted from the wrapped function's source would run it with the wrapper's globals,
        # closure and defaults.
        # A function (not its code object) lets inspect find the module by __module__ instead of
        # scanning every loaded module (about 10 ms once there are a few hundred).
        file_lines, start = inspect.findsource(entity if inspect.isfunction(entity) else entity.__code__)
        filename = inspect.getsourcefile(entity) or inspect.getfile(entity)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f'cannot convert {getattr(entity, "__qualname__", entity)!r}: its source code is not '
            f'available ({exc})',
            fix='Define the function in a .py file (not exec, eval or an interactive prompt), '
                'or mark it with @ag.do_not_convert.') from None
    if _borrowed_module_source(entity, file_lines):
        raise SourceUnavailableError(
            f'cannot convert {getattr(entity, "__qualname__", entity)!r}: its code was compiled from a '
            f'string (file name {entity.__code__.co_filename!r}), and the only source Python finds for '
            f'it is the whole of module {entity.__module__!r}, which is not where the code comes from',
            fix='Mark it with @ag.do_not_convert, or register its source in linecache under its file name.')
    return file_lines, start, filename


def _borrowed_module_source(entity: Callable, file_lines: List[str]) -> bool:
    """Whether ``file_lines`` are the source of the entity's module, lent by linecache to a file name
    that is not the module's (code compiled from a string: networkx's argmap, code generators): the
    line numbers of the code then point into the wrong file, and a def found there is another function."""
    code = getattr(entity, '__code__', None)
    filename = code.co_filename if code is not None else ''
    if not filename or os.path.exists(filename):
        return False
    module = sys.modules.get(getattr(entity, '__module__', None) or '')
    module_file = getattr(module, '__file__', None)
    if module is None or (module_file and os.path.normcase(os.path.abspath(module_file))
                          == os.path.normcase(os.path.abspath(filename))):
        return False
    try:
        source = module.__loader__.get_source(module.__name__)
    except Exception:   # no loader, or it cannot give the source: the lines came from elsewhere
        return False
    return source is not None and ''.join(file_lines).rstrip('\n') == source.rstrip('\n')


def _indentation(line: str) -> int:
    expanded = line.expandtabs()
    return len(expanded) - len(expanded.lstrip())


def _block_by_indentation(lines: List[str], start: int) -> Optional[List[str]]:
    """The def starting at ``lines[start]`` (decorators first), ending before the next line that is
    indented no deeper than the def; None if the def line cannot be found.

    Much cheaper than tokenizing (``inspect.getblock``). A line inside a bracket or string can fool
    it only by cutting that bracket or string open, so the caller falls back to ``getblock`` when
    the result does not parse.
    """
    base = _indentation(lines[start])
    header = start
    while header < len(lines):
        text = lines[header].lstrip()
        if _indentation(lines[header]) == base and text.startswith(('def ', 'async def ')):
            break
        if header == start and not text.startswith('@'):
            return None
        header += 1
    else:
        return None
    end = header + 1
    while end < len(lines):
        text = lines[end].strip()
        if text and not text.startswith('#') and _indentation(lines[end]) <= base:
            break
        end += 1
    while end > header + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith('#')):
        end -= 1   # trailing comments and blank lines are not part of the function
    return lines[start:end]


def _parse_block(lines: List[str]) -> Tuple[gast.Module, List[str], int]:
    """Parse source lines that may be indented; returns (module, parsed lines, lines prepended)."""
    source = ''.join(lines)
    try:
        return _parse(textwrap.dedent(source)), source.splitlines(), 0
    except SyntaxError:
        # A multi-line string with less indentation defeats dedent; parse inside a block instead.
        wrapped = 'if True:\n' + source
        module = _parse(wrapped)
        module.body = module.body[0].body
        return module, wrapped.splitlines(), 1


def parse_entity(entity: Callable) -> Tuple[gast.AST, str]:
    """Parse a function or lambda; returns (FunctionDef or Lambda node, source filename).

    Every node is annotated with its origin in the user's file. Decorators and type parameters are dropped.
    """
    if entity.__code__.co_filename == _SHARED_FILENAME:
        return _parse_under_the_shared_file_name(entity)
    return _parse_lambda(entity) if entity.__code__.co_name == '<lambda>' else _parse_function(entity)


def _parse_function(entity: Callable) -> Tuple[gast.FunctionDef, str]:
    file_lines, start, filename = _source_of(entity)
    first_line = start + 1
    lines = _block_by_indentation(file_lines, start)
    try:
        if lines is None:
            raise SyntaxError('no def line')
        module, parsed_lines, shift = _parse_block(lines)
    except SyntaxError:
        module, parsed_lines, shift = _parse_block(inspect.getblock(file_lines[start:]))
    node = module.body[0]
    if isinstance(node, gast.AsyncFunctionDef):
        origin = f'File "{filename}", line {first_line}, in {node.name}'
        raise ConversionError(f'async function {node.name!r} cannot be converted', origin,
                              'Convert a regular (non-async) function instead.')
    if not isinstance(node, gast.FunctionDef):
        raise SourceUnavailableError(f'cannot convert {entity!r}: its source is not a function definition')
    node.decorator_list = []
    # def f[T](x: T) (3.12+): the type parameters' scope encloses the function; a converted copy gets them from the
    # original's closure cells, as it gets every enclosing variable (a def nested in it keeps its own).
    node.type_params = []
    origin_info.resolve(node, parsed_lines, filename, first_line - shift)
    return node, filename


# compile()'s and exec()'s file name when given none: all code compiled from strings without a name of their own
# shares it, so the lines linecache holds for it may be another code's (Python 3.13 puts the `python -c` program's
# there; a library may put any), with a def at the same line, maybe of the same name and arguments.
_SHARED_FILENAME = '<string>'


def _parse_under_the_shared_file_name(entity: Callable) -> Tuple[gast.AST, str]:
    """The def or lambda found for code compiled under the shared file name, if it compiles to the code's own
    bytecode, names and constants: else a different function would be converted in its place (silently wrong)."""
    _source_of(entity)   # (no lines at all for it: the usual error, its source code is not available)
    code = entity.__code__
    try:
        node, filename = _parse_lambda(entity) if code.co_name == '<lambda>' else _parse_function(entity)
    except (ConversionError, SyntaxError):   # no def or lambda of its own at its line
        node = None
    if node is not None and _same_code(node, code):
        return node, filename
    raise SourceUnavailableError(
        f'cannot convert {getattr(entity, "__qualname__", entity)!r}: its code was compiled from a string without '
        f'a file name of its own ({_SHARED_FILENAME!r}, shared by every exec and compile not given one), and the '
        f'source Python finds at its line {code.co_firstlineno} does not compile to its code (other code; or '
        f'a function that reads variables of an enclosing function or class, which compiles differently alone)',
        fix='Give compile() a file name of its own and register the source in linecache under it, or mark the '
            'function with @ag.do_not_convert.')


# filename -> (the text of the file when parsed, {line: the lambdas that start there, in source order}) for the
# last few files a lambda was converted from: each lambda parsed its whole file (cachetools' suite converts 65
# lambdas of a few test files; the parses were a third of its conversion time).
_lambdas_by_file: Dict[str, Tuple[str, Dict[int, List[gast.Lambda]]]] = {}
_LAMBDA_FILES_KEPT = 8


def _lambdas_at(filename: str, file_lines: List[str], line: int) -> List[gast.Lambda]:
    """The lambdas of ``filename`` (whose lines are ``file_lines``) that start at ``line`` (parsed nodes, shared
    by the later calls: copy one before changing it). Raises SyntaxError if the file does not parse."""
    text = ''.join(file_lines)
    parsed = _lambdas_by_file.get(filename)
    if parsed is None or parsed[0] != text:   # (the file changed since: parsed again)
        by_line: Dict[int, List[gast.Lambda]] = {}
        for node in nodes.walk(_parse(text)):
            if isinstance(node, gast.Lambda):
                by_line.setdefault(node.lineno, []).append(node)
        _lambdas_by_file.pop(filename, None)
        if len(_lambdas_by_file) >= _LAMBDA_FILES_KEPT:
            del _lambdas_by_file[next(iter(_lambdas_by_file))]   # the file parsed longest ago
        parsed = _lambdas_by_file[filename] = (text, by_line)
    return parsed[1].get(line, [])


def _parse_lambda(entity: Callable) -> Tuple[gast.Lambda, str]:
    _, _, filename = _source_of(entity)
    file_lines = linecache.getlines(filename)
    code = entity.__code__
    try:
        at_line = _lambdas_at(filename, file_lines, code.co_firstlineno)
    except SyntaxError:
        raise SourceUnavailableError(f'cannot parse the file {filename} that defines {entity!r}') from None
    arg_names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    candidates = [node for node in at_line
                  if [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs] == arg_names]
    if len(candidates) > 1:
        candidates = [node for node in candidates if _same_code(node, code)] or candidates
        bodies = {gast.dump(node) for node in candidates}
        if len(bodies) > 1:
            raise ConversionError(
                f'cannot tell apart the {len(candidates)} lambdas with arguments {arg_names} '
                f'on one line', f'File "{filename}", line {code.co_firstlineno}',
                'Put each lambda on its own line, or use a def.')
    if not candidates:
        raise SourceUnavailableError(f'cannot find the source of {entity!r} in {filename}')
    node = copy.deepcopy(candidates[0])   # the conversion annotates and changes it
    origin_info.resolve(node, [line.rstrip('\n') for line in file_lines], filename, 1)
    return node, filename


def _same_code(node: gast.AST, code) -> bool:
    """True if ``node`` (a lambda or a def), compiled on its own, gives the live ``code``'s bytecode, names and
    constants. (A function that reads its enclosing function's variables compiles differently on its own.)"""
    # (gast_to_ast keeps every node's lines and columns, which the bytecode's line-marking NOPs follow.)
    if isinstance(node, gast.Lambda):
        tree: ast.AST = ast.Expression(body=gast.gast_to_ast(node))
        mode = 'eval'
    else:
        tree = ast.Module(body=[gast.gast_to_ast(node)], type_ignores=[])
        mode = 'exec'
    ast.fix_missing_locations(tree)
    try:
        compiled = compile(tree, code.co_filename, mode, dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):
        return False
    expected = _fingerprint(code)
    return any(_fingerprint(const) == expected for const in compiled.co_consts if hasattr(const, 'co_code'))


def _fingerprint(code) -> tuple:
    """What two compilations of one source share: bytecode, names and constants (nested code's too), not lines."""
    return (code.co_code, code.co_names, code.co_varnames,
            tuple(_fingerprint(c) if hasattr(c, 'co_code') else (c.__class__, c) for c in code.co_consts))
