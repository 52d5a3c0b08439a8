"""The contract between the converter (source -> source) and the operators (the ``ag__`` namespace).

Both sides import this module, and nothing else of each other: the converters (with pyct) generate
code that follows it, the operators (with runtime) read the calls it describes. docs/GENERATED_CODE.md
shows the calls.

Generated names. Each converter asks the conversion's name generator for a fresh name from these
bases (``do_return``, then ``do_return_1`` in a nested function, ...); nothing ever recognises a
variable by its name.

Roles. Some state variables of an ``if``/loop are the converter's own: the return flag and value, the
break and continue flags; others are module globals (``global x``). The generated call passes their
roles explicitly::

    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2,
                 roles={'do_return': 'return_flag', 'retval_': 'return_value'})

>>> Roles({'do_return_1': RETURN_FLAG}, ('do_return_1', 'y')).index(RETURN_FLAG)
0
"""
import builtins
import types
from typing import List, Mapping, Optional, Sequence

OPERATORS = 'ag__'   # the name of the operators module in generated code

# Bases of generated names (the generator appends _1, _2, ... when a name is taken).
RETURN_FLAG_NAME = 'do_return'
RETURN_VALUE_NAME = 'retval_'
BREAK_FLAG_NAME = 'break_'
CONTINUE_FLAG_NAME = 'continue_'
TEST_FLAG_NAME = 'tested_false'   # a while loop whose test assigns (a walrus) and may break or return
STATE_FUNCTION_NAMES = ('get_state', 'set_state')
IF_FUNCTION_NAMES = ('if_body', 'else_body')
WHILE_FUNCTION_NAMES = ('loop_test', 'loop_body')
FOR_FUNCTION_NAMES = ('loop_body',)
STATE_PARAMETER_NAME = 'vars_'
ITEM_NAME = 'itr'
# The plain form of a function (converters/plain_form.py) calls its staged form, a free variable named
# after the function with this suffix, when ``ag__.<DISPATCH_OPERATOR>()`` is true (a graph is being built).
STAGED_FORM_SUFFIX = '_staged'
DISPATCH_OPERATOR = 'needs_staged_form'
# The plain form calls a builtin by its name directly while the name still holds that builtin (the plain form
# runs outside a graph, where ``ag__.call_target`` gives such a builtin back as it is, at ten times the
# builtin's own cost): ``len(s)`` -> ``(len if len is builtin_len else ag__.call_target(len))(s)``.
# These are the builtins' functions and classes as they are when we are imported; the plain form reads each it
# uses from a free variable of its own named PINNED_BUILTIN_PREFIX + its name (suffixed if the user's function
# has that name: converters/call_trees.py). Not those that read the frame calling them (eval, exec,
# locals, vars, dir, globals, super: call_target guards them, converters/frame_readers.py).
PINNED_BUILTIN_PREFIX = 'builtin_'
_READ_THE_CALLING_FRAME = frozenset(['eval', 'exec', 'locals', 'vars', 'dir', 'globals', 'super'])
PINNED_BUILTINS = {name: value for name, value in vars(builtins).items()
                   if not name.startswith('_') and name not in _READ_THE_CALLING_FRAME
                   and type(value) in (types.BuiltinFunctionType, type) and value.__module__ == 'builtins'}

# Roles of generated state variables, as they appear in the `roles` argument of if_stmt/while_stmt/for_stmt.
RETURN_FLAG = 'return_flag'      # True once a `return` ran
RETURN_VALUE = 'return_value'    # the value of that `return`
BREAK_FLAG = 'break_flag'        # True once a `break` ran, or a test that assigns was false (the loop stops)
CONTINUE_FLAG = 'continue_flag'  # True once a `continue` ran (the rest of the body is skipped)
# The return flag of the `if not <flag>:` that guards what follows a possible return: the else branch
# of that if runs only after a return.
RETURN_GUARD = 'return_guard'
# Not generated, but the operators must know it: a module global the function rebinds (`global x`).
GLOBAL = 'global'
# A local list or dict the construct changes in place that another local may also name (`alias = xs`): it
# must stay the same Python object (a staged construct refuses to make it a tensor list).
ALIASED = 'aliased'
# A local list or dict the construct changes in place whose object this function may share with code outside
# it: a parameter, or bound to anything but a new list/dict/set (a display, a comprehension, list(...), ...),
# or handed to other code before the construct. A staged construct that would replace the object refuses too:
# the other holder (the caller, an attribute, a global, a container) would keep the old one.
BORROWED = 'borrowed'
# A local that a tensor-dependent choice may bind to one of two lists/dicts/sets from before it (`buf = a` in one
# branch, `buf = b` in the other) and that the function changes in place: the staged choice builds a new object
# from both, which the change would reach instead of `a` or `b`, so a staged if refuses different containers.
PICKED = 'picked'
# A local the function reads and writes only through constant keys (`d['k']`, `d['k'] = v`), nowhere else (not
# passed, returned, iterated, measured): if it is a dict, a key a tensor loop adds is a variable the loop creates,
# as TensorFlow accepts it (nothing can see the key before the loop body sets it, nor miss it after the loop).
RECORD = 'record'
FLAG_ROLES = frozenset([RETURN_FLAG, RETURN_GUARD, BREAK_FLAG, CONTINUE_FLAG])
ROLES = FLAG_ROLES | {RETURN_VALUE, GLOBAL, ALIASED, BORROWED, PICKED, RECORD}

