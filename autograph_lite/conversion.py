"""The conversion pipeline: user function -> converted source -> a live function over the same
globals and closure cells. Conversions are cached by code object; functions by identity.

A function gets two forms (converters/plain_form.py): the staged form (``converted_source``, what
``ag.to_code`` shows) and the plain form (its own statements, for Python values), made the first time
the function is instantiated. ``instantiate`` returns the plain form; its first statement calls the
staged form while a graph is being built. Lambdas have only the staged form.

>>> def f(x):
...     return -x if x < 0 else x
>>> converted_source(f).splitlines()[1]
"    return ag__.if_exp(x < 0, lambda: -x, lambda: x, '-x if x < 0 else x')"
"""
import ast
import itertools
import linecache
import os
import types
import weakref
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import gast

from autograph_lite import contract
from autograph_lite.converters import (annotations, asserts, break_statements, call_trees, checks, comprehensions,
                                       conditional_expressions, containers, continue_statements, control_flow,
                                       deletions, hoisting, lists, logical_expressions, match_statements, plain_form,
                                       return_statements, slices, unbound_reads, unpacking)
from autograph_lite.pyct import anno, codegen, mangling, origin_info, parser, rewritten_code, static_analysis
from autograph_lite.pyct.allocation import without_cycle_collection
from autograph_lite.pyct.errors import ConversionError
from autograph_lite.pyct.origin_info import Origin
from autograph_lite.pyct.transformer import Context

# Pinned at import: user code may replace these builtins (even with converted functions).
from builtins import bool, compile, dict, getattr, isinstance, len, next, str, tuple, zip

_counter = itertools.count(1)


class ConvertedCode(NamedTuple):
    source: str               # the converted function, as to_code shows it
    code: types.CodeType      # its compiled code object (free variables: ag__ + the original's)
    filename: str             # the name it was compiled under (registered in linecache)
    first_line: int           # the line of that file where ``source`` starts (after the factory's header)
    # What the plain form needs from this (staged) conversion: the nested scopes' converted nodes.
    nested_shapes: tuple = ()
    staged_nested: Optional[tuple] = None

    def origin_of(self, source_line: int) -> Optional[Origin]:
        """The user's line that line ``source_line`` (1-based) of ``source`` came from, if any."""
        return origin_info.lookup(self.filename, self.first_line + source_line - 1)


# Converters that only rewrite constructs the user wrote (no converter before them writes one): skipped
# when the user's code has none (each would walk the whole converted tree for nothing). A match
# statement becomes assignments and subscripts: it keeps the converters of those.
_ONLY_FOR = {
    comprehensions.ComprehensionTransformer: lambda ctx: _has(ctx, gast.ListComp, gast.SetComp, gast.DictComp,
                                                              gast.GeneratorExp),
    conditional_expressions.ConditionalExpressionTransformer: lambda ctx: _has(ctx, gast.IfExp),
    # also moves loop elses
    break_statements.BreakTransformer: lambda ctx: ctx.loop_has_else or _has(ctx, gast.Break) or (
        _has(ctx, gast.NamedExpr) and _has(ctx, gast.While)),   # and tests that assign of loops that may jump
    continue_statements.ContinueTransformer: lambda ctx: _has(ctx, gast.Continue),
    asserts.AssertTransformer: lambda ctx: _has(ctx, gast.Assert),
    lists.ListTransformer: lambda ctx: (
        not ctx.attribute_names.isdisjoint({'append', 'pop', *lists.IN_PLACE_METHODS})) or (
        _has(ctx, gast.AugAssign) and _has(ctx, *lists.CONTAINER_DISPLAYS)),   # `xs += [v]`
    slices.SliceTransformer: lambda ctx: _has(ctx, gast.Subscript, gast.Match),
    unpacking.UnpackingTransformer: lambda ctx: _has(ctx, gast.Tuple, gast.List, gast.Match),
    # and/or/not, `in`, chained comparisons; the jump converters write `not flag` (they say so), a
    # match statement `==`/`or`.
    logical_expressions.LogicalExpressionTransformer: lambda ctx: (
        ctx.negations_written or ctx.chained_comparison
        or _has(ctx, gast.And, gast.Or, gast.Not, gast.In, gast.NotIn, gast.Match)),
}


def _has(ctx: Context, *kinds: type) -> bool:
    return not ctx.node_kinds.isdisjoint(kinds)


def _needed(transformers, ctx: Context):
    return [t for t in transformers if t not in _ONLY_FOR or _ONLY_FOR[t](ctx)]


