"""if / while / for -> ``ag__.if_stmt`` / ``while_stmt`` / ``for_stmt`` over nested body functions.

    if x > 0:                 def get_state():
        y = x                     return (y,)
    else:             ->      def set_state(vars_):
        y = -x                    nonlocal y
                                  (y,) = vars_
                              def if_body():
                                  nonlocal y
                                  y = x
                              def else_body():
                                  nonlocal y
                                  y = -x
                              ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',), 1)

State = symbols the construct modifies that are live after it (loops: also read by the test or by
the body before being written), from the static analysis, and the lists and dicts from before it that it
changes in place (``xs[i] = v``, ``xs.append(v)``: another name may read them after it). Names the body assigns and
that are state, or read before written, are declared ``nonlocal`` (``global`` for globals) in the body
functions; a name that no definition can reach yet is first set to ``ag__.Undefined('name')``.
"""
from typing import List, Set

import gast

from autograph_lite import contract
from autograph_lite.converters.containers import NO_ROLES
from autograph_lite.pyct import anno, nodes, qual_names, templates
from autograph_lite.pyct.scopes import bound_names
from autograph_lite.pyct.transformer import Transformer


class ControlFlowTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.scope = None            # activity.FunctionScope of the user function being converted
        self.initialized: Set[str] = set()  # names bound by an enclosing Undefined(...) and visible here
        self.vars_ = None            # parameter name of every set_state
        self.declared_nonlocal: Set[str] = set()  # names body functions of this user function declare nonlocal

    def visit_FunctionDef(self, node):
        saved = self.scope, self.initialized, self.declared_nonlocal
        self.scope, self.initialized, self.declared_nonlocal = anno.getanno(node, anno.SCOPE), set(), set()
        node = self.generic_visit(node)
        node.body = self._bind_nonlocals(node.body) + node.body
        self.scope, self.initialized, self.declared_nonlocal = saved
        return node

    def _bind_nonlocals(self, body) -> List[gast.stmt]:
        """``name = ag__.Undefined('name')`` for each name a body function declares ``nonlocal`` that no
        enclosing function binds: possible when every assignment of it moved into body functions where
        it is a local (not live after them), and a ``nonlocal`` needs a binding to refer to."""
        # Every `nonlocal` in this function's body functions is one _declarations wrote: when this
        # function binds all their names, no body function (at any depth) can miss one, and the walk
        # over all of them is not needed. Usually a plain assignment of the body's binds each one (the
        # return flag, a variable initialized before its loop): then not even bound_names' walk is.
        declared = self.declared_nonlocal - self.scope.params - self.scope.nonlocals - self.scope.globals
        if not declared - _assigned_by_statements(body):
            return []
        bound_here = bound_names(body) | self.scope.params
        if not declared - bound_here:
            return []
        unbound = _unresolved_nonlocals(body, [bound_here])
        unbound -= self.scope.nonlocals | self.scope.globals
        return [statement for name in sorted(unbound) for statement in
                templates.replace('name = ag__.Undefined(symbol)', name=name, symbol=templates.literal(name))]

    # --- what a construct carries --------------------------------------------------------------

    def _state(self, node, live: Set[str]) -> List[qual_names.QN]:
        activity = anno.getanno(node, anno.ACTIVITY)
        modified = activity.modified
        simple = {qn.text for qn in modified if qn.is_simple}
        # A list or dict from before the construct that it changes in place (`xs[0] = v`, `xs.append(v)`)
        # may be seen after it through another name (`alias = xs`): state, so a staged construct's result
        # reaches that object, whether or not the name itself is read after it (converters/containers).
        changed = anno.getanno(node, anno.CONTAINER_ROLES, NO_ROLES).changed_in_place
        live = live | changed
        # A global a construct rebinds is state even when not read after it: a staged construct must refuse it.
        state = [qn for qn in modified if qn.is_simple and (qn.text in live or qn.text in self.scope.globals)]
        # An object changed only through another name (`ys = xs; ys[0] = v`): its own name is carried.
        state += [qual_names.simple(name) for name in sorted(changed - simple)]
        # a.b / a[0]: carried when the object is not itself reassigned, also when the function does not
        # read it afterwards: the caller, or another name, may see the object (left out, a staged construct
        # would leave there what the trace of one branch or iteration set).
        state += [qn for qn in modified if not qn.is_simple and qn.root not in simple
                  and not any(p in modified for p in _parents(qn))]
        return sorted(state)

    def _declared(self, node, state) -> List[str]:
        """Plain names the body functions must declare nonlocal/global."""
        modified = {qn.text for qn in anno.getanno(node, anno.ACTIVITY).modified if qn.is_simple}
        # A walrus in the test or iterable assigns before the body reads (so not in GEN), but in the function
        # around the body functions: one that the body assigns again is that function's name, not a new local.
        header = node.iter if isinstance(node, gast.For) else node.test
        read_first = (anno.getanno(node, anno.GEN) | _walrus_targets(header)) & modified
        # A name the user declared global/nonlocal is visible outside whether or not it is live:
        # a body function that assigns it must declare it too, or it would bind a new local.
        outer = {n for n in modified if n in self.scope.globals or n in self.scope.nonlocals}
        return sorted({qn.text for qn in state if qn.is_simple} | read_first | outer)

    def _declarations(self, names) -> List[gast.stmt]:
        globals_ = [n for n in names if n in self.scope.globals]
        nonlocals = [n for n in names if n not in self.scope.globals]
        self.declared_nonlocal.update(nonlocals)
        out = templates.replace('nonlocal names', names=nonlocals) if nonlocals else []
        return out + (templates.replace('global names', names=globals_) if globals_ else [])

    def _undefined_inits(self, node, names) -> List[gast.stmt]:
        defined = anno.getanno(node, anno.DEFINED_IN)
        missing = [n for n in names if n not in defined and n not in self.initialized
                   and n not in self.scope.globals and n not in self.scope.nonlocals]
        self.initialized |= set(missing)
        out = []
        for name in missing:
            out += templates.replace('name = ag__.Undefined(symbol)', name=name, symbol=templates.literal(name))
        return out

    def _names(self, *bases: str) -> List[str]:
        # Chosen before nested constructs are converted, so outer constructs get the plain names.
        return [self.ctx.new_name(base) for base in bases]

    def _state_functions(self, node, state, declarations, get_state, set_state):
        if self.vars_ is None:
            self.vars_ = self.ctx.new_name(contract.STATE_PARAMETER_NAME)
        vars_ = self.vars_
        names = [qn.text for qn in state]
        if state:
            targets = [templates.expression(n) for n in names]
            code = templates.replace(
                'def get_state():\n    return (values,)\n'
                'def set_state(vars_):\n    declarations\n    (targets,) = vars_\n    unsets',
                get_state=get_state, set_state=set_state, vars_=vars_, declarations=declarations,
                values=[self._state_value(node, qn) for qn in state], targets=targets,
                unsets=[statement for qn in state if self._may_be_absent(node, qn)
                        for statement in self._unset_if_undefined(qn)])
        else:
            code = templates.replace('def get_state():\n    return ()\ndef set_state(vars_):\n    pass',
                                     get_state=get_state, set_state=set_state, vars_=vars_)
        return _marked(code), templates.literal(tuple(names))

    def _roles(self, node, state, outputs, guard_flag=None):
        """The ``roles`` argument: ``{'do_return': 'return_flag', ...}`` for the converter's own state
        variables, the module globals and the user's containers that need a check (contract.py,
        converters/containers), or None when all are the user's plain locals. ``outputs``: the state the
        construct gives (an if's state also holds names it only restores)."""
        containers = anno.getanno(node, anno.CONTAINER_ROLES, NO_ROLES)
        names, roles = [], []
        for qn in state:
            name = qn.text
            if not qn.is_simple:
                continue
            role = (self.ctx.roles[name] if name in self.ctx.roles else contract.GLOBAL if name in self.scope.globals
                    else containers.of(name, output=qn in outputs))
            if role is not None:
                names.append(name)
                roles.append(role)
        if not names:
            return None
        if guard_flag is not None and self.ctx.roles.get(guard_flag) == contract.RETURN_FLAG and guard_flag in names:
            roles[names.index(guard_flag)] = contract.RETURN_GUARD   # `if not do_return:`
        return templates.replace_as_expression('{keys: values}', keys=[templates.literal(n) for n in names],
                                               values=[templates.literal(r) for r in roles])

    def _state_value(self, node, qn):
        """How get_state reads ``qn``: an attribute or item this function adds to an object it made
        (``box.value`` after ``box = Box()``) may not exist yet, so it reads as Undefined then.

        Only a ``del`` of the user's makes a name deleted (no converter writes one unless the user did),
        so without one in the code the construct is not searched for them."""
        if qn.is_simple and gast.Delete in self.ctx.node_kinds and qn.text in _deleted_names(node):
            # `del x` inside: x may be unbound when the state is read (an Undefined, like any missing value).
            return templates.replace_as_expression('ag__.value_or_undefined(lambda: value, name)',
                                                   value=templates.expression(qn.text),
                                                   name=templates.literal(qn.text))
        if not self._may_be_absent(node, qn):
            return templates.expression(qn.text)
        return templates.replace_as_expression('ag__.value_or_undefined(lambda: value, name)',
                                               value=templates.expression(qn.text),
                                               name=templates.literal(qn.text))

    def _may_be_absent(self, node, qn) -> bool:
        """Whether the attribute or item ``qn`` may not exist before the construct ``node``.

        An attribute of a parameter's object exists before the construct when the construct reads it
        (`self.total += i`); one it only sets may not exist yet (`c.v = 7` in both branches): as a name
        that may be unbound, it is read as an Undefined then."""
        return not (qn.is_simple or qn.text in anno.getanno(node, anno.DEFINED_IN) or (
            qn.root in self.scope.params and _reads_symbol(node, qn)))

    @staticmethod
    def _unset_if_undefined(qn) -> List[gast.stmt]:
        """After set_state assigned an Undefined to the attribute or item ``qn``, remove it again: the object
        is left as it was before the construct (no such attribute) when a construct restores its state, e.g.
        when a staged if raises an error, and a branch traced after another sees it absent, as Python would."""
        target = templates.expression(qn.text)
        if isinstance(target, gast.Attribute):
            return templates.replace('ag__.del_attr_if_undefined(owner, key)', owner=target.value,
                                     key=templates.literal(target.attr))
        return templates.replace('ag__.del_item_if_undefined(owner, key)', owner=target.value, key=target.slice)

    @staticmethod
    def _body_function(name: str, declarations, body, args=()) -> List[gast.stmt]:
        body = declarations + body if body else templates.replace('pass')
        return _marked(templates.replace('def name(args):\n    body', name=name, args=list(args), body=body))

    def _convert_blocks(self, node, declared: List[str], inits, *blocks):
        """Convert nested constructs of the body blocks, seeing the names initialized here."""
        saved = self.initialized
        self.initialized = (saved | set(_assigned_names(inits))) & set(declared)
        converted = [self.visit_block(block) for block in blocks]
        self.initialized = saved
        return converted

    # --- the constructs ------------------------------------------------------------------------

    def _begin(self, node, live, function_names):
        """What every construct starts with: its state (``live``: what may be read after it), the names its
        body functions declare, the ``Undefined`` inits, the generated functions' names (chosen before nested
        constructs are converted, so outer constructs get the plain names), and its converted blocks."""
        state = self._state(node, live)
        declared = self._declared(node, state)
        inits = self._undefined_inits(node, declared)
        names = self._names(*contract.STATE_FUNCTION_NAMES, *function_names)
        body, orelse = self._convert_blocks(node, declared, inits, node.body, node.orelse)
        return state, declared, inits, names, body, orelse

    def visit_If(self, node):
        state, declared, inits, names, body, orelse = self._begin(node, anno.getanno(node, anno.LIVE_OUT),
                                                                  contract.IF_FUNCTION_NAMES)
        get_state, set_state, if_body, else_body = names
        node.test = self.visit(node.test)
        # Not outputs, but a branch rebinds them and one reads them: after the outputs in the state,
        # so a staged if restores them before tracing each branch (the else must not see the if's).
        state_names = {qn.text for qn in state}
        restored = [qual_names.simple(name) for name in declared if name not in state_names]
        state_code, symbols = self._state_functions(node, state + restored, self._declarations(declared),
                                                    get_state, set_state)
        if_code = self._body_function(if_body, self._declarations(declared), body)
        else_code = self._body_function(else_body, self._declarations(declared), orelse)
        roles = self._roles(node, state + restored, state, anno.getanno(node, anno.GUARD_FLAG, None))
        call = templates.replace(
            'ag__.if_stmt(test, if_body, else_body, get_state, set_state, symbols, nouts'
            + _ROLES_ARGUMENT[bool(roles)],
            test=node.test, if_body=if_body, else_body=else_body, get_state=get_state,
            set_state=set_state, symbols=symbols, nouts=templates.literal(len(state)), role_map=roles)
        return inits + state_code + if_code + else_code + call

    def visit_While(self, node):
        state, declared, inits, names, body, orelse = self._begin(node, anno.getanno(node, anno.LOOP_HEAD_LIVE),
                                                                  contract.WHILE_FUNCTION_NAMES)
        get_state, set_state, loop_test, loop_body = names
        body = _unbound_iteration_locals(body, declared) + body
        node.test = self.visit(node.test)
        state_code, symbols = self._state_functions(node, state, self._declarations(declared), get_state, set_state)
        # A walrus in the test assigns in loop_test's scope: declare those names there too.
        test_assigns = [name for name in declared if name in _walrus_targets(node.test)]
        test_code = self._body_function(loop_test, self._declarations(test_assigns),
                                        templates.replace('return test', test=node.test))
        body_code = self._body_function(loop_body, self._declarations(declared), body)
        roles = self._roles(node, state, state)
        call = templates.replace(
            'ag__.while_stmt(loop_test, loop_body, get_state, set_state, symbols' + _ROLES_ARGUMENT[bool(roles)],
            loop_test=loop_test, loop_body=loop_body, get_state=get_state, set_state=set_state,
            symbols=symbols, role_map=roles)
        return inits + state_code + test_code + body_code + call + orelse

    def visit_For(self, node):
        state, declared, inits, names, body, orelse = self._begin(node, anno.getanno(node, anno.LOOP_HEAD_LIVE),
                                                                  contract.FOR_FUNCTION_NAMES)
        get_state, set_state, loop_body = names
        body = _unbound_iteration_locals(body, set(declared) | bound_names([node.target])) + body
        node.iter = self.visit(node.iter)
        state_code, symbols = self._state_functions(node, state, self._declarations(declared), get_state, set_state)
        if isinstance(node.target, gast.Name) and node.target.id not in declared:
            params, assign = [node.target.id], []     # the element arrives as the parameter itself
        else:
            item = self.ctx.new_name(contract.ITEM_NAME)
            template = 'target = ag__.unpack(item)' if isinstance(node.target, (gast.Tuple, gast.List)) \
                else 'target = item'   # a staged element may be a tensor row: unpack it as Python would
            params, assign = [item], templates.replace(template, target=node.target, item=item)
        body_code = self._body_function(loop_body, self._declarations(declared), assign + body, params)
        extra = anno.getanno(node, anno.EXTRA_LOOP_TEST, None)
        extra = templates.literal(None) if extra is None else templates.replace_as_expression(
            'lambda: test', test=extra)
        roles = self._roles(node, state, state)
        call = templates.replace(
            'ag__.for_stmt(iterable, extra_test, loop_body, get_state, set_state, symbols'
            + _ROLES_ARGUMENT[bool(roles)],
            iterable=node.iter, extra_test=extra, loop_body=loop_body, get_state=get_state,
            set_state=set_state, symbols=symbols, role_map=roles)
        return inits + state_code + body_code + call + orelse


