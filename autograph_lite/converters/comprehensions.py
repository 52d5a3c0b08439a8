"""Comprehensions and generator expressions -> ``ag__.list_comp`` / ``generator_exp`` / ``set_comp`` /
``dict_comp`` over lambdas, so that one over a symbolic tensor becomes a staged loop (a stacked tensor):

    [v * 2 for v in t if v > 0]       ->  ag__.list_comp(lambda v: v * 2, t, lambda v: v > 0)
    {k: f(k) for k in keys}           ->  ag__.dict_comp(lambda k: (k, f(k)), keys)
    sum(a * b for a, b in pairs)      ->  sum(ag__.generator_exp(lambda a, b: a * b, pairs, target=('a', 'b')))
    [x * y for x in xs for y in ys]   ->  ag__.list_comp(lambda x: ag__.generator_exp(lambda y: x * y, ys), xs,
                                                         flatten=True)

The lambdas give the comprehension variables their own scope, as Python's comprehensions have, and the
first iterable is evaluated where the comprehension stands. A comprehension is left exactly as written
when a lambda could not keep Python's meaning: a closure (lambda or generator expression) inside it
that reads a comprehension variable (Python shares one cell per variable between all its iterations),
a walrus (it binds in the enclosing function), ``async for``/``await``, or a target that is not a name
or a tuple of names.
"""
import gast

from autograph_lite.pyct import nodes, templates
from autograph_lite.pyct.transformer import Transformer, binds_by_walrus, walrus_guard

_OPERATORS = {gast.ListComp: 'list_comp', gast.SetComp: 'set_comp', gast.GeneratorExp: 'generator_exp',
              gast.DictComp: 'dict_comp'}
_CLOSURES = (gast.Lambda, gast.GeneratorExp)


class ComprehensionTransformer(Transformer):

    def visit_ListComp(self, node):
        return self._convert(node)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp

    def _convert(self, node):
        if not _convertible(node):
            node = self.generic_visit(node)
            if binds_by_walrus([node]):   # stays Python's: a symbolic tensor to iterate is an error naming the walrus
                node.generators[0].iter = walrus_guard(node.generators[0].iter, 'comprehension', [node])
            return node
        node = self.generic_visit(node)   # inner comprehensions first
        if isinstance(node, gast.DictComp):
            element = gast.Tuple(elts=[node.key, node.value], ctx=gast.Load())
        else:
            element = node.elt
        operator = _OPERATORS[type(node)]
        # The innermost for clause makes the element; each clause outside it flattens the one inside.
        for position, generator in reversed(list(enumerate(node.generators))):
            innermost = position == len(node.generators) - 1
            name = operator if position == 0 else 'generator_exp'
            element = self._call(name, generator, element, flatten=not innermost)
        return element

    @staticmethod
    def _call(operator, generator, element, flatten):
        params, target = _parameters(generator.target)
        element_fn = _lambda(params, element)
        arguments = [element_fn, generator.iter]
        if generator.ifs:
            condition = generator.ifs[0] if len(generator.ifs) == 1 else gast.BoolOp(
                op=gast.And(), values=list(generator.ifs))
            arguments.append(_lambda(params, condition))
        keywords = []
        if target is not None:
            keywords.append(gast.keyword(arg='target', value=templates.literal(target)))
        if flatten:
            keywords.append(gast.keyword(arg='flatten', value=templates.literal(True)))
        call = templates.replace_as_expression(f'ag__.{operator}(arguments)', arguments=arguments)
        call.keywords = keywords
        return call


def _convertible(node) -> bool:
    targets = set()
    for generator in node.generators:
        if generator.is_async or _parameters(generator.target) is None:
            return False
        names = _parameters(generator.target)[0]
        if len(set(names)) != len(names):
            return False
        targets |= set(names)
    for part in nodes.walk(node):
        if isinstance(part, (gast.NamedExpr, gast.Await)):
            return False
        if part is not node and isinstance(part, _CLOSURES) and any(
                isinstance(n, gast.Name) and n.id in targets for n in nodes.walk(part)):
            return False
    return True


def _parameters(target):
    """(parameter names, the target literal or None) for a comprehension target; None if unsupported."""
    if isinstance(target, gast.Name):
        return [target.id], None
    if isinstance(target, (gast.Tuple, gast.List)):
        names, structure = [], []
        for item in target.elts:
            inner = _parameters(item)
            if inner is None:
                return None
            names += inner[0]
            structure.append(inner[1] if inner[1] is not None else inner[0][0])
        return names, tuple(structure)
    return None


def _lambda(params, body):
    return gast.Lambda(
        args=gast.arguments(args=[gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
                                  for p in params],
                            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body)