def _convert_tree(node, ctx: Context):
    checks.check(node, ctx)
    if gast.IfExp in ctx.node_kinds:
        conditional_expressions.record_user_text(node)   # its text for errors, before converters rewrite it
    if isinstance(node, gast.Lambda):
        # Expressions only: statements cannot appear in a lambda.
        for transformer in _needed((call_trees.CallTreeTransformer, comprehensions.ComprehensionTransformer,
                                    conditional_expressions.ConditionalExpressionTransformer,
                                    logical_expressions.LogicalExpressionTransformer), ctx):
            node.body = transformer(ctx).visit(node.body)
        return node
    node = annotations.AnnotationTransformer(ctx).visit(match_statements.transform(node, ctx))   # match: if/elif
    node = unbound_reads.mark(deletions.transform(node, ctx), ctx)   # dels; then reads that may find no value
    for transformer in _needed((break_statements.BreakTransformer, continue_statements.ContinueTransformer,
                                return_statements.ReturnTransformer, asserts.AssertTransformer,
                                lists.ListTransformer, slices.SliceTransformer, call_trees.CallTreeTransformer,
                                unpacking.UnpackingTransformer, unbound_reads.CheckWriter), ctx):
        node = transformer(ctx).visit(node)
    static_analysis.analyze(node, ctx.always_live)   # once, on the lowered code, for the control flow converter
    containers.annotate(node, frozenset(ctx.roles))   # the roles of its lists, dicts and sets, by construct
    for transformer in _needed((control_flow.ControlFlowTransformer, comprehensions.ComprehensionTransformer,
                                conditional_expressions.ConditionalExpressionTransformer,
                                logical_expressions.LogicalExpressionTransformer), ctx):
        node = transformer(ctx).visit(node)
    return hoisting.hoist_body_functions(node)


class PlainForm(NamedTuple):
    converted: ConvertedCode  # the plain form's source and code
    staged_name: str          # the free variable it calls the staged form by
    pinned: Tuple[Tuple[str, str], ...] = ()   # (free variable, name) of each builtin it reads from its closure


class _PlainFormParts(NamedTuple):
    staged_name: str           # the free variable the plain form calls the staged form by
    plumbing: Sequence[int]    # 0-based lines of its source (the dispatch) that no traceback should list
    pinned_names: Sequence[str] = ()   # the free variables holding builtins (contract.PINNED_BUILTINS)


# One cell per pinned builtin, shared by every plain form (generated code never writes them).
_PINNED_CELLS = {name: types.CellType(builtin) for name, builtin in contract.PINNED_BUILTINS.items()}


def _compile(entity: Callable, source: str, line_origins: List[Optional[Origin]], name: str,
             user_file: str, plain: Optional[_PlainFormParts] = None) -> ConvertedCode:
    """Compile ``source`` in its factory.

    ``plain`` (the plain form): the code is compiled under the original's own file name and lines
    (``_in_user_file``), so that its frames are the user's for everything that reads frames."""
    extra_freevars, plumbing = ([plain.staged_name, *plain.pinned_names], plain.plumbing) if plain else ([], ())
    freevars = list(extra_freevars) + [v for v in entity.__code__.co_freevars if v != contract.OPERATORS]
    header = contract.factory_header(name, freevars)
    body = source if name != '<lambda>' else f'return {source}'
    lines = header + ['    ' + line if line else '' for line in body.rstrip('\n').split('\n')]
    origins = [None] * len(header) + line_origins[:len(lines) - len(header)]
    if name != '<lambda>':
        lines.append(f'    return {name}')
        origins.append(None)
    factory_source = '\n'.join(lines) + '\n'
    first_line = entity.__code__.co_firstlineno
    filename = (f'<autograph_lite #{next(_counter)}: converted {entity.__qualname__} '
                f'from {os.path.basename(user_file)}:{first_line}{", plain form" if plain else ""}>')
    plumbing_lines = [len(header) + line + 1 for line in plumbing]
    # (The line map is kept for the plain form too: ``to_code --annotate`` reads it by ``filename``.)
    origin_info.register(filename, origins, plumbing_lines)
    if plain:
        module_code = _in_user_file(factory_source, origins, plumbing_lines, entity)
        _register_codes(module_code, _plain_codes)
    else:
        module_code = compile(factory_source, filename, 'exec')
        linecache.cache[filename] = (len(factory_source), None, factory_source.splitlines(True), filename)
    factory_code = next(c for c in module_code.co_consts if getattr(c, 'co_name', None) == contract.FACTORY_NAME)
    code = next(c for c in factory_code.co_consts if getattr(c, 'co_name', None) == name)
    _register_converted(code)
    return ConvertedCode(source, code, filename, len(header) + 1)


