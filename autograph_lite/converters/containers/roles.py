"""The roles of the lists, dicts and sets of each if, while and for: one pass over a function, one annotation
(``anno.CONTAINER_ROLES``) per construct, read by the control-flow converter as it reads ``LIVE_OUT``.

A staged construct may replace a Python container by another object (a tensor list, a dict rebuilt from
its outputs, a list merged from two branches). That is right only where nothing else holds the old
object, so the converter names the risky locals and the staged construct refuses them
(operators/containers/checks.py):

* ``aliased``: another local of the function may name the same object (``alias = xs``, ``a = b = []``,
  ``buf, n = xs, 1``);
* ``borrowed``: code outside the function may hold it (origins.py);
* ``picked``: an if's branches may bind the name to one of two other locals' containers
  (``buf = evens`` / ``buf = odds``) and the function changes it in place: the merged object would be a
  new one, which the change would reach instead of either.

It also finds the locals a construct changes in place that name an object from before it (``xs.append(v)``,
or ``ys = xs; ys.append(v)``): they are its state even when no later statement reads them, since another
name may.

>>> from autograph_lite.pyct.parser import parse_str
>>> from autograph_lite.pyct import static_analysis
>>> function = parse_str('def f(n):\\n    xs = []\\n    for i in n:\\n        ys = xs\\n        ys.append(i)').body[0]
>>> anno.setanno(function.body[1].body[1], anno.IN_PLACE, 'ys')   # as the lists converter marks it
>>> _ = static_analysis.analyze(function)
>>> annotate(function, frozenset())
>>> roles = anno.getanno(function.body[1], anno.CONTAINER_ROLES)
>>> sorted(roles.changed_in_place), roles.of('ys', output=True)
(['xs'], 'aliased')
"""
from typing import Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Set, Tuple

import gast

from autograph_lite import contract
from autograph_lite.converters.containers.origins import ContainerOrigins, changed_in_place, last_line
from autograph_lite.converters.unpacking import unpacked_value
from autograph_lite.pyct import anno, nodes


class ContainerRoles(NamedTuple):
    """What the control-flow converter needs to know about the containers of one if, while or for."""
    changed_in_place: FrozenSet[str]   # locals naming an object from before the construct that it changes in place
    roles: Dict[str, str]              # local -> contract.ALIASED, BORROWED or PICKED

    def of(self, name: str, output: bool) -> Optional[str]:
        """The role of ``name``; ``picked`` only where the construct gives ``name`` as an output (only outputs
        are compared between the branches of a staged if)."""
        role = self.roles.get(name)
        return None if role == contract.PICKED and not output else role


NO_ROLES = ContainerRoles(frozenset(), {})
_CONSTRUCTS = (gast.If, gast.While, gast.For)


def annotate(tree, generated: FrozenSet[str]) -> None:
    """Annotate each if, while and for of each user function in ``tree`` (anno.SCOPE marks them) with its
    ``ContainerRoles``, and each ``name = a if c else b`` that may pick one of two containers with the role of
    ``name``. ``generated``: the converter's own variables (never a container of the user's)."""
    for function in nodes.walk(tree):
        if isinstance(function, gast.FunctionDef) and anno.hasanno(function, anno.SCOPE):
            _FunctionContainers(function, generated).annotate()


def picked_name(assign: gast.Assign) -> Optional[str]:
    """The name ``assign`` (``name = a if c else b``) binds to a container that a tensor condition may not
    pick (``annotate`` marked it), or None."""
    return next((name for name, role in anno.getanno(assign, anno.CONTAINER_ROLES, NO_ROLES).roles.items()
                 if role == contract.PICKED), None)


