"""Calls -> ``ag__.converted_call(f, args, kwargs)`` so user functions get converted when called.

    f(a, *b, k=v, **kw)  ->  ag__.converted_call(f, (a, *b), {'k': v, **kw})
    g(x)                 ->  ag__.converted_call(g, (x,), None)

In the plain form (``direct=True``) a call keeps its arguments as written and calls what
``ag__.call_target`` gives for the function, from the converted function's own frame: one Python frame
per call, as in the original (recursion depth, ``warnings.warn(stacklevel=N)``, ``sys._getframe``)::

    f(a, *b, k=v)        ->  ag__.call_target(f)(a, *b, k=v)
    len(s)               ->  (len if len is builtin_len else ag__.call_target(len))(s)

(a builtin called by its name is called directly while the name holds it: contract.PINNED_BUILTINS). The
plain form reads the builtins it pins (``builtin_len``) from free variables of its own, named so that no name of
the user's function is taken (``pinned``): a closure read costs a third of ``ag__.builtin_len``'s.

A method of a builtin type called on a name, with arguments that call nothing, is called as Python calls it
(its bound method never made, as in the original) when the name holds exactly that type: the method is
then that type's own, never a user function, an override or a frame guard. Each part is evaluated once,
in Python's order (only one branch runs); a method of a string literal is called as it is::

    word.lower()         ->  (word.lower() if builtin_type(word) is builtin_str
                              else ag__.call_target(word.lower)())
    ', '.join(words)     ->  ', '.join(words)

Calls to ``ag__`` itself, ``super(...)`` and ``globals()`` stay as they are (``super()`` becomes
``super(__class__, self)``; ``globals()`` must run in the converted function's own frame, which has
the original's globals, not in converted_call's), and so do calls in lambdas' defaults.
(``locals()``, ``vars()``, ``dir()`` and ``eval``/``exec`` without namespaces are refused, and so is a
zero-argument ``super()`` that Python runs in a comprehension's own frame: frame_readers.py.)
"""
import copy
from typing import Callable, Dict

import gast

from autograph_lite import contract
from autograph_lite.pyct import templates
from autograph_lite.pyct.transformer import Transformer


def _method_owners() -> dict:
    """Public method name -> the name of the first builtin type below that has it (str's ``count``, not list's)."""
    owners: dict = {}
    for owner in (str, dict, list, set, bytes, tuple, int, float, frozenset, bytearray, complex):
        for name, value in vars(owner).items():
            if not name.startswith('_') and callable(value):
                owners.setdefault(name, owner.__name__)
    return owners


_METHOD_OWNERS = _method_owners()
# What an argument may hold to be written twice (once per branch): no call (whose own fast path would be
# written twice again), nothing that binds or suspends.
_NOT_REPEATED = (gast.Call, gast.Lambda, gast.NamedExpr, gast.ListComp, gast.SetComp, gast.DictComp,
                 gast.GeneratorExp, gast.Yield, gast.YieldFrom, gast.Await)


def _calls_nothing(nodes) -> bool:
    return not any(isinstance(inner, _NOT_REPEATED) for node in nodes for inner in gast.walk(node))


def _plain_method_call(node, pinned: Callable[[str], str]):
    """The plain form's call of a method of a builtin type (see the module docstring), or None. ``pinned(name)``
    is the free variable holding the builtin ``name``."""
    func = node.func
    if not isinstance(func, gast.Attribute):
        return None
    if isinstance(func.value, gast.Constant) and type(func.value.value) in (str, bytes):
        return node   # a literal's method: never a user function, an override or a guard
    owner = _METHOD_OWNERS.get(func.attr)
    if owner is None or not isinstance(func.value, gast.Name) or not _calls_nothing(node.args + node.keywords):
        return None
    general = gast.Call(func=templates.replace_as_expression('ag__.call_target(func)', func=copy.deepcopy(func)),
                        args=copy.deepcopy(node.args), keywords=copy.deepcopy(node.keywords))
    return templates.replace_as_expression('call if type_(receiver) is owner else general', call=node,
                                           type_=pinned('type'), receiver=copy.deepcopy(func.value),
                                           owner=pinned(owner), general=general)


def _is_exempt(func) -> bool:
    if isinstance(func, gast.Name):
        return func.id in ('super', 'globals')
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id == 'ag__'


class CallTreeTransformer(Transformer):

    def __init__(self, ctx, direct: bool = False):
        super().__init__(ctx)
        self.first_argument = None   # of the innermost function: `self` for methods
        self.direct = direct
        # (direct) builtin name -> the free variable the plain form reads it from (contract.PINNED_BUILTINS)
        self.pinned: Dict[str, str] = {}

    def _pinned(self, builtin: str) -> str:
        name = self.pinned.get(builtin)
        if name is None:
            name = self.pinned[builtin] = self.ctx.new_name(contract.PINNED_BUILTIN_PREFIX + builtin)
        return name

    def visit_FunctionDef(self, node):
        # Decorators, defaults and annotations run where the def is (a super() there is the enclosing
        # method's); only the body runs in the function's own frame.
        node.decorator_list = [self.visit(decorator) for decorator in node.decorator_list]
        node.args = self.visit(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        saved = self.first_argument
        arguments = node.args.posonlyargs + node.args.args
        self.first_argument = arguments[0].id if arguments else None
        node.body = self.visit_block(node.body)
        self.first_argument = saved
        return node

    def visit_Lambda(self, node):
        # A zero-argument super() in a lambda reads the lambda's own first argument, as in a def.
        saved = self.first_argument
        arguments = node.args.posonlyargs + node.args.args
        self.first_argument = arguments[0].id if arguments else None
        node.body = self.visit(node.body)   # defaults are evaluated at definition: left alone
        self.first_argument = saved
        return node

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if _is_exempt(node.func):
            if (isinstance(node.func, gast.Name) and node.func.id == 'super' and not node.args
                    and self.first_argument is not None):
                # Zero-argument super() needs the method's own frame; the code may move into a
                # nested body function, so name its arguments explicitly.
                return templates.replace_as_expression('super(__class__, self)', self=self.first_argument)
            return node
        if self.direct:
            method_call = _plain_method_call(node, self._pinned)
            if method_call is not None:
                return method_call
            if isinstance(node.func, gast.Name) and node.func.id in contract.PINNED_BUILTINS:
                # The builtin itself while the name holds it (see contract.PINNED_BUILTINS): no call of ours.
                node.func = templates.replace_as_expression(
                    '(func if func is pinned else ag__.call_target(func))', func=node.func,
                    pinned=self._pinned(node.func.id))
            else:
                node.func = templates.replace_as_expression('ag__.call_target(func)', func=node.func)
            return node
        args = templates.replace_as_expression('(args,)', args=node.args)
        if node.keywords:
            keys = [templates.literal(k.arg) if k.arg is not None else None for k in node.keywords]
            kwargs = templates.replace_as_expression('{keys: values}', keys=keys,
                                                     values=[k.value for k in node.keywords])
        else:
            kwargs = templates.literal(None)
        return templates.replace_as_expression('ag__.converted_call(func, args, kwargs)',
                                               func=node.func, args=args, kwargs=kwargs)