def _in_user_file(factory_source: str, origins: List[Optional[Origin]], plumbing_lines: Sequence[int],
                  entity: types.FunctionType) -> types.CodeType:
    """``factory_source`` compiled under ``entity``'s file name, each statement at the user's line it came from.

    The plain form runs the user's own statements, so its frames are made to be the user's: a traceback,
    ``warnings.warn(stacklevel=N)``, ``logging``'s caller, ``inspect.stack()`` and coverage see the user's
    file and line, as with the original, and no map from generated lines is needed. The line the plain form
    dispatches to the staged form on (plumbing) takes the line of the statement after it; columns span the
    whole line (a traceback marks no part of it: the generated columns are not the user's).
    """
    code = entity.__code__
    mapped: List[int] = [0] * len(origins)
    following = code.co_firstlineno
    for index in range(len(origins) - 1, -1, -1):
        origin = origins[index]
        if origin is not None and index + 1 not in plumbing_lines and origin.filename == code.co_filename:
            following = origin.lineno
        mapped[index] = following
    tree = ast.parse(factory_source)
    for node in ast.walk(tree):
        if 'lineno' in node._attributes and getattr(node, 'lineno', None) is not None:
            line = mapped[node.lineno - 1] if 0 < node.lineno <= len(mapped) else code.co_firstlineno
            text = linecache.getline(code.co_filename, line).rstrip()
            node.lineno = node.end_lineno = line
            node.col_offset, node.end_col_offset = len(text) - len(text.lstrip()), len(text.encode())
    for node in tree.body[0].body:
        if isinstance(node, ast.FunctionDef):
            node.lineno = node.end_lineno = code.co_firstlineno   # the function's own first line (decorators)
    return compile(tree, code.co_filename, 'exec')


def _register_codes(code: types.CodeType, registry: 'weakref.WeakSet[types.CodeType]') -> None:
    """``code`` and every code object nested in it."""
    registry.add(code)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            _register_codes(constant, registry)


# id(code) -> a weak reference to it, for the code of both forms of every converted function and everything
# nested in them: converted code calls a function running such code as it is (calls.call_target reads it
# first, by identity: a code object's own hash walks its constants, and a WeakSet lookup makes a weak reference).
converted_code_ids: Dict[int, 'weakref.ref[types.CodeType]'] = {}


def _register_converted(code: types.CodeType) -> None:
    """``code`` and every code object nested in it, in ``converted_code_ids`` for as long as each lives."""
    key = id(code)

    def forget(reference: 'weakref.ref[types.CodeType]', key: int = key) -> None:
        if converted_code_ids.get(key) is reference:   # (not a newer code object given the same id)
            del converted_code_ids[key]
    converted_code_ids[key] = weakref.ref(code, forget)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            _register_converted(constant)


# The code objects of plain forms and of everything nested in them (compiled under the user's file name),
# and of the plain forms themselves.
_plain_codes: 'weakref.WeakSet[types.CodeType]' = weakref.WeakSet()
_plain_form_codes: 'weakref.WeakSet[types.CodeType]' = weakref.WeakSet()
# A plain form's code -> the free variable it calls its staged form by; a redirected plain form's code
# (see ``redirect``) -> the index of the cell holding what it calls.
_staged_names: 'weakref.WeakKeyDictionary[types.CodeType, str]' = weakref.WeakKeyDictionary()
_redirections: 'weakref.WeakKeyDictionary[types.CodeType, int]' = weakref.WeakKeyDictionary()
_code_cache: 'weakref.WeakKeyDictionary[types.CodeType, dict]' = weakref.WeakKeyDictionary()
# Called as observer(entity, converted) after each new conversion (the test suite checks every
# to_code output with it; see tests/conftest.py).
conversion_observers: List[Callable[[Callable, ConvertedCode], None]] = []


