"""List mutation of a local name -> a call that rebinds the name, so tensor loops see the list as state.

    outs.append(h)       ->  outs = ag__.list_append(outs, h)
    last = outs.pop()    ->  outs, last = ag__.list_pop(outs)
    outs.pop(0)          ->  outs, popped = ag__.list_pop(outs, 0)

On a Python list ``list_append`` appends in place and returns the same list (every alias sees it, as in
Python); on a tensor list it returns the new list. An ``append`` on anything but a local variable
(``self.outs.append(h)``, a global or closure list) becomes ``ag__.append_outside(self.outs, 'self.outs', h)``:
Python's append, or a StateError when a tensor if or loop would leave a tensor of its own graph there (it
cannot carry that list); the other methods on such lists are left as written.

A ``pop`` inside a larger expression moves to a statement of its own just before, when that changes
nothing Python would see (nothing the statement evaluates before it calls anything or reads the list):

    total += xs.pop()    ->  xs, popped = ag__.list_pop(xs)
                             total += popped

The same in an ``if`` test and a ``for`` iterable (evaluated once, before the loop, as Python does). Elsewhere (a
``while`` test, after another call, in a branch of ``and``/``or``/``if else``, in a lambda or comprehension) it becomes
``ag__.list_pop_in_expression(xs, 'xs')``, followed by ``xs = xs`` so that a tensor loop carries
``xs``: Python's pop on Python values, a clear error when a tensor-dependent loop would change the list.

The other methods that change a list, dict or set in place (``IN_PLACE_METHODS``), called on a local in a
simple statement, run through ``ag__.changed_in_place`` (a statement of its own, which binds the name
again) or ``ag__.call_in_place`` followed by ``name = name`` (the call's result is used), so that a
tensor-dependent if or loop carries the name (an if gives each branch the object as it was):

    xs.sort()            ->  xs = ag__.changed_in_place(xs, 'xs', 'sort')
    ys = d.setdefault(k, [])   ->  ys = ag__.call_in_place(d, 'd', 'setdefault', k, [])
                                   d = d

A dict's ``d.pop(k, default)`` is one of them too (``d.pop(k)`` is ``list_pop``'s, which serves dicts).

``xs += [v]`` (``s |= {v}``; the right side a display) is ``xs = ag__.augmented_in_place(xs, 'xs', '+=', [v])``:
Python's operator, or a StateError naming xs where a tensor list cannot take it.

On anything but a list or set that a tensor loop carries it is the call as written (a user class's
``update()`` converted, as any method converted code calls); on those it is a clear error (the loop cannot
carry the change).
"""
import gast

from autograph_lite.converters.slices import in_place
from autograph_lite.pyct import nodes, qual_names, templates
from autograph_lite.pyct.scopes import LazyLocals
from autograph_lite.pyct.transformer import Transformer


# Methods of list, dict and set that change the object in place (append and pop have operators of their own).
IN_PLACE_METHODS = frozenset(['extend', 'insert', 'remove', 'sort', 'reverse', 'clear', 'update', 'setdefault',
                              'popitem', 'add', 'discard'])


CONTAINER_DISPLAYS = (gast.List, gast.ListComp, gast.Set, gast.SetComp, gast.Dict, gast.DictComp)