# How a generated call ends: without, or with, the roles of the state variables.
_ROLES_ARGUMENT = {False: ')', True: ', roles=role_map)'}


def _marked(statements: List[gast.stmt]) -> List[gast.stmt]:
    """The generated helper functions, marked as such (converters/hoisting.py may move them up)."""
    for statement in statements:
        if isinstance(statement, gast.FunctionDef):
            anno.setanno(statement, anno.BODY_FUNCTION, True)
    return statements


def _parents(qn):
    parent = qn.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _unbound_iteration_locals(body, declared) -> List[gast.stmt]:
    """``name = ag__.Undefined('name')`` first in a loop's body, for each local of the body function (not loop
    state, not ``declared``) that a body function of a construct in it declares ``nonlocal`` before a statement
    of the body assigns it: each iteration is a new call, where the name has no value yet (``if c: buf = a`` /
    ``else: buf = b`` then ``buf = ...``), and a staged if reads its state first (a NameError otherwise)."""
    names, assigned = set(), set(declared)
    for statement in body:
        if isinstance(statement, gast.FunctionDef) and anno.hasanno(statement, anno.BODY_FUNCTION):
            names |= {name for s in statement.body if isinstance(s, gast.Nonlocal) for name in s.names} - assigned
        else:
            assigned |= _assigned_by_statements([statement])
    names &= bound_names(body)
    return [statement for name in sorted(names) for statement in
            templates.replace('name = ag__.Undefined(symbol)', name=name, symbol=templates.literal(name))]