@without_cycle_collection
def convert_code(entity: Callable) -> ConvertedCode:
    """Convert a plain function or lambda (cached by its code object)."""
    # Equal code objects from different files compare equal: the inner key tells them apart.
    qualname = mangling.lexical_qualname(entity)   # decides the mangling (before 3.11: __qualname__)
    where = (entity.__code__.co_filename, entity.__code__.co_firstlineno, qualname)
    cached = _code_cache.get(entity.__code__, {}).get(where)
    if cached is not None:
        return cached
    node, filename = parser.parse_entity(entity)
    mangling.mangle_private_names(node, qualname)   # compiled outside its class below
    ctx = Context(node, filename)   # the census of the user's code, its names included
    added = rewritten_code.names_not_in_source(entity.__code__, node, ctx.source_names)
    if added:
        raise ConversionError(
            f'{entity.__qualname__!r} cannot be converted: its code is not what its source says (a '
            f'decorator recompiled it: the code uses {", ".join(added[:4])}, which the source does not)',
            f'File "{filename}", line {entity.__code__.co_firstlineno}, in {entity.__name__}',
            'Converting the source would drop what the decorator added. Call it unconverted: mark it '
            'with @ag.do_not_convert, or convert the function before decorating it.')
    # The plain form takes the scopes nested in a function from the staged form: numbered here, if any.
    nested = ctx.function_defs > 1 or _has(ctx, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
    shapes = plain_form.mark_nested_scopes(node) if isinstance(node, gast.FunctionDef) and nested else ()
    node = _convert_tree(node, ctx)
    if isinstance(node, gast.Lambda):
        source, line_origins = codegen.unparse_expression(node), [anno.getanno(node, anno.ORIGIN, None)]
        name, staged_nested = '<lambda>', None
    else:
        source, line_origins = codegen.unparse(node)
        name, staged_nested = node.name, plain_form.staged_nested_scopes(node, len(shapes))
    converted = _compile(entity, source, line_origins, name, filename)._replace(
        nested_shapes=shapes, staged_nested=staged_nested)
    _code_cache.setdefault(entity.__code__, {})[where] = converted
    for observer in conversion_observers:
        observer(entity, converted)
    return converted


def converted_source(entity: Callable) -> str:
    """The converted source of a plain function or lambda."""
    return convert_code(entity).source


_plain_cache: 'weakref.WeakKeyDictionary[types.CodeType, dict]' = weakref.WeakKeyDictionary()


@without_cycle_collection
def plain_code(entity: types.FunctionType) -> Optional[PlainForm]:
    """The plain form of a function (cached by its code object), made from the same source as its
    staged form; None for a lambda, or when its source changed since the staged form was made."""
    converted = convert_code(entity)
    qualname = mangling.lexical_qualname(entity)
    where = (entity.__code__.co_filename, entity.__code__.co_firstlineno, qualname)
    by_place = _plain_cache.setdefault(entity.__code__, {})
    if where in by_place:
        return by_place[where]
    plain = None
    if converted.staged_nested is not None:
        node, filename = parser.parse_entity(entity)
        mangling.mangle_private_names(node, qualname)
        made = plain_form.plain_tree(node, converted.nested_shapes, converted.staged_nested, filename)
        if made is not None:
            node, staged_name, pinned = made
            source, line_origins = codegen.unparse(node)
            parts = _PlainFormParts(staged_name, plain_form.dispatch_lines(source), [name for name, _ in pinned])
            plain = PlainForm(_compile(entity, source, line_origins, node.name, filename, parts), staged_name,
                              pinned)
            _plain_form_codes.add(plain.converted.code)
            _staged_names[plain.converted.code] = staged_name
    by_place[where] = plain
    return plain


def plain_source(entity: types.FunctionType) -> str:
    """The source of the plain form of a function (see ``plain_code``)."""
    plain = plain_code(entity)
    if plain is None:
        raise ValueError(f'{entity.__qualname__!r} has no plain form (a lambda has only the staged form)')
    return plain.converted.source


def _function(code: types.CodeType, entity: types.FunctionType, cells: dict) -> types.FunctionType:
    """A function running ``code`` with ``entity``'s globals, closure cells (+ ``cells``) and metadata."""
    closure = tuple(cells.get(name) or types.CellType() for name in code.co_freevars)
    function = types.FunctionType(code, entity.__globals__, entity.__name__, entity.__defaults__, closure)
    function.__kwdefaults__ = entity.__kwdefaults__   # the same dict: updates to it apply to both
    function.__qualname__ = entity.__qualname__
    function.__module__ = entity.__module__
    function.__doc__ = entity.__doc__
    function.__annotations__ = dict(getattr(entity, '__annotations__', {}))
    if hasattr(entity, '__type_params__'):   # def f[T](x: T), Python 3.12+ (as functools.update_wrapper does)
        function.__type_params__ = entity.__type_params__
    return function


def _cells(entity: types.FunctionType, ag_namespace: types.ModuleType) -> dict:
    cells = dict(zip(entity.__code__.co_freevars, entity.__closure__ or ()))
    cells[contract.OPERATORS] = types.CellType(ag_namespace)
    return cells


def instantiate(entity: types.FunctionType, ag_namespace: types.ModuleType) -> types.FunctionType:
    """A converted copy of ``entity`` over the same globals, closure cells and defaults, whose generated
    code calls the operators in ``ag_namespace`` (``autograph_lite.calls.AG_NAMESPACE``): the plain form
    of a function (calling its staged form while a graph is being built), the staged form of a lambda."""
    cells = _cells(entity, ag_namespace)
    staged = _function(convert_code(entity).code, entity, cells)
    plain = plain_code(entity) if entity.__code__.co_name != '<lambda>' else None
    if plain is None:
        return staged
    cells[plain.staged_name] = types.CellType(staged)
    for name, builtin in plain.pinned:
        cells[name] = _PINNED_CELLS[builtin]
    return _function(plain.converted.code, entity, cells)


def redirect(plain: types.FunctionType, target: Callable) -> None:
    """Make the plain form ``plain`` (made by ``instantiate``) call ``target`` with its arguments from now on.

    For a function whose code was replaced after ``ag.to_graph`` returned ``plain``: the object the user
    holds (patched into a module or a class) must run the new code. A function's closure cannot be
    replaced, so ``plain`` gets a code object with a closure of the same size that calls what one cell of
    its own holds (the cell of its staged form, which no one else shares): ``target``. Two frames a call."""
    code = plain.__code__
    cell = _redirections.get(code)
    if cell is None:
        cell = code.co_freevars.index(_staged_names[code])
        plain.__code__ = _redirecting_code(code, cell)
    plain.__closure__[cell].cell_contents = target


def is_redirected(function: types.FunctionType) -> bool:
    """True for a plain form ``redirect`` made call another function."""
    return function.__code__ in _redirections


def _redirecting_code(code: types.CodeType, cell: int) -> types.CodeType:
    """``def name(*args, **kwargs): return <free variable cell>(*args, **kwargs)`` with as many free
    variables as ``code`` (placeholders: they are numbered, and the compiler orders them by name)."""
    names = [f'_ag_cell_{index:04d}' for index in range(len(code.co_freevars))]
    filename = f'<autograph_lite #{next(_counter)}: {code.co_qualname} redirected to its replaced code>'
    factory_source = (f'def {contract.FACTORY_NAME}():\n'
                      f'    {" = ".join(names)} = None\n'
                      f'    def redirected(*args, **kwargs):\n'
                      f'        return {names[cell]}(*args, **kwargs)\n'
                      f'        ({", ".join(names)},)\n'   # unreachable: makes every cell a free variable
                      f'    return redirected\n')
    origin_info.register(filename, [None] * 6, [])
    linecache.cache[filename] = (len(factory_source), None, factory_source.splitlines(True), filename)
    module_code = compile(factory_source, filename, 'exec')
    factory_code = next(c for c in module_code.co_consts if getattr(c, 'co_name', None) == contract.FACTORY_NAME)
    redirecting = next(c for c in factory_code.co_consts if getattr(c, 'co_name', None) == 'redirected')
    redirecting = redirecting.replace(co_name=code.co_name, co_qualname=code.co_qualname)
    _redirections[redirecting] = cell
    return redirecting


def instantiate_staged(entity: types.FunctionType, ag_namespace: types.ModuleType) -> types.FunctionType:
    """Like ``instantiate``, the staged form only: what a trace runs, without the cost of the plain form."""
    return _function(convert_code(entity).code, entity, _cells(entity, ag_namespace))


def is_converted(entity: Callable) -> bool:
    """True for functions compiled from converted code (including functions nested in it)."""
    code = getattr(entity, '__code__', None)
    return code is not None and (origin_info.is_generated(code.co_filename) or code in _plain_codes)


def runs_in_user_file(code: types.CodeType) -> bool:
    """True for the code of a plain form and the code nested in it (compiled under the user's file and lines)."""
    return code in _plain_codes


def is_plain_form(entity: Callable) -> bool:
    """True for the plain form of a converted function (compiled under the user's own file and lines).

    >>> is_plain_form(len)
    False
    """
    code = getattr(entity, '__code__', None)
    return isinstance(code, types.CodeType) and code in _plain_form_codes
