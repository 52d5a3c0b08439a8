"""Which local lists and dicts a function may share with code outside it (role ``borrowed``, contract.py).

A tensor-dependent loop that changes a Python list makes it a tensor list, and one that changes a dict
carries it as a structure: either way the loop binds the local name to a new object. Python would have
changed the one object in place, so whatever else holds it (the caller, an attribute, a global, another
container) sees the change. Here that holder would keep the old object, without the loop's changes: a
silently wrong result. The loop cannot write its result back into the old object instead: its contents
are symbolic tensors of one trace, while the function may be traced once and called many times (a
caller's list would hold the first trace's tensors). So the staged construct refuses such a name with a
StateError (operators/containers/checks.py), and this module decides, from the source, which names those are.

A name is *own* at a construct (its object cannot be held elsewhere yet) when every binding of it makes a
new container, or a statement of the function's body itself makes one before the construct, after every
other binding (``acc = list(acc)``); and no statement from there to the end of the construct hands the
object to other code. New containers:

    xs = []  /  [f(v) for v in vs]  /  {'a': 1}  /  list(ys)  /  dict(d)  /  sorted(ys)  /  ys + [1]  /  ys.copy()
    /  ys[:]  /  [*ys]

Everything else is *borrowed*: a parameter (``def f(x, acc)``: the caller's list), a global or nonlocal,
a name bound to anything else (``items = self.items``, ``xs = lists[0]``, ``acc = make()``, a ``for``
target), or an own list stored or passed before the construct ends (``self.items = xs``,
``holder.append(xs)``, ``{'k': xs}``, ``register(xs)``) except to a few builtins known not to keep their
argument (``len(xs)``, ``print(xs)``, ``sorted(xs)``, ...) and to ``rt``/``np`` functions.

Why a rule on the source, not a check of the object when the loop replaces it: who else holds a list is
not observable robustly at run time (reference counts also count the tracing machinery's own references,
which differ with every enclosing if and loop; ``gc.get_referrers`` does not see the locals of running
frames), and a rule on the source gives the same answer for every call and every trace. It is conservative:
a false alarm has a one-line fix that also states the intent, ``acc = list(acc)`` (work on a copy, return it).

Only a construct that would replace the object refuses: a list or dict it changes in place but leaves as
the same object (a tensor if whose branches keep the list's length: the merged contents go back into it)
needs no role to be right.

>>> import gast
>>> tree = gast.parse('def f(x, acc):\\n    own = []\\n    self.items = kept = [1]\\n    tmp = list(acc)')
>>> origins = ContainerOrigins(tree.body[0], frozenset())
>>> sorted(n for n in ('x', 'acc', 'own', 'kept', 'tmp') if origins.may_be_shared(n, 10, 12))
['acc', 'kept', 'x']
"""
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

import gast

from autograph_lite import contract
from autograph_lite.converters.unpacking import unpacked_value
from autograph_lite.pyct import anno, nodes
from autograph_lite.pyct.nodes import NESTED_SCOPES

# Calls that make a new list, dict or set (by the function's name; `list` shadowed by the user is rare).
_FRESH_CALLS = frozenset(['list', 'dict', 'set', 'sorted', 'copy', 'deepcopy'])
# Builtins known not to keep a reference to their argument after returning.
_SAFE_CALLS = frozenset(['len', 'print', 'isinstance', 'sum', 'min', 'max', 'any', 'all', 'sorted', 'list',
                         'tuple', 'set', 'dict', 'frozenset', 'str', 'repr', 'bool', 'type', 'id', 'hash',
                         'enumerate', 'zip', 'reversed', 'abs', 'int', 'float'])
# Modules whose functions take lists of values and return new values (rt.stack(xs), np.array(xs)).
_VALUE_MODULES = frozenset(['rt', 'np', 'numpy', 'math'])
# Operators of converted code whose first argument is the container they change or read (converters/lists.py,
# slices.py): that argument is handed to nobody; their other arguments are stored in the container.
_CONTAINER_OPERATORS = frozenset(['list_append', 'append_outside', 'list_pop', 'list_pop_in_expression', 'set_item',
                                  'set_item_augmented', 'del_item', 'call_in_place', 'changed_in_place',
                                  'augmented_in_place'])
# Operators that return their argument as it is (a checked read): it goes where their result goes.
_TRANSPARENT_OPERATORS = frozenset(['defined', 'defined_free'])
# Operators that only read their argument, or bind nothing to it.
_READING_OPERATORS = frozenset(['unpack', 'match_subject', 'matches', 'deleted', 'Undefined'])
_DISPLAYS = (gast.List, gast.ListComp, gast.Dict, gast.DictComp, gast.Set, gast.SetComp)