def _method_call(node, method: str, max_args: int):
    """``(name, args)`` if ``node`` is ``name.method(args)`` on a plain name with at most ``max_args``
    positional arguments and no keywords; else None."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == method
            and isinstance(node.func.value, gast.Name) and not node.keywords and len(node.args) <= max_args
            and not any(isinstance(arg, gast.Starred) for arg in node.args)):
        return None
    return node.func.value.id, node.args


class ListTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.local_names = set()  # of the innermost function: only those may be rebound

    def visit_FunctionDef(self, node):
        saved, self.local_names = self.local_names, LazyLocals(node)
        node = self.generic_visit(node)
        self.local_names = saved
        return node

    def visit_Expr(self, node):
        append = _method_call(node.value, 'append', 1)
        if append is not None and len(append[1]) == 1 and append[0] in self.local_names:
            name, (value,) = append
            statement, = in_place(templates.replace('name = ag__.list_append(name, value)', name=name, value=value),
                                  name)
            # A pop in the appended value (`xs.append(xs.pop() * 2)`) is a pop like any other: it runs before
            # the append, as in Python (left as written it was the tensor list's own pop, a tuple).
            moved = self._pops_inside(statement, [statement.value.args[1]])
            return moved if isinstance(moved, list) else [statement]
        if _appends_elsewhere(node.value):
            # `self.items.append(v)`: no tensor if or loop can carry that list; a clear error if one would need to
            target, (value,) = node.value.func.value, node.value.args
            text = qual_names.qn_of(target)
            return templates.replace('ag__.append_outside(target, text, value)', target=target, value=value,
                                     text=templates.literal(text.text if text is not None else 'the list'))
        pop = _method_call(node.value, 'pop', 1)
        if pop is not None and pop[0] in self.local_names:
            return self._pop(pop, self.ctx.new_name('popped'))
        call = node.value
        statements = self._in_place_calls(node, [call])
        if (isinstance(statements, list) and len(statements) == 2 and statements[0] is node
                and getattr(call.func, 'attr', None) == 'call_in_place'):
            # `xs.sort()` alone: one statement, `xs = ag__.changed_in_place(xs, 'xs', 'sort')`
            name = call.args[0].id
            call.func = templates.replace_as_expression('ag__.changed_in_place')
            return in_place(templates.replace('name = call', name=name, call=call), name)
        return statements

    def visit_Assign(self, node):
        pop = _method_call(node.value, 'pop', 1)
        if (pop is None or pop[0] not in self.local_names or len(node.targets) != 1
                or not isinstance(node.targets[0], gast.Name)):
            return self._in_place_calls(node, [node.value] + node.targets)
        return self._pop(pop, node.targets[0].id)

    def visit_AugAssign(self, node):
        if (isinstance(node.target, gast.Name) and node.target.id in self.local_names
                and isinstance(node.op, (gast.Add, gast.BitOr)) and isinstance(node.value, CONTAINER_DISPLAYS)):
            # `xs += [v]`, `s |= {v}`: in place, an alias sees it; through an operator, so that a tensor list
            # (or a list a tensor loop carries) is a clear error naming xs, not a TypeError about TensorList.
            name, operator = node.target.id, '+=' if isinstance(node.op, gast.Add) else '|='
            node = in_place(templates.replace('name = ag__.augmented_in_place(name, text, operator, value)',
                                              name=name, text=templates.literal(name),
                                              operator=templates.literal(operator), value=node.value), name)[0]
            return self._in_place_calls(node, [node.value.args[3]])
        return self._in_place_calls(node, [node.target, node.value])   # `x += v` reads x (target) first

    def _in_place_calls(self, statement, parts):
        """``statement`` with its calls ``name.method(...)`` of IN_PLACE_METHODS on a local made
        ``ag__.call_in_place(name, 'name', 'method', ...)``, then its pops (``_pops_inside``), then
        ``name = name`` for each such name."""
        calls = [n for part in parts for n in nodes.walk(part) if isinstance(n, gast.Call)
                 and isinstance(n.func, gast.Attribute) and _in_place_method(n)
                 and isinstance(n.func.value, gast.Name) and n.func.value.id in self.local_names]
        if calls:
            shadowed = _bound_in_nested_scopes(parts)
            calls = [n for n in calls if n.func.value.id not in shadowed]
        names = []
        for call in calls:
            name = call.func.value.id
            call.args[:0] = [gast.Name(name, gast.Load(), None, None), templates.literal(name),
                             templates.literal(call.func.attr)]
            call.func = templates.replace_as_expression('ag__.call_in_place')
            names += [name] if name not in names else []
        statements = self._pops_inside(statement, parts)
        if not names:
            return statements
        statements = statements if isinstance(statements, list) else [statement]
        for name in names:
            statements += in_place(templates.replace('name = name', name=name), name)
        return statements

    def visit_If(self, node):
        return self._pops_inside(self.generic_visit(node), [node.test])

    def visit_For(self, node):
        # The iterable is evaluated once, first: a pop there moves before the loop (an outer tensor loop
        # then carries the list and pops once per iteration, not once while tracing).
        return self._pops_inside(self.generic_visit(node), [node.iter])

    def visit_While(self, node):
        # The test runs before every iteration: a pop there cannot move, so the loop carries the list
        # (`xs = xs` ends the body) and a tensor loop is the clear error, not a pop made once at trace time.
        node = self.generic_visit(node)
        statements = self._pops_inside(node, [node.test], movable=False)
        if isinstance(statements, list):
            node.body += statements[1:]
        return node

    def _pops_inside(self, statement, parts, movable=True):
        """``name.pop(...)`` calls inside the expressions ``parts`` of ``statement`` (in evaluation order)."""
        pops = [n for part in parts for n in nodes.walk(part) if _method_call(n, 'pop', 1) is not None
                and n.func.value.id in self.local_names]
        if not pops:
            return statement   # (most statements: the nested scopes below need not be searched)
        shadowed = _bound_in_nested_scopes(parts)
        pops = [n for n in pops if n.func.value.id not in shadowed]
        if not pops:
            return statement
        before, after = [], []
        order = _evaluation_order(parts)
        earlier_effects = set()   # ids of the calls evaluated before the current point
        hoisted = {}
        for position, (node, conditional) in enumerate(order):
            if node in pops:
                name, args = _method_call(node, 'pop', 1)
                reads_list_before = any(isinstance(n, gast.Name) and n.id == name for n, _ in order[:position]
                                        if n is not node.func.value)
                if movable and not conditional and not earlier_effects and not reads_list_before:
                    popped = self.ctx.new_name('popped')
                    before += self._pop((name, args), popped)
                    hoisted[id(node)] = gast.Name(popped, gast.Load(), None, None)
                    continue
                hoisted[id(node)] = templates.replace_as_expression(
                    'ag__.list_pop_in_expression(name, text, index)' if args else
                    'ag__.list_pop_in_expression(name, text)', name=name, text=templates.literal(name),
                    index=args[0] if args else None)
                after += in_place(templates.replace('name = name', name=name), name)
            if isinstance(node, gast.Call) and id(node) not in hoisted:
                earlier_effects.add(id(node))
        _replace_nodes(statement, hoisted)
        return before + [statement] + after

    def _pop(self, call, target: str):
        name, args = call
        if args:
            return in_place(templates.replace('name, target = ag__.list_pop(name, index)', name=name, target=target,
                                              index=args[0]), name)
        return in_place(templates.replace('name, target = ag__.list_pop(name)', name=name, target=target), name)



def _appends_elsewhere(call) -> bool:
    """Whether ``call`` is ``target.append(v)`` with ``target`` not a plain name (``self.items``, ``lists[0]``)
    or a name that is not a local (a global's or a closure's list; locals are list_append's)."""
    return (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == 'append'
            and len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], gast.Starred)
            and isinstance(call.func.value, (gast.Name, gast.Attribute, gast.Subscript)))