class _FunctionContainers:
    """The facts of one user function that its constructs' roles are read from (each computed when needed)."""

    def __init__(self, function: gast.FunctionDef, generated: FrozenSet[str]):
        self.function, self.generated = function, generated
        self.scope = anno.getanno(function, anno.SCOPE)
        self.pairs = _alias_pairs(function.body, generated)
        self._origins: Optional[ContainerOrigins] = None
        self._in_place: Optional[Set[str]] = None
        self._records: Optional[Set[str]] = None

    def annotate(self) -> None:
        for node in _own_nodes(self.function):
            if isinstance(node, _CONSTRUCTS):
                anno.setanno(node, anno.CONTAINER_ROLES, self._construct_roles(node))
            elif isinstance(node, gast.Assign):
                picked = self._picked_by_expression(node)
                if picked is not None:
                    anno.setanno(node, anno.CONTAINER_ROLES, ContainerRoles(frozenset(), {picked: contract.PICKED}))

    def in_place(self) -> Set[str]:
        """The locals the function changes in place anywhere."""
        if self._in_place is None:
            self._in_place = changed_in_place(self.function)
        return self._in_place

    def _construct_roles(self, node) -> ContainerRoles:
        in_place = anno.getanno(node, anno.ACTIVITY).in_place
        changed = self._changed_in_place(node, in_place)
        roles: Dict[str, str] = {}
        if isinstance(node, gast.If):
            roles.update((name, contract.PICKED) for name in self._picked_by_if())
        if in_place:
            if isinstance(node, (gast.While, gast.For)):
                roles.update((name, contract.RECORD) for name in in_place & self.records())
            roles.update((name, contract.BORROWED) for name in self._borrowed(node, in_place))
            roles.update((name, contract.ALIASED) for name in self._aliased(node, in_place | changed))
        return ContainerRoles(frozenset(changed), roles) if changed or roles else NO_ROLES

    def records(self) -> Set[str]:
        """The locals the function (nested scopes included) reads and changes only through constant keys."""
        if self._records is None:
            self._records = constant_key_only_names(self.function)
        return self._records

    def _changed_in_place(self, node, in_place: FrozenSet[str]) -> Set[str]:
        """The locals naming an object from before the construct that it changes in place: read before
        being assigned there (``xs[0] = v``), or the source of a local that the construct makes an alias of
        and changes through (``ys = xs; ys[0] = v``: the change reaches ``xs``'s object, so ``xs`` is carried)."""
        if not in_place:
            return set()
        changed, before = set(in_place), anno.getanno(node, anno.GEN)
        if in_place - before:
            # A name first bound in the construct may be another name's object: follow `a = b` back.
            grown = True
            while grown:
                sources = {b for a, b in self.pairs if a in changed} - changed
                changed |= sources
                grown = bool(sources)
        return changed & before

    def _aliased(self, node, in_place: Set[str]) -> Set[str]:
        """The locals the construct changes in place that may name the same object as another local there
        (``alias = xs`` before it, or in it): a staged construct that would make such a list a tensor list
        must refuse (the other name would keep the Python list)."""
        reaching = anno.getanno(node, anno.DEFINED_IN) | {qn.text for qn in anno.getanno(node, anno.ACTIVITY).modified
                                                         if qn.is_simple}
        return {name for a, b in self.pairs for name, other in ((a, b), (b, a))
                if name in in_place and other in reaching}

    def _borrowed(self, node, in_place: FrozenSet[str]) -> Set[str]:
        """The locals the construct changes in place whose object this function may share with code outside it
        (origins.py): a staged construct that would replace such a list or dict must refuse (the other holder
        would keep the old object)."""
        if self._origins is None:
            self._origins = ContainerOrigins(self.function, self.generated)
        start, end = getattr(node, 'lineno', None), last_line(node)
        return {name for name in in_place if self._origins.may_be_shared(name, start, end)}

    def _picked_by_if(self) -> Set[str]:
        """The names an if's branches may bind to another local's container (``buf = evens`` / ``buf = odds``)
        that the function changes in place (``buf.append(v)``)."""
        sources = {a for a, b in self.pairs}
        return sources & self.in_place() if sources else set()

    def _picked_by_expression(self, node: gast.Assign) -> Optional[str]:
        """``buf`` for ``buf = a if c else b`` (or ``buf, n = (a, 1) if c else (b, 2)``) where the function
        changes ``buf`` in place."""
        if len(node.targets) != 1 or not isinstance(unpacked_value(node.value), gast.IfExp):
            return None
        names = _target_names(node.targets[0])
        return next((name for name in names if name in self.in_place()), None) if names else None