class ContainerOrigins:
    """Where the lists and dicts of one function come from, and where they are handed out (see module doc)."""

    def __init__(self, function: gast.FunctionDef, generated: FrozenSet[str]):
        # name -> [(line or None, makes a new container, a statement of the function's body itself)]
        self.bindings: Dict[str, List[Tuple[Optional[int], bool, bool]]] = {}
        self.hand_outs: Dict[str, List[int]] = {}   # name -> lines where its object may be handed out
        self.outer: Set[str] = set()                 # global and nonlocal names
        self.generated = generated
        arguments = function.args
        # The caller's objects; not **kwargs (a new dict in every call) nor *args (a tuple).
        for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            self.bindings[argument.id] = [(0, False, True)]
        for statement in function.body:
            self._top_level = statement
            self._scan(statement, [])

    def may_be_shared(self, name: str, start: Optional[int], end: Optional[int]) -> bool:
        """Whether code outside this function may hold the object of the local ``name`` when the construct on
        lines ``start``..``end`` changes it (None: not known, counted as the worst case).

        Own: every binding makes a new container, or one that does is a statement of the function's body
        before the construct, after every other binding (``acc = list(acc)``); and nothing hands the object
        out from that binding to the end of the construct.

        >>> import gast
        >>> tree = gast.parse('def f(acc):\\n    acc = list(acc)\\n    xs = []\\n    keep(xs)')
        >>> origins = ContainerOrigins(tree.body[0], frozenset())
        >>> origins.may_be_shared('acc', 5, 6), origins.may_be_shared('xs', 3, 3), origins.may_be_shared('xs', 5, 6)
        (False, False, True)
        """
        if name in self.outer:
            return True
        bindings = self.bindings.get(name, [])
        copies = [line for line, fresh, top_level in bindings if fresh and top_level and line is not None
                  and start is not None and line < start]
        since = max(copies) if copies else 0
        if any(not fresh and (line is None or not copies or line >= since) for line, fresh, _ in bindings):
            return True
        return any(line >= since and (end is None or line <= end) for line in self.hand_outs.get(name, ()))

    def _scan(self, node, ancestors: List) -> None:
        if isinstance(node, NESTED_SCOPES):
            return   # their names are not this function's (a closure reads the variable, not the object)
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load) and _hands_out(ancestors + [node], self.generated):
                self._hand_out(node.id, node)
            return
        self._bindings(node)
        ancestors.append(node)
        for child in nodes.children(node):
            self._scan(child, ancestors)
        ancestors.pop()

    def _hand_out(self, name: str, node) -> None:
        self.hand_outs.setdefault(name, []).append(getattr(node, 'lineno', None) or 0)   # none: from the start

    def _bindings(self, node) -> None:
        """Note the names ``node`` binds, and whether to a new container."""
        if anno.hasanno(node, anno.IN_PLACE):
            return   # `xs = ag__.list_append(xs, v)`: the same object, bound again
        if isinstance(node, gast.Assign):
            for target in node.targets:   # `a = b = []`: one new list with two names (an alias, see _aliased)
                self._bind(node, target, node.value)
            if len(node.targets) > 1 and not all(isinstance(target, gast.Name) for target in node.targets):
                for target in node.targets:   # `self.items = xs = []`: the attribute holds it too
                    if isinstance(target, gast.Name):
                        self._hand_out(target.id, node)
        elif isinstance(node, (gast.AnnAssign, gast.NamedExpr)) and node.value is not None:
            self._bind(node, node.target, node.value)
        elif isinstance(node, (gast.For, gast.AsyncFor)):
            self._bind(node, node.target, None)
        elif isinstance(node, gast.withitem) and node.optional_vars is not None:
            self._bind(node, node.optional_vars, None)
        elif isinstance(node, gast.ExceptHandler) and isinstance(node.name, gast.Name):
            self._bind(node, node.name, None)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            self.outer.update(node.names)

    def _bind(self, statement, target, value) -> None:
        if isinstance(target, gast.Name):
            if target.id in self.generated or value is not None and _rebinds(value, target.id):
                return
            self.bindings.setdefault(target.id, []).append((getattr(statement, 'lineno', None),
                                                            value is not None and _fresh(value),
                                                            statement is self._top_level))
        elif isinstance(target, (gast.Tuple, gast.List)):
            value = unpacked_value(value)   # `evens, odds = [], []` reaches here as `ag__.unpack(([], []))`
            values = value.elts if (isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts)
                                    and not any(isinstance(v, gast.Starred) for v in value.elts)) else None
            for position, element in enumerate(target.elts):
                self._bind(statement, element.value if isinstance(element, gast.Starred) else element,
                           None if values is None else values[position])


def changed_in_place(function) -> Set[str]:
    """The locals the user's function ``function`` changes in place anywhere (``xs.append(v)``, ``xs[i] = v``:
    the statements the lists converter marked ``anno.IN_PLACE``), also inside the body functions of its
    converted ifs and loops, but not in the user's own nested functions (their names are theirs).

    >>> import gast
    >>> tree = gast.parse('def f():\\n    xs = ys = []\\n    xs = xs')
    >>> anno.setanno(tree.body[0].body[1], anno.IN_PLACE, 'xs')
    >>> sorted(changed_in_place(tree.body[0]))
    ['xs']
    """
    names: Set[str] = set()
    stack = list(nodes.children(function))
    while stack:
        node = stack.pop()
        if isinstance(node, NESTED_SCOPES) and anno.hasanno(node, anno.SCOPE):
            continue   # a function or lambda of the user's (a converter's body function has no scope)
        if anno.hasanno(node, anno.IN_PLACE):
            names.add(anno.getanno(node, anno.IN_PLACE))
        stack.extend(nodes.children(node))
    return names