def _in_place_method(call) -> bool:
    """Whether ``call`` (``obj.method(...)``) may change ``obj`` in place through ``call_in_place``: one of
    IN_PLACE_METHODS, or ``pop`` with a default (``d.pop(k, None)``: only a dict's pop takes two arguments;
    the shorter pops are ``list_pop``'s, which serves dicts too)."""
    if call.func.attr in IN_PLACE_METHODS:
        return True
    return (call.func.attr == 'pop' and len(call.args) == 2 and not call.keywords
            and not any(isinstance(arg, gast.Starred) for arg in call.args))


def _evaluation_order(parts):
    """``(node, conditional)`` for each node of the expressions ``parts``, in the order Python finishes
    evaluating them (operands before operations, left to right); ``conditional``: it may not run (an
    operand of ``and``/``or`` after the first, a branch of ``a if c else b``, a lambda or comprehension)."""
    order = []

    def visit(node, conditional):
        if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            conditional = True
        for child in nodes.children(node):
            child_conditional = conditional
            if isinstance(node, gast.BoolOp) and child is not node.values[0]:
                child_conditional = True
            elif isinstance(node, gast.IfExp) and child is not node.test:
                child_conditional = True
            visit(child, child_conditional)
        order.append((node, conditional))

    for part in parts:
        visit(part, False)
    return order


def _replace_nodes(tree, replacements) -> None:
    """Replace the nodes whose id is a key of ``replacements``, anywhere under ``tree``."""
    for node in list(nodes.walk(tree)):
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [replacements.get(id(item), item) for item in value]
            elif id(value) in replacements:
                setattr(node, field, replacements[id(value)])


def _bound_in_nested_scopes(parts):
    """Names a lambda or comprehension inside ``parts`` binds (its ``xs.pop()`` is not the function's ``xs``)."""
    bound = set()
    for part in parts:
        for node in nodes.walk(part):
            if isinstance(node, gast.Lambda):
                bound |= {a.id for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs}
                bound |= {a.id for a in (node.args.vararg, node.args.kwarg) if a is not None}
            elif isinstance(node, gast.comprehension):
                bound |= {n.id for n in nodes.walk(node.target) if isinstance(n, gast.Name)}
    return bound