# The operators of item assignment in lowered code (converters/slices.py, deletions.py): the position of their key.
_KEYED_OPERATORS = {'set_item': 1, 'set_item_augmented': 1, 'del_item': 2}


def constant_key_only_names(function: gast.FunctionDef) -> Set[str]:
    """The names that ``function`` (lowered: item assignment is ``d = ag__.set_item(d, key, v)``) loads only as
    ``d[constant]`` or as the target of those operators with a constant key; bound (stored) anywhere.

    >>> from autograph_lite.pyct.parser import parse_str
    >>> sorted(constant_key_only_names(parse_str(
    ...     "def f(n):\\n    d = {}\\n    d = ag__.set_item(d, 'k', n)\\n    e = {}\\n    return d['k'] + len(e)"
    ...     ).body[0]))
    ['d']
    """
    loads: Set[str] = set()
    keyed: Set[int] = set()   # ids of the Name nodes read as d[constant]
    for node in nodes.walk(function):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and isinstance(
                node.slice, gast.Constant):
            keyed.add(id(node.value))
        elif (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
              and isinstance(node.func.value, gast.Name) and node.func.value.id == contract.OPERATORS
              and node.func.attr in _KEYED_OPERATORS):
            position = _KEYED_OPERATORS[node.func.attr]
            if (len(node.args) > position and isinstance(node.args[0], gast.Name)
                    and isinstance(node.args[position], gast.Constant)):
                keyed.add(id(node.args[0]))
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads.add(node.id)
    others = {node.id for node in nodes.walk(function)
              if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and id(node) not in keyed}
    return loads - others


def _own_nodes(function: gast.FunctionDef) -> Iterator[gast.AST]:
    """The nodes of ``function``'s body, not those of the functions, lambdas and classes nested in it."""
    stack = list(reversed(function.body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, nodes.NESTED_SCOPES):
            stack.extend(reversed(list(nodes.children(node))))


def _target_names(target) -> Optional[List[str]]:
    """The names an assignment target binds, when it is a name or a (nested) tuple or list of names."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        names = [_target_names(element) for element in target.elts]
        return None if any(n is None for n in names) else [name for group in names for name in group]
    return None


def _alias_pairs(statements, generated: FrozenSet[str]) -> Set[Tuple[str, str]]:
    """``(target, source)`` for each ``target = source`` (and walrus) of two different plain names of the
    function (not in its nested scopes), except the converter's own variables (``generated``)."""
    pairs = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.NESTED_SCOPES):
            continue
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Name):
            pairs |= {(target.id, node.value.id) for target in node.targets if isinstance(target, gast.Name)}
        elif isinstance(node, gast.Assign) and len(node.targets) > 1:   # a = b = []
            names = [target.id for target in node.targets if isinstance(target, gast.Name)]
            pairs |= {(a, b) for a in names for b in names}
        elif isinstance(node, gast.NamedExpr) and isinstance(node.value, gast.Name):
            pairs.add((node.target.id, node.value.id))
        elif (isinstance(node, gast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], (gast.Tuple, gast.List))):
            pairs |= _positional_pairs(node.targets[0], node.value)   # `buf, n = evens, 1`
        stack.extend(nodes.children(node))
    return {(a, b) for a, b in pairs if a != b and a not in generated and b not in generated}


def _positional_pairs(target, value) -> Set[Tuple[str, str]]:
    """``(name, other)`` for the names of a tuple target that a tuple value (as written, or in the
    ``ag__.unpack(...)`` the unpacking converter wrote) gives another plain name at the same position."""
    value = unpacked_value(value)
    if not isinstance(value, (gast.Tuple, gast.List)) or len(value.elts) != len(target.elts):
        return set()
    return {(t.id, v.id) for t, v in zip(target.elts, value.elts)
            if isinstance(t, gast.Name) and isinstance(v, gast.Name)}