def last_line(node) -> Optional[int]:
    """The last source line of the construct ``node`` (None if no node under it has one)."""
    end = getattr(node, 'end_lineno', None)
    if end is not None:
        return end
    lines = [n.lineno for n in nodes.walk(node) if getattr(n, 'lineno', None) is not None]
    return max(lines) if lines else None


def _operator(func) -> Optional[str]:
    """``name`` for ``ag__.name``, else None."""
    if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id == contract.OPERATORS):
        return func.attr
    return None


def _callee(call) -> object:
    """The function ``call`` calls: the first argument of ``ag__.converted_call(f, args, kwargs)``."""
    if _operator(call.func) == 'converted_call' and call.args:
        return call.args[0]
    return call.func


def _fresh(value) -> bool:
    """Whether the expression ``value`` makes a new container (or a new object of any kind: ``ys + [1]``)."""
    if isinstance(value, _DISPLAYS):
        return True
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult, gast.BitOr)):
        return True
    if isinstance(value, gast.IfExp):
        return _fresh(value.body) and _fresh(value.orelse)
    if isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice):
        return True   # `acc[:]`, `acc[1:]`: a new list
    if isinstance(value, gast.Call):
        callee = _callee(value)
        return (isinstance(callee, gast.Name) and callee.id in _FRESH_CALLS
                or isinstance(callee, gast.Attribute) and callee.attr in ('copy', 'deepcopy'))
    return False


def _rebinds(value, name: str) -> bool:
    """``name = name``, ``name = ag__.defined(name)`` or a placeholder (``ag__.Undefined('name')``): no new object."""
    if isinstance(value, gast.Name):
        return value.id == name
    if isinstance(value, gast.Call):
        operator = _operator(value.func)
        if operator in ('Undefined', 'deleted'):
            return True
        if operator in _TRANSPARENT_OPERATORS and value.args:
            return _rebinds(value.args[0], name)
    return False


def _returned(chain: List, generated: FrozenSet[str]) -> bool:
    """Whether the display ``chain[-1]`` (in displays, maybe) is what the function returns."""
    position = len(chain) - 1
    while position > 0 and isinstance(chain[position - 1], (gast.List, gast.Tuple, gast.Set, gast.Dict)):
        position -= 1
    parent = chain[position - 1] if position > 0 else None
    return isinstance(parent, gast.Return) or (
        isinstance(parent, gast.Assign) and parent.value is chain[position]
        and all(isinstance(target, gast.Name) and target.id in generated for target in parent.targets))


def _safe_callee(callee) -> bool:
    if isinstance(callee, gast.Name):
        return callee.id in _SAFE_CALLS
    root = callee
    while isinstance(root, gast.Attribute):
        root = root.value
    return isinstance(callee, gast.Attribute) and isinstance(root, gast.Name) and root.id in _VALUE_MODULES


def _hands_out(chain: List, generated: FrozenSet[str]) -> bool:
    """Whether the read ``chain[-1]`` (a name; ``chain`` its ancestors first) may give its object to code
    that keeps it: an argument of a call that may store it, an element of a new container, the value stored
    into an attribute or item. (Not a returned value, ``return xs, n``, which the return converter makes
    ``retval_ = (xs, n)``: the function ends there.)"""
    node, parent = chain[-1], chain[-2] if len(chain) > 1 else None
    if isinstance(parent, (gast.keyword, gast.Starred)):
        chain = chain[:-1]
        node, parent = chain[-1], chain[-2] if len(chain) > 1 else None
    if isinstance(parent, (gast.Tuple, gast.Dict)) and len(chain) > 2:
        call = chain[-3]   # the argument tuple (or keyword dict) of ag__.converted_call(f, (args), {kwargs})
        if isinstance(call, gast.Call) and _operator(call.func) == 'converted_call' and parent is not call.args[0]:
            return not _safe_callee(call.args[0])
    if isinstance(parent, gast.Call):
        if node is parent.func:
            return False
        operator = _operator(parent.func)
        if operator in _CONTAINER_OPERATORS:
            return node is not parent.args[0]
        if operator in _TRANSPARENT_OPERATORS:
            return _hands_out(chain[:-1], generated)
        if operator in _READING_OPERATORS:
            return False
        if operator == 'converted_call':
            return node is not parent.args[0]
        return operator is not None or not _safe_callee(parent.func)
    if isinstance(parent, (gast.List, gast.Tuple, gast.Set, gast.Dict)):
        return not _returned(chain[:-1], generated)
    if isinstance(parent, (gast.Yield, gast.YieldFrom)):
        return True
    if isinstance(parent, gast.IfExp) and node is not parent.test:
        return _hands_out(chain[:-1], generated)
    if isinstance(parent, (gast.Assign, gast.AnnAssign)) and node is parent.value:
        targets = parent.targets if isinstance(parent, gast.Assign) else [parent.target]
        return not all(isinstance(target, gast.Name) for target in targets)   # a name: an alias (roles.py)
    return False