def _assigned_by_statements(statements) -> Set[str]:
    """The names plain ``name = ...`` statements of the block assign (part of what it binds)."""
    return {target.id for statement in statements if isinstance(statement, gast.Assign)
            for target in statement.targets if isinstance(target, gast.Name)}


def _assigned_names(statements):
    return [n.id for s in statements for n in nodes.walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)]


def _unresolved_nonlocals(statements, enclosing: List[Set[str]]) -> Set[str]:
    """Names that body functions defined in ``statements`` (at any depth) declare ``nonlocal`` and that
    neither they nor the functions around them (``enclosing``: the names each one binds) bind."""
    unresolved: Set[str] = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.FunctionDef) and anno.hasanno(node, anno.SCOPE):
            continue   # a function of the user's: Python resolved its nonlocals; its body functions are its own
        if isinstance(node, gast.FunctionDef):
            declared = {n for s in node.body if isinstance(s, (gast.Nonlocal, gast.Global)) for n in s.names}
            params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
            params |= {a.id for a in (node.args.vararg, node.args.kwarg) if a is not None}
            own = (bound_names(node.body) | params) - declared
            nonlocals = {n for s in node.body if isinstance(s, gast.Nonlocal) for n in s.names}
            unresolved |= {n for n in nonlocals if not any(n in bound for bound in enclosing)}
            unresolved |= _unresolved_nonlocals(node.body, enclosing + [own])
            continue
        if not isinstance(node, (gast.Lambda, gast.ClassDef, gast.AsyncFunctionDef)):
            stack.extend(nodes.children(node))
    return unresolved
def _reads_symbol(node, qn) -> bool:
    """True if the construct ``node`` reads the attribute or item ``qn`` itself (``x = c.v``, ``c.v += 1``)."""
    for child in nodes.walk(node):
        if isinstance(child, gast.AugAssign) and qual_names.qn_of(child.target) == qn:
            return True
        if (isinstance(child, (gast.Attribute, gast.Subscript)) and isinstance(child.ctx, gast.Load)
                and qual_names.qn_of(child) == qn):
            return True
    return False


def _deleted_names(node):
    return {n.id for n in nodes.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del)}


def _walrus_targets(expression):
    return {n.target.id for n in nodes.walk(expression) if isinstance(n, gast.NamedExpr)}