# The converted function is compiled inside a factory function taking the operators module and the
# original's free variables; its header lines come before the function's first line.
FACTORY_NAME = 'create_converted_entity'


def factory_header(function_name: str, freevars: Sequence[str]) -> List[str]:
    """The lines of the factory before the converted function (what to_code shows starts after them).

    >>> factory_header('f', ['scale'])
    ['def create_converted_entity(ag__, scale):', '    global f']
    """
    header = [f'def {FACTORY_NAME}({", ".join([OPERATORS] + list(freevars))}):']
    if function_name != '<lambda>' and function_name not in freevars:
        # The def must not bind its name in the factory: the function reads it as a global
        # (recursion), like the original. The factory itself is never run.
        header.append(f'    global {function_name}')
    return header


class Roles:
    """The roles of a construct's state variables, as the operators read them.

    >>> roles = Roles({'retval_': RETURN_VALUE}, ('do_return', 'retval_'))
    >>> roles.of('retval_'), roles.of('do_return'), roles.index(RETURN_FLAG) is None
    ('return_value', None, True)
    """

    __slots__ = ('_by_name', '_names')

    def __init__(self, by_name: Optional[Mapping[str, str]], symbol_names: Sequence[str]):
        by_name = dict(by_name or {})
        unknown = set(by_name.values()) - ROLES
        if unknown:
            raise ValueError(f'unknown state variable roles {sorted(unknown)}; known: {sorted(ROLES)}')
        self._by_name, self._names = by_name, tuple(symbol_names)

    def of(self, name: str) -> Optional[str]:
        """The role of state variable ``name`` (None for the user's own variables)."""
        return self._by_name.get(name)

    def index(self, *roles: str) -> Optional[int]:
        """The position, among the symbol names, of the first variable with one of ``roles``."""
        for position, name in enumerate(self._names):
            if self._by_name.get(name) in roles:
                return position
        return None

    def is_flag(self, name: str) -> bool:
        """True for the converter's return/break/continue flags."""
        return self._by_name.get(name) in FLAG_ROLES


# ``match`` patterns with structure (converters/match_statements.py -> operators/patterns.py): generated code
# passes a pattern as its source text, with one no-argument function per name it looks up (a class, a
# dotted value or key) and receives the values it captures, in the orders this walk gives. It reads only
# class and field names, which ``ast`` and ``gast`` share, so both sides walk their own tree of it.
def pattern_parts(pattern) -> 'tuple[list, list]':
    """(the names ``pattern`` binds, the expressions it looks up), each in source order.

    >>> import ast
    >>> match = ast.parse('match s:\\n case [Point(x=0, y=y), *rest]: pass').body[0]
    >>> names, lookups = pattern_parts(match.cases[0].pattern)
    >>> names, [ast.unparse(e) for e in lookups]
    (['y', 'rest'], ['Point'])
    """
    names, lookups = [], []

    def expression(node):
        if type(node).__name__ in ('Name', 'Attribute'):   # else a literal (-1, 1 + 2j, 'k', None)
            lookups.append(node)

    def walk(node, bind=True):
        kind = type(node).__name__
        if kind == 'MatchValue':
            expression(node.value)
        elif kind in ('MatchSequence', 'MatchOr'):
            for index, item in enumerate(node.patterns):
                walk(item, bind and (kind == 'MatchSequence' or index == 0))   # '|': each binds the same names
        elif kind == 'MatchMapping':
            for key, item in zip(node.keys, node.patterns):
                expression(key)
                walk(item, bind)
            if bind and node.rest is not None:
                names.append(node.rest)
        elif kind == 'MatchClass':
            expression(node.cls)
            for item in node.patterns + node.kwd_patterns:
                walk(item, bind)
        elif kind in ('MatchStar', 'MatchAs'):
            if getattr(node, 'pattern', None) is not None:
                walk(node.pattern, bind)
            if bind and node.name is not None:
                names.append(node.name)

    walk(pattern)
    return names, lookups
